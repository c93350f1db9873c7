//===- FrontendBench.cpp - Front-end cost against a plain parse -----------===//
//
// For every bundled kernel file (kernels/**.cu, kernels/**.py and
// runtime/testdata/*.cu, or the files/directories given as arguments) this
// Google Benchmark program times
//   parse/<file>  Clang with the front end's own arguments, -fsyntax-only
//                 semantics (FrontendOptions::ParseOnly), no model;
//   model/<file>  the full front end: parse plus kernel-model building
//                 (pkb::buildModels), the work `pkbcheck dump` does;
//   pch/<file>    the same with the precompiled toolkit headers
//                 (FrontendOptions::PchDir, a fresh directory under the
//                 system's temporary directory, built before the timing:
//                 what every file after the first costs in `pkbcheck check`);
// and prints a Markdown table of the per-file ratios model/parse and
// pch/parse with the geometric mean and the maximum. docs/performance.md
// records the numbers and the exact command. Not a test: nothing here asserts a
// time.
//
//===----------------------------------------------------------------------===//
#include "pkb/Frontend.h"
#include "pkb/Ingest.h"

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <string>
#include <unistd.h>
#include <vector>

namespace fs = std::filesystem;

namespace {

/// Kernel files below \p Root with a CUDA or Python extension, sorted.
std::vector<std::string> kernelFiles(const fs::path &Root) {
  std::vector<std::string> R;
  if (fs::is_regular_file(Root))
    return {Root.string()};
  if (!fs::is_directory(Root))
    return R;
  for (const auto &E : fs::recursive_directory_iterator(Root)) {
    std::string Ext = E.path().extension().string();
    if (E.is_regular_file() && (Ext == ".cu" || Ext == ".py"))
      R.push_back(E.path().string());
  }
  std::sort(R.begin(), R.end());
  return R;
}

/// Runs the front end over every unit of \p In; aborts the benchmark if a
/// unit could not be parsed at all (a benchmark of a failure is no baseline).
void runUnits(benchmark::State &St, const pkb::Input &In, bool ParseOnly,
              const std::string &PchDir) {
  pkb::FrontendOptions O;
  O.ParseOnly = ParseOnly;
  O.PchDir = PchDir;
  size_t Kernels = 0;
  for (auto _ : St) {
    Kernels = 0;
    for (const pkb::CudaUnit &U : In.Units) {
      pkb::FrontendResult R = pkb::buildModels(U, O);
      if (!R.Parsed) {
        St.SkipWithError("front end could not parse the file");
        return;
      }
      if (!PchDir.empty() && !R.UsedPch) {
        St.SkipWithError("the precompiled headers were not used");
        return;
      }
      Kernels += R.Module.Kernels.size();
      benchmark::DoNotOptimize(R);
    }
  }
  St.counters["kernels"] = double(Kernels);
}

/// Console output as usual, plus the per-file real times kept for the
/// summary table (the median over --benchmark_repetitions).
class Collector : public benchmark::ConsoleReporter {
public:
  void ReportRuns(const std::vector<Run> &Runs) override {
    ConsoleReporter::ReportRuns(Runs);
    for (const Run &R : Runs)
      if (!R.error_occurred && R.run_type == Run::RT_Iteration)
        Samples[R.run_name.function_name].push_back(R.GetAdjustedRealTime());
  }
  /// Median real time per iteration of benchmark \p Name in ms, or -1.
  double medianMs(const std::string &Name) {
    auto It = Samples.find(Name);
    if (It == Samples.end() || It->second.empty())
      return -1;
    std::vector<double> &V = It->second;
    std::sort(V.begin(), V.end());
    size_t N = V.size();
    return N % 2 ? V[N / 2] : (V[N / 2 - 1] + V[N / 2]) / 2;
  }

private:
  std::map<std::string, std::vector<double>> Samples;
};

} // namespace

