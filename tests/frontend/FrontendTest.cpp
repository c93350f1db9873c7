//===- FrontendTest.cpp - Kernel model extraction -------------------------===//
//
// Exact role inference, events (orders, scopes, widths, guards, loops, spin
// waits, inline PTX, inlined calls, templates), launch sites, .py location
// mapping, toolkit vs shim mode and a missing include. All parse with the
// bundled shims unless a test says otherwise.
//
//===----------------------------------------------------------------------===//
#include "FrontendTestUtil.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <map>

using namespace pkb;
using pkb::test::cudaUnit;
using pkb::test::shimOptions;
using pkb::test::summary;

namespace {

FrontendResult build(const std::string &Src) {
  return buildModels(cudaUnit(Src), shimOptions());
}

const KernelModel &kernel(const FrontendResult &R, const std::string &Name) {
  for (const KernelModel &K : R.Module.Kernels)
    if (K.Name == Name)
      return K;
  static KernelModel Empty;
  ADD_FAILURE() << "no kernel " << Name;
  return Empty;
}

/// The indices of \p K's stores (into \p Base when given), as text.
std::vector<std::string> storeIndices(const KernelModel &K,
                                      const std::string &Base = {}) {
  std::vector<std::string> Got;
  for (const Event &E : K.Events)
    if (E.Kind == EventKind::Store && (Base.empty() || E.Addr.Base == Base))
      Got.push_back(E.Addr.Index->str());
  return Got;
}

/// \p K's exact local values (KernelModel::LocalDefs), as text.
std::map<std::string, std::string> localDefs(const KernelModel &K) {
  std::map<std::string, std::string> Defs;
  for (const auto &[Name, V] : K.LocalDefs)
    Defs[Name] = V->str();
  return Defs;
}

std::vector<std::string> summaries(const KernelModel &K) {
  std::vector<std::string> S;
  for (const Event &E : K.Events)
    S.push_back(summary(E));
  return S;
}

ParamRole role(const KernelModel &K, const std::string &P) {
  const Param *X = K.findParam(P);
  EXPECT_NE(X, nullptr) << P;
  return X ? X->Role : ParamRole::Unknown;
}

} // namespace

TEST(FrontendRoles, RawPointerTables) {
  FrontendResult R = build(R"(#include <stdint.h>
__global__ void k(float** peers, uint32_t** signal_pads, void** raw,
                  const float* in, int* flags, int my_rank, int nranks,
                  int64_t numel, float alpha) {}
)");
  ASSERT_TRUE(R.Parsed);
  const KernelModel &K = kernel(R, "k");
  EXPECT_EQ(role(K, "peers"), ParamRole::PeerTable);
  EXPECT_EQ(role(K, "signal_pads"), ParamRole::SignalPadTable);
  EXPECT_EQ(role(K, "raw"), ParamRole::PeerTable);
  EXPECT_EQ(role(K, "in"), ParamRole::LocalBuffer);
  EXPECT_EQ(role(K, "flags"), ParamRole::SignalPad);
  EXPECT_EQ(role(K, "my_rank"), ParamRole::Rank);
  EXPECT_EQ(role(K, "nranks"), ParamRole::WorldSize);
  EXPECT_EQ(role(K, "numel"), ParamRole::ElementCount);
  EXPECT_EQ(role(K, "alpha"), ParamRole::Scalar);
  EXPECT_EQ(K.findParam("peers")->ElemBytes, 4u);
  EXPECT_EQ(K.findParam("in")->ElemBytes, 4u);
}

TEST(FrontendRoles, AddressTableAndSpinPolledPad) {
  FrontendResult R = build(R"(#include <stdint.h>
__global__ void k(const uint64_t* tbl, unsigned* box, int rank, int ws) {
  float* p = reinterpret_cast<float*>(tbl[(rank + 1) % ws]);
  p[threadIdx.x] = 1.0f;
  while (*(volatile unsigned*)box == 0) {}
}
)");
  const KernelModel &K = kernel(R, "k");
  EXPECT_EQ(role(K, "tbl"), ParamRole::PeerTable);
  EXPECT_EQ(role(K, "box"), ParamRole::SignalPad);
  EXPECT_EQ(K.findParam("box")->Why, "polled in a spin loop (line 5)");
  ASSERT_EQ(K.Events.size(), 2u);
  EXPECT_EQ(summary(K.Events[0]),
            "L4 store w4 tbl[(rank + 1) % world_size]{tid.x} peer");
  EXPECT_EQ(summary(K.Events[1]),
            "L5 spin_wait volatile sys w4 box{0} global exit != 0");
}

TEST(FrontendRoles, PeerViewAbi) {
  FrontendResult R = build(R"(#include "pkb/pkb_abi.h"
__global__ void k(pkb_peer_view v, int64_t n) {
  if (threadIdx.x < v.world_size)
    v.signal_pads[threadIdx.x][v.rank] = 1;
  float* mine = static_cast<float*>(v.peers[v.rank]);
  mine[threadIdx.x] = 0.f;
}
)");
  ASSERT_TRUE(R.Parsed);
  const KernelModel &K = kernel(R, "k");
  EXPECT_EQ(role(K, "v"), ParamRole::Context);
  EXPECT_EQ(role(K, "v.rank"), ParamRole::Rank);
  EXPECT_EQ(role(K, "v.world_size"), ParamRole::WorldSize);
  EXPECT_EQ(role(K, "v.peers"), ParamRole::PeerTable);
  EXPECT_EQ(role(K, "v.signal_pads"), ParamRole::SignalPadTable);
  EXPECT_EQ(role(K, "n"), ParamRole::ElementCount);
  EXPECT_EQ(summaries(K), (std::vector<std::string>{
                              "L4 store w4 v.signal_pads[tid.x]{rank} peer",
                              "L6 store w4 v.peers[rank]{tid.x} peer"}));
  EXPECT_EQ(K.Events[0].Guard.size(), 1u);
  EXPECT_EQ(K.Events[0].Guard[0]->str(), "tid.x < world_size");
}

/// An argument struct that holds the ABI's peer view (tests/blind's
/// 6_gather style): its fields are flattened one level down, and the view
/// passed on to a helper keeps them.
TEST(FrontendRoles, PeerViewInsideAnArgumentStruct) {
  FrontendResult R = build(R"(#include "pkb/pkb_abi.h"
struct Args { pkb_peer_view view; size_t n; unsigned epoch; };
__device__ void post(const pkb_peer_view &v, unsigned e) {
  v.signal_pads[0][v.rank] = e;
}
__global__ void k(Args a, const float* x) {
  float* root = static_cast<float*>(a.view.peers[0]);
  root[a.view.rank * a.n + threadIdx.x] = x[threadIdx.x];
  __syncthreads();
  if (threadIdx.x == 0) post(a.view, a.epoch);
}
)");
  ASSERT_TRUE(R.Parsed);
  const KernelModel &K = kernel(R, "k");
  EXPECT_EQ(role(K, "a"), ParamRole::Scalar);
  EXPECT_EQ(role(K, "a.view"), ParamRole::Context);
  EXPECT_EQ(role(K, "a.view.rank"), ParamRole::Rank);
  EXPECT_EQ(role(K, "a.view.world_size"), ParamRole::WorldSize);
  EXPECT_EQ(role(K, "a.view.peers"), ParamRole::PeerTable);
  EXPECT_EQ(role(K, "a.view.signal_pads"), ParamRole::SignalPadTable);
  EXPECT_EQ(summaries(K),
            (std::vector<std::string>{
                "L8 load w4 x{tid.x} global",
                "L8 store w4 a.view.peers[0]{(rank * param:a.n) + tid.x} peer",
                "L9 barrier block",
                "L10 store w4 a.view.signal_pads[0]{rank} peer"}));
}

