// harness.cu - runs one corpus kernel on W GPUs of one host from a single
// process and checks its results against a CPU reference.
//
// Build (one binary per corpus file; the test is selected by -DT_<NAME>):
//   nvcc -std=c++17 -arch=sm_90a -I runtime/include -DT_C02 \
//        -DCORPUS_FILE='"../../correct/c02_allreduce_twoshot_ptx.cu"' harness.cu -o c02
// Run:  ./c02 [min_W [max_W [n]]]   (exit 0 = every case behaved as expected)
//
// Every case runs K calls back to back with no host synchronization between
// them, with a random per-rank delay before each call (so ranks drift apart),
// fresh input/output buffers per call, outputs pre-filled with NaN (so an
// unwritten element is caught), and a 20 s watchdog (a deadlock is reported,
// the process then exits and the driver tears the context down). Buggy-file
// tests state what they expect (a deadlock, a gap) and pass when it happens.
// Never used with multimem kernels: NVLink multicast must stay off.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <thread>
#include <vector>

#include CORPUS_FILE

namespace hx {

#define HX_CHECK(x)                                                            \
  do {                                                                         \
    cudaError_t e_ = (x);                                                      \
    if (e_ != cudaSuccess) {                                                   \
      std::printf("CUDA error %s at %s:%d\n", cudaGetErrorString(e_),         \
                  __FILE__, __LINE__);                                         \
      std::exit(3);                                                            \
    }                                                                          \
  } while (0)

constexpr size_t kPadBytes = 2048;  // torch symm_mem default: 512 words

/// One process's view of W ranks (rank r = device r).
struct World {
  int W = 0;
  std::vector<cudaStream_t> s;
  std::vector<uint32_t*> pad;
  std::vector<uint32_t**> pads_tab;  // device table of W pad pointers, per rank
  std::vector<int64_t*> pad_addr;    // same as int64 addresses, per rank
  std::vector<void*> buf[2];         // up to two symmetric buffers
  std::vector<void**> buf_tab[2];
  std::vector<int64_t*> buf_addr[2];
};

template <class T> T* table_on(int dev, const std::vector<T>& host) {
  HX_CHECK(cudaSetDevice(dev));
  T* d = nullptr;
  HX_CHECK(cudaMalloc(&d, host.size() * sizeof(T)));
  HX_CHECK(cudaMemcpy(d, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}

World make_world(int W, size_t bytes0, size_t bytes1 = 0) {
  World w;
  w.W = W;
  w.s.resize(W);
  for (int r = 0; r < W; ++r) {
    HX_CHECK(cudaSetDevice(r));
    for (int q = 0; q < W; ++q) {
      if (q == r) continue;
      cudaError_t e = cudaDeviceEnablePeerAccess(q, 0);
      if (e != cudaSuccess && e != cudaErrorPeerAccessAlreadyEnabled) HX_CHECK(e);
      cudaGetLastError();
    }
    HX_CHECK(cudaStreamCreateWithFlags(&w.s[r], cudaStreamNonBlocking));
    uint32_t* p = nullptr;
    HX_CHECK(cudaMalloc(&p, kPadBytes));
    HX_CHECK(cudaMemset(p, 0, kPadBytes));
    w.pad.push_back(p);
    for (int b = 0; b < 2; ++b) {
      const size_t bytes = b == 0 ? bytes0 : bytes1;
      void* q = nullptr;
      HX_CHECK(cudaMalloc(&q, bytes ? bytes : 16));
      HX_CHECK(cudaMemset(q, 0, bytes ? bytes : 16));
      w.buf[b].push_back(q);
    }
  }
  std::vector<int64_t> pad_a;
  for (auto* p : w.pad) pad_a.push_back((int64_t)(uintptr_t)p);
  for (int r = 0; r < W; ++r) {
    w.pads_tab.push_back(table_on(r, w.pad));
    w.pad_addr.push_back(table_on(r, pad_a));
    for (int b = 0; b < 2; ++b) {
      w.buf_tab[b].push_back(table_on(r, w.buf[b]));
      std::vector<int64_t> a;
      for (auto* q : w.buf[b]) a.push_back((int64_t)(uintptr_t)q);
      w.buf_addr[b].push_back(table_on(r, a));
    }
  }
  for (int r = 0; r < W; ++r) {
    HX_CHECK(cudaSetDevice(r));
    HX_CHECK(cudaDeviceSynchronize());
  }
  return w;
}

#ifdef PKB_ABI_H
pkb_peer_view view_of(const World& w, int r) {
  pkb_peer_view v;
  std::memset(&v, 0, sizeof(v));
  v.rank = r;
  v.world_size = w.W;
  for (int q = 0; q < w.W; ++q) {
    v.peers[q] = w.buf[0][q];
    v.signal_pads[q] = w.pad[q];
  }
  return v;
}
#endif

__global__ void spin_ns(uint64_t ns) {
  uint64_t t0, t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  } while (t - t0 < ns);
}

/// Per-(rank, call) device arrays of T, filled from the host or with NaN bytes.
template <class T> struct PerCall {
  std::vector<std::vector<T*>> d;   // [rank][call]
  std::vector<std::vector<std::vector<T>>> h;
  void make(int W, int K, size_t n) {
    d.assign(W, std::vector<T*>(K, nullptr));
    h.assign(W, std::vector<std::vector<T>>(K, std::vector<T>(n)));
    for (int r = 0; r < W; ++r) {
      HX_CHECK(cudaSetDevice(r));
      for (int k = 0; k < K; ++k) {
        HX_CHECK(cudaMalloc(&d[r][k], n ? n * sizeof(T) : 16));
        HX_CHECK(cudaMemset(d[r][k], 0xFF, n ? n * sizeof(T) : 16));
      }
    }
  }
  void upload() {
    for (size_t r = 0; r < d.size(); ++r) {
      HX_CHECK(cudaSetDevice((int)r));
      for (size_t k = 0; k < d[r].size(); ++k)
        if (!h[r][k].empty())
          HX_CHECK(cudaMemcpy(d[r][k], h[r][k].data(), h[r][k].size() * sizeof(T), cudaMemcpyHostToDevice));
    }
  }
  void download() {
    for (size_t r = 0; r < d.size(); ++r) {
      HX_CHECK(cudaSetDevice((int)r));
      for (size_t k = 0; k < d[r].size(); ++k)
        if (!h[r][k].empty())
          HX_CHECK(cudaMemcpy(h[r][k].data(), d[r][k], h[r][k].size() * sizeof(T), cudaMemcpyDeviceToHost));
    }
  }
};

inline float val(int r, int k, int64_t i) { return (float)((r * 7 + k * 13 + i * 3) % 17 - 8); }

enum class Outcome { Done, Deadlock, Error };

/// Launches K calls on every rank (random skew before each), then waits.
Outcome run_calls(World& w, int K, const std::function<void(int, int, cudaStream_t)>& launch,
                  std::mt19937& rng, double timeout_s = 20.0) {
  std::uniform_int_distribution<int> skew(0, 300000);
  for (int k = 0; k < K; ++k)
    for (int r = 0; r < w.W; ++r) {
      HX_CHECK(cudaSetDevice(r));
      spin_ns<<<1, 1, 0, w.s[r]>>>((uint64_t)skew(rng));
      launch(r, k, w.s[r]);
      cudaError_t e = cudaGetLastError();
      if (e != cudaSuccess) {
        std::printf("  launch error: %s\n", cudaGetErrorString(e));
        return Outcome::Error;
      }
    }
  auto t0 = std::chrono::steady_clock::now();
  for (;;) {
    bool all = true;
    for (int r = 0; r < w.W; ++r) {
      cudaError_t e = cudaStreamQuery(w.s[r]);
      if (e == cudaErrorNotReady) {
        all = false;
      } else if (e != cudaSuccess) {
        std::printf("  stream error on rank %d: %s\n", r, cudaGetErrorString(e));
        return Outcome::Error;
      }
    }
    if (all) return Outcome::Done;
    if (std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() > timeout_s)
      return Outcome::Deadlock;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

/// Compares; NaN in `got` (never written) always mismatches.
template <class T> bool same(const std::vector<T>& got, const std::vector<float>& want, const char* what,
                             int r, int k, float tol = 0.f) {
  for (size_t i = 0; i < want.size(); ++i) {
    const float g = (float)got[i];
    if (!(std::fabs(g - want[i]) <= tol)) {
      std::printf("  mismatch %s rank %d call %d index %zu: got %g want %g\n", what, r, k, i, g, want[i]);
      return false;
    }
  }
  return true;
}

}  // namespace hx

using namespace hx;

extern bool g_poisoned;

// tests.inc defines TEST_NAME and bool run_case(int W, int64_t n, int K,
// std::mt19937& rng), true when the case behaved as expected.
#include "tests.inc"

bool g_poisoned = false;  // set by a case that left a kernel spinning on purpose

int main(int argc, char** argv) {
  int ndev = 0;
  HX_CHECK(cudaGetDeviceCount(&ndev));
  int minW = argc > 1 ? std::atoi(argv[1]) : 2;
  int maxW = argc > 2 ? std::atoi(argv[2]) : ndev;
  const int64_t only_n = argc > 3 ? std::atoll(argv[3]) : -1;
  if (maxW > ndev) maxW = ndev;
  std::mt19937 rng(12345);
  const int64_t sizes[] = {0, 1, 5, 1000, 65537, 1000003};
  const int K = 4;
  int failures = 0, cases = 0;
  for (int W = minW; W <= maxW; ++W)
    for (int64_t n : sizes) {
      if (only_n >= 0 && n != only_n) continue;
      const bool ok = run_case(W, n, K, rng);
      ++cases;
      std::printf("%s %s W=%d n=%lld\n", ok ? "PASS" : "FAIL", TEST_NAME, W, (long long)n);
      std::fflush(stdout);
      if (!ok) ++failures;
      if (!ok || g_poisoned) {  // a hung or faulted kernel poisons the devices
        std::printf("%s: stopping after this case (%s)\n", TEST_NAME,
                    g_poisoned ? "expected hang left a kernel running" : "failure");
        std::fflush(stdout);
        std::_Exit(failures ? 1 : 0);
      }
    }
  std::printf("%s: %d cases, %s\n", TEST_NAME, cases, failures ? "FAILED" : "all as expected");
  std::fflush(stdout);
  std::_Exit(failures ? 1 : 0);
}
