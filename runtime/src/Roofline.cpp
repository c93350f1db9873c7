//===- Roofline.cpp - Roofline floor of a collective ----------------------===//
#include "pkb/rt/Roofline.h"

#include <fstream>

namespace pkb::rt {

RooflineResult roofline(const RooflineTerms &T, const MachineRates &M,
                        double Measured) {
  RooflineResult R;
  auto Term = [](double Work, double Rate) {
    return (Work > 0 && Rate > 0) ? Work / Rate : 0.0;
  };
  R.NvlinkSeconds = Term(T.NvlinkBytesPerRank, M.NvlinkBytesPerSec);
  R.HbmSeconds = Term(T.HbmBytesPerRank, M.HbmBytesPerSec);
  R.FlopSeconds = Term(T.FlopsPerRank, M.FlopsPerSec);
  // Ties go to the first term in this order: nvlink, hbm, flops.
  if (R.NvlinkSeconds > 0) {
    R.FloorSeconds = R.NvlinkSeconds;
    R.Binding = "nvlink";
  }
  if (R.HbmSeconds > R.FloorSeconds) {
    R.FloorSeconds = R.HbmSeconds;
    R.Binding = "hbm";
  }
  if (R.FlopSeconds > R.FloorSeconds) {
    R.FloorSeconds = R.FlopSeconds;
    R.Binding = "flops";
  }
  if (Measured > 0 && R.FloorSeconds > 0)
    R.AchievedFraction = R.FloorSeconds / Measured;
  return R;
}

nlohmann::json toJson(const RooflineTerms &T) {
  return {{"nvlink_bytes_per_rank", T.NvlinkBytesPerRank},
          {"hbm_bytes_per_rank", T.HbmBytesPerRank},
          {"flops_per_rank", T.FlopsPerRank}};
}

nlohmann::json toJson(const MachineRates &R) {
  return {{"nvlink_bytes_per_s", R.NvlinkBytesPerSec},
          {"hbm_bytes_per_s", R.HbmBytesPerSec},
          {"flops_per_s", R.FlopsPerSec}};
}

nlohmann::json toJson(const RooflineResult &R) {
  return {{"nvlink_us", R.NvlinkSeconds * 1e6},
          {"hbm_us", R.HbmSeconds * 1e6},
          {"flops_us", R.FlopSeconds * 1e6},
          {"floor_us", R.FloorSeconds * 1e6},
          {"binding", R.Binding},
          {"achieved_fraction", R.AchievedFraction}};
}

MachineRates machineRatesFromJson(const nlohmann::json &J) {
  MachineRates R;
  if (!J.is_object())
    return R;
  R.NvlinkBytesPerSec = J.value("nvlink_bytes_per_s", 0.0);
  R.HbmBytesPerSec = J.value("hbm_bytes_per_s", 0.0);
  R.FlopsPerSec = J.value("flops_per_s", 0.0);
  return R;
}

std::optional<MachineRates> loadMachineRates(const std::filesystem::path &P) {
  std::ifstream In(P);
  if (!In)
    return std::nullopt;
  auto J = nlohmann::json::parse(In, nullptr, false);
  if (J.is_discarded() || !J.contains("rates"))
    return std::nullopt;
  MachineRates R = machineRatesFromJson(J["rates"]);
  if (R.NvlinkBytesPerSec <= 0 && R.HbmBytesPerSec <= 0)
    return std::nullopt;
  return R;
}

} // namespace pkb::rt