TEST(FrontendEvents, MemberFunctionsOfALocalHandleObjectSeeItsFields) {
  // A channel handle set up in the kernel: its member functions reach the
  // fields through `this` (explicit and implicit), and a helper given the
  // object sees them too. A member function called on a by-value argument
  // struct reads its flattened fields.
  FrontendResult R = build(R"(#include "pkb/pkb_abi.h"
struct Chan {
  unsigned *flag;
  float *buf;
  unsigned step;
  __device__ void post(unsigned v) const { *this->flag = v + step; }
  __device__ void put(int i, float x) const { buf[i] = x; }
};
struct Args { pkb_peer_view view; unsigned n;
  __device__ unsigned count() const { return n; } };
__device__ void twice(const Chan &c, float x) { c.put(1, x); }
__global__ void k(Args a) {
  int r = a.view.rank, next = (r + 1) % a.view.world_size;
  Chan c;
  c.flag = a.view.signal_pads[next] + 3;
  c.buf = static_cast<float *>(a.view.peers[next]);
  c.step = 2;
  c.put(threadIdx.x, 1.0f);
  twice(c, 2.0f);
  c.step += 1;
  Chan d = c; // a copy: its step is its own
  d.step = 7;
  if (threadIdx.x == 0) c.post(a.count());
}
)");
  ASSERT_TRUE(R.Parsed);
  const KernelModel &K = kernel(R, "k");
  std::vector<std::string> S = summaries(K);
  ASSERT_EQ(S.size(), 3u) << ::testing::PrintToString(S);
  // One-event member functions report at their call sites.
  EXPECT_EQ(S[0],
            "L18 store w4 a.view.peers[(rank + 1) % world_size]{tid.x} peer");
  EXPECT_EQ(S[1], "L19 store w4 a.view.peers[(rank + 1) % world_size]{1} peer");
  EXPECT_EQ(S[2],
            "L23 store w4 a.view.signal_pads[(rank + 1) % world_size]{3} peer");
  // `c.step += 1` made the step a value the model does not fold; the copy's
  // `d.step = 7` does not change it.
  const Event &Post = K.Events.back();
  ASSERT_TRUE(Post.Value);
  EXPECT_NE(Post.Value->str().find("param:a.n"), std::string::npos)
      << Post.Value->str();
  EXPECT_NE(Post.Value->str().find("local:c.step"), std::string::npos)
      << Post.Value->str();
}

TEST(FrontendEvents, AtomicsFencesBarriers) {
  FrontendResult R = build(R"(#include <cuda/atomic>
#include <cuda_bf16.h>
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
__global__ void k(unsigned* f, int4* v, __nv_bfloat162* h) {
  atomicAdd(f, 1u);
  atomicAdd_system(f, 1u);
  atomicCAS_block(f, 0u, 1u);
  __threadfence_block();
  __threadfence();
  __threadfence_system();
  cuda::atomic_ref<unsigned, cuda::thread_scope_system> r(f[1]);
  r.store(2u, cuda::std::memory_order_release);
  (void)r.load(cuda::std::memory_order_acquire);
  cuda::atomic_ref<unsigned, cuda::thread_scope_device>(f[2]).fetch_add(1u);
  cuda::atomic_thread_fence(cuda::std::memory_order_acq_rel,
                            cuda::thread_scope_device);
  __atomic_store_n(f + 3, 1u, __ATOMIC_RELEASE);
  __syncthreads();
  __syncwarp();
  cg::this_grid().sync();
  cg::thread_block b = cg::this_thread_block();
  b.sync();
  v[threadIdx.x] = v[0];
  h[1] = h[0];
}
)");
  ASSERT_TRUE(R.Parsed);
  EXPECT_EQ(
      summaries(kernel(R, "k")),
      (std::vector<std::string>{
          "L6 atomic relaxed gpu w4 add f{0} global",
          "L7 atomic relaxed sys w4 add f{0} global",
          "L8 atomic relaxed cta w4 cas f{0} global", "L9 fence seq_cst cta",
          "L10 fence seq_cst gpu", "L11 fence seq_cst sys",
          "L13 store release sys w4 f{1} global",
          "L14 load acquire sys w4 f{1} global",
          "L15 atomic seq_cst gpu w4 add f{2} global", "L16 fence acq_rel gpu",
          "L18 store release sys w4 f{3} global", "L19 barrier block",
          "L20 barrier warp", "L21 barrier grid", "L23 barrier block",
          "L24 load w16 v{0} global", "L24 store w16 v{tid.x} global",
          "L25 load w4 h{0} global", "L25 store w4 h{1} global"}));
}

TEST(FrontendEvents, GuardsReturnsAndLoops) {
  FrontendResult R = build(R"(
__global__ void k(float* out, const float* in, int n, int rank) {
  if (rank == 0) return;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x)
    out[i] = in[i];
  for (int j = n; j >= 1; --j)
    out[j] = 0;
}
)");
  const KernelModel &K = kernel(R, "k");
  ASSERT_EQ(K.Loops.size(), 2u);
  EXPECT_EQ(K.Loops[0].InductionVar, "i");
  EXPECT_EQ(K.Loops[0].Init->str(), "(bid.x * bdim.x) + tid.x");
  EXPECT_EQ(K.Loops[0].Bound->str(), "param:n");
  EXPECT_EQ(K.Loops[0].Step->str(), "bdim.x * gdim.x");
  EXPECT_TRUE(K.Loops[0].Ascending);
  EXPECT_EQ(K.Loops[1].Bound->str(), "0");
  EXPECT_EQ(K.Loops[1].Step->str(), "-1");
  EXPECT_FALSE(K.Loops[1].Ascending);
  ASSERT_EQ(K.Events.size(), 4u);
  EXPECT_EQ(K.Events[0].Kind, EventKind::Return);
  EXPECT_EQ(K.Events[0].Guard[0]->str(), "rank == 0");
  EXPECT_EQ(summary(K.Events[1]), "L6 load w4 in{loop:0} global");
  ASSERT_EQ(K.Events[2].Guard.size(), 1u);
  EXPECT_EQ(K.Events[2].Guard[0]->str(), "rank != 0");
  EXPECT_EQ(K.Events[2].Loops, std::vector<unsigned>{0});
  EXPECT_EQ(summary(K.Events[3]), "L8 store w4 out{loop:1} global");
}

