//===- pkb/rt/Cuda.h - CUDA helpers of the runtime --------------*- C++ -*-===//
//
// The runtime links the CUDA runtime statically and reaches the driver API
// (virtual memory management) through cudaGetDriverEntryPointByVersion, so
// binaries load on machines without a GPU driver (CPU-only CI).
//
//===----------------------------------------------------------------------===//
#ifndef PKB_RT_CUDA_H
#define PKB_RT_CUDA_H

#include "pkb/pkb_abi.h"

#include <cuda.h>
#include <cuda_runtime_api.h>

#include <string>

namespace pkb::rt {

/// "cudaErrorIllegalAddress: an illegal memory access was encountered".
std::string cudaErrorText(cudaError_t E);

/// Driver entry points used by the symmetric heap.
struct DriverApi {
  decltype(&::cuMemCreate) MemCreate = nullptr;
  decltype(&::cuMemRelease) MemRelease = nullptr;
  decltype(&::cuMemExportToShareableHandle) MemExport = nullptr;
  decltype(&::cuMemImportFromShareableHandle) MemImport = nullptr;
  decltype(&::cuMemAddressReserve) AddressReserve = nullptr;
  decltype(&::cuMemAddressFree) AddressFree = nullptr;
  decltype(&::cuMemMap) Map = nullptr;
  decltype(&::cuMemUnmap) Unmap = nullptr;
  decltype(&::cuMemSetAccess) SetAccess = nullptr;
  decltype(&::cuMemGetAllocationGranularity) Granularity = nullptr;
  decltype(&::cuGetErrorName) ErrorName = nullptr;
  bool Ok = false;
  std::string Error;
};

/// Resolves the entry points once (needs a CUDA driver); thread-safe.
const DriverApi &driverApi();

/// "CUDA_ERROR_INVALID_VALUE (1)".
std::string driverErrorText(CUresult R);

/// Fills N elements of a device buffer of element size ElemBytes (1, 2, 4 or
/// 8) with Pattern's low bytes, on Stream.
cudaError_t fillPattern(void *Data, size_t N, size_t ElemBytes,
                        uint64_t Pattern, cudaStream_t Stream);

/// Copies Bytes from Src to Dst with an SM kernel (16-byte loads/stores when
/// aligned), for peer-store bandwidth: Dst may be a peer's memory.
cudaError_t smCopy(void *Dst, const void *Src, size_t Bytes, int Blocks,
                   cudaStream_t Stream);

/// FP32 FMA throughput kernel: Blocks x 256 threads, Iters iterations of 8
/// independent FMAs each; writes one float per thread to Sink.
cudaError_t fmaKernel(float *Sink, int Blocks, int Iters, cudaStream_t Stream);

} // namespace pkb::rt

#endif // PKB_RT_CUDA_H
