//===- pkb/rt/Stats.h - Timing statistics -----------------------*- C++ -*-===//
#ifndef PKB_RT_STATS_H
#define PKB_RT_STATS_H

#include <nlohmann/json.hpp>

#include <cstddef>
#include <span>

namespace pkb::rt {

/// Summary of a sample of times (any unit; the caller keeps the unit).
struct Summary {
  size_t N = 0;
  double Min = 0, Max = 0, Mean = 0;
  double P10 = 0, Median = 0, P90 = 0;
};

/// Percentile Q in [0,1] of an ascending-sorted sample with linear
/// interpolation between closest ranks (numpy.percentile's default
/// "linear" method: position Q*(N-1)). Returns 0 for an empty sample.
double percentileSorted(std::span<const double> Sorted, double Q);

/// Summary of an unsorted sample (copied and sorted internally).
Summary summarize(std::span<const double> Sample);

/// JSON with keys n, min, max, mean, p10, median, p90 scaled by Scale (e.g.
/// 1e6 turns seconds into microseconds); Suffix is appended to every key
/// except n (e.g. "_us").
nlohmann::json toJson(const Summary &S, double Scale = 1.0,
                      const char *Suffix = "");

} // namespace pkb::rt

#endif // PKB_RT_STATS_H
