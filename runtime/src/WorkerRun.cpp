//===- WorkerRun.cpp - The "run" worker: correctness and timing -----------===//
//
// One rank of `pkbcheck run`. Per size: >= 3 trials with fresh seeded inputs
// and NaN-poisoned outputs, each call checked against the NCCL reference;
// then >= 4 back-to-back calls on the stream with different inputs and no
// host synchronization, each call's outputs snapshotted by a D2D copy on the
// stream and checked; then, when every rank passed, warm-up and timed
// iterations of the candidate and of the reference with per-iteration CUDA
// events, rotating over enough input/output copies to exceed l2_multiple x
// L2. Every call is under a watchdog deadline armed at the hub.
//
// Correctness-only mode (config "oversubscribe": more ranks than GPUs, rank r
// on device r % G): no NCCL communicator and no timing; each reference is the
// problem's localReference, which reads every rank's inputs regenerated on
// this device from that rank's seed (inputSeed) instead of communicating.
//
//===----------------------------------------------------------------------===//
#include "pkb/rt/Cuda.h"
#include "pkb/rt/Problem.h"
#include "pkb/rt/Session.h"
#include "pkb/rt/Stats.h"
#include "pkb/rt/SymmetricHeap.h"
#include "pkb/rt/Verdict.h"
#include "pkb/rt/Worker.h"
#include "pkb/rt/WorkerConfig.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <map>
#include <unistd.h>

namespace pkb::rt {
namespace {

/// Device buffers for one set of tensors.
struct TensorSet {
  std::vector<TensorSpec> Specs;
  std::vector<void *> Data;
  std::vector<pkb_tensor> Views;
};

class CandidateWorker;

/// Every rank's inputs of one checked call, regenerated on this device from
/// the seeds the ranks used (inputSeed with the same tag), allocated on
/// first use and freed with the object (after the stream is synchronized).
class LocalInputs final : public RankInputs {
public:
  LocalInputs(CandidateWorker &W, int64_t Size, uint64_t Tag, int Case)
      : W(W), Size(Size), Tag(Tag), Case(Case) {}
  ~LocalInputs() override;
  LocalInputs(const LocalInputs &) = delete;
  LocalInputs &operator=(const LocalInputs &) = delete;
  std::span<const pkb_tensor> of(int Rank) override;

private:
  CandidateWorker &W;
  int64_t Size;
  uint64_t Tag;
  int Case;
  std::map<int, TensorSet> Sets;
};

class CandidateWorker {
public:
  explicit CandidateWorker(HubClient &C)
      : C(C), Cfg(workerConfigFromJson(C.config())) {}
  int run();

private:
  friend class LocalInputs;
  [[noreturn]] void fatal(Verdict V, const std::string &Detail, int Case = -1,
                          int64_t Size = -1,
                          std::optional<FailureKind> Kind = std::nullopt);
  void check(cudaError_t E, const char *What, int Case, int64_t Size);
  TensorSet alloc(const std::vector<TensorSpec> &Specs, int Case, int64_t Size);
  void release(TensorSet &S);
  void poison(const TensorSet &S);
  void callCandidate(const TensorSet &In, TensorSet &Out, int Case,
                     int64_t Size);
  void reference(const TensorSet &In, const TensorSet &Out, int Case,
                 int64_t Size, uint64_t Tag);
  void runCase(int Case, int64_t Size);
  nlohmann::json timeCase(int Case, int64_t Size);

