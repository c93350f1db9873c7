//===- NcclBench.cpp - nccl-tests-style collective benchmarks -------------===//
//
// Sizes follow nccl-tests: "size" is the all_reduce/broadcast buffer, the
// all_gather output, the reduce_scatter input and the alltoall send buffer;
// algbw = size / time; busbw = algbw * busBwFactor (nccl-tests
// doc/PERFORMANCE.md). Data type bf16, sum. Time per iteration = CUDA event
// time of Iters back-to-back operations / Iters, averaged over ranks.
//
//===----------------------------------------------------------------------===//
#include "pkb/rt/Bench.h"
#include "pkb/rt/Cuda.h"
#include "pkb/rt/Launcher.h"
#include "pkb/rt/Session.h"
#include "pkb/rt/Worker.h"

#include <fmt/format.h>
#include <nccl.h>

#include <cstring>
#include <map>
#include <stdexcept>
#include <unistd.h>

namespace pkb::rt {

double busBwFactor(const std::string &C, int N) {
  double n = N;
  if (C == "all_reduce")
    return 2.0 * (n - 1) / n;
  if (C == "all_gather" || C == "reduce_scatter" || C == "alltoall")
    return (n - 1) / n;
  if (C == "broadcast")
    return 1.0;
  throw std::invalid_argument("unknown collective " + C);
}

namespace {
ncclResult_t runCollective(const std::string &C, void *Send, void *Recv,
                           size_t Bytes, int World, int Rank, ncclComm_t Comm,
                           cudaStream_t S) {
  size_t Count = Bytes / 2; // bf16 elements of "size"
  if (C == "all_reduce")
    return ncclAllReduce(Send, Recv, Count, ncclBfloat16, ncclSum, Comm, S);
  if (C == "broadcast")
    return ncclBroadcast(Send, Recv, Count, ncclBfloat16, 0, Comm, S);
  if (C == "all_gather")
    return ncclAllGather(Send, Recv, Count / World, ncclBfloat16, Comm, S);
  if (C == "reduce_scatter")
    return ncclReduceScatter(Send, Recv, Count / World, ncclBfloat16, ncclSum,
                             Comm, S);
  if (C == "alltoall") {
    size_t Per = Count / World;
    ncclResult_t R = ncclGroupStart();
    for (int P = 0; P < World && R == ncclSuccess; ++P) {
      R = ncclSend(static_cast<char *>(Send) + P * Per * 2, Per, ncclBfloat16,
                   P, Comm, S);
      if (R == ncclSuccess)
        R = ncclRecv(static_cast<char *>(Recv) + P * Per * 2, Per, ncclBfloat16,
                     P, Comm, S);
    }
    ncclResult_t E = ncclGroupEnd();
    return R != ncclSuccess ? R : E;
  }
  (void)Rank;
  return ncclInvalidArgument;
}
} // namespace

int runNcclBenchWorker(HubClient &C) {
  const auto &Cfg = C.config();
  int Rank = C.rank(), World = C.worldSize();
  auto Fail = [&](const std::string &D) {
    C.result({{"rank", Rank},
              {"verdict", "internal-error"},
              {"detail", D},
              {"scope", "all"}});
    ::_exit(3);
  };
  C.arm({{"phase", "setup"}}, 180000);
  cudaStream_t S;
  if (cudaSetDevice(Rank) != cudaSuccess ||
      cudaStreamCreateWithFlags(&S, cudaStreamNonBlocking) != cudaSuccess)
    Fail("CUDA set-up failed");
  ncclUniqueId Id{};
  if (Rank == 0)
    ncclGetUniqueId(&Id);
  auto Ids =
      C.allgather(std::string(reinterpret_cast<const char *>(&Id), sizeof(Id)));
  std::memcpy(&Id, Ids[0].data(), sizeof(Id));
  ncclComm_t Comm;
  if (ncclCommInitRank(&Comm, World, Id, Rank) != ncclSuccess)
    Fail("ncclCommInitRank failed");
  size_t MinB = Cfg.value("min_bytes", size_t(4096));
  size_t MaxB = Cfg.value("max_bytes", size_t(1) << 30);
  int Warmup = Cfg.value("warmup", 5), Iters = Cfg.value("iters", 20);
  void *Send = nullptr, *Recv = nullptr;
  if (cudaMalloc(&Send, MaxB) != cudaSuccess ||
      cudaMalloc(&Recv, MaxB) != cudaSuccess)
    Fail("cannot allocate benchmark buffers");
  fillPattern(Send, MaxB / 2, 2, 0x3F80, S); // bf16 1.0
  cudaEvent_t E0, E1;
  cudaEventCreate(&E0);
  cudaEventCreate(&E1);
  nlohmann::json Rows = nlohmann::json::array();
  C.disarm();
  for (const auto &Coll :
       Cfg.value("collectives", std::vector<std::string>{})) {
    C.arm({{"phase", "bench " + Coll}}, 300000);
    // First use of a collective sets up connections: keep it out of the
    // first row (seen on 2 x H200: 27 us instead of 7 us at 4 KiB).
    for (int W = 0; W < 20; ++W)
      runCollective(Coll, Send, Recv, MinB * World, World, Rank, Comm, S);
    cudaStreamSynchronize(S);
    for (size_t B = MinB; B <= MaxB; B *= 2) {
      if ((B / 2) % World)
        continue;
      for (int W = 0; W < Warmup; ++W)
        runCollective(Coll, Send, Recv, B, World, Rank, Comm, S);
      cudaStreamSynchronize(S);
      C.barrier();
      cudaEventRecord(E0, S);
      ncclResult_t R = ncclSuccess;
      for (int I = 0; I < Iters && R == ncclSuccess; ++I)
        R = runCollective(Coll, Send, Recv, B, World, Rank, Comm, S);
      cudaEventRecord(E1, S);
      cudaError_t CE = cudaStreamSynchronize(S);
      if (R != ncclSuccess || CE != cudaSuccess)
        Fail(fmt::format("{} of {} bytes failed: {} / {}", Coll, B,
                         ncclGetErrorString(R), cudaErrorText(CE)));
      float Ms = 0;
      cudaEventElapsedTime(&Ms, E0, E1);
      Rows.push_back({{"collective", Coll},
                      {"bytes", B},
                      {"time_us", Ms * 1000.0 / Iters}});
    }
    C.disarm();
  }
  int Version = 0;
  ncclGetVersion(&Version);
  C.result({{"rank", Rank},
            {"verdict", "pass"},
            {"rows", Rows},
            {"size", 0},
            {"nccl_version", Version}});
  C.barrier();
  ncclCommDestroy(Comm);
  C.done();
  return 0;
}

nlohmann::json runNcclBench(const NcclBenchOptions &O) {
  int World = O.Gpus > 0 ? O.Gpus : visibleGpuCount();
  if (World <= 0)
    throw std::runtime_error("no NVIDIA GPU found; pass --gpus N");
  if (int Visible = visibleGpuCount(); Visible > 0 && World > Visible)
    throw std::runtime_error(fmt::format(
        "{} ranks but only {} GPU(s) visible: NCCL needs one GPU per rank "
        "(\"Duplicate GPU detected\"), and ranks sharing a GPU cannot be "
        "timed; several ranks per GPU exist only for `run --oversubscribe` "
        "(correctness only)",
        World, Visible));
  std::map<int, nlohmann::json> ByRank;
  GroupSpec G;
  G.WorldSize = World;
  G.Exe = O.Exe;
  G.Config = {{"mode", "bench-nccl"},    {"min_bytes", O.MinBytes},
              {"max_bytes", O.MaxBytes}, {"warmup", O.Warmup},
              {"iters", O.Iters},        {"collectives", O.Collectives}};
  G.OnResult = [&](int R, const nlohmann::json &J) { ByRank[R] = J; };
  GroupOutcome GO = runWorkerGroup(G);
  if (GO.Hub.K != HubOutcome::Kind::Completed ||
      static_cast<int>(ByRank.size()) != World) {
    std::string Tail = GO.LogTail.count(0) ? GO.LogTail[0] : "";
    throw std::runtime_error(fmt::format("NCCL benchmark failed: {} {}\n{}",
                                         hubOutcomeName(GO.Hub.K),
                                         GO.Hub.Detail, Tail));
  }
  nlohmann::json Out = nlohmann::json::array();
  const auto &Rows0 = ByRank[0]["rows"];
  for (size_t I = 0; I < Rows0.size(); ++I) {
    double Sum = 0;
    for (int R = 0; R < World; ++R)
      Sum += ByRank[R]["rows"][I]["time_us"].get<double>();
    double T = Sum / World;
    std::string C = Rows0[I]["collective"];
    size_t B = Rows0[I]["bytes"];
    double Alg = static_cast<double>(B) / (T * 1e-6) / 1e9;
    Out.push_back({{"collective", C},
                   {"bytes", B},
                   {"ranks", World},
                   {"nccl_version", ByRank[0].value("nccl_version", 0)},
                   {"time_us", T},
                   {"algbw_gbs", Alg},
                   {"busbw_gbs", Alg * busBwFactor(C, World)}});
  }
  return Out;
}

void printNcclBench(const nlohmann::json &Rows, FILE *Out) {
  std::string Cur;
  for (const auto &R : Rows) {
    if (R["collective"] != Cur) {
      Cur = R["collective"];
      fmt::print(Out, "\n# {} (bf16, {} ranks, out-of-place, NCCL {})\n", Cur,
                 R["ranks"].get<int>(), R.value("nccl_version", 0));
      fmt::print(Out, "# {:>12} {:>12} {:>10} {:>8} {:>8}\n", "size(B)",
                 "count", "time(us)", "algbw", "busbw");
      fmt::print(Out, "# {:>12} {:>12} {:>10} {:>8} {:>8}\n", "", "(elems)", "",
                 "(GB/s)", "(GB/s)");
    }
    fmt::print(Out, "  {:>12} {:>12} {:>10.2f} {:>8.2f} {:>8.2f}\n",
               R["bytes"].get<size_t>(), R["bytes"].get<size_t>() / 2,
               R["time_us"].get<double>(), R["algbw_gbs"].get<double>(),
               R["busbw_gbs"].get<double>());
  }
  std::fflush(Out);
}

} // namespace pkb::rt
