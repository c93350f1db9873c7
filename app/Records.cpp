//===- Records.cpp - Reading and appending eval records (JSONL) -----------===//

#include "Records.h"

#include "pkb/ModelJson.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sys/stat.h>
#include <unistd.h>

using nlohmann::json;

namespace pkb {

const std::vector<FieldSpec> &evalRecordSchema() {
  // Every field a reader of records uses (Eval.cpp: loadRecords, runEval,
  // finishRecord; Report.cpp: loadReport and the writers), with the types
  // those readers accept. Floating-point values may be null: nlohmann::json
  // writes NaN and infinities as null. docs/eval.md shows the schema.
  static const std::vector<FieldSpec> Schema = {
      {"schema", FtString},
      {"candidate", FtString, /*Required=*/true},
      {"set", FtString},
      {"problem", FtNull | FtObject},
      {"problem.id", FtInt, true},
      {"problem.name", FtString, true},
      {"static", FtObject, true},
      {"static.status", FtString},
      {"static.kernels", FtInt},
      {"static.seconds", FtNumber | FtNull},
      {"static.errors", FtInt},
      {"static.warnings", FtInt},
      {"static.findings", FtArray},
      {"static.findings[]", FtObject},
      {"static.findings[].check", FtString},
      {"static.findings[].severity", FtString},
      {"static.findings[].kernel", FtString},
      {"static.findings[].file", FtString},
      {"static.findings[].line", FtInt},
      {"static.findings[].col", FtInt},
      {"static.findings[].message", FtString},
      {"static.findings[].fix", FtString},
      {"static.findings[].related", FtArray},
      {"static.findings[].related[]", FtObject},
      {"static.findings[].related[].role", FtString},
      {"static.findings[].related[].file", FtString},
      {"static.findings[].related[].line", FtInt},
      {"static.findings[].related[].col", FtInt},
      {"static.findings[].related[].text", FtString},
      {"static.findings[].witness", FtObject},
      {"static.findings[].explains", FtArray},
      {"static.findings[].explains[]", FtString},
      {"static.diagnostics", FtArray},
      {"static.diagnostics[]", FtObject},
      {"static.diagnostics[].code", FtString},
      {"static.diagnostics[].severity", FtString},
      {"static.diagnostics[].file", FtString},
      {"static.diagnostics[].line", FtInt},
      {"static.diagnostics[].col", FtInt},
      {"static.diagnostics[].message", FtString},
      {"gate", FtString},
      {"stage", FtString},
      {"class", FtString},
      {"explained_by", FtArray},
      {"explained_by[]", FtString},
      {"dynamic", FtObject},
      {"dynamic.ran", FtBool},
      {"dynamic.reason", FtString},
      {"dynamic.verdict", FtString},
      {"dynamic.detail", FtString},
      {"dynamic.mode", FtString},
      {"dynamic.speedup", FtNumber | FtNull},
      {"dynamic.seconds", FtNumber | FtNull},
      {"dynamic.roofline_fraction", FtNumber | FtNull},
      {"dynamic.roofline", FtObject},
      {"dynamic.roofline.fraction", FtNumber | FtNull},
      {"dynamic.first_failing_call", FtInt | FtNull},
      {"dynamic.failure_kind", FtString},
      {"dynamic.cases", FtArray},
  };
  return Schema;
}

namespace {

/// The schema named in records this build writes and reads.
constexpr const char *SchemaName = "pkbcheck-eval/1";
/// Deeper lines are rejected before parsing: nothing in a record nests
/// more than about ten levels, and recursive copies/dumps of a value nested
/// thousands of levels deep would exhaust the stack.
constexpr unsigned MaxDepth = 128;

/// The FieldType bits \p V satisfies.
unsigned typeBits(const json &V) {
  switch (V.type()) {
  case json::value_t::null:
    return FtNull;
  case json::value_t::boolean:
    return FtBool;
  case json::value_t::number_integer: {
    int64_t I = V.get<int64_t>();
    return FtNumber | (I >= INT_MIN && I <= INT_MAX ? unsigned(FtInt) : 0u);
  }
  case json::value_t::number_unsigned:
    return FtNumber | (V.get<uint64_t>() <= INT_MAX ? unsigned(FtInt) : 0u);
  case json::value_t::number_float:
    return FtNumber;
  case json::value_t::string:
    return FtString;
  case json::value_t::object:
    return FtObject;
  case json::value_t::array:
    return FtArray;
  default:
    return 0;
  }
}

/// "a string", "an integer out of range (N)", ... for the message about a
/// value \p V that is not of the \p Expected types.
std::string describe(const json &V, unsigned Expected) {
  switch (V.type()) {
  case json::value_t::null:
    return "null";
  case json::value_t::boolean:
    return "a boolean";
  case json::value_t::number_integer:
  case json::value_t::number_unsigned:
    return Expected & FtInt ? "an integer out of range (" + V.dump() + ")"
                            : "an integer";
  case json::value_t::number_float:
    return "a fractional number";
  case json::value_t::string:
    return "a string";
  case json::value_t::object:
    return "an object";
  case json::value_t::array:
    return "an array";
  default:
    return "not a JSON value";
  }
}

/// "a number or null" for a set of FieldType bits.
std::string expected(unsigned Types) {
  static const std::pair<unsigned, const char *> Names[] = {
      {FtObject, "an object"}, {FtArray, "an array"}, {FtString, "a string"},
      {FtNumber, "a number"},  {FtBool, "a boolean"}, {FtNull, "null"}};
  std::string S;
  if ((Types & FtInt) && !(Types & FtNumber))
    S = "an integer";
  for (const auto &[Bit, Name] : Names)
    if (Types & Bit)
      S += (S.empty() ? "" : " or ") + std::string(Name);
  return S;
}

/// One step of a schema path: an object key, and whether the value is an
/// array whose elements the rest of the path applies to.
struct Step {
  std::string_view Key;
  bool Each = false;
};

std::vector<Step> splitPath(std::string_view Path) {
  std::vector<Step> Out;
  size_t B = 0;
  while (B <= Path.size()) {
    size_t E = Path.find('.', B);
    if (E == std::string_view::npos)
      E = Path.size();
    std::string_view Part = Path.substr(B, E - B);
    Step S;
    if (Part.size() >= 2 && Part.substr(Part.size() - 2) == "[]") {
      S.Each = true;
      Part.remove_suffix(2);
    }
    S.Key = Part;
    Out.push_back(S);
    B = E + 1;
  }
  return Out;
}

/// Where a value sits: the keys and array indices from the root (-1 for
/// an object member), rendered only when a check fails.
using Trail = std::vector<std::pair<std::string_view, long>>;

std::string render(const Trail &T) {
  std::string S;
  for (const auto &[Key, Index] : T) {
    if (!S.empty())
      S += '.';
    S += Key;
    if (Index >= 0)
      S += fmt::format("[{}]", Index);
  }
  return S;
}

/// Checks the values \p Spec denotes below \p Parent (an object; anything
/// else is left to the parent's own entry). \p At is Parent's trail; the
/// error says which field is missing or of the wrong type.
support::Expected<void> checkSpec(const json &Parent,
                                  const std::vector<Step> &Steps, size_t I,
                                  Trail &At, const FieldSpec &Spec) {
  if (!Parent.is_object())
    return {};
  const Step &S = Steps[I];
  bool Last = I + 1 == Steps.size();
  auto It = Parent.find(S.Key);
  if (It == Parent.end()) {
    if (Last && Spec.Required && !S.Each) {
      At.push_back({S.Key, -1});
      std::string Why = fmt::format("field '{}' is missing", render(At));
      At.pop_back();
      return support::fail(std::move(Why));
    }
    return {};
  }
  auto Check = [&](const json &V) -> support::Expected<void> {
    if (!Last)
      return checkSpec(V, Steps, I + 1, At, Spec);
    if (typeBits(V) & Spec.Types)
      return {};
    return support::fail(fmt::format("field '{}' is {}, expected {}",
                                     render(At), describe(V, Spec.Types),
                                     expected(Spec.Types)));
  };
  support::Expected<void> Ok;
  if (!S.Each) {
    At.push_back({S.Key, -1});
    Ok = Check(*It);
  } else if (It->is_array()) { // else the array's own entry reports it
    At.push_back({S.Key, 0});
    for (size_t K = 0; Ok && K < It->size(); ++K) {
      At.back().second = static_cast<long>(K);
      Ok = Check((*It)[K]);
    }
  } else {
    return {};
  }
  At.pop_back();
  return Ok;
}

/// evalRecordSchema() with its paths split, computed once.
const std::vector<std::pair<const FieldSpec *, std::vector<Step>>> &
compiledSchema() {
  static const auto Compiled = [] {
    std::vector<std::pair<const FieldSpec *, std::vector<Step>>> C;
    for (const FieldSpec &Spec : evalRecordSchema())
      C.emplace_back(&Spec, splitPath(Spec.Path));
    return C;
  }();
  return Compiled;
}

/// Nesting depth of the JSON text \p Line (brackets outside strings), or
/// MaxDepth + 1 as soon as it exceeds MaxDepth.
unsigned nestingDepth(std::string_view Line) {
  unsigned Depth = 0, Max = 0;
  bool InString = false;
  for (size_t I = 0; I < Line.size(); ++I) {
    char C = Line[I];
    if (InString) {
      if (C == '\\')
        ++I;
      else if (C == '"')
        InString = false;
      continue;
    }
    if (C == '"')
      InString = true;
    else if (C == '[' || C == '{') {
      Max = std::max(Max, ++Depth);
      if (Max > MaxDepth)
        return Max;
    } else if ((C == ']' || C == '}') && Depth > 0)
      --Depth;
  }
  return Max;
}

} // namespace

support::Expected<void> validateEvalRecord(const json &Record) {
  if (!Record.is_object())
    return support::fail("not a JSON object");
  Trail At;
  for (const auto &[Spec, Steps] : compiledSchema())
    if (auto Ok = checkSpec(Record, Steps, 0, At, *Spec); !Ok)
      return Ok;
  auto S = Record.find("schema");
  if (S != Record.end() && S->get_ref<const std::string &>() != SchemaName)
    return support::fail(fmt::format("schema '{}' is not {}",
                                     S->get<std::string>(), SchemaName));
  return {};
}

support::Expected<json> parseEvalRecord(std::string_view Line) {
  if (nestingDepth(Line) > MaxDepth)
    return support::fail(
        fmt::format("JSON nested deeper than {} levels", MaxDepth));
  json J;
  try {
    J = json::parse(Line.begin(), Line.end());
  } catch (const json::parse_error &E) {
    return support::fail(
        E.byte > Line.size()
            ? "invalid JSON: the line ends inside a value (truncated?)"
            : fmt::format("invalid JSON at byte {}", E.byte));
  } catch (const std::exception &E) {
    return support::fail(std::string("invalid JSON: ") + E.what());
  }
  if (auto Valid = validateEvalRecord(J); !Valid)
    return Valid.error();
  return J;
}

bool readEvalRecords(const std::string &File, std::vector<json> &Out,
                     std::ostream &Log) {
  std::error_code EC;
  if (std::filesystem::is_directory(File, EC)) {
    Log << "pkbcheck: error: cannot read '" << File
        << "': " << std::strerror(EISDIR) << "\n";
    return false;
  }
  std::ifstream In(File, std::ios::binary);
  if (!In) {
    Log << "pkbcheck: error: cannot read '" << File
        << "': " << std::strerror(errno) << "\n";
    return false;
  }
  std::string Line;
  unsigned N = 0;
  while (std::getline(In, Line)) {
    ++N;
    if (Line.find_first_not_of(" \t\r") == std::string::npos)
      continue;
    if (auto R = parseEvalRecord(Line))
      Out.push_back(std::move(*R));
    else
      Log << fmt::format("{}:{}: warning: {}; record skipped\n", File, N,
                         R.error().Message);
  }
  if (In.bad()) {
    Log << "pkbcheck: error: cannot read '" << File
        << "': " << std::strerror(errno) << "\n";
    return false;
  }
  return true;
}

JsonlAppender::~JsonlAppender() {
  if (Fd >= 0)
    ::close(Fd);
}

namespace {
/// J[Key] as T if present with a JSON type T reads; else nullopt.
template <typename T>
std::optional<T> get(const json &J, const char *Key, bool (json::*Is)() const) {
  auto It = J.find(Key);
  if (It == J.end() || !((*It).*Is)())
    return std::nullopt;
  return It->get<T>();
}
std::string str(const json &J, const char *Key) {
  return get<std::string>(J, Key, &json::is_string).value_or("");
}
/// The members of J whose keys are not in Known.
json extra(const json &J, std::initializer_list<const char *> Known) {
  json Out = json::object();
  for (const auto &[K, V] : J.items())
    if (std::find_if(Known.begin(), Known.end(),
                     [&](const char *N) { return K == N; }) == Known.end())
      Out[K] = V;
  return Out;
}
void putString(json &J, const char *Key, const std::string &V) {
  if (!V.empty())
    J[Key] = V;
}
} // namespace

json toJson(const EvalDynamic &D) {
  json J = D.Extra.is_object() ? D.Extra : json::object();
  J["ran"] = D.Ran;
  putString(J, "reason", D.Reason);
  putString(J, "verdict", D.Verdict);
  putString(J, "detail", D.Detail);
  putString(J, "mode", D.Mode);
  putString(J, "failure_kind", D.FailureKind);
  if (D.Speedup)
    J["speedup"] = *D.Speedup;
  if (D.Seconds)
    J["seconds"] = *D.Seconds;
  if (D.RooflineFraction)
    J["roofline_fraction"] = *D.RooflineFraction;
  if (D.FirstFailingCall)
    J["first_failing_call"] = *D.FirstFailingCall;
  if (D.Cases)
    J["cases"] = *D.Cases;
  return J;
}

EvalDynamic evalDynamicFromJson(const json &J) {
  EvalDynamic D;
  if (!J.is_object())
    return D;
  D.Ran = get<bool>(J, "ran", &json::is_boolean).value_or(false);
  D.Reason = str(J, "reason");
  D.Verdict = str(J, "verdict");
  D.Detail = str(J, "detail");
  D.Mode = str(J, "mode");
  D.FailureKind = str(J, "failure_kind");
  D.Speedup = get<double>(J, "speedup", &json::is_number);
  D.Seconds = get<double>(J, "seconds", &json::is_number);
  D.RooflineFraction = get<double>(J, "roofline_fraction", &json::is_number);
  D.FirstFailingCall =
      get<int>(J, "first_failing_call", &json::is_number_integer);
  if (J.contains("cases"))
    D.Cases = J["cases"];
  // Extra keeps what the typed fields cannot say, so that the JSON comes
  // back as it was: unknown keys, empty strings (toJson omits them), values
  // of another type (a null number is NaN written by nlohmann::json).
  D.Extra = extra(J, {"ran", "cases"});
  for (const char *K : {"reason", "verdict", "detail", "mode", "failure_kind"})
    if (J.contains(K) && J[K].is_string() && !J[K].get<std::string>().empty())
      D.Extra.erase(K);
  for (const char *K : {"speedup", "seconds", "roofline_fraction"})
    if (J.contains(K) && J[K].is_number())
      D.Extra.erase(K);
  if (D.FirstFailingCall)
    D.Extra.erase("first_failing_call");
  return D;
}

json toJson(const EvalRecord &R) {
  json J = R.Extra.is_object() ? R.Extra : json::object();
  J["schema"] = SchemaName;
  J["candidate"] = R.Candidate;
  J["set"] = R.Set;
  J["problem"] = R.Problem
                     ? json{{"id", R.Problem->Id}, {"name", R.Problem->Name}}
                     : json(nullptr);
  J["static"] = R.Static;
  J["gate"] = R.Gate;
  J["dynamic"] = toJson(R.Dynamic);
  J["stage"] = R.Stage;
  J["class"] = R.Class;
  J["explained_by"] = R.ExplainedBy;
  return J;
}

EvalRecord evalRecordFromJson(const json &J) {
  EvalRecord R;
  if (!J.is_object())
    return R;
  R.Candidate = str(J, "candidate");
  R.Set = get<std::string>(J, "set", &json::is_string).value_or("default");
  if (J.contains("problem") && J["problem"].is_object()) {
    const json &P = J["problem"];
    R.Problem =
        ProblemRef{get<int>(P, "id", &json::is_number_integer).value_or(0),
                   str(P, "name")};
  }
  if (J.contains("static") && J["static"].is_object())
    R.Static = J["static"];
  R.Gate = str(J, "gate");
  R.Stage = str(J, "stage");
  R.Class = str(J, "class");
  if (J.contains("explained_by") && J["explained_by"].is_array())
    for (const json &E : J["explained_by"])
      if (E.is_string())
        R.ExplainedBy.push_back(E.get<std::string>());
  if (J.contains("dynamic"))
    R.Dynamic = evalDynamicFromJson(J["dynamic"]);
  R.Extra = extra(J, {"schema", "candidate", "set", "problem", "static", "gate",
                      "dynamic", "stage", "class", "explained_by"});
  return R;
}

unsigned staticCount(const EvalRecord &R, bool Warnings) {
  const char *Key = Warnings ? "warnings" : "errors";
  if (!R.Static.is_object() || !R.Static.contains(Key) ||
      !R.Static[Key].is_number_integer())
    return 0;
  if (R.Static[Key].is_number_unsigned())
    return static_cast<unsigned>(std::min<uint64_t>(
        R.Static[Key].get<uint64_t>(), std::numeric_limits<unsigned>::max()));
  long long V = R.Static[Key].get<long long>();
  return V < 0 ? 0
               : static_cast<unsigned>(std::min<long long>(
                     V, std::numeric_limits<unsigned>::max()));
}

std::optional<double> rooflineFraction(const EvalDynamic &D) {
  if (D.RooflineFraction)
    return D.RooflineFraction;
  if (D.Extra.is_object() && D.Extra.contains("roofline") &&
      D.Extra["roofline"].is_object() &&
      D.Extra["roofline"].contains("fraction") &&
      D.Extra["roofline"]["fraction"].is_number())
    return D.Extra["roofline"]["fraction"].get<double>();
  return std::nullopt;
}

support::Expected<void> JsonlAppender::writeAll(std::string_view Bytes) {
  while (!Bytes.empty()) {
    ssize_t W = ::write(Fd, Bytes.data(), Bytes.size());
    if (W < 0 && errno == EINTR)
      continue;
    if (W <= 0)
      return support::fail(W < 0 ? std::strerror(errno) : "short write");
    Bytes.remove_prefix(static_cast<size_t>(W));
  }
  // Pipes, /dev/null and some file systems cannot sync; that is no error.
  if (::fsync(Fd) != 0 && errno != EINVAL && errno != ENOTSUP && errno != EROFS)
    return support::fail(std::strerror(errno));
  return {};
}

support::Expected<void> JsonlAppender::open(const std::string &File) {
  if (Fd >= 0)
    ::close(Fd);
  Fd = ::open(File.c_str(), O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0666);
  if (Fd < 0)
    return support::fail(std::strerror(errno));
  // A last line without its newline is a record cut short by a killed run:
  // end it, so that the next record starts a line of its own.
  struct stat St;
  char Last = '\n';
  if (::fstat(Fd, &St) == 0 && S_ISREG(St.st_mode) && St.st_size > 0 &&
      ::pread(Fd, &Last, 1, St.st_size - 1) == 1 && Last != '\n') {
    if (auto Ended = writeAll("\n"); !Ended) {
      ::close(Fd);
      Fd = -1;
      return Ended;
    }
  }
  return {};
}

support::Expected<void> JsonlAppender::append(const json &Record) {
  if (Fd < 0)
    return support::fail("file not open");
  std::string Line;
  try {
    Line = dumpJson(Record);
  } catch (const std::exception &E) {
    return support::fail(std::string("cannot serialize the record: ") +
                         E.what());
  }
  Line += '\n';
  return writeAll(Line);
}

} // namespace pkb