TEST(FrontendEvents, InlinePtxSpinAndInlining) {
  FrontendResult R = build(R"(#include <stdint.h>
__device__ uint32_t ld_acq(const uint32_t* p) {
  uint32_t v;
  asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
__device__ void signal(uint32_t* p, uint32_t v) {
  asm volatile("st.release.sys.global.u32 [%0], %1;" :: "l"(p), "r"(v) : "memory");
}
__global__ void k(uint32_t** pads, float* mc, int rank, int world_size) {
  if (threadIdx.x < world_size) {
    signal(pads[threadIdx.x] + rank, 1);
    while (ld_acq(pads[rank] + threadIdx.x) != 1) {}
  }
  uint32_t x;
  do { x = ld_acq(pads[rank]); } while (x < 5);
  asm volatile("multimem.red.release.sys.global.add.f32 [%0], %1;" :: "l"(mc), "f"(1.0f) : "memory");
}
)");
  const KernelModel &K = kernel(R, "k");
  EXPECT_EQ(summaries(K),
            (std::vector<std::string>{
                // A one-event wrapper's event is at the call site.
                "L12 store release sys w4 pads[tid.x]{rank} peer",
                "L13 spin_wait acquire sys w4 pads[rank]{tid.x} peer exit == 1",
                "L16 spin_wait acquire sys w4 pads[rank]{0} peer exit >= 5",
                "L17 reduction release sys w4 add mc{0} multicast"}));
  EXPECT_EQ(K.Events[0].InlinedFrom, std::vector<std::string>{"signal"});
  EXPECT_EQ(K.Events[0].InstLoc.Line, 8u);
  EXPECT_EQ(K.Events[0].Value->str(), "1");
  EXPECT_EQ(K.Events[1].Guard[0]->str(), "tid.x < world_size");
  EXPECT_TRUE(K.Events[1].Loops.empty());
  EXPECT_EQ(role(K, "mc"), ParamRole::Multicast);
}

TEST(FrontendEvents, NamedBarrierOperandsThroughAHelper) {
  // `bar.sync %0, %1` inside a helper: the id and thread count are the
  // values of the asm operands at each call; literals are read directly.
  FrontendResult R = build(R"(
__device__ __forceinline__ void namedBarrier(int Id, int Count) {
  asm volatile("bar.sync %0, %1;" ::"r"(Id), "r"(Count) : "memory");
}
__global__ void k(float *y, int n) {
  if (threadIdx.x < 256)
    namedBarrier(1, 256);
  else
    namedBarrier(2, blockDim.x - 256);
  asm volatile("barrier.cta.sync 3, 64;" ::: "memory");
  asm volatile("bar.sync 4, %0;" ::"r"(n * n) : "memory");
  y[threadIdx.x] = 0;
}
)");
  const KernelModel &K = kernel(R, "k");
  std::vector<std::string> Got;
  for (const Event &E : K.Events)
    if (E.Kind == EventKind::Barrier) {
      ASSERT_EQ(E.Barrier, BarrierKind::Named) << E.Text;
      Got.push_back((E.BarrierId ? E.BarrierId->str() : "?") + "/" +
                    (E.BarrierThreads ? E.BarrierThreads->str() : "?"));
    }
  EXPECT_EQ(Got, (std::vector<std::string>{"1/256", "2/bdim.x - 256", "3/64",
                                           "4/param:n * param:n"}));
}

TEST(FrontendEvents, ExactValuesOfLocalsAssignedMoreThanOnce) {
  // blockRange's by-reference outputs: each unconditional assignment is a
  // named exact value (LocalDefs) that the later reads use; the callee's
  // final value reaches the caller's local.
  FrontendResult R = build(R"(
__device__ void blockRange(int N, int &Lo, int &Hi) {
  int Per = (N + 63) / 64;
  Lo = blockIdx.x * Per;
  Hi = Lo + Per;
  Hi = Hi < N ? Hi : N;
}
__global__ void k(float *y, int n) {
  int Lo = 0, Hi = 0;
  blockRange(n, Lo, Hi);
  y[Lo] = 1;
  y[Hi] = 2;
}
)");
  const KernelModel &K = kernel(R, "k");
  ASSERT_EQ(K.Events.size(), 2u);
  EXPECT_EQ(K.Events[0].Addr.Index->str(), "local:Lo@2:4");
  EXPECT_EQ(K.Events[1].Addr.Index->str(), "local:Hi@2:6");
  std::map<std::string, std::string> Defs = localDefs(K);
  // Lo = 0 and Hi = 0 of the declaration are read by nothing: pruned.
  EXPECT_EQ(Defs, (std::map<std::string, std::string>{
                      {"local:Lo@2:4", "bid.x * ((param:n + 63) / 64)"},
                      {"local:Hi@2:5", "local:Lo@2:4 + ((param:n + 63) / 64)"},
                      {"local:Hi@2:6", "(local:Hi@2:5 < param:n) ? "
                                       "local:Hi@2:5 : param:n"}}));
}

TEST(FrontendEvents, CompareExchangeLoopKeepsItsExpectedConstant) {
  // A library function's reference argument is no assignment: the body
  // resets `expected` before every call, so the compare value stays 0.
  FrontendResult R = build(R"(#include <cuda/atomic>
__global__ void k(unsigned *flag) {
  cuda::atomic_ref<unsigned, cuda::thread_scope_system> Ref(*flag);
  unsigned expected = 0;
  while (!Ref.compare_exchange_strong(expected, 1u,
                                      cuda::std::memory_order_release,
                                      cuda::std::memory_order_relaxed))
    expected = 0;
}
)");
  const KernelModel &K = kernel(R, "k");
  std::vector<std::string> Got;
  for (const Event &E : K.Events)
    if (E.Kind == EventKind::SpinWait && E.ExitCond)
      Got.push_back(E.ExitCond->str());
  EXPECT_EQ(Got, (std::vector<std::string>{"polled == 0"}));
}

TEST(FrontendEvents, IfConversionKeepsExactValues) {
  // `if (c) x = e;` at a straight-line point: after it, x is `c ? e : x0`;
  // the else arm reads the value from before the `if`. An arm that returns
  // is not converted.
  FrontendResult R = build(R"(
__device__ void clamp(int N, int &Lo) {
  Lo = blockIdx.x * 8;
  if (Lo > N)
    Lo = N;
}
__global__ void k(float *y, int n) {
  int Lo;
  clamp(n, Lo);
  y[Lo] = 1;
  int A = n;
  A = n + 1;
  if (n > 4)
    A = 2;
  else
    y[A] = 2;
  y[A] = 3;
  int B = n;
  B = n + 2;
  if (n > 5) {
    B = 3;
    return;
  }
  y[B] = 4;
}
)");
  const KernelModel &K = kernel(R, "k");
  EXPECT_EQ(storeIndices(K),
            (std::vector<std::string>{"local:Lo@2:4", "local:A@11:12",
                                      "local:A@11:13", "local:B@18"}));
  std::map<std::string, std::string> Defs = localDefs(K);
  EXPECT_EQ(
      Defs,
      (std::map<std::string, std::string>{
          {"local:Lo@2:3", "bid.x * 8"},
          {"local:Lo@2:5", "param:n"},
          {"local:Lo@2:4",
           "(local:Lo@2:3 > param:n) ? local:Lo@2:5 : local:Lo@2:3"},
          {"local:A@11:12", "param:n + 1"},
          {"local:A@11:14", "2"},
          {"local:A@11:13", "(param:n > 4) ? local:A@11:14 : local:A@11:12"}}));
}

TEST(FrontendEvents, LoopsContinuingAVariableAndOffsetBounds) {
  // A vector loop unrolled by four (`i + 3 * s < n8`: bound n8 - 3 * s)
  // that starts from the variable's exact value, then a scalar tail that
  // continues it from the first loop's exit value, i0 + s * ceil((b - i0) /
  // s) when the loop runs (i0 < b), else i0.
  FrontendResult R = build(R"(
__global__ void k(float *y, int n8) {
  int I = threadIdx.x;
  for (; I + 3 * blockDim.x < n8; I += 4 * blockDim.x)
    y[I] = 1;
  for (; I < n8; I += blockDim.x)
    y[I] = 2;
}
)");
  const KernelModel &K = kernel(R, "k");
  ASSERT_EQ(K.Loops.size(), 2u);
  EXPECT_EQ(K.Loops[0].InductionVar, "I");
  ASSERT_TRUE(K.Loops[0].Init && K.Loops[0].Bound && K.Loops[0].Step);
  EXPECT_EQ(K.Loops[0].Init->str(), "local:I@3:3");
  EXPECT_EQ(K.Loops[0].Bound->str(), "param:n8 - (3 * bdim.x)");
  EXPECT_EQ(K.Loops[0].Step->str(), "4 * bdim.x");
  EXPECT_EQ(K.Loops[1].InductionVar, "I");
  ASSERT_TRUE(K.Loops[1].Init && K.Loops[1].Bound && K.Loops[1].Step);
  EXPECT_EQ(K.Loops[1].Init->str(), "local:I@3:5");
  EXPECT_EQ(K.Loops[1].Bound->str(), "param:n8");
  EXPECT_EQ(localDefs(K),
            (std::map<std::string, std::string>{
                {"local:I@3:3", "tid.x"},
                {"local:I@3:5",
                 "(local:I@3:3 < (param:n8 - (3 * bdim.x))) ? (local:I@3:3 + "
                 "((4 * bdim.x) * (((((param:n8 - (3 * bdim.x)) - "
                 "local:I@3:3) + (4 * bdim.x)) - 1) / (4 * bdim.x)))) : "
                 "local:I@3:3"}}));
  EXPECT_EQ(storeIndices(K), (std::vector<std::string>{"loop:0", "loop:1"}));
}

TEST(FrontendEvents, NoExitValueAfterABreakOrWhenTheBodyAssignsTheVariable) {
  // The exit value needs a loop that only its condition leaves and only its
  // increment advances.
  FrontendResult R = build(R"(
__global__ void k(float *y, int n) {
  int I = threadIdx.x;
  for (; I < n; I += blockDim.x) {
    if (y[I] > 0)
      break;
  }
  y[I] = 1;
  int J = threadIdx.x;
  for (; J < n; J += blockDim.x)
    J += 1;
  y[J] = 2;
}
)");
  const KernelModel &K = kernel(R, "k");
  EXPECT_EQ(storeIndices(K),
            (std::vector<std::string>{"local:I@3", "local:J@9"}));
}

TEST(FrontendEvents, LocalsFreshInEachIterationHaveExactValues) {
  // A local declared in a loop body, or a local of a function inlined
  // there, is fresh in each iteration: its assignments have exact values
  // (the helper's vector loop continues into its tail). A local declared
  // before the loop and assigned in it has none, nor has an
  // out-parameter of a helper called in a loop.
  FrontendResult R = build(R"(
__device__ void move(float *o, int n) {
  int I = threadIdx.x;
  for (; I < n; I += blockDim.x)
    o[I] = 1;
}
__device__ void range(int n, int &Lo) { Lo = blockIdx.x * 8; }
__global__ void k(float *y, int n, int w) {
  for (int s = 0; s < w; ++s)
    move(y + s * n, n);
  int A = 0;
  for (int s = 0; s < w; ++s) {
    int B = 0;
    B = s * 2;
    A = s;
    y[B] = 2;
    y[A] = 3;
    int Lo = 0;
    range(n, Lo);
    y[Lo] = 4;
  }
}
)");
  const KernelModel &K = kernel(R, "k");
  EXPECT_EQ(storeIndices(K), (std::vector<std::string>{
                                 "(loop:0 * param:n) + loop:1", "local:B@13:14",
                                 "local:A@11", "local:Lo@18"}));
  ASSERT_GE(K.Loops.size(), 2u);
  EXPECT_EQ(K.Loops[1].InductionVar, "I");
  ASSERT_TRUE(K.Loops[1].Init);
  EXPECT_EQ(K.Loops[1].Init->str(), "local:I@3:3");
  EXPECT_EQ(localDefs(K),
            (std::map<std::string, std::string>{
                {"local:I@3:3", "tid.x"}, {"local:B@13:14", "loop:2 * 2"}}));
}

TEST(FrontendEvents, LocalsAssignedUnderAGuardOrInALoopHaveNoExactValue) {
  FrontendResult R = build(R"(
__device__ void inLoop(int N, int &X) { for (int i = 0; i < N; ++i) X = i; }
__device__ void opaqueSet(int &X);
__global__ void k(float *y, int n) {
  int A = 1;
  A = n * 2;
  y[A] = 1;              // exact: A = n * 2
  switch (n) { case 4: A = 7; }
  // (a switch: its case guards are not modeled)
  y[A] = 2;              // either value
  int B = n;
  B = n + 1;
  for (int i = 0; i < n; ++i) {
    y[B] = 3;            // the loop assigns B: not the value before it
    B = B + i;
  }
  int C = n;
  C = n + 2;
  inLoop(n, C);          // assigned in the callee's loop
  y[C] = 4;
  int D = n;
  D = n + 3;
  opaqueSet(D);          // not inlined: any value
  y[D] = 5;
  int E = n;
  E = n + 4;
  int *P = &E;           // escapes: never exact
  y[E] = 6;
  *P = 0;
}
)");
  const KernelModel &K = kernel(R, "k");
  EXPECT_EQ(
      storeIndices(K, "y"),
      (std::vector<std::string>{"local:A@5:6", "local:A@5", "local:B@11",
                                "local:C@17", "local:D@21", "local:E@25"}));
  ASSERT_EQ(K.LocalDefs.size(), 1u);
  EXPECT_EQ(K.LocalDefs.begin()->second->str(), "param:n * 2");
}

TEST(FrontendEvents, InlineDepthBound) {
  CudaUnit U = cudaUnit(R"(
__device__ void leaf(int* p) { p[0] = 1; }
__device__ void mid(int* p) { leaf(p); }
__global__ void k(int* p) { mid(p); }
)");
  FrontendOptions O = shimOptions();
  O.InlineDepth = 1;
  FrontendResult R = buildModels(U, O);
  const KernelModel &K = kernel(R, "k");
  ASSERT_EQ(K.Events.size(), 1u);
  EXPECT_EQ(K.Events[0].Kind, EventKind::Call);
  EXPECT_EQ(K.Events[0].Text, "leaf");
  EXPECT_EQ(K.Events[0].InlinedFrom, std::vector<std::string>{"mid"});
}

TEST(FrontendTemplates, InstantiationsAndLaunches) {
  FrontendResult R = build(R"(
template <typename T, int kUnroll>
__global__ void copy(T** peers, T* out, int rank) {
  for (int u = 0; u < kUnroll; ++u) out[u] = peers[rank][u];
}
template <typename T> __global__ void unused(T* p) { p[0] = T(); }
void host(float** p, float* o, int r, cudaStream_t s) {
  dim3 grid(4, 2);
  copy<float, 2><<<grid, 128, 0, s>>>(p, o, r);
  void* args[] = {&p, &o, &r};
  cudaLaunchCooperativeKernel((void*)copy<int4, 1>, 8, 256, args, 0, s);
}
)");
  ASSERT_TRUE(R.Parsed);
  ASSERT_EQ(R.Module.Kernels.size(), 3u);
  const KernelModel &F = kernel(R, "copy<float, 2>");
  EXPECT_EQ(summaries(F),
            (std::vector<std::string>{"L4 load w4 peers[rank]{loop:0} peer",
                                      "L4 store w4 out{loop:0} global"}));
  EXPECT_EQ(F.Loops[0].Bound->str(), "2");
  ASSERT_EQ(F.Launches.size(), 1u);
  EXPECT_EQ(F.Launches[0].GridX->str(), "4");
  EXPECT_EQ(F.Launches[0].GridY->str(), "2");
  EXPECT_EQ(F.Launches[0].BlockX->str(), "128");
  EXPECT_FALSE(F.Launches[0].Cooperative);
  EXPECT_EQ(F.Launches[0].Loc.Line, 9u);
  const KernelModel &I = kernel(R, "copy<int4, 1>");
  EXPECT_EQ(I.Events[0].Width, 16u);
  ASSERT_EQ(I.Launches.size(), 1u);
  EXPECT_TRUE(I.Launches[0].Cooperative);
  EXPECT_EQ(I.Launches[0].GridX->str(), "8");
  const KernelModel &G = kernel(R, "unused");
  ASSERT_EQ(G.Events.size(), 1u);
  EXPECT_EQ(G.Events[0].Kind, EventKind::Store);
  EXPECT_EQ(G.Events[0].Width, 0u); // dependent type
}

TEST(FrontendLaunches, HostGuardsOverRankAndWorldSize) {
  FrontendResult R = build(R"(
struct Params { int ranks_per_node; int rank; int mode; };
template <int N> __global__ void k(int* p) { p[threadIdx.x] = N; }
__global__ void root(int* p) { p[0] = 1; }
__global__ void peer(int* p) { p[1] = 1; }
__global__ void any(int* p) { p[2] = 1; }
template <int N> void dispatch(int* p, cudaStream_t s) {
  k<N><<<1, 32, 0, s>>>(p);
}
void run(Params& q, int* p, cudaStream_t s) {
  switch (q.ranks_per_node) {
    case 2:
      dispatch<2>(p, s);
      break;
    case 4:
    case 8:
      dispatch<8>(p, s);
      break;
    default:
      break;
  }
  bool is_root = q.rank == 0;
  if (is_root && q.mode > 1) {
    root<<<1, 8, 0, s>>>(p);
  } else {
    peer<<<1, 8, 0, s>>>(p);
  }
  if (q.mode == 3) return;
  any<<<1, 8, 0, s>>>(p);
}
)");
  ASSERT_TRUE(R.Parsed);
  auto GuardOf = [&](const std::string &Name) {
    const KernelModel &K = kernel(R, Name);
    if (K.Launches.size() != 1)
      return std::string("launches: ") + std::to_string(K.Launches.size());
    return K.Launches[0].Guard ? K.Launches[0].Guard->str()
                               : std::string("none");
  };
  EXPECT_EQ(GuardOf("k<2>"), "world_size == 2");
  // `case 4: case 8:` both reach dispatch<8>.
  EXPECT_EQ(GuardOf("k<8>"), "(world_size == 4) || (world_size == 8)");
  // A local bool is followed to its initializer; `mode` is dropped.
  EXPECT_EQ(GuardOf("root"), "rank == 0");
  // !(a && b) with b unknown implies nothing.
  EXPECT_EQ(GuardOf("peer"), "none");
  // An early return on an unknown condition adds nothing either.
  EXPECT_EQ(GuardOf("any"), "none");
  const KernelModel &Root = kernel(R, "root");
  ASSERT_EQ(Root.Launches[0].Args.size(), 1u);
  EXPECT_EQ(Root.Launches[0].Args[0].Text, "p");
}

TEST(FrontendLaunches, CandidateRunHostValuesAndOutputTensor) {
  // pkb_candidate_run (docs/candidate-abi.md): integral arguments over the
  // tensor extents, the output tensor's data pointer, the host condition
  // (refusals keep what is expressible; loops make it unknown).
  FrontendResult R = build(R"(
struct pkb_tensor { void *data; long shape[4]; int ndim; };
struct pkb_context { int rank; int world_size; unsigned long call_index; };
__global__ void fill(float *y, unsigned long n) { y[threadIdx.x] = n; }
__global__ void twice(float *y, int c) { y[c] = 1; }
__global__ void early(float *y, unsigned long n) { y[0] = n; }
extern "C" int pkb_candidate_run(pkb_context *Ctx, const pkb_tensor *In,
                                 int NumIn, pkb_tensor *Out, int NumOut) {
  unsigned long N = (unsigned long)In[0].shape[0];
  unsigned long W = Ctx->world_size;
  if (N % W || NumIn != 1)
    return 2;
  if (N == 0)
    return 0;
  fill<<<4, 256>>>(static_cast<float *>(Out[0].data), N / 4 - 1);
  for (int I = 0; I < 2; ++I)
    twice<<<1, 1>>>((float *)Out[1].data, I);
  if (NumOut > 1)
    return 0;
  early<<<1, 1>>>((float *)Out[2].data, Out[2].shape[0]);
  return 0;
}
)");
  ASSERT_TRUE(R.Parsed);
  const LaunchSite &Fill = kernel(R, "fill").Launches.at(0);
  ASSERT_EQ(Fill.Args.size(), 2u);
  EXPECT_EQ(Fill.Args[0].OutTensor, 0);
  ASSERT_TRUE(Fill.Args[1].Host);
  EXPECT_EQ(Fill.Args[1].Host->str(), "(host:In[0].shape[0] / 4) - 1");
  EXPECT_TRUE(Fill.HostCondKnown);
  ASSERT_TRUE(Fill.HostCond);
  EXPECT_EQ(Fill.HostCond->str(),
            "(!((host:In[0].shape[0] % world_size) != 0)) && "
            "(!(host:In[0].shape[0] == 0))");
  // In a loop: several calls of one kernel on one use of the tensor.
  const LaunchSite &Twice = kernel(R, "twice").Launches.at(0);
  EXPECT_EQ(Twice.Args[0].OutTensor, -1);
  EXPECT_FALSE(Twice.HostCondKnown);
  // After an early `return 0` on a condition over something else.
  const LaunchSite &Early = kernel(R, "early").Launches.at(0);
  EXPECT_EQ(Early.Args[0].OutTensor, 2);
  ASSERT_TRUE(Early.Args[1].Host);
  EXPECT_EQ(Early.Args[1].Host->str(), "host:Out[2].shape[0]");
  EXPECT_FALSE(Early.HostCondKnown);
}

TEST(FrontendLaunches, OutputTensorThroughMetadataHelpers) {
  // Out[0] passed to a helper that reads only its shape keeps Out[0].data
  // the launch's output; a helper that may touch the data does not.
  const char *Head = R"(
struct pkb_tensor { void *data; long shape[4]; int ndim; int dtype; };
struct pkb_context { int rank; int world_size; };
inline bool isBf16(const pkb_tensor &T) { return T.dtype == 1; }
inline void wipe(const pkb_tensor &T) { *(char *)T.data = 0; }
__global__ void fill(float *y, unsigned long n) { y[threadIdx.x] = n; }
extern "C" int pkb_candidate_run(pkb_context *Ctx, const pkb_tensor *In,
                                 int NumIn, pkb_tensor *Out, int NumOut) {
)";
  FrontendResult Meta = build(std::string(Head) + R"(
  if (!isBf16(Out[0])) return 1;
  fill<<<4, 256>>>((float *)Out[0].data, Out[0].shape[0]);
  return 0;
}
)");
  ASSERT_TRUE(Meta.Parsed);
  EXPECT_EQ(kernel(Meta, "fill").Launches.at(0).Args.at(0).OutTensor, 0);
  FrontendResult Data = build(std::string(Head) + R"(
  wipe(Out[0]);
  fill<<<4, 256>>>((float *)Out[0].data, Out[0].shape[0]);
  return 0;
}
)");
  ASSERT_TRUE(Data.Parsed);
  EXPECT_EQ(kernel(Data, "fill").Launches.at(0).Args.at(0).OutTensor, -1);
}

