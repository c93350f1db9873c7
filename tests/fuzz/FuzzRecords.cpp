//===- FuzzRecords.cpp - libFuzzer target: eval results files -------------===//
//
// Input: the bytes of a results file (JSONL). Checks: parseEvalRecord on the
// whole input and on each line, readEvalRecords and loadReport on the input
// written to a file, and the report writers on the loaded records, never
// crash or throw; a record that validates still validates after a
// write/read round trip; an append after the input is read back intact.
//
//===----------------------------------------------------------------------===//

#include "Records.h"
#include "Report.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>

using nlohmann::json;

namespace {
[[noreturn]] void fail(const char *What, const std::string &Detail) {
  std::fprintf(stderr, "fuzz_records: %s: %s\n", What, Detail.c_str());
  std::abort();
}

/// One scratch file per process (libFuzzer -jobs runs several processes),
/// in memory where possible: the appender fsyncs. Each run removes it (the
/// fuzzer leaves with _Exit, so atexit would not).
const std::string &scratchFile() {
  static const std::string F =
      std::string(::access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp") +
      "/pkb_fuzz_records_" + std::to_string(::getpid()) + ".jsonl";
  return F;
}

void checkLine(std::string_view Line) {
  auto R = pkb::parseEvalRecord(Line);
  if (!R) {
    if (R.error().Message.empty())
      fail("rejected without a reason", std::string(Line));
    return;
  }
  std::string Again = R->dump(-1, ' ', false, json::error_handler_t::replace);
  if (auto Back = pkb::parseEvalRecord(Again); !Back)
    fail("a valid record does not survive a round trip", Back.error().Message);
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  std::string Text(reinterpret_cast<const char *>(Data), Size);
  checkLine(Text);
  size_t B = 0;
  while (B < Text.size()) {
    size_t E = Text.find('\n', B);
    if (E == std::string::npos)
      E = Text.size();
    checkLine(std::string_view(Text).substr(B, E - B));
    B = E + 1;
  }
  {
    std::ofstream O(scratchFile(), std::ios::binary | std::ios::trunc);
    O << Text;
  }
  std::vector<json> Records;
  std::ostringstream Log;
  if (!pkb::readEvalRecords(scratchFile(), Records, Log))
    fail("cannot read the scratch file", Log.str());
  pkb::ReportData D;
  if (!pkb::loadReport({scratchFile()}, D, Log))
    fail("loadReport failed", Log.str());
  if (D.Records.size() > Records.size())
    fail("report has more records than the file", "");
  std::ostringstream OS;
  pkb::writeMarkdown(D, OS);
  pkb::writeCsv(D, OS);
  pkb::writeHtml(D, OS);
  pkb::writeJson(D, OS);
  // Appending after the input never glues a record onto its last line.
  {
    pkb::JsonlAppender A;
    json Rec = {{"candidate", "fuzz.cu"}, {"static", json::object()}};
    auto Opened = A.open(scratchFile());
    auto Appended = Opened ? A.append(Rec) : Opened;
    if (!Appended)
      fail("append failed", Appended.error().Message);
  }
  std::vector<json> After;
  if (!pkb::readEvalRecords(scratchFile(), After, Log) || After.empty() ||
      After.back().value("candidate", "") != "fuzz.cu")
    fail("the appended record is not the last record", "");
  std::remove(scratchFile().c_str());
  return 0;
}
