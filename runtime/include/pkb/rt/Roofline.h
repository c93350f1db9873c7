//===- pkb/rt/Roofline.h - Roofline floor of a collective -------*- C++ -*-===//
//
// A problem states, per rank, the fewest bytes it must move over NVLink, the
// fewest bytes it must move through HBM (each input read once, each output
// written once) and the arithmetic it must do. Divided by the machine's
// measured rates each gives a time; the largest is the floor (the roofline
// model of Williams, Waterman and Patterson, CACM 2009, extended by one
// interconnect term). Achieved fraction = floor / measured time.
//
//===----------------------------------------------------------------------===//
#ifndef PKB_RT_ROOFLINE_H
#define PKB_RT_ROOFLINE_H

#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <string>

namespace pkb::rt {

/// Work of one call on one rank (the busiest rank when ranks differ).
struct RooflineTerms {
  double NvlinkBytesPerRank = 0; ///< bytes sent by one rank over NVLink
  double HbmBytesPerRank = 0;    ///< bytes read + written in local HBM
  double FlopsPerRank = 0;       ///< arithmetic operations
};

/// Measured rates of the machine; a rate <= 0 means unknown (term skipped).
struct MachineRates {
  double NvlinkBytesPerSec = 0; ///< one-way peer bandwidth of one GPU
  double HbmBytesPerSec = 0;    ///< device copy, read + written bytes
  double FlopsPerSec = 0;       ///< vector FP32 FMA rate (2 flops per FMA)
};

/// Floor and which term binds.
struct RooflineResult {
  double NvlinkSeconds = 0, HbmSeconds = 0, FlopSeconds = 0;
  double FloorSeconds = 0;
  std::string Binding = "none"; ///< "nvlink", "hbm", "flops" or "none"
  double AchievedFraction = 0;  ///< FloorSeconds / measured; 0 if unknown
};

/// Computes the floor for Terms on a machine with Rates, and the achieved
/// fraction for a measured time (seconds; <= 0 leaves the fraction 0).
RooflineResult roofline(const RooflineTerms &Terms, const MachineRates &Rates,
                        double MeasuredSeconds);

nlohmann::json toJson(const RooflineTerms &T);
nlohmann::json toJson(const MachineRates &R);
nlohmann::json toJson(const RooflineResult &R);
/// Reads the keys written by toJson(MachineRates); missing keys stay 0.
MachineRates machineRatesFromJson(const nlohmann::json &J);
/// Rates from a `bench peers --json` file (its "rates" object); nullopt if
/// absent, malformed, or with neither an NVLink nor an HBM rate.
std::optional<MachineRates> loadMachineRates(const std::filesystem::path &P);

} // namespace pkb::rt

#endif // PKB_RT_ROOFLINE_H
