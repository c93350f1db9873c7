//===- FuzzWriters.cpp - libFuzzer target: check report writers -----------===//
//
// Input: bytes that FuzzedDataProvider turns into check rules, FileReports
// (arbitrary strings, invalid UTF-8 included, any numbers) and a summary.
// Checks: the text, json and sarif writers never crash or throw, and the
// json and sarif outputs are valid JSON.
//
//===----------------------------------------------------------------------===//

#include "Output.h"

#include <fuzzer/FuzzedDataProvider.h>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <sstream>

using namespace pkb;

namespace {
std::string str(FuzzedDataProvider &P) {
  return P.ConsumeRandomLengthString(48);
}

SourceLoc loc(FuzzedDataProvider &P) {
  SourceLoc L;
  L.File = str(P);
  L.Line = P.ConsumeIntegral<unsigned>();
  L.Col = P.ConsumeIntegral<unsigned>();
  return L;
}

Severity severity(FuzzedDataProvider &P) {
  return P.PickValueInArray(
      {Severity::Note, Severity::Warning, Severity::Error});
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  FuzzedDataProvider P(Data, Size);
  std::string Format = P.PickValueInArray({"text", "json", "sarif"});
  std::vector<CheckInfo> Rules(P.ConsumeIntegralInRange<size_t>(0, 4));
  for (CheckInfo &R : Rules)
    R = CheckInfo{str(P), str(P), str(P), str(P)};
  std::ostringstream OS;
  std::unique_ptr<ReportWriter> W =
      makeWriter(Format, OS, Rules, WriterOptions{P.ConsumeBool(), ""});
  if (!W)
    std::abort();
  W->begin();
  CheckSummary S;
  unsigned Files = P.ConsumeIntegralInRange<unsigned>(0, 3);
  for (unsigned F = 0; F < Files; ++F) {
    FileReport R;
    R.Path = str(P);
    R.Status = P.PickValueInArray({"ok", "input-error", "crash", "timeout"});
    R.Kernels = P.ConsumeIntegral<unsigned>();
    R.Seconds = P.ConsumeFloatingPoint<double>();
    for (unsigned N = P.ConsumeIntegralInRange<unsigned>(0, 4); N; --N) {
      Finding X;
      X.CheckId =
          !Rules.empty() && P.ConsumeBool()
              ? Rules[P.ConsumeIntegralInRange<size_t>(0, Rules.size() - 1)].Id
              : str(P);
      X.Sev = severity(P);
      X.Kernel = str(P);
      X.Loc = loc(P);
      X.Message = str(P);
      X.FixHint = str(P);
      for (unsigned K = P.ConsumeIntegralInRange<unsigned>(0, 3); K; --K)
        X.Related.push_back(RelatedEvent{str(P), loc(P), str(P)});
      for (unsigned K = P.ConsumeIntegralInRange<unsigned>(0, 3); K; --K)
        X.Witness[str(P)] = str(P);
      R.Findings.push_back(std::move(X));
    }
    for (unsigned N = P.ConsumeIntegralInRange<unsigned>(0, 3); N; --N)
      R.Diags.push_back(Diagnostic{str(P), severity(P), loc(P), str(P)});
    W->file(R);
    ++S.Files;
    if (R.Status != "ok")
      S.FailedFiles.push_back(R.Path);
  }
  S.FilesWithErrors = P.ConsumeIntegral<size_t>();
  S.InputErrors = P.ConsumeIntegral<size_t>();
  S.Errors = P.ConsumeIntegral<size_t>();
  S.Warnings = P.ConsumeIntegral<size_t>();
  S.Notes = P.ConsumeIntegral<size_t>();
  S.Seconds = P.ConsumeFloatingPoint<double>();
  W->end(S);
  if (Format != "text") {
    nlohmann::json J = nlohmann::json::parse(OS.str(), nullptr, false);
    if (J.is_discarded() || !J.is_object()) {
      std::fprintf(stderr, "fuzz_writers: %s output is not JSON:\n%s\n",
                   Format.c_str(), OS.str().c_str());
      std::abort();
    }
  }
  return 0;
}
