//===- CaseMerge.cpp - Merging the per-rank results of one case ----------===//
//
// mergeCaseResult, mergeCase, the case merger (CaseMergerOf), foldSanitizer
// and correctnessOnlyDetail (Session.h): pure C++, in pkb_rtcore, so that
// every kind of worker (the C++ worker of .cu candidates, keyed by size;
// the Python worker of ParallelKernelBench solutions in PkbRun.cpp, keyed
// by shape) is merged by one merger and one function.
//
//===----------------------------------------------------------------------===//
#include "pkb/rt/ResultStore.h"
#include "pkb/rt/Session.h"

#include <fmt/format.h>

#include <algorithm>
#include <ctime>

namespace pkb::rt {

namespace {
std::string nowIso() {
  std::time_t T = std::time(nullptr);
  char Buf[32];
  std::strftime(Buf, sizeof(Buf), "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&T));
  return Buf;
}

std::optional<double> numberAt(const nlohmann::json &J, const char *A,
                               const char *B) {
  if (!J.contains(A) || !J[A].is_object() || !J[A].contains(B) ||
      !J[A][B].is_number())
    return std::nullopt;
  return J[A][B].get<double>();
}

/// Slowest rank's statistics of one timed side ("candidate"/"reference").
std::optional<nlohmann::json>
slowest(const std::map<int, nlohmann::json> &Ranks, int World,
        const char *Side) {
  nlohmann::json Best;
  double BestMedian = -1;
  for (int R = 0; R < World; ++R) {
    auto It = Ranks.find(R);
    if (It == Ranks.end() || !It->second.contains("timing"))
      return std::nullopt;
    auto M = numberAt(It->second["timing"], Side, "median_us");
    if (!M)
      return std::nullopt;
    if (*M > BestMedian) {
      BestMedian = *M;
      Best = It->second["timing"][Side];
      Best["slowest_rank"] = R;
    }
  }
  return Best;
}
} // namespace

CaseResult mergeCaseResult(const CaseInfo &I,
                           const std::map<int, nlohmann::json> &RankResults,
                           std::optional<Verdict> Forced,
                           const std::string &ForcedDetail) {
  nlohmann::json Rec = {
      {"key", resultKey(I.Problem, I.KernelHash, I.Size, I.WorldSize, I.Mode)},
      {"problem", I.Problem},
      {"problem_id", I.ProblemId},
      {"kernel", I.Kernel},
      {"kernel_hash", I.KernelHash},
      {"size", I.Size},
      {"world_size", I.WorldSize},
      {"mode", I.Mode},
      {"time", nowIso()}};
  if (I.Gpus > 0)
    Rec["gpus"] = I.Gpus;
  if (I.CorrectnessOnly) {
    Rec["mode_detail"] = correctnessOnlyDetail(I.WorldSize, I.Gpus);
    Rec["timing_disabled"] =
        "several ranks share a GPU (--oversubscribe): time-sliced, so no "
        "timing, speedup or roofline; references computed locally (no NCCL)";
  }
  Verdict V = Forced.value_or(Verdict::Pass);
  std::string Detail = Forced ? ForcedDetail : "";
  std::optional<FailureKind> Reported;
  int FirstCall = -1;
  nlohmann::json Ranks = nlohmann::json::array();
  for (int R = 0; R < I.WorldSize; ++R) {
    auto It = RankResults.find(R);
    if (It == RankResults.end()) {
      if (!Forced) {
        V = worseVerdict(V, Verdict::InternalError);
        if (Detail.empty())
          Detail = fmt::format("rank {} sent no result", R);
      }
      continue;
    }
    nlohmann::json J = It->second;
    auto RV = parseVerdict(J.value("verdict", std::string("internal-error")))
                  .value_or(Verdict::InternalError);
    if (verdictSeverity(RV) > verdictSeverity(V) ||
        (RV != Verdict::Pass && Detail.empty())) {
      if (verdictSeverity(RV) >= verdictSeverity(V)) {
        Detail =
            fmt::format("rank {}: {}", R, J.value("detail", std::string()));
        Reported = parseFailureKind(J.value("failure_kind", std::string()));
      }
      V = worseVerdict(V, RV);
    }
    if (J.contains("failures") && J["failures"].is_array())
      for (const auto &F : J["failures"])
        if (F.is_object() && F.contains("call") &&
            F["call"].is_number_integer()) {
          int Call = F["call"].get<int>();
          if (FirstCall < 0 || Call < FirstCall)
            FirstCall = Call;
        }
    // The Python worker (pkb_worker.py) reports the call directly.
    if (J.contains("first_failing_call") &&
        J["first_failing_call"].is_number_integer()) {
      int Call = J["first_failing_call"].get<int>();
      if (FirstCall < 0 || Call < FirstCall)
        FirstCall = Call;
    }
    J.erase("timing");
    Ranks.push_back(std::move(J));
  }
  CaseResult Out;
  Out.Size = I.Size;
  Out.V = V;
  Out.Detail = Detail;
  Out.Mode = I.Mode;
  if (V == Verdict::WrongOutput || V == Verdict::UnwrittenOutput)
    Out.FirstFailingCall = std::max(FirstCall, 0);
  Out.Kind = caseFailureKind(V, Reported, Out.FirstFailingCall.value_or(0));
  Rec["verdict"] = std::string(verdictName(V));
  Rec["detail"] = Detail;
  Rec["failure_kind"] = std::string(failureKindName(Out.Kind));
  if (Out.FirstFailingCall)
    Rec["first_failing_call"] = *Out.FirstFailingCall;
  Rec["ranks"] = Ranks;
  if (V == Verdict::Pass && !I.CorrectnessOnly) {
    auto C = slowest(RankResults, I.WorldSize, "candidate");
    auto Ref = slowest(RankResults, I.WorldSize, "reference");
    if (C) {
      nlohmann::json T = {{"candidate", *C}};
      if (Ref) {
        T["reference"] = *Ref;
        double CM = (*C)["median_us"].get<double>();
        double RM = (*Ref)["median_us"].get<double>();
        if (CM > 0) {
          T["speedup"] = RM / CM;
          Out.Speedup = RM / CM;
        }
      }
      auto It = RankResults.find(0);
      for (const char *K : {"iters", "warmup", "copies", "graph"})
        if (It != RankResults.end() && It->second["timing"].contains(K))
          T[K] = It->second["timing"][K];
      Rec["timing"] = T;
      if (I.Terms) {
        nlohmann::json RL = {{"terms", toJson(*I.Terms)}};
        if (I.Rates) {
          RL["rates"] = toJson(*I.Rates);
          RooflineResult RC = roofline(*I.Terms, *I.Rates,
                                       (*C)["median_us"].get<double>() * 1e-6);
          RL["candidate"] = toJson(RC);
          Out.RooflineFraction = RC.AchievedFraction;
          if (Ref)
            RL["reference_achieved_fraction"] =
                roofline(*I.Terms, *I.Rates,
                         (*Ref)["median_us"].get<double>() * 1e-6)
                    .AchievedFraction;
        }
        Rec["roofline"] = RL;
      }
    }
  }
  Out.Record = std::move(Rec);
  return Out;
}

nlohmann::json mergeCase(const CaseInfo &I,
                         const std::map<int, nlohmann::json> &RankResults,
                         std::optional<Verdict> Forced,
                         const std::string &ForcedDetail) {
  return mergeCaseResult(I, RankResults, Forced, ForcedDetail).Record;
}

template <typename Key>
Key CaseMergerOf<Key>::collect(int Rank, const nlohmann::json &R) {
  Key K = KeyOf(R);
  Partial[K][Rank] = R;
  return K;
}

template <typename Key>
std::optional<CaseResult> CaseMergerOf<Key>::add(int Rank,
                                                 const nlohmann::json &R) {
  Key K = collect(Rank, R);
  auto It = Partial.find(K);
  if (static_cast<int>(It->second.size()) != World)
    return std::nullopt;
  CaseResult C = mergeCaseResult(info(K), It->second);
  Partial.erase(It);
  return C;
}

template <typename Key>
CaseResult CaseMergerOf<Key>::merge(const Key &K, std::optional<Verdict> Forced,
                                    const std::string &ForcedDetail) {
  CaseResult C = mergeCaseResult(info(K), ranks(K), Forced, ForcedDetail);
  Partial.erase(K);
  return C;
}

template <typename Key>
const std::map<int, nlohmann::json> &
CaseMergerOf<Key>::ranks(const Key &K) const {
  static const std::map<int, nlohmann::json> None;
  auto It = Partial.find(K);
  return It == Partial.end() ? None : It->second;
}

template class CaseMergerOf<int64_t>;
template class CaseMergerOf<std::string>;

void foldSanitizer(CaseResult &C, const std::string &Tool, int Errors,
                   const std::string &Report) {
  C.Record["sanitizer"] = {{"tool", Tool}, {"errors", Errors}};
  if (Errors <= 0)
    return;
  C.Record["sanitizer"]["report"] = Report;
  if (verdictSeverity(C.V) >= verdictSeverity(Verdict::SanitizerError))
    return;
  C.V = Verdict::SanitizerError;
  C.Kind = FailureKind::Sanitizer;
  C.Detail = Report;
  C.FirstFailingCall.reset();
  C.Speedup.reset();
  C.RooflineFraction.reset();
  C.Record["verdict"] = std::string(verdictName(C.V));
  C.Record["detail"] = Report;
  C.Record["failure_kind"] = std::string(failureKindName(C.Kind));
  C.Record.erase("first_failing_call");
}

std::string correctnessOnlyDetail(int Ranks, int Gpus) {
  return fmt::format("correctness-only ({} rank{} on {} GPU{})", Ranks,
                     Ranks == 1 ? "" : "s", Gpus, Gpus == 1 ? "" : "s");
}

} // namespace pkb::rt
