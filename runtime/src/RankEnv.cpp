//===- RankEnv.cpp - Rank and world size from external launchers ----------===//
#include "pkb/rt/RankEnv.h"

#include <charconv>
#include <cstdlib>
#include <cstring>

namespace pkb::rt {
namespace {
std::optional<int> toInt(const char *S) {
  if (!S || !*S)
    return std::nullopt;
  int V = 0;
  auto [Ptr, Ec] = std::from_chars(S, S + std::strlen(S), V);
  if (Ec != std::errc() || *Ptr)
    return std::nullopt;
  return V;
}
} // namespace

std::optional<RankEnv>
detectRankEnv(const std::function<const char *(const char *)> &GetenvIn) {
  auto Get = [&](const char *N) -> const char * {
    return GetenvIn ? GetenvIn(N) : std::getenv(N);
  };
  struct Source {
    const char *Name, *Rank, *Size, *Local;
    const char *Job[3];
  };
  static const Source Sources[] = {
      {"torchrun",
       "RANK",
       "WORLD_SIZE",
       "LOCAL_RANK",
       {"TORCHELASTIC_RUN_ID", "MASTER_PORT", nullptr}},
      {"openmpi",
       "OMPI_COMM_WORLD_RANK",
       "OMPI_COMM_WORLD_SIZE",
       "OMPI_COMM_WORLD_LOCAL_RANK",
       {"OMPI_MCA_ess_base_jobid", "OMPI_MCA_orte_ess_jobid", nullptr}},
      {"pmi",
       "PMI_RANK",
       "PMI_SIZE",
       "MPI_LOCALRANKID",
       {"PMI_ID", "PMI_PORT", nullptr}},
      {"slurm",
       "SLURM_PROCID",
       "SLURM_NTASKS",
       "SLURM_LOCALID",
       {"SLURM_JOB_ID", "SLURM_STEP_ID", nullptr}},
  };
  for (const Source &S : Sources) {
    auto Rank = toInt(Get(S.Rank));
    auto Size = toInt(Get(S.Size));
    if (!Rank || !Size)
      continue;
    if (*Size <= 1 || *Rank < 0 || *Rank >= *Size)
      return std::nullopt;
    RankEnv E;
    E.Rank = *Rank;
    E.WorldSize = *Size;
    E.LocalRank = toInt(Get(S.Local)).value_or(*Rank);
    E.Source = S.Name;
    for (const char *J : S.Job) {
      if (!J)
        break;
      if (const char *V = Get(J); V && *V) {
        if (!E.JobId.empty())
          E.JobId += ".";
        E.JobId += V;
      }
    }
    return E;
  }
  return std::nullopt;
}

} // namespace pkb::rt
