//===- RuntimeCommands.cpp - CLI of the runtime harness -------------------===//
#include "pkb/RuntimeCommands.h"
#include "pkb/ProblemCatalogue.h"
#include "pkb/rt/Bench.h"
#include "pkb/rt/Compiler.h"
#include "pkb/rt/Hub.h"
#include "pkb/rt/Launcher.h"
#include "pkb/rt/PkbCommands.h"
#include "pkb/rt/Problem.h"
#include "pkb/rt/RankEnv.h"
#include "pkb/rt/ResultStore.h"
#include "pkb/rt/Session.h"
#include "pkb/rt/Wire.h"
#include "pkb/rt/Worker.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <thread>
#include <unistd.h>

#ifndef PKB_RUNTIME_INCLUDE_DIR
#define PKB_RUNTIME_INCLUDE_DIR ""
#endif

namespace pkb {
namespace fs = std::filesystem;
using namespace pkb::rt;

namespace {
/// "4096", "4K", "2M", "1G" (binary multiples).
int64_t parseSize(const std::string &S) {
  if (S.empty())
    throw CLI::ValidationError("size", "empty size");
  size_t Pos = 0;
  long long V = std::stoll(S, &Pos);
  std::string Suf = S.substr(Pos);
  if (Suf == "K" || Suf == "k")
    V <<= 10;
  else if (Suf == "M" || Suf == "m")
    V <<= 20;
  else if (Suf == "G" || Suf == "g")
    V <<= 30;
  else if (!Suf.empty())
    throw CLI::ValidationError("size", "bad size '" + S + "'");
  if (V <= 0)
    throw CLI::ValidationError("size", "size must be positive: " + S);
  return V;
}

/// Runs `this-binary bench peers --json P` in a child and returns its rates.
std::optional<MachineRates> probeInChild(const fs::path &P) {
  std::string Cmd = fmt::format("'{}' bench peers --json '{}' >/dev/null 2>&1",
                                selfExe(), P.string());
  if (std::system(Cmd.c_str()) != 0)
    return std::nullopt;
  return loadMachineRates(P);
}

struct RunArgs {
  RunOptions O;
  std::vector<std::string> SizeStrings;
  std::string Rates;
  bool NoProbe = false;
  std::string Bootstrap;
};

int runExternal(RunArgs &A, const RankEnv &Env);

/// The machine rates of a timed run: --rates, else the cached probe of this
/// machine, probed now (in a child) unless --no-probe; empty if none.
fs::path ratesFile(const RunArgs &A, fs::path CacheDir) {
  if (!A.Rates.empty())
    return A.Rates;
  if (CacheDir.empty())
    CacheDir = defaultCacheDir();
  fs::path C = ratesCachePath(CacheDir);
  if (!fs::exists(C) && !A.NoProbe) {
    fmt::print("probing peer and HBM bandwidth (cached in {})\n", C.string());
    std::fflush(stdout);
    probeInChild(C);
  }
  return fs::exists(C) ? C : fs::path();
}

int doRun(RunArgs &A) {
  RunOptions &O = A.O;
  for (const auto &S : A.SizeStrings)
    O.Sizes.push_back(parseSize(S));
  if (O.CacheDir.empty())
    O.CacheDir = defaultCacheDir();
  if (O.AbiInclude.empty())
    O.AbiInclude = PKB_RUNTIME_INCLUDE_DIR;
  if (auto Env = detectRankEnv())
    return runExternal(A, *Env);
  if (O.Timing && O.Sanitize.empty() && !O.Oversubscribe)
    O.RatesFile = ratesFile(A, O.CacheDir);
  else if (!A.Rates.empty())
    O.RatesFile = A.Rates;
  RunSummary S = runCandidates(O);
  fmt::print("{} case(s) run in {} worker group(s), {} already in {}\n",
             S.Records.size(), S.Groups, S.SkippedDone, O.Results.string());
  return S.AllPass ? 0 : 1;
}

/// Under mpirun/srun/torchrun: this process is one rank; rank 0 also runs
/// the hub in a thread. Fatal verdicts end the process of the rank that saw
/// them; completed cases are already in the results file.
int runExternal(RunArgs &A, const RankEnv &Env) {
  RunOptions &O = A.O;
  if (O.Kernels.size() != 1)
    throw std::runtime_error("under an external launcher give exactly one "
                             "--kernel");
  if (!A.Rates.empty())
    O.RatesFile = A.Rates;
  const RunPlan Plan = planRun(O, Env.WorldSize);
  CompileOptions CO;
  CO.Nvcc = O.Nvcc;
  CO.CacheDir = O.CacheDir;
  CO.AbiInclude = O.AbiInclude;
  CompileResult CR = compileCandidate(O.Kernels[0], CO);
  if (!CR.Ok) {
    if (Env.Rank == 0)
      fmt::print(stderr, "compile-error:\n{}\n", CR.Log);
    return 1;
  }
  std::string Sock = A.Bootstrap;
  if (Sock.empty())
    if (const char *E = std::getenv("PKB_BOOTSTRAP_SOCKET"))
      Sock = E;
  if (Sock.empty())
    Sock = fmt::format("/tmp/pkbcheck-{}-{}.sock", ::getuid(),
                       contentHash(Env.Source + Env.JobId).substr(0, 12));
  // With --oversubscribe the worker maps PKB_DEVICE onto the visible
  // devices (local rank % device count).
  ::setenv("PKB_DEVICE", std::to_string(Env.LocalRank).c_str(), 1);
  ::setenv("NCCL_NVLS_ENABLE", "0", 1);
  WorkerConfig Cfg = Plan.Worker;
  Cfg.Library = CR.Library.string();
  Cfg.Sizes = Plan.Sizes;
  std::unique_ptr<std::thread> HubThread;
  std::unique_ptr<ResultStore> Store;
  CaseMerger Merger(Plan, O.Kernels[0], CR.Hash);
  bool AllPass = true;
  if (Env.Rank == 0) {
    auto Listening = listenUnix(Sock);
    if (!Listening)
      throw std::runtime_error(Listening.error().Message);
    int L = *Listening;
    Store = std::make_unique<ResultStore>(O.Results);
    HubOptions HO;
    HO.WorldSize = Env.WorldSize;
    HO.Config = toJson(Cfg);
    HO.OnResult = [&](int R, const nlohmann::json &J) {
      auto C = Merger.add(R, J);
      if (!C)
        return;
      AllPass &= C->V == Verdict::Pass;
      Store->append(C->Record);
      fmt::print("{}\n", C->Record.dump());
      std::fflush(stdout);
    };
    auto H = std::make_shared<Hub>(L, HO);
    HubThread = std::make_unique<std::thread>([H, &Sock] {
      HubOutcome Out = H->run();
      ::unlink(Sock.c_str());
      if (Out.K != HubOutcome::Kind::Completed) {
        fmt::print(stderr, "pkbcheck: {}: {}\n", hubOutcomeName(Out.K),
                   Out.Detail);
        std::fflush(stderr);
        ::_exit(1); // peers were killed; end this rank too
      }
    });
  }
  HubClient C;
  if (auto Connected = C.connect(Sock, Env.Rank, 120000); !Connected)
    throw std::runtime_error(Connected.error().Message);
  int Rc = runWorker(C);
  if (HubThread)
    HubThread->join();
  return Rc != 0 ? 2 : (AllPass ? 0 : 1);
}

/// `compile`: compiles Kernels one after the other (run several processes
/// for parallelism: the cache is safe for concurrent writers); prints one
/// line per kernel. Returns 0 when all compiled, 1 otherwise.
int compileAll(const std::vector<std::string> &Kernels,
               const std::string &CacheDir, const std::string &Nvcc) {
  CompileOptions CO;
  CO.Nvcc = Nvcc;
  CO.CacheDir = CacheDir.empty() ? defaultCacheDir() : fs::path(CacheDir);
  CO.AbiInclude = PKB_RUNTIME_INCLUDE_DIR;
  std::vector<CompileResult> Res;
  for (const auto &K : Kernels)
    Res.push_back(compileCandidate(K, CO));
  int Rc = 0;
  for (size_t I = 0; I < Kernels.size(); ++I) {
    const CompileResult &R = Res[I];
    fmt::print("{:<14} {} {}\n",
               R.Ok ? (R.Cached ? "cached" : "compiled") : "compile-error",
               Kernels[I], R.Ok ? R.Library.string() : std::string());
    if (!R.Ok) {
      fmt::print("{}\n", R.Log);
      Rc = 1;
    }
  }
  std::fflush(stdout);
  return Rc;
}

/// `problems --json`: the whole catalogue (pkb/ProblemCatalogue.h), one
/// object per line, with the spec's size unit and default sizes when the
/// problem has a C++ spec, and the byte model of `.py` solutions (formula and
/// source) or why there is none.
void printProblemsJson() {
  std::string Out = "[\n";
  bool First = true;
  for (const CatalogueEntry &E : problemCatalogue()) {
    nlohmann::json J = {{"id", E.Id},
                        {"name", std::string(E.name())},
                        {"pkb_name", std::string(E.PkbName)},
                        {"has_spec", E.HasSpec}};
    if (const Problem *P = findProblem(std::to_string(E.Id))) {
      J["size_unit"] = std::string(P->sizeUnit());
      J["default_sizes"] = P->defaultSizes();
      J["summary"] = std::string(P->summary());
    }
    // The NVLink byte model of `.py` solutions (docs/pkb.md#roofline).
    if (const PkbByteModel *M = pkbByteModel(E.Id); M && M->Bytes)
      J["byte_model"] = {{"formula", std::string(M->Formula)},
                         {"source", std::string(M->Source)}};
    else if (M)
      J["byte_model_absent"] = std::string(M->Reason);
    Out += (First ? "" : ",\n") + J.dump();
    First = false;
  }
  fmt::print("{}\n]\n", Out);
}

void printProblems() {
  fmt::print("{:>3} {:<12} {:<22} {:<30} {}\n", "id", "name", "size unit",
             "default sizes", "summary");
  for (const Problem *P : allProblems()) {
    std::string Sizes;
    for (int64_t S : P->defaultSizes())
      Sizes += (Sizes.empty() ? "" : ",") + std::to_string(S);
    fmt::print("{:>3} {:<12} {:<22} {:<30} {}\n", P->id(), P->name(),
               P->sizeUnit(), Sizes, P->summary());
  }
}
} // namespace

void addRuntimeCommands(CLI::App &App, int &ExitCode) {
  // ---- run ----------------------------------------------------------------
  auto RA = std::make_shared<RunArgs>();
  CLI::App *Run = App.add_subcommand(
      "run", "Run candidate kernels on GPUs: correctness against NCCL, "
             "speedup, roofline");
  Run->add_option("--problem", RA->O.ProblemName,
                  "Problem name or id (required with --kernel)");
  Run->add_option("--kernel,-k", RA->O.Kernels, "Candidate .cu file(s)")
      ->check(CLI::ExistingFile);
  auto Pkb = addPkbRunOptions(*Run); // .py solutions: PkbCommands.cpp
  Run->add_option("--gpus", RA->O.Gpus,
                  "Ranks (default: all visible GPUs; more than visible only "
                  "with --oversubscribe)");
  Run->add_flag("--oversubscribe", RA->O.Oversubscribe,
                "Correctness only, several ranks per GPU allowed (rank r on "
                "GPU r % G): references computed locally without NCCL, no "
                "timing, default deadline 30 s");
  Run->add_option("--sizes", RA->SizeStrings,
                  "Problem sizes (4096, 64K, 1M, ...; default: the problem's)")
      ->delimiter(',');
  Run->add_option("--trials", RA->O.Trials, "Checked trials (>= 3)");
  Run->add_option("--back-to-back", RA->O.BackToBack,
                  "Calls in a row without host sync (>= 4)");
  Run->add_option("--warmup", RA->O.Warmup, "Warm-up calls before timing");
  Run->add_option("--iters", RA->O.Iters, "Timed calls");
  Run->add_option("--deadline", RA->O.DeadlineSec,
                  "Seconds a call may take before the verdict is deadlock "
                  "(default 10; 30 with --oversubscribe)");
  Run->add_option("--setup-deadline", RA->O.SetupDeadlineSec,
                  "Seconds for worker set-up (NCCL, heap, candidate setup)");
  Run->add_option("--seed", RA->O.Seed, "Base seed of the inputs");
  Run->add_flag("--graph", RA->O.Graph, "Time inside one CUDA graph");
  Run->add_flag("!--no-timing", RA->O.Timing, "Check correctness only");
  Run->add_option("--sanitize", RA->O.Sanitize,
                  "Run workers under compute-sanitizer")
      ->check(CLI::IsMember({"memcheck", "racecheck", "synccheck"}));
  Run->add_option("--results", RA->O.Results, "JSONL results file");
  Run->add_flag("--force", RA->O.Force, "Rerun cases already in --results");
  Run->add_option("--cache-dir", RA->O.CacheDir,
                  "Compiled candidates and machine rates");
  Run->add_option("--nvcc", RA->O.Nvcc, "nvcc to use");
  Run->add_option("--rates", RA->Rates,
                  "Machine rates JSON (bench peers --json); default: cached "
                  "probe");
  Run->add_flag("--no-probe", RA->NoProbe,
                "Do not probe the machine when no rates are cached");
  Run->add_flag("--keep-scratch", RA->O.KeepScratch,
                "Keep worker scratch directories (/tmp/pkbcheck-*)");
  Run->add_option("--bootstrap", RA->Bootstrap,
                  "Unix socket of rank 0 under mpirun/srun/torchrun");
  Run->callback([RA, Pkb, &ExitCode] {
    try {
      if (!Pkb->Solutions.empty()) { // ParallelKernelBench .py solutions
        takeSharedRunOptions(*Pkb, RA->O);
        // The link peak of the roofline fraction; at W = 1 nothing crosses
        // NVLink, so only --rates (no probe) is taken there.
        if (Pkb->Timing && Pkb->Selftest.empty() && Pkb->WorldSize >= 2)
          Pkb->RatesFile = ratesFile(*RA, Pkb->CacheDir);
        else
          Pkb->RatesFile = RA->Rates;
        ExitCode = runPkbSolutions(*Pkb);
        return;
      }
      if (RA->O.Kernels.empty() || RA->O.ProblemName.empty())
        throw std::invalid_argument(
            "--problem and --kernel (or --solution FILE.py) are required");
      ExitCode = doRun(*RA);
    } catch (const std::exception &E) {
      fmt::print(stderr, "pkbcheck run: {}\n", E.what());
      ExitCode = 2;
    }
  });

  // ---- bench --------------------------------------------------------------
  CLI::App *Bench = App.add_subcommand("bench", "Machine and NCCL benchmarks");
  Bench->require_subcommand(1);
  auto PO = std::make_shared<PeerProbeOptions>();
  auto PJson = std::make_shared<std::string>();
  auto PCache = std::make_shared<std::string>();
  CLI::App *Peers = Bench->add_subcommand(
      "peers", "Peer (copy engine, SM store/load), HBM and FP32 rates");
  Peers->add_option("--bytes", PO->Bytes, "Bytes per copy");
  Peers->add_option("--reps", PO->Reps, "Timed copies per measurement");
  Peers->add_option("--json", *PJson, "Write the probe as JSON");
  Peers->add_option("--cache-dir", *PCache, "Also cache the rates here");
  auto POver = std::make_shared<bool>(false);
  Peers->add_flag("--oversubscribe", *POver,
                  "Refused: benchmarks need one process per GPU");
  Peers->callback([PO, PJson, PCache, POver, &ExitCode] {
    if (*POver) {
      fmt::print(stderr, "pkbcheck bench peers: --oversubscribe is for "
                         "correctness-only runs (`run --oversubscribe`); "
                         "bandwidth probes measure real GPUs and links\n");
      ExitCode = 2;
      return;
    }
    try {
      nlohmann::json J = probeMachine(*PO);
      printProbe(J, stdout);
      fs::path Cache = ratesCachePath(PCache->empty() ? defaultCacheDir()
                                                      : fs::path(*PCache));
      for (const fs::path &P : {fs::path(*PJson), Cache})
        if (!P.empty())
          std::ofstream(P) << J.dump(2) << "\n";
      ExitCode = 0;
    } catch (const std::exception &E) {
      fmt::print(stderr, "pkbcheck bench peers: {}\n", E.what());
      ExitCode = 2;
    }
  });
  auto NO = std::make_shared<NcclBenchOptions>();
  auto NJson = std::make_shared<std::string>();
  auto NMin = std::make_shared<std::string>("4K");
  auto NMax = std::make_shared<std::string>("1G");
  CLI::App *Nccl = Bench->add_subcommand(
      "nccl", "nccl-tests-style tables (bf16): all_reduce, all_gather, "
              "reduce_scatter, alltoall, broadcast");
  Nccl->add_option("--gpus", NO->Gpus, "Ranks (default: all visible)");
  Nccl->add_option("--min-bytes,-b", *NMin, "Smallest size (4K)");
  Nccl->add_option("--max-bytes,-e", *NMax, "Largest size (1G)");
  Nccl->add_option("--warmup,-w", NO->Warmup, "Warm-up iterations");
  Nccl->add_option("--iters,-n", NO->Iters, "Timed iterations");
  Nccl->add_option("--collectives", NO->Collectives, "Subset to run")
      ->delimiter(',')
      ->check(CLI::IsMember({"all_reduce", "all_gather", "reduce_scatter",
                             "alltoall", "broadcast"}));
  Nccl->add_option("--json", *NJson, "Write rows as JSON");
  auto NOver = std::make_shared<bool>(false);
  Nccl->add_flag("--oversubscribe", *NOver,
                 "Refused: NCCL needs one GPU per rank");
  Nccl->callback([NO, NJson, NMin, NMax, NOver, &ExitCode] {
    if (*NOver) {
      fmt::print(stderr,
                 "pkbcheck bench nccl: --oversubscribe is for "
                 "correctness-only runs (`run --oversubscribe`); NCCL "
                 "refuses two ranks on one GPU and timings of time-sliced "
                 "ranks would mean nothing\n");
      ExitCode = 2;
      return;
    }
    try {
      NO->MinBytes = static_cast<size_t>(parseSize(*NMin));
      NO->MaxBytes = static_cast<size_t>(parseSize(*NMax));
      nlohmann::json Rows = runNcclBench(*NO);
      printNcclBench(Rows, stdout);
      if (!NJson->empty())
        std::ofstream(*NJson) << Rows.dump(2) << "\n";
      ExitCode = 0;
    } catch (const std::exception &E) {
      fmt::print(stderr, "pkbcheck bench nccl: {}\n", E.what());
      ExitCode = 2;
    }
  });

  // ---- compile ------------------------------------------------------------
  auto CK = std::make_shared<std::vector<std::string>>();
  auto CCache = std::make_shared<std::string>();
  auto CNvcc = std::make_shared<std::string>();
  CLI::App *Compile = App.add_subcommand(
      "compile", "Compile candidates into the cache (as `run` would) "
                 "without running them");
  Compile->add_option("--kernel,-k", *CK, "Candidate .cu file(s)")
      ->required()
      ->check(CLI::ExistingFile);
  Compile->add_option("--cache-dir", *CCache, "Compiled candidates");
  Compile->add_option("--nvcc", *CNvcc, "nvcc to use");
  Compile->callback([CK, CCache, CNvcc, &ExitCode] {
    ExitCode = compileAll(*CK, *CCache, *CNvcc);
  });

  // ---- problems -----------------------------------------------------------
  CLI::App *Problems = App.add_subcommand("problems", "List problem specs");
  auto PJsonAll = std::make_shared<bool>(false);
  Problems->add_flag("--json", *PJsonAll,
                     "All ParallelKernelBench problems as JSON (id, name, "
                     "pkb_name, has_spec, spec details)");
  Problems->callback([PJsonAll, &ExitCode] {
    if (*PJsonAll)
      printProblemsJson();
    else
      printProblems();
    ExitCode = 0;
  });

  // ---- worker (hidden) ----------------------------------------------------
  auto WSock = std::make_shared<std::string>();
  auto WRank = std::make_shared<int>(0);
  auto WWorld = std::make_shared<int>(1);
  CLI::App *Worker =
      App.add_subcommand("worker", "Internal: one rank of a worker group");
  Worker->group(""); // hidden from --help
  Worker->add_option("--socket", *WSock)->required();
  Worker->add_option("--rank", *WRank)->required();
  Worker->add_option("--world", *WWorld)->required();
  Worker->callback([WSock, WRank, WWorld] {
    int Rc = workerMain(*WSock, *WRank, *WWorld);
    std::fflush(stdout);
    std::fflush(stderr);
    ::_exit(Rc); // skip static destructors (CUDA/NCCL teardown can hang)
  });
}

} // namespace pkb