TEST(FrontendLaunches, ArgumentArraysStructFieldsAndParameterConditions) {
  // cudaLaunchCooperativeKernel's `void **` array binds the kernel's
  // parameters like `<<<>>>` arguments; a struct argument binds the fields
  // the function sets once (the call counter's parity among them); the
  // refusal `if (C.n > C.cap) return 2;` becomes a condition over the
  // launch's own parameters.
  FrontendResult R = build(R"(
struct pkb_tensor { void *data; long shape[4]; int ndim; };
struct pkb_context { int rank; int world_size; unsigned long call_index; };
struct Call { float *y; unsigned long n; unsigned long cap; unsigned slot; };
unsigned long padTo8(unsigned long V) { return (V + 7) / 8 * 8; }
__global__ void k(Call C, int m) {
  if (threadIdx.x < C.n) C.y[C.slot * C.cap + threadIdx.x] = m;
}
__global__ void twice(Call C) { C.y[C.slot] = 0; }
extern "C" int pkb_candidate_run(pkb_context *Ctx, const pkb_tensor *In,
                                 int NumIn, pkb_tensor *Out, int NumOut) {
  Call C;
  C.y = (float *)Out[0].data;
  C.n = In[0].shape[0];
  C.cap = 64;
  C.slot = Ctx->call_index & 1;
  int m = 5;
  if (C.n > C.cap || m < 3)
    return 2;
  void *Args[] = {&C, (void *)&m};
  cudaError_t E = cudaLaunchCooperativeKernel((const void *)k, dim3(1),
                                              dim3(128), Args, 0, 0);
  Call D = C;
  D.slot = 0;
  D.slot = 1;
  D.n = padTo8(In[0].shape[0]);
  twice<<<1, 1>>>(D);
  return E;
}
)");
  ASSERT_TRUE(R.Parsed);
  const KernelModel &K = kernel(R, "k");
  ASSERT_NE(K.findParam("C.slot"), nullptr);
  EXPECT_EQ(K.findParam("C.n")->Role, ParamRole::ElementCount);
  EXPECT_EQ(K.findParam("C.slot")->Role, ParamRole::Scalar);
  const LaunchSite &L = K.Launches.at(0);
  EXPECT_TRUE(L.Cooperative);
  std::map<std::string, const LaunchSite::Arg *> By;
  for (const LaunchSite::Arg &A : L.Args)
    By[A.Param] = &A;
  ASSERT_TRUE(By.count("m") && By.count("C.cap") && By.count("C.slot") &&
              By.count("C.n") && By.count("C.y"));
  EXPECT_EQ(By["m"]->Value->str(), "5"); // `&m` in the array is no write
  EXPECT_EQ(By["C.cap"]->Value->str(), "64");
  ASSERT_TRUE(By["C.slot"]->Host);
  EXPECT_EQ(By["C.slot"]->Host->str(), "host:call_index & 1");
  EXPECT_EQ(By["C.n"]->Host->str(), "host:In[0].shape[0]");
  EXPECT_EQ(By["C.y"]->OutTensor, 0);
  ASSERT_TRUE(L.ParamCond);
  EXPECT_EQ(L.ParamCond->str(),
            "(!(param:C.n > param:C.cap)) && (!(param:m < 3))");
  // The copy D is assigned twice: its slot has no single value; its count
  // comes through a helper whose body is one `return`.
  const LaunchSite &T = kernel(R, "twice").Launches.at(0);
  bool SawN = false;
  for (const LaunchSite::Arg &A : T.Args) {
    EXPECT_NE(A.Param, "C.slot");
    if (A.Param == "C.n") {
      SawN = true;
      ASSERT_TRUE(A.Host);
      EXPECT_EQ(A.Host->str(), "((host:In[0].shape[0] + 7) / 8) * 8");
    }
  }
  EXPECT_TRUE(SawN);
  EXPECT_FALSE(T.ParamCond);
}

