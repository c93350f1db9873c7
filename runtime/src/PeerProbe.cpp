//===- PeerProbe.cpp - Peer, HBM and FMA bandwidth probes -----------------===//
#include "pkb/rt/Bench.h"
#include "pkb/rt/Cuda.h"
#include "pkb/rt/Session.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <stdexcept>

namespace pkb::rt {
namespace {
void ck(cudaError_t E, const char *What) {
  if (E != cudaSuccess)
    throw std::runtime_error(fmt::format("{}: {}", What, cudaErrorText(E)));
}

/// Seconds per call of Fn on Stream (device Dev): 2 warm-ups, Reps timed.
double timeIt(int Dev, cudaStream_t S, int Reps,
              const std::function<void()> &Fn) {
  ck(cudaSetDevice(Dev), "cudaSetDevice");
  for (int I = 0; I < 2; ++I)
    Fn();
  cudaEvent_t A, B;
  ck(cudaEventCreate(&A), "cudaEventCreate");
  ck(cudaEventCreate(&B), "cudaEventCreate");
  ck(cudaEventRecord(A, S), "cudaEventRecord");
  for (int I = 0; I < Reps; ++I)
    Fn();
  ck(cudaEventRecord(B, S), "cudaEventRecord");
  ck(cudaEventSynchronize(B), "probe");
  ck(cudaGetLastError(), "probe kernel");
  float Ms = 0;
  cudaEventElapsedTime(&Ms, A, B);
  cudaEventDestroy(A);
  cudaEventDestroy(B);
  return Ms * 1e-3 / Reps;
}
} // namespace

nlohmann::json probeMachine(const PeerProbeOptions &O) {
  int N = 0;
  if (cudaGetDeviceCount(&N) != cudaSuccess || N == 0)
    throw std::runtime_error("no CUDA device");
  size_t Bytes = O.Bytes / 16 * 16;
  std::vector<void *> Src(N), Dst(N);
  std::vector<cudaStream_t> St(N);
  std::vector<int> Sms(N);
  nlohmann::json Devs = nlohmann::json::array();
  for (int D = 0; D < N; ++D) {
    ck(cudaSetDevice(D), "cudaSetDevice");
    ck(cudaMalloc(&Src[D], Bytes), "cudaMalloc");
    ck(cudaMalloc(&Dst[D], Bytes), "cudaMalloc");
    ck(cudaMemset(Src[D], 0x3C, Bytes), "cudaMemset");
    ck(cudaStreamCreateWithFlags(&St[D], cudaStreamNonBlocking),
       "cudaStreamCreate");
    cudaDeviceProp P{};
    ck(cudaGetDeviceProperties(&P, D), "cudaGetDeviceProperties");
    Sms[D] = P.multiProcessorCount;
    for (int E = 0; E < N; ++E) {
      int Can = 0;
      cudaDeviceCanAccessPeer(&Can, D, E);
      if (E != D && Can) {
        cudaError_t R = cudaDeviceEnablePeerAccess(E, 0);
        if (R == cudaErrorPeerAccessAlreadyEnabled)
          cudaGetLastError();
        else
          ck(R, "cudaDeviceEnablePeerAccess");
      }
    }
    double Hbm = timeIt(D, St[D], O.Reps, [&] {
      cudaMemcpyAsync(Dst[D], Src[D], Bytes, cudaMemcpyDeviceToDevice, St[D]);
    });
    float *Sink = nullptr;
    ck(cudaMalloc(reinterpret_cast<void **>(&Sink),
                  sizeof(float) * Sms[D] * 8 * 256),
       "cudaMalloc");
    const int FmaIters = 1 << 14;
    double Fma = timeIt(D, St[D], 3,
                        [&] { fmaKernel(Sink, Sms[D] * 8, FmaIters, St[D]); });
    cudaFree(Sink);
    double Flops = 2.0 * 8 * FmaIters * 256.0 * Sms[D] * 8 / Fma;
    Devs.push_back({{"device", D},
                    {"name", P.name},
                    {"sms", Sms[D]},
                    {"l2_bytes", P.l2CacheSize},
                    {"hbm_copy_bytes_per_s", 2.0 * Bytes / Hbm},
                    {"fp32_fma_flops_per_s", Flops}});
  }
  nlohmann::json Pairs = nlohmann::json::array();
  double MinNv = 0;
  for (int A = 0; A < N; ++A)
    for (int B = 0; B < N; ++B) {
      if (A == B)
        continue;
      int Can = 0;
      cudaDeviceCanAccessPeer(&Can, A, B);
      nlohmann::json Row = {{"src", A}, {"dst", B}, {"peer_access", Can != 0}};
      double Ce = Bytes / timeIt(A, St[A], O.Reps, [&] {
                    cudaMemcpyPeerAsync(Dst[B], B, Src[A], A, Bytes, St[A]);
                  });
      Row["copy_engine_bytes_per_s"] = Ce;
      double Store = 0, Load = 0;
      if (Can) {
        for (int Mult : {1, 2, 4}) {
          Store = std::max(Store, Bytes / timeIt(A, St[A], O.Reps, [&] {
                                    smCopy(Dst[B], Src[A], Bytes, Sms[A] * Mult,
                                           St[A]);
                                  }));
          Load = std::max(Load, Bytes / timeIt(B, St[B], O.Reps, [&] {
                                  smCopy(Dst[B], Src[A], Bytes, Sms[B] * Mult,
                                         St[B]);
                                }));
        }
      }
      Row["sm_store_bytes_per_s"] = Store;
      Row["sm_load_bytes_per_s"] = Load;
      double Best = std::max(Ce, Store);
      MinNv = MinNv == 0 ? Best : std::min(MinNv, Best);
      Pairs.push_back(Row);
    }
  double MinHbm = 0, MinFlops = 0;
  for (const auto &D : Devs) {
    double H = D["hbm_copy_bytes_per_s"], F = D["fp32_fma_flops_per_s"];
    MinHbm = MinHbm == 0 ? H : std::min(MinHbm, H);
    MinFlops = MinFlops == 0 ? F : std::min(MinFlops, F);
  }
  for (int D = 0; D < N; ++D) {
    cudaSetDevice(D);
    cudaFree(Src[D]);
    cudaFree(Dst[D]);
    cudaStreamDestroy(St[D]);
  }
  MachineRates R;
  R.NvlinkBytesPerSec = N > 1 ? MinNv : 0;
  R.HbmBytesPerSec = MinHbm;
  R.FlopsPerSec = MinFlops;
  int Drv = 0, Rt = 0;
  cudaDriverGetVersion(&Drv);
  cudaRuntimeGetVersion(&Rt);
  return {{"machine", machineId()}, {"bytes", Bytes},     {"reps", O.Reps},
          {"cuda_driver", Drv},     {"cuda_runtime", Rt}, {"devices", Devs},
          {"pairs", Pairs},         {"rates", toJson(R)}};
}

void printProbe(const nlohmann::json &J, FILE *Out) {
  fmt::print(Out, "# machine {} (copies of {} bytes, {} reps)\n",
             J["machine"].get<std::string>(), J["bytes"].get<size_t>(),
             J["reps"].get<int>());
  fmt::print(Out, "# {:>3} {:<28} {:>4} {:>16} {:>16}\n", "dev", "name", "SMs",
             "HBM copy (GB/s)", "FP32 (TFLOP/s)");
  for (const auto &D : J["devices"])
    fmt::print(Out, "  {:>3} {:<28} {:>4} {:>16.1f} {:>16.2f}\n",
               D["device"].get<int>(), D["name"].get<std::string>(),
               D["sms"].get<int>(),
               D["hbm_copy_bytes_per_s"].get<double>() / 1e9,
               D["fp32_fma_flops_per_s"].get<double>() / 1e12);
  fmt::print(Out, "# {:>3} {:>3} {:>18} {:>18} {:>18}\n", "src", "dst",
             "copy-engine GB/s", "SM store GB/s", "SM load GB/s");
  for (const auto &P : J["pairs"])
    fmt::print(Out, "  {:>3} {:>3} {:>18.1f} {:>18.1f} {:>18.1f}\n",
               P["src"].get<int>(), P["dst"].get<int>(),
               P["copy_engine_bytes_per_s"].get<double>() / 1e9,
               P["sm_store_bytes_per_s"].get<double>() / 1e9,
               P["sm_load_bytes_per_s"].get<double>() / 1e9);
  const auto &R = J["rates"];
  fmt::print(Out,
             "# roofline rates: nvlink {:.1f} GB/s, hbm {:.1f} GB/s, fp32 "
             "{:.2f} TFLOP/s\n",
             R["nvlink_bytes_per_s"].get<double>() / 1e9,
             R["hbm_bytes_per_s"].get<double>() / 1e9,
             R["flops_per_s"].get<double>() / 1e12);
  std::fflush(Out);
}

} // namespace pkb::rt
