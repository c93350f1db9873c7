//===- pkb/support/Heap.h - A per-file worker's heap ------------*- C++ -*-===//
//
// A forked per-file worker (app/ProcessPool.cpp) lives for one file and
// allocates a few hundred MiB (Clang's AST, Z3's term tables) into pages it
// has never touched. On a virtual machine every first touch of a 4 KiB
// page is a trap into the hypervisor: measured on the project's CPU
// machine, 64 MiB touched page by page cost 0.23 s, the same with
// transparent huge pages 6 ms (docs/performance.md, "State on 2026-11-28
// (fourth session)"). This helper gives the worker's heap huge pages once,
// before the analysis starts.
//
//===----------------------------------------------------------------------===//
#ifndef PKB_SUPPORT_HEAP_H
#define PKB_SUPPORT_HEAP_H

#include <cstddef>

namespace pkb::support {

/// Prepares the calling process's malloc heap for one short-lived,
/// allocation-heavy task. Call it in a freshly forked child, on its only
/// thread, before any other thread starts. glibc hands a new thread an
/// arena that an exited thread left behind before it applies the arena
/// limit, so where the parent ran allocating threads the child's threads
/// may still use their arenas (the huge pages are then lost for them, not
/// correctness); pkbcheck's driver forks its workers from its only thread.
///
/// With glibc: every thread allocates from the main (brk) heap
/// (M_ARENA_MAX 1), blocks up to 32 MiB come from it too
/// (M_MMAP_THRESHOLD, glibc's maximum), freed memory stays in it
/// (M_TRIM_THRESHOLD), and the heap is grown once by \p ReserveBytes (at
/// most 1 GiB) of untouched address space that is marked for transparent huge
/// pages (madvise(2) MADV_HUGEPAGE, the same as glibc's
/// `glibc.malloc.hugetlb=1` tunable does for the memory it takes from the
/// system). Nothing is touched, so the resident set grows only as the task uses
/// memory, in 2 MiB pages where the kernel has them (transparent_hugepage
/// "madvise" or "always"; with "never" the pages stay 4 KiB and only the malloc
/// settings apply).
///
/// Returns the bytes marked for huge pages: 0 when \p ReserveBytes is under
/// 8 MiB, the heap could not grow (RLIMIT_DATA, no memory), madvise failed,
/// or the C library is not glibc. The process is usable in every case.
size_t prepareWorkerHeap(size_t ReserveBytes);

} // namespace pkb::support

#endif // PKB_SUPPORT_HEAP_H
