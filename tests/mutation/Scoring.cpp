//===- Scoring.cpp - Corpus accuracy and mutation scores ------------------===//

#include "Scoring.h"

#include <algorithm>
#include <regex>
#include <sstream>

namespace pkb::accuracy {

std::set<Key> readAnnotations(const std::string &Text) {
  static const std::regex Re(R"((//|#)\s*expect:\s*([A-Z]+-\d{3})\s*$)");
  std::set<Key> R;
  std::istringstream In(Text);
  std::string Line;
  unsigned N = 0;
  while (std::getline(In, Line)) {
    ++N;
    if (!Line.empty() && Line.back() == '\r')
      Line.pop_back();
    std::smatch M;
    if (std::regex_search(Line, M, Re))
      R.insert({N, M[2].str()});
  }
  return R;
}

std::set<Key> reportedKeys(const std::vector<Finding> &Findings) {
  std::set<Key> R;
  for (const Finding &F : Findings)
    if (F.Sev != Severity::Note)
      R.insert({F.Loc.Line, F.CheckId});
  return R;
}

double Counts::precision() const {
  return Tp + Fp ? double(Tp) / double(Tp + Fp) : 1.0;
}

double Counts::recall() const {
  return Tp + Fn ? double(Tp) / double(Tp + Fn) : 1.0;
}

FileScore scoreFile(const std::string &Path, const std::set<Key> &Want,
                    const std::vector<Finding> &Findings,
                    const std::string &Status, double Seconds) {
  FileScore S;
  S.Path = Path;
  S.Status = Status;
  S.Seconds = Seconds;
  S.Want = Want;
  S.Got = reportedKeys(Findings);
  for (const Key &K : S.Got)
    (S.Want.count(K) ? S.C.Tp : S.C.Fp)++;
  for (const Key &K : S.Want)
    if (!S.Got.count(K))
      ++S.C.Fn;
  S.Exact = S.Got == S.Want;
  for (const Finding &F : Findings)
    S.ErrorFindings += F.Sev == Severity::Error;
  return S;
}

CorpusScore scoreCorpus(std::vector<FileScore> Files) {
  CorpusScore R;
  for (const FileScore &F : Files) {
    for (const Key &K : F.Got)
      (F.Want.count(K) ? R.PerId[K.second].Tp : R.PerId[K.second].Fp)++;
    for (const Key &K : F.Want)
      if (!F.Got.count(K))
        ++R.PerId[K.second].Fn;
    R.Total.Tp += F.C.Tp;
    R.Total.Fp += F.C.Fp;
    R.Total.Fn += F.C.Fn;
    R.Exact += F.Exact;
    R.Seconds += F.Seconds;
    if (F.Want.empty()) {
      ++R.CorrectFiles;
      R.CorrectFilesWithErrors += F.ErrorFindings > 0;
      R.FalseAlarms += F.ErrorFindings;
    }
  }
  R.Files = std::move(Files);
  return R;
}

static nlohmann::json keysJson(const std::set<Key> &Keys) {
  nlohmann::json A = nlohmann::json::array();
  for (const Key &K : Keys)
    A.push_back({{"line", K.first}, {"id", K.second}});
  return A;
}

static nlohmann::json countsJson(const Counts &C) {
  return {{"tp", C.Tp},
          {"fp", C.Fp},
          {"fn", C.Fn},
          {"precision", C.precision()},
          {"recall", C.recall()}};
}

nlohmann::json toJson(const CorpusScore &S) {
  nlohmann::json Files = nlohmann::json::array();
  for (const FileScore &F : S.Files)
    Files.push_back({{"file", F.Path},
                     {"status", F.Status},
                     {"seconds", F.Seconds},
                     {"expected", keysJson(F.Want)},
                     {"reported", keysJson(F.Got)},
                     {"counts", countsJson(F.C)},
                     {"exact", F.Exact},
                     {"error_findings", F.ErrorFindings}});
  nlohmann::json PerId = nlohmann::json::object();
  for (const auto &[Id, C] : S.PerId)
    PerId[Id] = countsJson(C);
  return {{"files", Files},
          {"per_id", PerId},
          {"total", countsJson(S.Total)},
          {"file_count", S.Files.size()},
          {"exact", S.Exact},
          {"correct_files", S.CorrectFiles},
          {"correct_files_with_errors", S.CorrectFilesWithErrors},
          {"false_alarms", S.FalseAlarms},
          {"seconds", S.Seconds}};
}

const char *toString(Outcome O) {
  switch (O) {
  case Outcome::Killed:
    return "killed";
  case Outcome::KilledOther:
    return "killed-other";
  case Outcome::Survived:
    return "survived";
  case Outcome::Stillborn:
    return "stillborn";
  case Outcome::Equivalent:
    return "equivalent";
  case Outcome::Failed:
    return "failed";
  }
  return "?";
}

Outcome classifyMutant(const std::vector<std::string> &KillIds,
                       const std::set<Key> &Baseline, const std::set<Key> &Got,
                       bool Stillborn, bool Failed, bool Equivalent,
                       std::vector<std::string> &NewIds) {
  NewIds.clear();
  std::set<std::string> Ids;
  for (const Key &K : Got)
    if (!Baseline.count(K))
      Ids.insert(K.second);
  NewIds.assign(Ids.begin(), Ids.end());
  if (Stillborn)
    return Outcome::Stillborn;
  if (Failed)
    return Outcome::Failed;
  if (Equivalent)
    return Outcome::Equivalent;
  for (const std::string &Id : NewIds)
    if (std::find(KillIds.begin(), KillIds.end(), Id) != KillIds.end())
      return Outcome::Killed;
  return NewIds.empty() ? Outcome::Survived : Outcome::KilledOther;
}

void OperatorScore::add(Outcome O) {
  ++Mutants;
  switch (O) {
  case Outcome::Killed:
    ++Killed;
    break;
  case Outcome::KilledOther:
    ++KilledOther;
    break;
  case Outcome::Survived:
    ++Survived;
    break;
  case Outcome::Stillborn:
    ++Stillborn;
    break;
  case Outcome::Equivalent:
    ++Equivalent;
    break;
  case Outcome::Failed:
    ++Failed;
    break;
  }
}

double OperatorScore::score() const {
  return scored() ? double(Killed) / double(scored()) : 1.0;
}

std::string equivalentKey(const std::string &File, unsigned Line,
                          const std::string &Operator) {
  return File + ":" + std::to_string(Line) + ":" + Operator;
}

std::set<std::string> readEquivalentList(const std::string &Text,
                                         std::vector<std::string> &Errors) {
  static const std::regex Re(R"(^\s*([^:\s]+):(\d+):([a-z-]+)\s*$)");
  std::set<std::string> R;
  std::istringstream In(Text);
  std::string Line;
  unsigned N = 0;
  while (std::getline(In, Line)) {
    ++N;
    size_t Hash = Line.find('#');
    if (Hash != std::string::npos)
      Line.resize(Hash);
    if (Line.find_first_not_of(" \t\r") == std::string::npos)
      continue;
    std::smatch M;
    if (!std::regex_match(Line, M, Re) || !mutation::parseOperator(M[3])) {
      Errors.push_back("line " + std::to_string(N) +
                       ": expected `file:line:operator  # reason`");
      continue;
    }
    R.insert(
        equivalentKey(M[1], static_cast<unsigned>(std::stoul(M[2])), M[3]));
  }
  return R;
}

} // namespace pkb::accuracy
