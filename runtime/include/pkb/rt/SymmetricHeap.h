//===- pkb/rt/SymmetricHeap.h - Symmetric memory across ranks ---*- C++ -*-===//
//
// Each rank allocates one region with the CUDA virtual memory management API
// (cuMemCreate with CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR; CUDA Driver
// API, "Virtual Memory Management"), exports it as a file descriptor, sends
// it to every peer through the hub (SCM_RIGHTS), imports every peer's region
// and maps all of them into one contiguous reservation with read/write
// access for the local GPU. When VMM is unavailable on any rank (or
// PKB_SYMM_BACKEND=ipc), every rank falls back to cudaMalloc + CUDA IPC
// handles. The region holds the symmetric buffers followed by the signal
// pad; the pad is zeroed and every rank passes a barrier before returning.
//
//===----------------------------------------------------------------------===//
#ifndef PKB_RT_SYMMETRICHEAP_H
#define PKB_RT_SYMMETRICHEAP_H

#include "pkb/pkb_abi.h"
#include "pkb/support/Expected.h"

#include <memory>
#include <string>
#include <vector>

namespace pkb::rt {

class HubClient;

class SymmetricHeap {
public:
  /// Collective over all ranks of C. BufferBytes must be equal on every
  /// rank (checked). Buffers are filled with 0xFF bytes (NaN for floats):
  /// candidates must not rely on zero-initialized symmetric buffers. On
  /// failure the error says which step failed (layout mismatch, VMM or IPC
  /// call, initialization).
  static support::Expected<std::unique_ptr<SymmetricHeap>>
  create(HubClient &C, int Device, const std::vector<size_t> &BufferBytes,
         size_t SignalPadBytes);
  ~SymmetricHeap();

  /// Fills ctx->symm, num_symm_buffers, signal_pad(s), view.
  void fillContext(pkb_context &Ctx) const;
  /// "vmm-fd" or "cuda-ipc".
  const std::string &backend() const { return Backend; }
  /// Base of rank R's region as mapped here.
  void *peerBase(int R) const { return Bases[static_cast<size_t>(R)]; }
  size_t regionBytes() const { return Region; }

private:
  SymmetricHeap() = default;
  std::string Backend;
  int Rank = 0, World = 1, Device = 0;
  size_t Region = 0, Mapped = 0;
  std::vector<size_t> Offsets, Sizes;
  size_t PadOffset = 0, PadBytes = 0;
  std::vector<void *> Bases;
  // VMM state
  unsigned long long Reservation = 0;
  std::vector<unsigned long long> Handles;
  // IPC state
  void *Local = nullptr;
  // Device tables: one per buffer plus the pad table.
  std::vector<void **> DevTables;
  std::vector<std::vector<void *>> HostTables;
  uint32_t **DevPadTable = nullptr;
};

} // namespace pkb::rt

#endif // PKB_RT_SYMMETRICHEAP_H