TEST(FrontendLaunches, GlobalsThatOnlySetupWritesAreFixedAcrossCalls) {
  // gState.epoch is set in pkb_candidate_setup only: "host:fixed:..." (the
  // same in every call); gCount is advanced by the run itself: unknown.
  FrontendResult R = build(R"(
struct pkb_tensor { void *data; long shape[4]; int ndim; };
struct pkb_context { int rank; int world_size; unsigned long call_index; };
struct State { unsigned epoch; };
State gState;
unsigned gCount;
__global__ void k(float *y, unsigned e, unsigned c) { y[0] = e + c; }
extern "C" int pkb_candidate_setup(pkb_context *Ctx) {
  gState.epoch = Ctx->call_index + 1;
  return 0;
}
extern "C" int pkb_candidate_run(pkb_context *Ctx, const pkb_tensor *In,
                                 int NumIn, pkb_tensor *Out, int NumOut) {
  const unsigned E = gState.epoch;
  k<<<1, 1>>>((float *)Out[0].data, E, gCount++);
  return 0;
}
)");
  ASSERT_TRUE(R.Parsed);
  const LaunchSite &L = kernel(R, "k").Launches.at(0);
  ASSERT_EQ(L.Args.size(), 3u);
  ASSERT_TRUE(L.Args[1].Host);
  EXPECT_EQ(L.Args[1].Host->str(), "host:fixed:gState.epoch");
  EXPECT_FALSE(L.Args[2].Host);
}

