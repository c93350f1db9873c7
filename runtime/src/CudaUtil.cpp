//===- CudaUtil.cpp - CUDA helpers of the runtime -------------------------===//
#include "pkb/rt/Cuda.h"

#include <fmt/format.h>

#include <mutex>

namespace pkb::rt {

std::string cudaErrorText(cudaError_t E) {
  return fmt::format("{}: {}", cudaGetErrorName(E), cudaGetErrorString(E));
}

const DriverApi &driverApi() {
  static DriverApi D;
  static std::once_flag Once;
  std::call_once(Once, [] {
    bool Ok = true;
    auto Get = [&](const char *Name, auto &Fn) {
      void *P = nullptr;
      cudaDriverEntryPointQueryResult Q{};
      cudaError_t E = cudaGetDriverEntryPointByVersion(Name, &P, 12000,
                                                       cudaEnableDefault, &Q);
      if (E != cudaSuccess || !P || Q != cudaDriverEntryPointSuccess) {
        if (Ok)
          D.Error = fmt::format("driver entry point {} unavailable ({})", Name,
                                cudaErrorText(E));
        Ok = false;
        return;
      }
      Fn = reinterpret_cast<std::remove_reference_t<decltype(Fn)>>(P);
    };
    Get("cuMemCreate", D.MemCreate);
    Get("cuMemRelease", D.MemRelease);
    Get("cuMemExportToShareableHandle", D.MemExport);
    Get("cuMemImportFromShareableHandle", D.MemImport);
    Get("cuMemAddressReserve", D.AddressReserve);
    Get("cuMemAddressFree", D.AddressFree);
    Get("cuMemMap", D.Map);
    Get("cuMemUnmap", D.Unmap);
    Get("cuMemSetAccess", D.SetAccess);
    Get("cuMemGetAllocationGranularity", D.Granularity);
    Get("cuGetErrorName", D.ErrorName);
    D.Ok = Ok;
  });
  return D;
}

std::string driverErrorText(CUresult R) {
  const char *Name = nullptr;
  if (driverApi().ErrorName)
    driverApi().ErrorName(R, &Name);
  return fmt::format("{} ({})", Name ? Name : "CUDA driver error",
                     static_cast<int>(R));
}

} // namespace pkb::rt
