//===- SymmetricHeap.cpp - Symmetric memory across ranks ------------------===//
#include "pkb/rt/SymmetricHeap.h"
#include "pkb/rt/Cuda.h"
#include "pkb/rt/Worker.h"

#include <fmt/format.h>

#include <cstdlib>
#include <cstring>
#include <unistd.h>

namespace pkb::rt {
namespace {
size_t roundUp(size_t X, size_t A) { return (X + A - 1) / A * A; }
} // namespace

support::Expected<std::unique_ptr<SymmetricHeap>>
SymmetricHeap::create(HubClient &C, int Device,
                      const std::vector<size_t> &BufferBytes,
                      size_t SignalPadBytes) {
  std::unique_ptr<SymmetricHeap> H(new SymmetricHeap());
  H->Rank = C.rank();
  H->World = C.worldSize();
  H->Device = Device;
  H->Sizes = BufferBytes;
  size_t Off = 0;
  for (size_t B : BufferBytes) {
    H->Offsets.push_back(Off);
    Off = roundUp(Off + std::max<size_t>(B, 1), 4096);
  }
  H->PadOffset = Off;
  H->PadBytes = SignalPadBytes;
  Off = roundUp(Off + SignalPadBytes, 4096);

  // Everyone must ask for the same layout.
  std::string Mine = fmt::format("{}", Off);
  for (size_t B : BufferBytes)
    Mine += fmt::format(",{}", B);
  auto All = C.allgather(Mine);
  for (int R = 0; R < H->World; ++R)
    if (All[static_cast<size_t>(R)] != Mine) {
      return support::fail(
          fmt::format("symmetric layout differs: rank {} asked for "
                      "[{}], rank {} for [{}]",
                      H->Rank, Mine, R, All[static_cast<size_t>(R)]));
    }

  const DriverApi &D = driverApi();
  const char *Want = std::getenv("PKB_SYMM_BACKEND");
  bool TryVmm = D.Ok && !(Want && std::string(Want) == "ipc");
  CUmemAllocationProp Prop{};
  Prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  Prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  Prop.location.id = Device;
  Prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
  size_t Gran = 0;
  CUmemGenericAllocationHandle Handle = 0;
  int Fd = -1;
  std::string VmmError;
  if (TryVmm) {
    CUresult R =
        D.Granularity(&Gran, &Prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED);
    if (R == CUDA_SUCCESS) {
      H->Region = roundUp(Off, Gran);
      R = D.MemCreate(&Handle, H->Region, &Prop, 0);
    }
    if (R == CUDA_SUCCESS) {
      R = D.MemExport(&Fd, Handle, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0);
      if (R != CUDA_SUCCESS) {
        D.MemRelease(Handle);
        Handle = 0;
      }
    }
    if (R != CUDA_SUCCESS) {
      VmmError = "VMM: " + driverErrorText(R);
      TryVmm = false;
    }
  } else {
    VmmError = D.Ok ? "VMM disabled by PKB_SYMM_BACKEND" : D.Error;
  }
  auto Votes = C.allgather(TryVmm ? "vmm" : "ipc");
  bool UseVmm = true;
  for (const auto &V : Votes)
    UseVmm &= V == "vmm";
  if (!UseVmm && TryVmm) {
    ::close(Fd);
    D.MemRelease(Handle);
    Handle = 0;
  }

  H->Bases.assign(static_cast<size_t>(H->World), nullptr);
  if (UseVmm) {
    H->Backend = "vmm-fd";
    std::vector<int> Fds;
    C.allgather("", {Fd}, &Fds);
    ::close(Fd);
    if (static_cast<int>(Fds.size()) != H->World) {
      return support::fail("symmetric heap: wrong number of file descriptors");
    }
    H->Handles.assign(static_cast<size_t>(H->World), 0);
    CUresult R = CUDA_SUCCESS;
    for (int P = 0; P < H->World && R == CUDA_SUCCESS; ++P) {
      if (P == H->Rank)
        H->Handles[static_cast<size_t>(P)] = Handle;
      else
        R = D.MemImport(&H->Handles[static_cast<size_t>(P)],
                        reinterpret_cast<void *>(static_cast<uintptr_t>(
                            Fds[static_cast<size_t>(P)])),
                        CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
    }
    for (int F : Fds)
      ::close(F);
    if (R != CUDA_SUCCESS) {
      return support::fail("cuMemImportFromShareableHandle: " +
                           driverErrorText(R));
    }
    R = D.AddressReserve(&H->Reservation, H->Region * H->World, Gran, 0, 0);
    if (R != CUDA_SUCCESS) {
      return support::fail("cuMemAddressReserve: " + driverErrorText(R));
    }
    for (int P = 0; P < H->World && R == CUDA_SUCCESS; ++P) {
      R = D.Map(H->Reservation + H->Region * P, H->Region, 0,
                H->Handles[static_cast<size_t>(P)], 0);
      if (R == CUDA_SUCCESS)
        ++H->Mapped;
      H->Bases[static_cast<size_t>(P)] =
          reinterpret_cast<void *>(H->Reservation + H->Region * P);
    }
    if (R != CUDA_SUCCESS) {
      return support::fail("cuMemMap: " + driverErrorText(R));
    }
    CUmemAccessDesc Acc{};
    Acc.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    Acc.location.id = Device;
    Acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    R = D.SetAccess(H->Reservation, H->Region * H->World, &Acc, 1);
    if (R != CUDA_SUCCESS) {
      return support::fail(
          "cuMemSetAccess (is peer access over NVLink/PCIe possible?): " +
          driverErrorText(R));
    }
  } else {
    H->Backend = "cuda-ipc";
    H->Region = roundUp(Off, 2u << 20);
    cudaError_t E = cudaMalloc(&H->Local, H->Region);
    cudaIpcMemHandle_t Mem{};
    if (E == cudaSuccess)
      E = cudaIpcGetMemHandle(&Mem, H->Local);
    std::string Blob(reinterpret_cast<const char *>(&Mem), sizeof(Mem));
    auto Handles = C.allgather(E == cudaSuccess ? Blob : std::string());
    if (E != cudaSuccess) {
      return support::fail(
          "cudaMalloc/cudaIpcGetMemHandle: " + cudaErrorText(E) +
          (VmmError.empty() ? "" : " (after " + VmmError + ")"));
    }
    for (int P = 0; P < H->World; ++P) {
      if (P == H->Rank) {
        H->Bases[static_cast<size_t>(P)] = H->Local;
        continue;
      }
      const std::string &B = Handles[static_cast<size_t>(P)];
      if (B.size() != sizeof(Mem)) {
        return support::fail(
            fmt::format("rank {} could not share its allocation", P));
      }
      cudaIpcMemHandle_t PH;
      std::memcpy(&PH, B.data(), sizeof(PH));
      E = cudaIpcOpenMemHandle(&H->Bases[static_cast<size_t>(P)], PH,
                               cudaIpcMemLazyEnablePeerAccess);
      if (E != cudaSuccess) {
        return support::fail(fmt::format("cudaIpcOpenMemHandle(rank {}): {}", P,
                                         cudaErrorText(E)));
      }
    }
  }

  // Poison the buffers, zero the pad, build the device tables.
  char *MyBase = static_cast<char *>(H->Bases[static_cast<size_t>(H->Rank)]);
  cudaError_t E = cudaMemset(MyBase, 0xFF, H->PadOffset);
  if (E == cudaSuccess)
    E = cudaMemset(MyBase + H->PadOffset, 0, H->Region - H->PadOffset);
  for (size_t I = 0; I < BufferBytes.size() && E == cudaSuccess; ++I) {
    std::vector<void *> T;
    for (int P = 0; P < H->World; ++P)
      T.push_back(static_cast<char *>(H->Bases[static_cast<size_t>(P)]) +
                  H->Offsets[I]);
    void **Dev = nullptr;
    E = cudaMalloc(reinterpret_cast<void **>(&Dev), sizeof(void *) * T.size());
    if (E == cudaSuccess)
      E = cudaMemcpy(Dev, T.data(), sizeof(void *) * T.size(),
                     cudaMemcpyHostToDevice);
    H->DevTables.push_back(Dev);
    H->HostTables.push_back(std::move(T));
  }
  if (E == cudaSuccess) {
    std::vector<uint32_t *> Pads;
    for (int P = 0; P < H->World; ++P)
      Pads.push_back(reinterpret_cast<uint32_t *>(
          static_cast<char *>(H->Bases[static_cast<size_t>(P)]) +
          H->PadOffset));
    E = cudaMalloc(reinterpret_cast<void **>(&H->DevPadTable),
                   sizeof(uint32_t *) * Pads.size());
    if (E == cudaSuccess)
      E = cudaMemcpy(H->DevPadTable, Pads.data(),
                     sizeof(uint32_t *) * Pads.size(), cudaMemcpyHostToDevice);
  }
  if (E == cudaSuccess)
    E = cudaDeviceSynchronize();
  if (E != cudaSuccess) {
    return support::fail("symmetric heap initialization: " + cudaErrorText(E));
  }
  C.barrier(); // every pad is zero before any peer may signal
  return H;
}

SymmetricHeap::~SymmetricHeap() {
  for (void **T : DevTables)
    cudaFree(T);
  cudaFree(DevPadTable);
  const DriverApi &D = driverApi();
  if (Backend == "vmm-fd") {
    for (size_t P = 0; P < Mapped; ++P)
      D.Unmap(Reservation + Region * P, Region);
    for (auto Hd : Handles)
      if (Hd)
        D.MemRelease(Hd);
    if (Reservation)
      D.AddressFree(Reservation, Region * World);
  } else {
    for (int P = 0; P < World; ++P)
      if (P != Rank && Bases[static_cast<size_t>(P)])
        cudaIpcCloseMemHandle(Bases[static_cast<size_t>(P)]);
    cudaFree(Local);
  }
}

void SymmetricHeap::fillContext(pkb_context &Ctx) const {
  Ctx.num_symm_buffers = static_cast<int32_t>(Sizes.size());
  for (size_t I = 0; I < Sizes.size() && I < PKB_MAX_SYMM_BUFFERS; ++I) {
    pkb_symm_buffer &B = Ctx.symm[I];
    B.local = HostTables[I][static_cast<size_t>(Rank)];
    B.peers = DevTables[I];
    B.peers_host = const_cast<void **>(HostTables[I].data());
    B.bytes = Sizes[I];
  }
  Ctx.signal_pad = reinterpret_cast<uint32_t *>(
      static_cast<char *>(Bases[static_cast<size_t>(Rank)]) + PadOffset);
  Ctx.signal_pads = DevPadTable;
  Ctx.signal_pad_bytes = PadBytes;
  Ctx.view.rank = Rank;
  Ctx.view.world_size = World;
  for (int P = 0; P < World && P < PKB_MAX_RANKS; ++P) {
    Ctx.view.peers[P] =
        Sizes.empty() ? nullptr : HostTables[0][static_cast<size_t>(P)];
    Ctx.view.signal_pads[P] = reinterpret_cast<uint32_t *>(
        static_cast<char *>(Bases[static_cast<size_t>(P)]) + PadOffset);
  }
}

} // namespace pkb::rt