TEST(FrontendLaunches, ArgumentsThatChangeWithTheCallCounter) {
  // L.half reads call_index but also the buffer size, which has no host
  // value: CallDependent. L.n reads only a tensor extent: a host value.
  FrontendResult R = build(R"(
struct pkb_tensor { void *data; long shape[4]; int ndim; };
struct pkb_buffer { void *local; unsigned long bytes; };
struct pkb_context { int rank; int world_size; unsigned long call_index;
                     pkb_buffer symm[2]; };
struct Layout { unsigned long n; unsigned long half; };
__global__ void k(float *y, Layout L) { y[L.half] = L.n; }
extern "C" int pkb_candidate_run(pkb_context *Ctx, const pkb_tensor *In,
                                 int NumIn, pkb_tensor *Out, int NumOut) {
  const unsigned long Half = Ctx->symm[0].bytes / 8;
  Layout L;
  L.n = In[0].shape[0];
  L.half = (Ctx->call_index & 1) ? Half : 0;
  k<<<1, 1>>>((float *)Out[0].data, L);
  return 0;
}
)");
  ASSERT_TRUE(R.Parsed);
  const LaunchSite &L = kernel(R, "k").Launches.at(0);
  std::map<std::string, const LaunchSite::Arg *> ByParam;
  for (const LaunchSite::Arg &A : L.Args)
    ByParam[A.Param] = &A;
  ASSERT_TRUE(ByParam.count("L.half") && ByParam.count("L.n"));
  EXPECT_FALSE(ByParam["L.half"]->Host);
  EXPECT_TRUE(ByParam["L.half"]->CallDependent);
  ASSERT_TRUE(ByParam["L.n"]->Host);
  EXPECT_FALSE(ByParam["L.n"]->CallDependent);
}

TEST(FrontendLaunches, HostGuardsThatAreTheSameOnEveryRank) {
  // Vec reads only sizes, a struct field set once and an alignment test of
  // a data pointer: the same on every rank. Root reads the rank through a
  // local; Odd through a field of a struct copied from the context; Env a
  // global that the run itself writes.
  FrontendResult R = build(R"(
struct pkb_tensor { void *data; long shape[4]; int ndim; };
struct pkb_context { int rank; int world_size; unsigned long call_index; };
struct Args { long n; int me; };
int gMode;
__global__ void k8(float *y) { y[0] = 8; }
__global__ void k1(float *y) { y[0] = 1; }
static bool aligned16(const void *P) {
  return (reinterpret_cast<unsigned long>(P) & 15u) == 0;
}
extern "C" int pkb_candidate_run(pkb_context *Ctx, const pkb_tensor *In,
                                 int NumIn, pkb_tensor *Out, int NumOut) {
  float *Y = (float *)Out[0].data;
  Args A;
  A.n = In[0].shape[0];
  A.me = Ctx->rank;
  const bool Vec = A.n % 8 == 0 && aligned16(In[0].data);
  if (Vec) k8<<<1, 1>>>(Y); else k1<<<1, 1>>>(Y);
  const bool Root = Ctx->rank == 0;
  if (Root) k8<<<1, 1>>>(Y);
  if (A.me & 1) k1<<<1, 1>>>(Y);
  gMode = NumIn;
  if (gMode) k1<<<1, 1>>>(Y);
  return 0;
}
)");
  ASSERT_TRUE(R.Parsed);
  std::vector<std::pair<std::string, bool>> Got;
  for (const HostOp &Op : R.Module.HostOps) {
    ASSERT_EQ(Op.Guards.size(), Op.UniformGuards.size());
    for (size_t I = 0; I < Op.Guards.size(); ++I)
      Got.emplace_back(Op.Guards[I], Op.UniformGuards[I]);
  }
  std::vector<std::pair<std::string, bool>> Want = {{"Vec", true},
                                                    {"!(Vec)", true},
                                                    {"Root", false},
                                                    {"A.me & 1", false},
                                                    {"gMode", false}};
  EXPECT_EQ(Got, Want);
}

// The guards inside lambdas: one in a host function, one at namespace
// scope (outside any named function; its guard is still found).
TEST(FrontendLaunches, HostGuardsInsideLambdas) {
  FrontendResult R = build(R"(
struct Params { int rank; int world_size; };
__global__ void b(int* p) { p[1] = 1; }
__global__ void c(int* p) { p[2] = 1; }
auto global_launch = [](Params q, int* p) {
  if (q.rank == 0)
    c<<<1, 8>>>(p);
};
void run(Params& q, int* p, cudaStream_t s) {
  auto inner = [&](int* x) {
    if (q.world_size == 4)
      b<<<1, 8, 0, s>>>(x);
  };
  inner(p);
  global_launch(q, p);
}
)");
  ASSERT_TRUE(R.Parsed);
  const KernelModel &B = kernel(R, "b"), &C = kernel(R, "c");
  ASSERT_EQ(B.Launches.size(), 1u);
  ASSERT_EQ(C.Launches.size(), 1u);
  ASSERT_TRUE(B.Launches[0].Guard);
  EXPECT_EQ(B.Launches[0].Guard->str(), "world_size == 4");
  ASSERT_TRUE(C.Launches[0].Guard);
  EXPECT_EQ(C.Launches[0].Guard->str(), "rank == 0");
}