  HubClient &C;
  const WorkerConfig Cfg;
  int Rank = 0, World = 1, Device = 0;
  bool Local = false; ///< correctness-only: local references, no NCCL
  long DeadlineMs = 10000, SetupMs = 180000;
  cudaStream_t Stream = nullptr;
  ncclComm_t Comm = nullptr;
  const Problem *P = nullptr;
  void *Lib = nullptr;
  pkb_setup_fn Setup = nullptr;
  pkb_run_fn Run = nullptr;
  pkb_query_fn Query = nullptr;
  pkb_teardown_fn Teardown = nullptr;
  pkb_context Ctx{};
  std::unique_ptr<SymmetricHeap> Heap;
  std::string ProblemName;
  uint64_t Seed = 0;
};

void CandidateWorker::fatal(Verdict V, const std::string &Detail, int Case,
                            int64_t Size, std::optional<FailureKind> Kind) {
  nlohmann::json R = {{"rank", Rank},
                      {"verdict", std::string(verdictName(V))},
                      {"detail", Detail}};
  if (Kind)
    R["failure_kind"] = std::string(failureKindName(*Kind));
  if (Case >= 0) {
    R["case"] = Case;
    R["size"] = Size;
  } else {
    R["scope"] = "all";
  }
  std::fprintf(stderr, "pkbcheck worker %d: %s: %s\n", Rank,
               std::string(verdictName(V)).c_str(), Detail.c_str());
  std::fflush(stderr);
  C.result(R);
  ::_exit(3);
}

void CandidateWorker::check(cudaError_t E, const char *What, int Case,
                            int64_t Size) {
  if (E != cudaSuccess)
    fatal(Verdict::RuntimeError, fmt::format("{}: {}", What, cudaErrorText(E)),
          Case, Size);
}

TensorSet CandidateWorker::alloc(const std::vector<TensorSpec> &Specs, int Case,
                                 int64_t Size) {
  TensorSet S;
  S.Specs = Specs;
  for (const auto &Sp : Specs) {
    void *D = nullptr;
    cudaError_t E = cudaMalloc(&D, std::max<size_t>(Sp.bytes(), 16));
    if (E != cudaSuccess)
      fatal(Verdict::InternalError,
            fmt::format("cudaMalloc({} bytes) for {}: {}", Sp.bytes(), Sp.Name,
                        cudaErrorText(E)),
            Case, Size);
    S.Data.push_back(D);
    S.Views.push_back(makeTensor(Sp, D));
  }
  return S;
}

void CandidateWorker::release(TensorSet &S) {
  for (void *D : S.Data)
    cudaFree(D);
  S.Data.clear();
  S.Views.clear();
}

void CandidateWorker::poison(const TensorSet &S) {
  for (size_t I = 0; I < S.Specs.size(); ++I)
    fillPattern(S.Data[I], static_cast<size_t>(S.Specs[I].numel()),
                dtypeSize(S.Specs[I].Dtype), poisonPattern(S.Specs[I].Dtype),
                Stream);
}

void CandidateWorker::callCandidate(const TensorSet &In, TensorSet &Out,
                                    int Case, int64_t Size) {
  int Rc = Run(&Ctx, In.Views.data(), static_cast<int>(In.Views.size()),
               Out.Views.data(), static_cast<int>(Out.Views.size()));
  ++Ctx.call_index;
  if (Rc != 0)
    fatal(Verdict::RuntimeError,
          fmt::format("pkb_candidate_run returned {} (call {})", Rc,
                      Ctx.call_index - 1),
          Case, Size);
  cudaError_t E = cudaGetLastError();
  if (E != cudaSuccess)
    fatal(Verdict::RuntimeError,
          fmt::format("launch failed in call {}: {}", Ctx.call_index - 1,
                      cudaErrorText(E)),
          Case, Size);
}

LocalInputs::~LocalInputs() {
  for (auto &[R, S] : Sets)
    W.release(S);
}

std::span<const pkb_tensor> LocalInputs::of(int R) {
  if (R < 0 || R >= W.World)
    return {};
  auto It = Sets.find(R);
  if (It == Sets.end()) {
    It = Sets.emplace(R, W.alloc(W.P->inputs(W.World, R, Size), Case, Size))
             .first;
    RankInfo RI{R, W.World, W.Device, W.Stream, nullptr};
    W.P->generateInputs(RI, It->second.Views, inputSeed(W.Seed, Size, Tag, R));
    W.check(cudaGetLastError(), "local reference input generation", Case, Size);
  }
  return It->second.Views;
}

void CandidateWorker::reference(const TensorSet &In, const TensorSet &Out,
                                int Case, int64_t Size, uint64_t Tag) {
  RankInfo RI{Rank, World, Device, Stream, Comm};
  support::Expected<void> Done;
  if (Local) {
    LocalInputs All(*this, Size, Tag, Case);
    auto Ops = makeDeviceRefOps(Stream);
    Done = P->localReference(RI, All, Out.Views, *Ops);
    // Inputs and scratch are freed below: finish the work that reads them.
    check(cudaStreamSynchronize(Stream), "local reference", Case, Size);
  } else {
    Done = P->reference(RI, In.Views, Out.Views);
  }
  if (!Done)
    fatal(Verdict::InternalError, "reference: " + Done.error().Message, Case,
          Size);
}

void CandidateWorker::runCase(int Case, int64_t Size) {
  auto InSpecs = P->inputs(World, Rank, Size);
  auto OutSpecs = P->outputs(World, Rank, Size);
  Ctx.size = Size;
  int Trials = Cfg.Trials;
  int B2B = Cfg.BackToBack;
  RankInfo RI{Rank, World, Device, Stream, Comm};
  TensorSet Out = alloc(OutSpecs, Case, Size);
  TensorSet Ref = alloc(OutSpecs, Case, Size);
  std::vector<TensorSet> Ins, Snaps;
  for (int K = 0; K < std::max(Trials, B2B); ++K)
    Ins.push_back(alloc(InSpecs, Case, Size));
  for (int K = 0; K < B2B; ++K)
    Snaps.push_back(alloc(OutSpecs, Case, Size));

  nlohmann::json Failures = nlohmann::json::array();
  int64_t Mismatches = 0, Unwritten = 0, Checks = 0;
  double MaxAbs = 0, MaxRel = 0;
  std::vector<char> HGot, HRef;
  // Call is 0 for a synchronized trial, k for back-to-back call k (1-based).
  auto Compare = [&](const TensorSet &Got, const std::string &What, int Call) {
    for (size_t I = 0; I < OutSpecs.size(); ++I) {
      size_t Bytes = OutSpecs[I].bytes();
      HGot.resize(Bytes);
      HRef.resize(Bytes);
      check(cudaMemcpy(HGot.data(), Got.Data[I], Bytes, cudaMemcpyDeviceToHost),
            "copy output to host", Case, Size);
      check(cudaMemcpy(HRef.data(), Ref.Data[I], Bytes, cudaMemcpyDeviceToHost),
            "copy reference to host", Case, Size);
      CompareResult R =
          compareBuffers(HGot.data(), HRef.data(), OutSpecs[I].numel(),
                         OutSpecs[I].Dtype, P->tolerance(OutSpecs[I]));
      ++Checks;
      Mismatches += R.Mismatches;
      Unwritten += R.Unwritten;
      MaxAbs = std::max(MaxAbs, R.MaxAbsErr);
      MaxRel = std::max(MaxRel, R.MaxRelErr);
      if (!R.ok() && Failures.size() < 8) {
        nlohmann::json F = toJson(R);
        F["what"] = What;
        F["call"] = Call;
        F["output"] = OutSpecs[I].Name;
        F["summary"] = describe(R);
        Failures.push_back(F);
      }
    }
  };
  auto Gen = [&](TensorSet &S, uint64_t Tag) {
    P->generateInputs(RI, S.Views, inputSeed(Seed, Size, Tag, Rank));
    check(cudaGetLastError(), "input generation", Case, Size);
  };

  // 1. Independent trials, each synchronized and checked.
  for (int T = 0; T < Trials; ++T) {
    Gen(Ins[0], static_cast<uint64_t>(T));
    poison(Out);
    poison(Ref);
    check(cudaStreamSynchronize(Stream), "before trial", Case, Size);
    C.arm({{"phase", "call"},
           {"case", Case},
           {"size", Size},
           {"trial", T},
           {"call", Ctx.call_index}},
          DeadlineMs);
    callCandidate(Ins[0], Out, Case, Size);
    check(cudaStreamSynchronize(Stream),
          fmt::format("call {} (trial {})", Ctx.call_index - 1, T).c_str(),
          Case, Size);
    C.disarm();
    C.arm({{"phase", "reference"}, {"case", Case}, {"size", Size}},
          std::max(DeadlineMs, 60000L));
    reference(Ins[0], Ref, Case, Size, static_cast<uint64_t>(T));
    check(cudaStreamSynchronize(Stream), "reference", Case, Size);
    C.disarm();
    Compare(Out, fmt::format("trial {}", T), 0);
  }

  // 2. Back-to-back calls without host synchronization.
  for (int K = 0; K < B2B; ++K) {
    Gen(Ins[static_cast<size_t>(K)], 1000 + static_cast<uint64_t>(K));
    poison(Snaps[static_cast<size_t>(K)]);
  }
  check(cudaStreamSynchronize(Stream), "before back-to-back calls", Case, Size);
  C.barrier(); // all ranks start the burst together
  C.arm({{"phase", "back-to-back"},
         {"case", Case},
         {"size", Size},
         {"call", Ctx.call_index},
         {"calls", B2B}},
        DeadlineMs);
  for (int K = 0; K < B2B; ++K) {
    poison(Out);
    callCandidate(Ins[static_cast<size_t>(K)], Out, Case, Size);
    for (size_t I = 0; I < OutSpecs.size(); ++I)
      cudaMemcpyAsync(Snaps[static_cast<size_t>(K)].Data[I], Out.Data[I],
                      OutSpecs[I].bytes(), cudaMemcpyDeviceToDevice, Stream);
  }
  check(cudaStreamSynchronize(Stream),
        fmt::format("back-to-back calls {}..{}", Ctx.call_index - B2B,
                    Ctx.call_index - 1)
            .c_str(),
        Case, Size);
  C.disarm();
  for (int K = 0; K < B2B; ++K) {
    poison(Ref);
    C.arm({{"phase", "reference"}, {"case", Case}, {"size", Size}},
          std::max(DeadlineMs, 60000L));
    reference(Ins[static_cast<size_t>(K)], Ref, Case, Size,
              1000 + static_cast<uint64_t>(K));
    check(cudaStreamSynchronize(Stream), "reference", Case, Size);
    C.disarm();
    Compare(Snaps[static_cast<size_t>(K)],
            fmt::format("back-to-back call {} of {}", K + 1, B2B), K + 1);
  }
  release(Out);
  release(Ref);
  for (auto &S : Ins)
    release(S);
  for (auto &S : Snaps)
    release(S);

  Verdict V = Unwritten    ? Verdict::UnwrittenOutput
              : Mismatches ? Verdict::WrongOutput
                           : Verdict::Pass;
  nlohmann::json R = {
      {"case", Case},           {"size", Size},
      {"rank", Rank},           {"verdict", std::string(verdictName(V))},
      {"checks", Checks},       {"mismatches", Mismatches},
      {"unwritten", Unwritten}, {"max_abs_err", MaxAbs},
      {"max_rel_err", MaxRel},  {"symm_backend", Heap->backend()},
      {"device", Device}};
  if (Local)
    R["reference"] = "local";
  R["detail"] = Failures.empty()
                    ? std::string()
                    : Failures[0]["what"].get<std::string>() + ", output " +
                          Failures[0]["output"].get<std::string>() + ": " +
                          Failures[0]["summary"].get<std::string>();
  if (!Failures.empty())
    R["failures"] = Failures;

  // 3. Timing, only when every rank passed (all ranks must agree).
  auto Votes = C.allgather(V == Verdict::Pass ? "1" : "0");
  bool AllPass = std::all_of(Votes.begin(), Votes.end(),
                             [](const std::string &S) { return S == "1"; });
  if (AllPass && Cfg.Timing && !Local)
    R["timing"] = timeCase(Case, Size);
  C.result(R);
}

nlohmann::json CandidateWorker::timeCase(int Case, int64_t Size) {
  auto InSpecs = P->inputs(World, Rank, Size);
  auto OutSpecs = P->outputs(World, Rank, Size);
  RankInfo RI{Rank, World, Device, Stream, Comm};
  int Warmup = Cfg.Warmup;
  int Iters = Cfg.Iters;
  bool Graph = Cfg.Graph;
  int L2 = 0;
  cudaDeviceGetAttribute(&L2, cudaDevAttrL2CacheSize, Device);
  size_t Group = 0;
  for (const auto &S : InSpecs)
    Group += S.bytes();
  for (const auto &S : OutSpecs)
    Group += S.bytes();
  double Multiple = Cfg.L2Multiple;
  size_t Need = static_cast<size_t>(Multiple * L2);
  size_t Copies =
      std::max<size_t>(2, (Need + Group - 1) / std::max<size_t>(Group, 1));
  Copies = std::min<size_t>(Copies, static_cast<size_t>(Warmup + Iters));
  Copies = std::max<size_t>(Copies, 2);
  std::vector<TensorSet> Ins, Outs;
  for (size_t K = 0; K < Copies; ++K) {
    Ins.push_back(alloc(InSpecs, Case, Size));
    Outs.push_back(alloc(OutSpecs, Case, Size));
    P->generateInputs(RI, Ins.back().Views,
                      mixSeed(mixSeed(Seed, 77 + K), mixSeed(Size, Rank)));
  }
  check(cudaStreamSynchronize(Stream), "timing set-up", Case, Size);
  std::vector<cudaEvent_t> Ev(2 * static_cast<size_t>(Iters));
  for (auto &E : Ev)
    check(cudaEventCreate(&E), "cudaEventCreate", Case, Size);
  long TimedDeadline = DeadlineMs * std::max(1, (Warmup + Iters) / 10);

  auto Measure = [&](bool Candidate, const char *Side) {
    auto One = [&](size_t K) {
      if (Candidate)
        callCandidate(Ins[K], Outs[K], Case, Size);
      else
        reference(Ins[K], Outs[K], Case, Size, 0);
    };
    C.barrier();
    C.arm({{"phase", std::string("timing-") + Side},
           {"case", Case},
           {"size", Size},
           {"call", Ctx.call_index}},
          TimedDeadline);
    for (int W = 0; W < Warmup; ++W)
      One(static_cast<size_t>(W) % Copies);
    check(cudaStreamSynchronize(Stream), "warm-up", Case, Size);
    C.disarm();
    C.barrier();
    C.arm({{"phase", std::string("timing-") + Side},
           {"case", Case},
           {"size", Size},
           {"call", Ctx.call_index}},
          TimedDeadline);
    cudaGraphExec_t Exec = nullptr;
    cudaGraph_t G = nullptr;
    if (Graph)
      check(cudaStreamBeginCapture(Stream, cudaStreamCaptureModeThreadLocal),
            "cudaStreamBeginCapture", Case, Size);
    for (int I = 0; I < Iters; ++I) {
      size_t K = static_cast<size_t>(Warmup + I) % Copies;
      if (Graph)
        cudaEventRecordWithFlags(Ev[2 * I], Stream, cudaEventRecordExternal);
      else
        cudaEventRecord(Ev[2 * I], Stream);
      One(K);
      if (Graph)
        cudaEventRecordWithFlags(Ev[2 * I + 1], Stream,
                                 cudaEventRecordExternal);
      else
        cudaEventRecord(Ev[2 * I + 1], Stream);
    }
    if (Graph) {
      check(cudaStreamEndCapture(Stream, &G), "cudaStreamEndCapture", Case,
            Size);
      check(cudaGraphInstantiate(&Exec, G, 0), "cudaGraphInstantiate", Case,
            Size);
      check(cudaGraphLaunch(Exec, Stream), "cudaGraphLaunch", Case, Size);
    }
    check(cudaStreamSynchronize(Stream),
          fmt::format("timed {} calls", Side).c_str(), Case, Size);
    C.disarm();
    if (Exec)
      cudaGraphExecDestroy(Exec);
    if (G)
      cudaGraphDestroy(G);
    std::vector<double> Us;
    for (int I = 0; I < Iters; ++I) {
      float Ms = 0;
      check(cudaEventElapsedTime(&Ms, Ev[2 * I], Ev[2 * I + 1]),
            "cudaEventElapsedTime", Case, Size);
      Us.push_back(Ms * 1000.0);
    }
    return toJson(summarize(Us), 1.0, "_us");
  };
  nlohmann::json T;
  T["candidate"] = Measure(true, "candidate");
  T["reference"] = Measure(false, "reference");
  T["iters"] = Iters;
  T["warmup"] = Warmup;
  T["copies"] = Copies;
  T["graph"] = Graph;
  T["l2_bytes"] = L2;
  for (auto &E : Ev)
    cudaEventDestroy(E);
  for (auto &S : Ins)
    release(S);
  for (auto &S : Outs)
    release(S);
  return T;
}

int CandidateWorker::run() {
  Rank = C.rank();
  World = C.worldSize();
  Device = Rank;
  if (const char *D = std::getenv("PKB_DEVICE"); D && *D)
    Device = std::atoi(D);
  Local = Cfg.Oversubscribe;
  DeadlineMs = Cfg.DeadlineMs;
  SetupMs = Cfg.SetupDeadlineMs;
  Seed = Cfg.Seed;
  ProblemName = Cfg.Problem;
  const std::vector<int64_t> &Sizes = Cfg.Sizes;
  int CaseOffset = Cfg.CaseOffset;
  C.arm({{"phase", "setup"}}, SetupMs);
  P = findProblem(ProblemName);
  if (!P)
    fatal(Verdict::InternalError, "unknown problem " + ProblemName);
  int Count = 0;
  cudaError_t E = cudaGetDeviceCount(&Count);
  if (E == cudaSuccess && Local)
    Device = deviceOfRank(Device, Count, Cfg.Gpus);
  if (E != cudaSuccess || Device >= Count)
    fatal(Verdict::InternalError,
          fmt::format("rank {} needs CUDA device {}, {} visible ({})", Rank,
                      Device, Count, cudaErrorText(E)));
  if ((E = cudaSetDevice(Device)) != cudaSuccess ||
      (E = cudaStreamCreateWithFlags(&Stream, cudaStreamNonBlocking)) !=
          cudaSuccess)
    fatal(Verdict::InternalError, "CUDA set-up: " + cudaErrorText(E));

  // NCCL communicator for the references (rank 0's unique id). None in
  // correctness-only mode: NCCL refuses two ranks on one GPU ("Duplicate GPU
  // detected"), and the local references need no communication.
  if (!Local) {
    ncclUniqueId Id{};
    if (Rank == 0 && ncclGetUniqueId(&Id) != ncclSuccess)
      fatal(Verdict::InternalError, "ncclGetUniqueId failed");
    auto Ids = C.allgather(
        std::string(reinterpret_cast<const char *>(&Id), sizeof(Id)));
    std::memcpy(&Id, Ids[0].data(), sizeof(Id));
    ncclResult_t NR = ncclCommInitRank(&Comm, World, Id, Rank);
    if (NR != ncclSuccess)
      fatal(Verdict::InternalError,
            fmt::format("ncclCommInitRank: {}", ncclGetErrorString(NR)));
  }

  // Load the candidate.
  const std::string &LibPath = Cfg.Library;
  Lib = ::dlopen(LibPath.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!Lib)
    fatal(Verdict::SetupError, fmt::format("dlopen: {}", ::dlerror()), -1, -1,
          FailureKind::Load);
  Setup = reinterpret_cast<pkb_setup_fn>(::dlsym(Lib, PKB_SETUP_SYMBOL));
  Run = reinterpret_cast<pkb_run_fn>(::dlsym(Lib, PKB_RUN_SYMBOL));
  Query = reinterpret_cast<pkb_query_fn>(::dlsym(Lib, PKB_QUERY_SYMBOL));
  Teardown =
      reinterpret_cast<pkb_teardown_fn>(::dlsym(Lib, PKB_TEARDOWN_SYMBOL));
  if (!Setup || !Run)
    fatal(Verdict::SetupError,
          fmt::format("candidate must export {} and {} (extern \"C\")",
                      PKB_SETUP_SYMBOL, PKB_RUN_SYMBOL),
          -1, -1, FailureKind::Load);

  int64_t MaxSize =
      Sizes.empty() ? 0 : *std::max_element(Sizes.begin(), Sizes.end());
  Ctx.abi_version = PKB_ABI_VERSION;
  Ctx.rank = Rank;
  Ctx.world_size = World;
  Ctx.device = Device;
  Ctx.stream = Stream;
  Ctx.problem_id = P->id();
  Ctx.problem_name = P->name().data();
  Ctx.size = MaxSize;
  auto InSpecs = P->inputs(World, Rank, MaxSize);
  auto OutSpecs = P->outputs(World, Rank, MaxSize);
  std::vector<pkb_tensor> InV, OutV;
  size_t Largest = 0;
  for (const auto &S : InSpecs) {
    InV.push_back(makeTensor(S, nullptr));
    Largest = std::max(Largest, S.bytes());
  }
  for (const auto &S : OutSpecs) {
    OutV.push_back(makeTensor(S, nullptr));
    Largest = std::max(Largest, S.bytes());
  }
  pkb_requirements Req{};
  if (Query) {
    int Rc = Query(&Ctx, InV.data(), static_cast<int>(InV.size()), OutV.data(),
                   static_cast<int>(OutV.size()), &Req);
    if (Rc != 0)
      fatal(Verdict::SetupError,
            fmt::format("pkb_candidate_query returned {}", Rc));
  } else {
    Req.num_symm_buffers = 1;
    Req.symm_bytes[0] = Largest;
  }
  if (Req.num_symm_buffers < 0 || Req.num_symm_buffers > PKB_MAX_SYMM_BUFFERS)
    fatal(Verdict::SetupError, fmt::format("num_symm_buffers {} out of range",
                                           Req.num_symm_buffers));
  std::vector<size_t> Bytes(Req.symm_bytes,
                            Req.symm_bytes + Req.num_symm_buffers);
  auto Made = SymmetricHeap::create(C, Device, Bytes, 64 * 1024);
  if (!Made)
    fatal(Verdict::InternalError, "symmetric heap: " + Made.error().Message);
  Heap = std::move(*Made);
  Heap->fillContext(Ctx);
  if (Req.workspace_bytes) {
    if ((E = cudaMalloc(&Ctx.workspace, Req.workspace_bytes)) != cudaSuccess)
      fatal(Verdict::SetupError,
            fmt::format("workspace of {} bytes: {}", Req.workspace_bytes,
                        cudaErrorText(E)));
    Ctx.workspace_bytes = Req.workspace_bytes;
  }
  int Rc = Setup(&Ctx);
  if (Rc != 0)
    fatal(Verdict::SetupError,
          fmt::format("pkb_candidate_setup returned {}", Rc));
  if ((E = cudaDeviceSynchronize()) != cudaSuccess)
    fatal(Verdict::RuntimeError, "pkb_candidate_setup: " + cudaErrorText(E));
  C.disarm();
  C.barrier();

  for (size_t I = 0; I < Sizes.size(); ++I)
    runCase(CaseOffset + static_cast<int>(I), Sizes[I]);

  C.barrier(); // no peer still reads our memory when we release it
  C.arm({{"phase", "teardown"}}, SetupMs);
  if (Teardown)
    Teardown(&Ctx);
  cudaStreamSynchronize(Stream);
  if (Comm)
    ncclCommDestroy(Comm);
  Heap.reset();
  C.disarm();
  C.done();
  return 0;
}

} // namespace

int runCandidateWorker(HubClient &C) {
  CandidateWorker W(C);
  return W.run();
}

} // namespace pkb::rt

