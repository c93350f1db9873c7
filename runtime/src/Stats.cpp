//===- Stats.cpp - Timing statistics --------------------------------------===//
#include "pkb/rt/Stats.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <vector>

namespace pkb::rt {

double percentileSorted(std::span<const double> Sorted, double Q) {
  if (Sorted.empty())
    return 0;
  Q = std::clamp(Q, 0.0, 1.0);
  double Pos = Q * static_cast<double>(Sorted.size() - 1);
  size_t Lo = static_cast<size_t>(std::floor(Pos));
  size_t Hi = std::min(Lo + 1, Sorted.size() - 1);
  double Frac = Pos - static_cast<double>(Lo);
  return Sorted[Lo] + (Sorted[Hi] - Sorted[Lo]) * Frac;
}

Summary summarize(std::span<const double> Sample) {
  Summary S;
  S.N = Sample.size();
  if (Sample.empty())
    return S;
  std::vector<double> V(Sample.begin(), Sample.end());
  std::sort(V.begin(), V.end());
  S.Min = V.front();
  S.Max = V.back();
  S.Mean = std::accumulate(V.begin(), V.end(), 0.0) / static_cast<double>(S.N);
  S.P10 = percentileSorted(V, 0.10);
  S.Median = percentileSorted(V, 0.50);
  S.P90 = percentileSorted(V, 0.90);
  return S;
}

nlohmann::json toJson(const Summary &S, double Scale, const char *Suffix) {
  std::string X = Suffix ? Suffix : "";
  return {{"n", S.N},
          {"min" + X, S.Min * Scale},
          {"max" + X, S.Max * Scale},
          {"mean" + X, S.Mean * Scale},
          {"p10" + X, S.P10 * Scale},
          {"median" + X, S.Median * Scale},
          {"p90" + X, S.P90 * Scale}};
}

} // namespace pkb::rt
