//===- HeapTest.cpp - The malloc heap of a per-file worker ----------------===//
//
// prepareWorkerHeap changes the process's malloc settings, so each test
// runs it in a forked child and reads the verdict from its exit status.
//
//===----------------------------------------------------------------------===//
#include "pkb/support/Heap.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <pthread.h>
#include <sstream>
#include <string>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace pkb::support;

namespace {

/// Runs \p Body in a forked child; its return value is the exit status.
int inChild(const std::function<int()> &Body) {
  pid_t P = ::fork();
  if (P == 0)
    ::_exit(Body());
  int Status = 0;
  ::waitpid(P, &Status, 0);
  return WIFEXITED(Status) ? WEXITSTATUS(Status) : 100;
}

/// The mapping of /proc/self/smaps that holds \p Addr: its name ("[heap]"
/// for the brk heap) and whether its VmFlags carry "hg" (MADV_HUGEPAGE).
struct Mapping {
  std::string Name;
  bool Huge = false;
};
Mapping mappingOf(uintptr_t Addr) {
  std::ifstream In("/proc/self/smaps");
  std::string Line;
  bool Inside = false;
  Mapping M;
  while (std::getline(In, Line)) {
    uintptr_t Lo = 0, Hi = 0;
    char Dash = 0;
    std::istringstream S(Line);
    if (S >> std::hex >> Lo >> Dash >> Hi && Dash == '-') {
      Inside = Addr >= Lo && Addr < Hi;
      if (Inside) {
        std::string Field;
        for (int I = 0; I < 4 && S >> Field; ++I) // perms offset dev inode
          ;
        S >> M.Name;
      }
      continue;
    }
    if (Inside && Line.rfind("VmFlags:", 0) == 0) {
      M.Huge = Line.find(" hg") != std::string::npos;
      return M;
    }
  }
  return M;
}

bool hugePagesOff() {
  std::ifstream In("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string S;
  std::getline(In, S);
  return S.empty() || S.find("[never]") != std::string::npos;
}

} // namespace

#if defined(__GLIBC__)
// The reserve is marked for huge pages, and a thread started afterwards
// (as the analysis thread is) allocates from it, not from an arena of its
// own.
TEST(WorkerHeap, ThreadsAllocateFromTheMarkedHeap) {
  if (hugePagesOff())
    GTEST_SKIP() << "transparent huge pages are off on this machine";
  int R = inChild([] {
    constexpr size_t Reserve = size_t(64) << 20;
    size_t Marked = prepareWorkerHeap(Reserve);
    if (Marked < Reserve / 2)
      return 1;
    struct Arg {
      char *Block = nullptr;
    } A;
    pthread_t T;
    auto Fn = [](void *P) -> void * {
      // Below the 32 MiB mmap threshold: from the heap. A thread with an
      // arena of its own would get it from that arena's mapping.
      static_cast<Arg *>(P)->Block = static_cast<char *>(std::malloc(8 << 20));
      return nullptr;
    };
    if (pthread_create(&T, nullptr, Fn, &A) != 0)
      return 2;
    pthread_join(T, nullptr);
    if (!A.Block)
      return 3;
    // Past the 2 MiB pages that held the old heap top and the headers.
    Mapping M = mappingOf(reinterpret_cast<uintptr_t>(A.Block) + (4 << 20));
    if (M.Name != "[heap]")
      return 3;
    if (!M.Huge)
      return 4;
    std::free(A.Block);
    return 0;
  });
  EXPECT_EQ(R, 0) << "1: nothing marked, 2: no thread, 3: the thread's "
                     "block is outside the heap, 4: not marked";
}

// A memory limit below the reserve: nothing is marked, malloc still works.
TEST(WorkerHeap, LimitBelowTheReserveMarksNothing) {
  int R = inChild([] {
    struct rlimit L{};
    ::getrlimit(RLIMIT_DATA, &L);
    // The 1 GiB the call asks for cannot fit under 512 MiB.
    L.rlim_cur = rlim_t(512) << 20;
    if (::setrlimit(RLIMIT_DATA, &L) != 0)
      return 1;
    if (prepareWorkerHeap(size_t(4) << 30) != 0)
      return 2;
    void *P = std::malloc(1 << 20);
    if (!P)
      return 3;
    std::free(P);
    return 0;
  });
  EXPECT_EQ(R, 0) << "1: setrlimit, 2: marked beyond the limit, 3: malloc";
}
#endif