namespace pkb::rt {

int runHeapCheckWorker(HubClient &C) {
  const WorkerConfig Cfg = workerConfigFromJson(C.config());
  int Rank = C.rank(), World = C.worldSize();
  size_t Bytes = Cfg.Extra.value("bytes", size_t(1) << 20) / 4 * 4;
  int Device = Rank, Count = 0;
  if (Cfg.Oversubscribe && cudaGetDeviceCount(&Count) == cudaSuccess)
    Device = deviceOfRank(Rank, Count, Cfg.Gpus);
  auto Report = [&](const char *Verdict, const std::string &Detail,
                    const std::string &Backend) {
    C.result({{"rank", Rank},
              {"case", 0},
              {"size", Bytes},
              {"verdict", Verdict},
              {"detail", Detail},
              {"symm_backend", Backend},
              {"device", Device}});
  };
  C.arm({{"phase", "setup"}}, 120000);
  if (cudaSetDevice(Device) != cudaSuccess) {
    Report("internal-error", "cudaSetDevice failed", "");
    ::_exit(3);
  }
  auto Made = SymmetricHeap::create(C, Device, {Bytes, Bytes}, 64 * 1024);
  if (!Made) {
    Report("internal-error", Made.error().Message, "");
    ::_exit(3);
  }
  std::unique_ptr<SymmetricHeap> Heap = std::move(*Made);
  pkb_context Ctx{};
  Heap->fillContext(Ctx);
  C.disarm();
  C.arm({{"phase", "heap-check"}}, 60000);
  std::string Bad;
  auto Expect = [&](const void *Dev, uint32_t Want, const char *What,
                    size_t Len) {
    std::vector<uint32_t> H(Len / 4);
    cudaError_t E = cudaMemcpy(H.data(), Dev, Len, cudaMemcpyDeviceToHost);
    if (E != cudaSuccess) {
      Bad += fmt::format("{}: {}; ", What, cudaErrorText(E));
      return;
    }
    for (size_t I = 0; I < H.size(); ++I)
      if (H[I] != Want) {
        Bad += fmt::format("{}: word {} is {:#x}, expected {:#x}; ", What, I,
                           H[I], Want);
        return;
      }
  };
  // 1. Pad zeroed on every rank (seen through the peer mappings too).
  for (int P = 0; P < World; ++P)
    Expect(Ctx.view.signal_pads[P], 0, "signal pad", Ctx.signal_pad_bytes);
  // 2. Local writes, remote reads.
  fillPattern(Ctx.symm[0].local, Bytes / 4, 4, 0x01010101u * (Rank + 1),
              nullptr);
  cudaDeviceSynchronize();
  C.barrier();
  for (int P = 0; P < World; ++P)
    Expect(Ctx.symm[0].peers_host[P], 0x01010101u * (P + 1),
           "remote read of buffer 0", Bytes);
  // 3. Remote writes (SM stores over NVLink), local reads.
  int To = (Rank + 1) % World, From = (Rank + World - 1) % World;
  fillPattern(Ctx.symm[1].peers_host[To], Bytes / 4, 4, 0xABC00000u + Rank,
              nullptr);
  cudaDeviceSynchronize();
  C.barrier();
  Expect(Ctx.symm[1].local, 0xABC00000u + From, "remote write to buffer 1",
         Bytes);
  // 4. The device tables hold the same pointers as the host tables.
  std::vector<void *> T(World);
  cudaMemcpy(T.data(), Ctx.symm[0].peers, sizeof(void *) * World,
             cudaMemcpyDeviceToHost);
  for (int P = 0; P < World; ++P)
    if (T[P] != Ctx.symm[0].peers_host[P])
      Bad += fmt::format("device peer table entry {} differs; ", P);
  C.disarm();
  C.barrier();
  Report(Bad.empty() ? "pass" : "wrong-output", Bad, Heap->backend());
  Heap.reset();
  C.done();
  return 0;
}

} // namespace pkb::rt