TEST(FrontendLocations, PythonUnitMapsToPyLines) {
  std::string Py = "import torch\n"
                   "CUDA_SRC = r'''\n"
                   "#include <cuda_runtime.h>\n"
                   "__global__ void k(float** peers, int rank) {\n"
                   "  peers[rank][threadIdx.x] = 1.f;\n"
                   "}\n"
                   "'''\n";
  Input In = extractPython("model.py", Py);
  ASSERT_EQ(In.Units.size(), 1u);
  FrontendResult R = buildModels(In.Units[0], shimOptions());
  ASSERT_TRUE(R.Parsed);
  const KernelModel &K = kernel(R, "k");
  EXPECT_EQ(K.Loc.File, "model.py");
  EXPECT_EQ(K.Loc.Line, 4u);
  ASSERT_EQ(K.Events.size(), 1u);
  EXPECT_EQ(K.Events[0].Loc.File, "model.py");
  EXPECT_EQ(K.Events[0].Loc.Line, 5u);
  EXPECT_EQ(K.Events[0].Loc.Col, 3u);
}

TEST(FrontendLocations, ParseErrorIsMappedAndKernelsSurvive) {
  std::string Py = "X = 1\n"
                   "SRC = '''\n"
                   "__global__ void good(int* p) { p[0] = 1; }\n"
                   "__global__ void bad(int* p) { p[0] = undeclared_thing; }\n"
                   "'''\n";
  Input In = extractPython("m.py", Py);
  ASSERT_EQ(In.Units.size(), 1u);
  FrontendResult R = buildModels(In.Units[0], shimOptions());
  EXPECT_TRUE(R.Parsed);
  bool Found = false;
  for (const Diagnostic &D : R.Diags)
    if (D.Code == "parse-error") {
      Found = true;
      EXPECT_EQ(D.Loc.File, "m.py");
      EXPECT_EQ(D.Loc.Line, 4u);
    }
  EXPECT_TRUE(Found);
  EXPECT_EQ(kernel(R, "good").Events.size(), 1u);
}

TEST(FrontendModes, MissingIncludeStillYieldsKernels) {
  FrontendResult R = build(R"(#include "does_not_exist_pkb.cuh"
__global__ void k(int* flags) { atomicAdd_system(flags, 1); }
)");
  EXPECT_TRUE(R.Parsed);
  ASSERT_FALSE(R.Diags.empty());
  EXPECT_EQ(R.Diags[0].Code, "missing-include");
  EXPECT_EQ(R.Diags[0].Sev, Severity::Note);
  EXPECT_EQ(R.Diags[0].Loc.Line, 1u);
  const KernelModel &K = kernel(R, "k");
  ASSERT_EQ(K.Events.size(), 1u);
  EXPECT_EQ(K.Events[0].Scp, Scope::System);
}

TEST(FrontendModes, UnknownMacrosAndTypesFromMissingHeadersAreRecovered) {
  // A self-written sample in the style of a header-only library whose own
  // headers are absent: an attribute macro, a statement macro, a class
  // template and a function of a namespace the missing header declares.
  FrontendResult R = build(R"(#include "missing_lib_pkb/lib.h"
namespace lib::dist {
LIB_DEVICE int twice(int v) { return 2 * v; }
template <int NP>
__global__ void arrive(lib::Array<int*, NP> ptrs, int me) {
  LIB_PRAGMA_UNROLL
  for (int d = 0; d < NP; ++d)
    if (d != me) atomicAdd_system(ptrs[d], twice(1));
  lib::fence_all();
}
} // namespace lib::dist
)");
  ASSERT_TRUE(R.Parsed);
  ASSERT_EQ(R.Module.Kernels.size(), 1u);
  EXPECT_EQ(R.Module.Kernels[0].Name, "lib::dist::arrive");
  std::map<std::string, unsigned> Notes;
  for (const Diagnostic &D : R.Diags) {
    if (D.Code == "recovered-declaration") {
      EXPECT_EQ(D.Sev, Severity::Note);
      Notes[D.Message.substr(0, D.Message.find(' '))] = D.Loc.Line;
    }
    EXPECT_NE(D.Sev, Severity::Error) << D.Message;
  }
  EXPECT_EQ(Notes["'LIB_DEVICE'"], 3u);
  EXPECT_EQ(Notes["'lib::Array'"], 5u);
  EXPECT_EQ(Notes["'LIB_PRAGMA_UNROLL'"], 6u);
  EXPECT_EQ(Notes["'lib::fence_all'"], 9u);
}

TEST(FrontendModes, AssertIsDeclaredByTheTorchShim) {
  FrontendResult R = build(R"(#include <torch/all.h>
__global__ void k(int* out, int n) { assert(n > 0); out[0] = n; }
)");
  ASSERT_TRUE(R.Parsed);
  for (const Diagnostic &D : R.Diags)
    EXPECT_NE(D.Sev, Severity::Error) << D.Message;
  EXPECT_EQ(R.Module.Kernels.size(), 1u);
}

TEST(FrontendRoles, RankAndWorldSizeFromTheLaunchedAbiFields) {
  FrontendResult R = build(R"(#include <pkb/pkb_abi.h>
__global__ void k(void* const* A, uint32_t* const* B, int R, int W) {}
void host(pkb_context* ctx) {
  k<<<1, 32>>>(ctx->symm[0].peers, ctx->signal_pads, ctx->rank,
               ctx->world_size);
}
)");
  ASSERT_TRUE(R.Parsed);
  const KernelModel &K = kernel(R, "k");
  EXPECT_EQ(role(K, "A"), ParamRole::PeerTable);
  EXPECT_EQ(role(K, "B"), ParamRole::SignalPadTable);
  EXPECT_EQ(role(K, "R"), ParamRole::Rank);
  EXPECT_EQ(role(K, "W"), ParamRole::WorldSize);
}

TEST(FrontendEvents, DeviceScalarValueFlowsIntoLocals) {
  // A local initialized from a __device__ scalar carries the value
  // global:NAME; the host's cudaMemcpyToSymbol names the symbol.
  FrontendResult R = build(R"(#include <pkb/pkb_abi.h>
__device__ uint32_t gEpoch;
__global__ void k(uint32_t* F) {
  uint32_t E = gEpoch + 1;
  F[threadIdx.x] = E;
}
extern "C" int pkb_candidate_run(pkb_context* ctx, const pkb_tensor*, int,
                                 pkb_tensor*, int) {
  uint32_t Z = 0;
  cudaMemcpyToSymbol(gEpoch, &Z, sizeof(Z));
  k<<<1, 32>>>(ctx->signal_pads[0]);
  return 0;
}
)");
  ASSERT_TRUE(R.Parsed);
  const KernelModel &K = kernel(R, "k");
  ASSERT_EQ(K.Events.size(), 2u);
  EXPECT_EQ(K.Events[0].Addr.Base, "gEpoch");
  ASSERT_TRUE(K.Events[1].Value);
  EXPECT_EQ(K.Events[1].Value->str(), "global:gEpoch + 1");
  bool Symbol = false;
  for (const HostOp &Op : R.Module.HostOps)
    Symbol = Symbol ||
             (Op.Kind == HostOp::Other && Op.Callee == "cudaMemcpyToSymbol" &&
              Op.Target == "symbol:gEpoch");
  EXPECT_TRUE(Symbol);
}

TEST(FrontendEvents, DeviceVariablesAreListed) {
  // Non-const __device__ variables the kernel touches are DeviceVars; a
  // __constant__ one and a __shared__ one are not.
  FrontendResult R = build(R"(#include <stdint.h>
__device__ uint32_t gCalls;
__device__ uint32_t gUnused;
__constant__ uint32_t cBase;
__global__ void k(uint32_t* F) {
  __shared__ uint32_t s[32];
  s[threadIdx.x] = gCalls + cBase;
  __syncthreads();
  if (threadIdx.x == 0) gCalls = s[1];
  F[threadIdx.x] = 0;
}
)");
  ASSERT_TRUE(R.Parsed);
  const KernelModel &K = kernel(R, "k");
  EXPECT_EQ(K.DeviceVars, std::vector<std::string>{"gCalls"});
  for (const Event &E : K.Events)
    if (E.Addr.Base == "gCalls")
      EXPECT_TRUE(K.isDeviceVarAccess(E));
    else
      EXPECT_FALSE(K.isDeviceVarAccess(E)) << E.Addr.Base;
}

