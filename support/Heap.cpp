//===- Heap.cpp - The malloc heap of a per-file worker --------------------===//
#include "pkb/support/Heap.h"

#include <cstdint>
#include <cstdlib>
#include <unistd.h>
#if defined(__GLIBC__)
#include <malloc.h>
#include <sys/mman.h>
#endif

namespace pkb::support {

size_t prepareWorkerHeap(size_t ReserveBytes) {
#if defined(__GLIBC__) && defined(MADV_HUGEPAGE)
  constexpr size_t MiB = size_t(1) << 20;
  constexpr uintptr_t HugePage = 2 * MiB;
  // One arena: the analysis thread's allocations come from the brk heap
  // marked below instead of a fresh mmap'ed arena of its own.
  ::mallopt(M_ARENA_MAX, 1);
  // glibc's largest mmap threshold (HEAP_MAX_SIZE / 2 on 64-bit); setting
  // it also ends the dynamic threshold.
  ::mallopt(M_MMAP_THRESHOLD, int(32 * MiB));
  // Never give heap memory back: the worker exits after one file.
  ::mallopt(M_TRIM_THRESHOLD, int(1024 * MiB));
  if (ReserveBytes < 4 * HugePage)
    return 0;
  // Grow the heap by the reserve in one sbrk: a block larger than any free
  // space the parent's heap can have left at its top, with the reserve as
  // top pad. malloc touches only the block's header and the new top's (the
  // 2 MiB pages holding those two stay 4 KiB pages).
  constexpr size_t Block = 16 * MiB;
  auto *Before = static_cast<char *>(::sbrk(0));
  ::mallopt(M_TOP_PAD,
            int(ReserveBytes > 1024 * MiB ? 1024 * MiB : ReserveBytes));
  void *P = std::malloc(Block);
  auto *After = static_cast<char *>(::sbrk(0));
  ::mallopt(M_TOP_PAD, int(64 * MiB));
  size_t Marked = 0;
  if (P && Before != reinterpret_cast<char *>(-1) && After > Before) {
    uintptr_t Lo = (reinterpret_cast<uintptr_t>(Before) + HugePage) &
                   ~(HugePage - 1); // past the 2 MiB page with the headers
    uintptr_t Hi = reinterpret_cast<uintptr_t>(After) & ~(HugePage - 1);
    if (Hi > Lo &&
        ::madvise(reinterpret_cast<void *>(Lo), Hi - Lo, MADV_HUGEPAGE) == 0)
      Marked = Hi - Lo;
  }
  std::free(P);
  return Marked;
#else
  (void)ReserveBytes;
  return 0;
#endif
}

} // namespace pkb::support
