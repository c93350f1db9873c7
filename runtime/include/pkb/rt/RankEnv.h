//===- pkb/rt/RankEnv.h - Rank and world size from launchers ----*- C++ -*-===//
#ifndef PKB_RT_RANKENV_H
#define PKB_RT_RANKENV_H

#include <functional>
#include <optional>
#include <string>

namespace pkb::rt {

/// Where this process sits when an external launcher started it.
struct RankEnv {
  int Rank = 0;
  int WorldSize = 1;
  int LocalRank = 0;
  std::string Source; ///< "torchrun", "openmpi", "pmi", "slurm"
  std::string JobId;  ///< a string shared by all ranks of the job, if known
};

/// Reads the usual variables, first match wins: RANK/WORLD_SIZE/LOCAL_RANK
/// (torchrun; TORCHELASTIC_RUN_ID or MASTER_PORT as job id),
/// OMPI_COMM_WORLD_RANK/SIZE/LOCAL_RANK (Open MPI), PMI_RANK/PMI_SIZE
/// (MPICH, Intel MPI), SLURM_PROCID/SLURM_NTASKS/SLURM_LOCALID (srun).
/// Returns nullopt when none is set or the world size is 1 or less.
/// Getenv is injectable for tests (defaults to ::getenv).
std::optional<RankEnv>
detectRankEnv(const std::function<const char *(const char *)> &Getenv = {});

} // namespace pkb::rt

#endif // PKB_RT_RANKENV_H