TEST(FrontendModes, ToolkitAndShimsAgree) {
  if (!std::filesystem::exists("/usr/local/cuda/include/cuda_runtime.h"))
    GTEST_SKIP() << "no CUDA toolkit in /usr/local/cuda";
  std::string Src = R"(#include <cuda_runtime.h>
#include <cuda/atomic>
__global__ void k(unsigned** pads, int rank) {
  cuda::atomic_ref<unsigned, cuda::thread_scope_system> r(pads[rank][0]);
  while (r.load(cuda::std::memory_order_acquire) == 0) {}
  __threadfence_system();
}
)";
  FrontendOptions T;
  T.CudaPath = "/usr/local/cuda";
  FrontendResult A = buildModels(cudaUnit(Src), T);
  FrontendResult B = build(Src);
  ASSERT_TRUE(A.Parsed);
  ASSERT_TRUE(B.Parsed);
  for (const Diagnostic &D : A.Diags)
    EXPECT_NE(D.Sev, Severity::Error) << D.Message;
  std::vector<std::string> Want = {
      "L5 spin_wait acquire sys w4 pads[rank]{0} peer exit != 0",
      "L6 fence seq_cst sys"};
  EXPECT_EQ(summaries(kernel(A, "k")), Want);
  EXPECT_EQ(summaries(kernel(B, "k")), Want);
  // Only shim mode records the note.
  EXPECT_TRUE(kernel(A, "k").Notes.empty());
  EXPECT_EQ(kernel(B, "k").Notes.size(), 1u);
}

namespace {
/// Events of \p K that store to \p Base, as "peer|index|guards|loops".
std::vector<std::string> storesTo(const KernelModel &K,
                                  const std::string &Base) {
  std::vector<std::string> R;
  for (const Event &E : K.Events) {
    if (E.Kind != EventKind::Store || E.Addr.Base != Base)
      continue;
    std::string S = (E.Addr.Peer ? E.Addr.Peer->str() : "-") + "|" +
                    (E.Addr.Index ? E.Addr.Index->str() : "?") + "|";
    for (const ExprRef &G : E.Guard)
      S += G->str() + ";";
    S += "|";
    for (unsigned L : E.Loops)
      S += std::to_string(L) + ";";
    R.push_back(S);
  }
  return R;
}
} // namespace

// `T *dst[8]; dst[n++] = ...` drained by a helper `for (d = 0; d < n; ++d)`:
// one store per stored pointer, the peer ones under their guard and over a
// copy of the filling loop, the enumerating loop d removed.
TEST(FrontendPtrArrays, AppendedEntriesDrainedByAHelper) {
  FrontendResult R = build(R"(
__device__ void fill(float* const* dst, int count, float v) {
  for (int d = 0; d < count; ++d)
    dst[d][threadIdx.x] = v;
}
__global__ void k(float** peers, float* out, int rank, int world_size) {
  float* dst[8];
  int n = 0;
  dst[n++] = out + 4;
  for (int p = 0; p < world_size; ++p)
    if (p != rank)
      dst[n++] = peers[p] + rank;
  fill(dst, n, 1.0f);
}
)");
  ASSERT_TRUE(R.Parsed);
  const KernelModel &K = kernel(R, "k");
  // Loops: 0 = p, 1 = d, 2 = the copy of p for the second entry.
  ASSERT_EQ(K.Loops.size(), 3u);
  EXPECT_EQ(K.Loops[2].Init->str(), "0");
  EXPECT_EQ(K.Loops[2].Bound->str(), "world_size");
  EXPECT_EQ(storesTo(K, "out"), std::vector<std::string>({"-|4 + tid.x||"}));
  EXPECT_EQ(
      storesTo(K, "peers"),
      std::vector<std::string>({"loop:2|rank + tid.x|loop:2 != rank;|2;"}));
}

// An initializer list gives known positions: a constant read is exact, a
// conditional pointer gives one store per arm under its condition, and a
// loop with a constant bound enumerates the known positions.
TEST(FrontendPtrArrays, InitListConditionalAndConstantBound) {
  FrontendResult R = build(R"(
__global__ void k(float** peers, float* out, float* tmp, int rank) {
  float* a[2] = {out + 1, tmp};
  a[0][threadIdx.x] = 1.0f;
  float* b[1] = {rank == 0 ? out : peers[rank - 1]};
  for (int j = 0; j < 1; ++j)
    b[j][threadIdx.x] = 2.0f;
}
)");
  ASSERT_TRUE(R.Parsed);
  const KernelModel &K = kernel(R, "k");
  EXPECT_EQ(storesTo(K, "out"),
            std::vector<std::string>({"-|1 + tid.x||", "-|tid.x|rank == 0;|"}));
  EXPECT_EQ(storesTo(K, "tmp"), std::vector<std::string>());
  EXPECT_EQ(storesTo(K, "peers"),
            std::vector<std::string>({"rank - 1|tid.x|rank != 0;|"}));
}

// Reads the model cannot pin down stay unknown (no event): an index that is
// neither constant nor an enumerating loop, a counter that is also reset,
// and a constant position after a conditional append.
TEST(FrontendPtrArrays, UnresolvedReadsGiveNoEvent) {
  FrontendResult R = build(R"(
__global__ void k(float** peers, float* out, int rank, int world_size) {
  float* a[8];
  int n = 0;
  for (int p = 0; p < world_size; ++p)
    a[n++] = peers[p];
  a[threadIdx.x % 8][0] = 1.0f;
  float* b[8];
  int m = 0;
  b[m++] = out;
  m = 0;
  b[m++] = peers[rank];
  for (int d = 0; d < m; ++d)
    b[d][1] = 2.0f;
  float* c[8];
  int q = 0;
  if (rank > 0)
    c[q++] = out;
  c[q++] = peers[0];
  c[1][2] = 3.0f;
}
)");
  ASSERT_TRUE(R.Parsed);
  const KernelModel &K = kernel(R, "k");
  EXPECT_EQ(storesTo(K, "peers"), std::vector<std::string>());
  EXPECT_EQ(storesTo(K, "out"), std::vector<std::string>());
}

// A read that would stand for more than 16 stored pointers stays unknown
// (every access through it would be copied per entry).
TEST(FrontendPtrArrays, TooManyEntriesStayUnknown) {
  std::string Src = "__global__ void k(float** peers) {\n  float* a[17];\n";
  for (int I = 0; I < 17; ++I)
    Src +=
        "  a[" + std::to_string(I) + "] = peers[" + std::to_string(I) + "];\n";
  Src += "  for (int j = 0; j < 17; ++j)\n    a[j][threadIdx.x] = 1.0f;\n"
         "  for (int j = 0; j < 16; ++j)\n    a[j][threadIdx.x] = 2.0f;\n}\n";
  FrontendResult R = build(Src);
  ASSERT_TRUE(R.Parsed);
  EXPECT_EQ(storesTo(kernel(R, "k"), "peers").size(), 16u);
}

// An access through the array on a branch that a constant helper argument
// rules out (`if (n == 1) ... else ...` with n = 1) is not copied per entry.
TEST(FrontendPtrArrays, DeadBranchOfAHelperIsNotExpanded) {
  FrontendResult R = build(R"(
__device__ void put(float* const* dst, int count, int n) {
  for (int d = 0; d < count; ++d) {
    if (n == 1)
      dst[d][threadIdx.x] = 1.0f;
    else
      dst[d][threadIdx.x + 1] = 2.0f;
  }
}
__global__ void k(float** peers, int world_size) {
  float* dst[8];
  int m = 0;
  for (int p = 0; p < world_size; ++p)
    dst[m++] = peers[p];
  put(dst, m, 1);
}
)");
  ASSERT_TRUE(R.Parsed);
  EXPECT_EQ(storesTo(kernel(R, "k"), "peers"),
            std::vector<std::string>({"loop:2|tid.x|1 == 1;|2;"}));
}