int main(int Argc, char **Argv) {
  benchmark::Initialize(&Argc, Argv);
  std::vector<std::string> Files;
  if (Argc > 1) {
    for (int I = 1; I < Argc; ++I)
      for (std::string &F : kernelFiles(Argv[I]))
        Files.push_back(std::move(F));
  } else {
    fs::path Src(PKB_SOURCE_DIR);
    for (const char *D : {"kernels", "runtime/testdata"})
      for (std::string &F : kernelFiles(Src / D))
        Files.push_back(std::move(F));
  }
  if (Files.empty()) {
    fmt::print(stderr, "pkb_bench_frontend: no kernel files found\n");
    return 2;
  }
  // The precompiled headers, built here so that no timed run builds them.
  std::string PchDir =
      (fs::temp_directory_path() / fmt::format("pkb-bench-pch-{}", ::getpid()))
          .string();
  {
    pkb::CudaUnit U;
    U.Name = "warm.cu";
    U.Text = "__global__ void k() {}\n";
    U.Identity = true;
    pkb::FrontendOptions O;
    O.PchDir = PchDir;
    if (!pkb::buildModels(U, O).UsedPch)
      fmt::print(stderr,
                 "pkb_bench_frontend: the precompiled headers could "
                 "not be built in {}\n",
                 PchDir);
  }
  std::vector<std::string> Names;
  for (const std::string &F : Files) {
    auto In = std::make_shared<pkb::Input>(pkb::readInput(F));
    if (In->Units.empty())
      continue; // Not a kernel file (e.g. Python without CUDA).
    std::string Rel = fs::path(F).lexically_relative(PKB_SOURCE_DIR).string();
    if (Rel.empty() || Rel.rfind("..", 0) == 0)
      Rel = F;
    Names.push_back(Rel);
    for (const char *Kind : {"parse/", "model/", "pch/"}) {
      bool ParseOnly = std::string(Kind) == "parse/";
      std::string Dir = std::string(Kind) == "pch/" ? PchDir : "";
      benchmark::RegisterBenchmark((Kind + Rel).c_str(),
                                   [In, ParseOnly, Dir](benchmark::State &St) {
                                     runUnits(St, *In, ParseOnly, Dir);
                                   })
          ->Unit(benchmark::kMillisecond)
          ->MinTime(0.2);
    }
  }
  Collector C;
  benchmark::RunSpecifiedBenchmarks(&C);
  benchmark::Shutdown();

  std::error_code EC;
  fs::remove_all(PchDir, EC);

  // Summary: ratio of model building to the plain parse, per file, without
  // and with the precompiled headers.
  double LogSum = 0, Max = 0, ParseTotal = 0, ModelTotal = 0, PchTotal = 0,
         PchLogSum = 0, PchMax = 0;
  std::string MaxFile;
  size_t N = 0;
  fmt::print("\n| file | parse ms | model ms | ratio | pch ms | pch ratio "
             "|\n|---|---:|---:|---:|---:|---:|\n");
  for (const std::string &Rel : Names) {
    double P = C.medianMs("parse/" + Rel), M = C.medianMs("model/" + Rel),
           H = C.medianMs("pch/" + Rel);
    if (P <= 0 || M <= 0 || H <= 0)
      continue;
    double Ratio = M / P;
    fmt::print("| {} | {:.1f} | {:.1f} | {:.2f} | {:.1f} | {:.2f} |\n", Rel, P,
               M, Ratio, H, H / P);
    LogSum += std::log(Ratio);
    PchLogSum += std::log(H / P);
    PchMax = std::max(PchMax, H / P);
    ParseTotal += P;
    ModelTotal += M;
    PchTotal += H;
    if (Ratio > Max) {
      Max = Ratio;
      MaxFile = Rel;
    }
    ++N;
  }
  if (N) {
    fmt::print("\nfiles {}: parse total {:.0f} ms, model total {:.0f} ms, "
               "ratio geomean {:.3f}, total {:.3f}, max {:.3f} ({})\n",
               N, ParseTotal, ModelTotal, std::exp(LogSum / double(N)),
               ModelTotal / ParseTotal, Max, MaxFile);
    fmt::print("with precompiled headers: model total {:.0f} ms ({:.1f} ms "
               "per file), pch/parse geomean {:.3f}, total {:.3f}, max "
               "{:.3f}\n",
               PchTotal, PchTotal / double(N), std::exp(PchLogSum / double(N)),
               PchTotal / ParseTotal, PchMax);
  }
  return 0;
}
