//===- PkbRun.cpp - Run ParallelKernelBench .py solutions -----------------===//
#include "pkb/rt/PkbRun.h"

#include "pkb/ProblemCatalogue.h"
#include "pkb/rt/Compiler.h"
#include "pkb/rt/Launcher.h"
#include "pkb/rt/ResultStore.h"
#include "pkb/rt/Session.h"
#include "pkb/rt/Verdict.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <fstream>
#include <map>
#include <netinet/in.h>
#include <sstream>
#include <sys/socket.h>
#include <unistd.h>

#ifndef PKB_PYTHON_SOURCE_DIR
#define PKB_PYTHON_SOURCE_DIR ""
#endif

namespace fs = std::filesystem;
using nlohmann::json;

namespace pkb::rt {
namespace {

std::string readFile(const fs::path &P) {
  std::ifstream In(P, std::ios::binary);
  std::ostringstream S;
  S << In.rdbuf();
  return S.str();
}

/// A TCP port free right now on 127.0.0.1 (for MASTER_PORT).
int freePort() {
  int S = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (S < 0)
    return 29500;
  sockaddr_in A{};
  A.sin_family = AF_INET;
  A.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t L = sizeof(A);
  int Port = 29500;
  if (::bind(S, reinterpret_cast<sockaddr *>(&A), sizeof(A)) == 0 &&
      ::getsockname(S, reinterpret_cast<sockaddr *>(&A), &L) == 0)
    Port = ntohs(A.sin_port);
  ::close(S);
  return Port;
}

std::vector<int64_t> parseShape(const std::string &S) {
  std::vector<int64_t> Dims;
  std::stringstream In(S);
  std::string Part;
  while (std::getline(In, Part, 'x'))
    Dims.push_back(std::stoll(Part));
  if (Dims.size() != 2 || Dims[0] <= 0 || Dims[1] <= 0)
    throw std::invalid_argument("shape must be MxN, e.g. 1024x1024: " + S);
  return Dims;
}

std::string shapeText(const json &Shape) {
  if (!Shape.is_array() || Shape.size() != 2)
    return "?";
  return fmt::format("{}x{}", Shape[0].get<int64_t>(), Shape[1].get<int64_t>());
}

/// The slowest rank's timing of one side, with that rank.
json slowestTiming(const std::map<int, json> &Ranks, const char *Side) {
  json Best;
  for (const auto &[R, J] : Ranks) {
    if (!J.contains("timing") || !J["timing"].contains(Side))
      continue;
    const json &T = J["timing"][Side];
    if (Best.is_null() ||
        T.value("median_us", 0.0) > Best.value("median_us", 0.0)) {
      Best = T;
      Best["slowest_rank"] = R;
    }
  }
  return Best;
}

struct CaseKey {
  std::string Key;
  json Shape;
};

/// Name resolved through PATH (execve does not search); Name if not found.
std::string inPath(const std::string &Name) {
  if (Name.find('/') != std::string::npos)
    return Name;
  const char *P = std::getenv("PATH");
  std::stringstream In(P ? P : "/usr/bin:/bin");
  std::string Dir;
  while (std::getline(In, Dir, ':'))
    if (!Dir.empty() && ::access((fs::path(Dir) / Name).c_str(), X_OK) == 0)
      return (fs::path(Dir) / Name).string();
  return Name;
}

} // namespace

std::optional<int> pkbProblemId(const fs::path &File) {
  std::string N = File.filename().string();
  size_t I = 0;
  while (I < N.size() && std::isdigit(static_cast<unsigned char>(N[I])))
    ++I;
  if (I == 0 || I > 4)
    return std::nullopt;
  return std::stoi(N.substr(0, I));
}

fs::path pkbReference(const fs::path &Root, int Id) {
  std::error_code Ec;
  std::string Prefix = std::to_string(Id) + "_";
  for (const auto &E : fs::directory_iterator(Root / "reference", Ec)) {
    std::string N = E.path().filename().string();
    if (N.rfind(Prefix, 0) == 0 && E.path().extension() == ".py")
      return E.path();
  }
  return {};
}

fs::path locatePkbWorker() {
  if (const char *E = std::getenv("PKB_WORKER_PY"); E && *E)
    return E;
  fs::path Exe = fs::path(selfExe()).parent_path();
  for (fs::path P : {Exe / ".." / "share" / "pkbcheck" / "pkb_worker.py",
                     Exe / "pkb_worker.py",
                     fs::path(PKB_PYTHON_SOURCE_DIR) / "pkb_worker.py"})
    if (!P.empty() && fs::exists(P))
      return fs::weakly_canonical(P);
  return {};
}

namespace {

/// Completes the roofline of a timed PKB record (mergeCaseResult wrote
/// "roofline" {terms, rates, candidate} when it had bytes and rates): the
/// byte model, the achieved bus bandwidth and the link peak in GB/s (1e9
/// bytes/s), whose ratio is the achieved fraction; otherwise
/// "roofline_absent" says why there is none.
void addPkbRoofline(json &Rec, int Id, const PkbNvlinkBytes &Bytes,
                    const std::optional<MachineRates> &Rates) {
  if (!Bytes.Bytes) {
    Rec["roofline_absent"] = Bytes.Why;
    return;
  }
  const PkbByteModel *M = pkbByteModel(Id);
  json &RL = Rec["roofline"];
  RL["byte_model"] = {{"nvlink_bytes_per_rank", *Bytes.Bytes},
                      {"formula", std::string(M->Formula)},
                      {"source", std::string(M->Source)}};
  if (!Rates || Rates->NvlinkBytesPerSec <= 0) {
    Rec["roofline_absent"] =
        "no NVLink peak for this machine: pass --rates FILE (pkbcheck bench "
        "peers --json FILE) or run where a probe is cached";
    return;
  }
  double Us = Rec["timing"]["candidate"].value("median_us", 0.0);
  if (Us > 0)
    RL["busbw_gbps"] = *Bytes.Bytes / (Us * 1e-6) / 1e9;
  RL["link_peak_gbps"] = Rates->NvlinkBytesPerSec / 1e9;
}

/// Runs one solution at every shape; returns the merged cases.
std::vector<CaseResult> runSolution(const PkbRunOptions &O, const fs::path &Sol,
                                    int Id, const fs::path &Root,
                                    const fs::path &Worker,
                                    const std::optional<MachineRates> &Rates,
                                    ResultStore &Store, int &AlreadyDone) {
  std::string Src = readFile(Sol);
  std::string Hash =
      contentHash(Src + "\n--pkb-worker--\n" + readFile(Worker) + O.Dtype);
  fs::path Cache = O.CacheDir.empty() ? defaultCacheDir() : O.CacheDir;
  fs::path Ext = Cache / "torch-extensions" / contentHash(Src);
  std::error_code Ec;
  fs::create_directories(Ext, Ec);
  std::string Mode = O.Timing ? "pkb-eager" : "pkb-correctness";
  std::vector<CaseKey> Todo;
  for (const auto &S : O.Shapes) {
    auto D = parseShape(S);
    std::string Key = resultKey(fmt::format("pkb-{}", Id), Hash, D[0] * D[1],
                                O.WorldSize, Mode + "|" + S + "|" + O.Dtype);
    if (!O.Force && Store.contains(Key)) {
      ++AlreadyDone;
      continue;
    }
    json Shape = json::array({D[0], D[1]});
    // A shape given twice runs once (as a size given twice in `run`): the
    // merger merges each case once.
    if (std::none_of(Todo.begin(), Todo.end(), [&](const CaseKey &C) {
          return shapeText(C.Shape) == shapeText(Shape);
        }))
      Todo.push_back({Key, Shape});
  }
  std::vector<CaseResult> Records;
  if (Todo.empty())
    return Records;
  fs::path Ref = pkbReference(Root, Id);
  json Shapes = json::array();
  for (const auto &C : Todo)
    Shapes.push_back(C.Shape);
  json Cfg = {
      {"solution", fs::absolute(Sol).string()},
      {"reference", Ref.string()},
      {"problem", Id},
      {"pkb_root", Root.empty() ? std::string() : fs::absolute(Root).string()},
      {"world", O.WorldSize},
      {"shapes", Shapes},
      {"dtype", O.Dtype},
      {"trials", std::max(3, O.Trials)},
      {"back_to_back", std::max(4, O.BackToBack)},
      {"warmup", O.Warmup},
      {"iters", O.Iters},
      {"pkb_warmup", O.PkbWarmup},
      {"pkb_iters", O.PkbIters},
      {"deadline_ms", static_cast<long>(O.DeadlineSec * 1000)},
      {"setup_deadline_ms", static_cast<long>(O.SetupDeadlineSec * 1000)},
      {"timing", O.Timing},
      {"atol", O.Atol},
      {"rtol", O.Rtol},
      {"master_port", freePort()},
      {"extensions_dir", Ext.string()}};
  if (!O.Selftest.empty())
    Cfg["selftest"] = O.Selftest;
  // The one case merger (Session.h), keyed by shape text.
  CaseMergerOf<std::string> Merger(
      O.WorldSize,
      [](const json &J) { return shapeText(J.value("shape", json())); },
      [&](const std::string &S) {
        auto D = parseShape(S);
        CaseInfo Info;
        Info.Problem = fmt::format("pkb-{}", Id);
        Info.ProblemId = Id;
        Info.Kernel = Sol.string();
        Info.KernelHash = Hash;
        Info.Size = D[0] * D[1];
        Info.WorldSize = O.WorldSize;
        Info.Mode = Mode + "|" + S + "|" + O.Dtype; // the result key's mode
        PkbNvlinkBytes B = pkbNvlinkBytes(
            Id, {D[0], D[1], pkbDtypeBytes(O.Dtype).value_or(0), O.WorldSize});
        if (B.Bytes) {
          Info.Terms = RooflineTerms{*B.Bytes, 0, 0};
          if (Rates && Rates->NvlinkBytesPerSec > 0)
            Info.Rates = Rates;
        }
        return Info;
      });
  std::vector<std::string> Logs;
  GroupSpec G;
  G.WorldSize = O.WorldSize;
  G.Command = {inPath(O.Python.empty() ? "python3" : O.Python), Worker.string(),
               "worker"};
  G.Config = Cfg;
  G.KeepScratch = O.KeepScratch;
  G.BootstrapTimeoutMs = 120000;
  G.ExtraEnv = {{"TORCH_EXTENSIONS_DIR", Ext.string()},
                {"PYTHONUNBUFFERED", "1"}};
  G.OnResult = [&](int R, const json &J) { Merger.collect(R, J); };
  json LoggedVersions; // from a "pkb-versions {...}" log line of any rank
  G.OnLog = [&](int R, const std::string &L) {
    if (L.rfind(kVersionsLogPrefix, 0) == 0) {
      json V = json::parse(L.substr(kVersionsLogPrefix.size()), nullptr, false);
      if (V.is_object())
        LoggedVersions = V;
      return;
    }
    Logs.push_back(fmt::format("[rank {}] {}", R, L));
  };
  GroupOutcome Out = runWorkerGroup(G);
  const HubOutcome &H = Out.Hub;
  bool GroupFailed = H.K != HubOutcome::Kind::Completed;
  bool FailureSeen = false;
  for (const auto &C : Todo) {
    std::string S = shapeText(C.Shape);
    // Kept past the merge below, which forgets the case.
    const std::map<int, json> Ranks = Merger.ranks(S);
    // What the ranks said, as the merge below will see it; the launcher's
    // outcome decides whether a verdict is forced on top.
    Verdict V = Verdict::Pass;
    for (const auto &[R, J] : Ranks)
      V = worseVerdict(
          V, parseVerdict(J.value("verdict", std::string("internal-error")))
                 .value_or(Verdict::InternalError));
    std::optional<Verdict> Forced;
    std::string Detail; // of a forced verdict; empty: the worst rank's
    json Launcher;
    bool Fatal = V != Verdict::Pass && isFatalVerdict(V);
    bool Complete = static_cast<int>(Ranks.size()) == O.WorldSize;
    json LauncherJ = {{"outcome", hubOutcomeName(H.K)},
                      {"rank", H.Rank},
                      {"phase", H.Phase},
                      {"detail", H.Detail}};
    if (GroupFailed && Fatal && !FailureSeen) {
      FailureSeen = true; // a rank's fatal result: it says why
      Launcher = LauncherJ;
      Forced = V; // ranks that died with it sent nothing
    } else if (GroupFailed && !Complete && !FailureSeen) {
      // This is the case the group died in.
      FailureSeen = true;
      Launcher = LauncherJ;
      if (H.K == HubOutcome::Kind::Deadlock) {
        Forced = Verdict::Deadlock;
        Detail = H.Detail;
      } else if (H.K == HubOutcome::Kind::FatalResult) {
        // The rank's own result (merged below) says why.
        Forced = V == Verdict::Pass ? Verdict::InternalError : V;
        if (V == Verdict::Pass)
          Detail = H.Detail;
      } else if (H.K == HubOutcome::Kind::BootstrapFailed) {
        Forced = Verdict::InternalError;
        Detail = H.Detail.empty() ? Out.Error : H.Detail;
      } else {
        Forced = worseVerdict(V, Verdict::RuntimeError);
        Detail = H.Detail;
      }
    } else if (!GroupFailed && !Complete) {
      Forced = Verdict::InternalError;
      Detail = fmt::format("{} of {} ranks reported a result", Ranks.size(),
                           O.WorldSize);
    } else if (GroupFailed && !Complete) {
      Forced = Verdict::Skipped;
      Detail = "not run: the worker group failed in an earlier case";
    }
    // The one merge of every worker kind (Session.h): verdict, detail,
    // failure kind, first failing call, slowest rank's timing, speedup.
    // Roofline: NVLink bytes of PKB's reference from the catalogue's byte
    // model (also in the merger's CaseInfo above, from which
    // mergeCaseResult derives the floor and the achieved fraction exactly
    // as for .cu candidates, Roofline.h).
    PkbNvlinkBytes Bytes = pkbNvlinkBytes(
        Id, {C.Shape[0].get<int64_t>(), C.Shape[1].get<int64_t>(),
             pkbDtypeBytes(O.Dtype).value_or(0), O.WorldSize});
    CaseResult CR = Merger.merge(S, Forced, Detail);
    CR.Mode = Mode;
    json &Rec = CR.Record;
    Rec["mode"] = Mode;
    Rec["pkb_problem"] = Id;
    Rec["kind"] = "pkb-python";
    Rec["reference"] = Ref.string();
    Rec["shape"] = C.Shape;
    Rec["dtype"] = O.Dtype;
    Rec["tolerance"] = {{"atol", O.Atol}, {"rtol", O.Rtol}};
    json Versions = LoggedVersions; // also when no rank sent a result
    for (const auto &[R, J] : Ranks)
      if (J.contains("versions") && !J["versions"].empty())
        Versions = J["versions"];
    Rec["versions"] = Versions;
    if (!Launcher.is_null()) {
      Rec["launcher"] = Launcher;
      json Tails;
      for (const auto &[R, T] : Out.LogTail)
        Tails[std::to_string(R)] = T;
      Rec["log_tail"] = Tails;
    }
    if (Rec.contains("timing")) {
      // PKB's own method (one event pair around all iterations), slowest
      // rank of each side.
      json Cand = slowestTiming(Ranks, "candidate");
      json RefT = slowestTiming(Ranks, "reference");
      double CP = Cand.is_object() ? Cand.value("pkb_method_us", 0.0) : 0.0,
             RP = RefT.is_object() ? RefT.value("pkb_method_us", 0.0) : 0.0;
      Rec["timing"]["pkb_method_speedup"] = CP > 0 ? RP / CP : 0.0;
      if (!Rec["timing"].contains("speedup"))
        Rec["timing"]["speedup"] = 0.0;
      addPkbRoofline(Rec, Id, Bytes, Rates);
    }
    Store.append(Rec);
    Records.push_back(std::move(CR));
  }
  return Records;
}

} // namespace

std::optional<std::pair<unsigned, unsigned>>
parsePkbShard(const std::string &Spec) {
  unsigned I = 0, N = 0;
  const char *B = Spec.data(), *E = B + Spec.size();
  auto [P1, E1] = std::from_chars(B, E, I);
  if (E1 != std::errc() || P1 == E || *P1 != '/')
    return std::nullopt;
  auto [P2, E2] = std::from_chars(P1 + 1, E, N);
  if (E2 != std::errc() || P2 != E || I < 1 || I > N)
    return std::nullopt;
  return std::make_pair(I - 1, N);
}

int runPkbSolutions(const PkbRunOptions &O) {
  std::string Root = O.PkbRoot;
  if (Root.empty())
    if (const char *E = std::getenv("PKB_ROOT"))
      Root = E;
  if (!Root.empty()) // workers run in scratch directories
    Root = fs::absolute(Root).lexically_normal().string();
  if (O.Selftest.empty() &&
      (Root.empty() ||
       !fs::exists(fs::path(Root) / "utils" / "input_output_tensors.py"))) {
    fmt::print(stderr, "pkbcheck run: --pkb-root (or PKB_ROOT) must name a "
                       "ParallelKernelBench checkout (utils/, reference/)\n");
    return 2;
  }
  fs::path Worker =
      O.WorkerScript.empty() ? locatePkbWorker() : fs::path(O.WorkerScript);
  if (Worker.empty() || !fs::exists(Worker)) {
    fmt::print(stderr, "pkbcheck run: pkb_worker.py not found (set "
                       "PKB_WORKER_PY)\n");
    return 2;
  }
  std::optional<MachineRates> Rates;
  if (!O.RatesFile.empty())
    Rates = loadMachineRates(O.RatesFile);
  ResultStore Store(O.Results);
  int Already = 0;
  bool AllPass = true;
  if (!O.Quiet)
    fmt::print("{:<40} {:>10} {:<18} {:>11} {:>11} {:>8} {:>6}  {}\n",
               "solution", "shape", "verdict", "cand us", "ref us", "speedup",
               "frac", "detail");
  std::pair<unsigned, unsigned> Shard = {0, 1};
  if (!O.Shard.empty()) {
    auto P = parsePkbShard(O.Shard);
    if (!P) {
      fmt::print(stderr,
                 "pkbcheck run: invalid --shard '{}' (expected I/N with 1 "
                 "<= I <= N)\n",
                 O.Shard);
      return 2;
    }
    Shard = *P;
  }
  for (size_t Pos = 0; Pos < O.Solutions.size(); ++Pos) {
    if (Pos % Shard.second != Shard.first)
      continue;
    const std::string &S = O.Solutions[Pos];
    std::optional<int> Id;
    if (!O.Problem.empty())
      Id = std::stoi(O.Problem);
    else
      Id = pkbProblemId(S);
    if (!Id || (O.Selftest.empty() && pkbReference(Root, *Id).empty())) {
      fmt::print(stderr,
                 "pkbcheck run: {}: no PKB problem id (name it "
                 "<id>_....py or pass --problem)\n",
                 S);
      AllPass = false;
      continue;
    }
    for (CaseResult &CR :
         runSolution(O, S, *Id, Root, Worker, Rates, Store, Already)) {
      AllPass &= CR.V == Verdict::Pass;
      const json R = CR.Record;
      std::string C = "-", Rf = "-", Sp = "-", Fr = "-";
      if (CR.RooflineFraction)
        Fr = fmt::format("{:.3f}", *CR.RooflineFraction);
      if (O.Collect)
        O.Collect->push_back(std::move(CR));
      if (O.Quiet)
        continue;
      if (R.contains("timing")) {
        C = fmt::format("{:.1f}",
                        R["timing"]["candidate"].value("median_us", 0.0));
        Rf = fmt::format("{:.1f}",
                         R["timing"]["reference"].value("median_us", 0.0));
        Sp = fmt::format("{:.2f}", R["timing"].value("speedup", 0.0));
      }
      std::string D = R.value("detail", "");
      if (D.size() > 100)
        D = D.substr(0, 100) + "...";
      fmt::print("{:<40} {:>10} {:<18} {:>11} {:>11} {:>8} {:>6}  {}\n",
                 fs::path(S).filename().string(), shapeText(R["shape"]),
                 R["verdict"].get<std::string>(), C, Rf, Sp, Fr, D);
      std::fflush(stdout);
    }
  }
  if (!O.Quiet)
    fmt::print("results in {} ({} case(s) already there)\n", O.Results.string(),
               Already);
  return AllPass ? 0 : 1;
}

} // namespace pkb::rt
