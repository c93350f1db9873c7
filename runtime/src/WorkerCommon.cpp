//===- WorkerCommon.cpp - Hub client, worker entry, fake worker -----------===//
#include "pkb/rt/Session.h"
#include "pkb/rt/Wire.h"
#include "pkb/rt/Worker.h"
#include "pkb/rt/WorkerConfig.h"

#include <fmt/format.h>

#include <chrono>
#include <csignal>
#include <cstring>
#include <thread>
#include <unistd.h>

namespace pkb::rt {

support::Expected<void> HubClient::connect(const std::string &Socket, int R,
                                           int TimeoutMs) {
  Rank = R;
  auto S = connectUnix(Socket, TimeoutMs);
  if (!S)
    return S.error();
  Fd = *S;
  nlohmann::json Hello = {{"rank", R}, {"pid", ::getpid()}};
  if (!sendMessage(Fd, {MsgType::Hello, Hello.dump(), {}}))
    return support::fail("cannot send hello to the hub");
  auto M = recvMessage(Fd);
  if (!M || M->Type != MsgType::Config)
    return support::fail("the hub sent no configuration");
  Config = nlohmann::json::parse(M->Payload, nullptr, false);
  if (!Config.is_object())
    return support::fail("the hub sent a malformed configuration");
  return {};
}

HubClient::~HubClient() {
  if (Fd >= 0)
    ::close(Fd);
}

void HubClient::send(int Type, const std::string &Payload,
                     const std::vector<int> &Fds) {
  if (!sendMessage(Fd, {static_cast<MsgType>(Type), Payload, Fds}))
    ::_exit(90); // the hub is gone: nobody to report to
}

std::vector<std::string> HubClient::allgather(const std::string &Data,
                                              const std::vector<int> &FdsIn,
                                              std::vector<int> *FdsOut) {
  send(static_cast<int>(MsgType::Allgather), Data, FdsIn);
  auto M = recvMessage(Fd);
  if (!M || M->Type != MsgType::Gathered)
    ::_exit(91);
  std::vector<std::string> Out;
  size_t Off = 0;
  while (Off + sizeof(uint64_t) <= M->Payload.size()) {
    uint64_t L;
    std::memcpy(&L, M->Payload.data() + Off, sizeof(L));
    Off += sizeof(L);
    Out.push_back(M->Payload.substr(Off, L));
    Off += L;
  }
  if (FdsOut)
    *FdsOut = std::move(M->Fds);
  else
    for (int F : M->Fds)
      ::close(F);
  return Out;
}

void HubClient::barrier() { (void)allgather(""); }

void HubClient::arm(nlohmann::json Phase, long DeadlineMs) {
  Phase["deadline_ms"] = DeadlineMs;
  send(static_cast<int>(MsgType::Arm), Phase.dump());
}

void HubClient::disarm() { send(static_cast<int>(MsgType::Disarm), "{}"); }

void HubClient::result(const nlohmann::json &R) {
  send(static_cast<int>(MsgType::Result),
       R.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

void HubClient::log(const std::string &Line) {
  send(static_cast<int>(MsgType::Log), Line);
}

void HubClient::done() { send(static_cast<int>(MsgType::Done), "{}"); }

int runWorker(HubClient &C) {
  std::string Mode = C.config().value("mode", std::string());
  if (Mode == "fake")
    return runFakeWorker(C);
  if (Mode == "run")
    return runCandidateWorker(C);
  if (Mode == "bench-nccl")
    return runNcclBenchWorker(C);
  if (Mode == "heap-check")
    return runHeapCheckWorker(C);
  C.result({{"verdict", "internal-error"},
            {"detail", "unknown worker mode '" + Mode + "'"}});
  return 2;
}

int workerMain(const std::string &Socket, int Rank, int World) {
  HubClient C;
  if (auto Connected = C.connect(Socket, Rank, 60000); !Connected) {
    fmt::print(stderr, "pkbcheck worker {}: {}\n", Rank,
               Connected.error().Message);
    return 2;
  }
  if (C.worldSize() != World) {
    fmt::print(stderr, "pkbcheck worker {}: world size {} != hub's {}\n", Rank,
               World, C.worldSize());
    return 2;
  }
  return runWorker(C);
}

int runFakeWorker(HubClient &C) {
  const WorkerConfig Cfg = workerConfigFromJson(C.config());
  auto Fake = Cfg.Fake.value_or(nlohmann::json::object());
  std::string Action = Fake.value("action", std::string("ok"));
  int FRank = Fake.value("rank", 0);
  int64_t FSize = Fake.value("size", int64_t(-1));
  long Deadline = Cfg.DeadlineMs;
  int CaseOffset = Cfg.CaseOffset;
  const std::vector<int64_t> &Sizes = Cfg.Sizes;
  for (size_t I = 0; I < Sizes.size(); ++I) {
    int64_t Size = Sizes[I];
    int Case = CaseOffset + static_cast<int>(I);
    C.barrier();
    nlohmann::json Phase = {
        {"phase", "call"}, {"case", Case}, {"size", Size}, {"call", 0}};
    C.arm(Phase, Deadline);
    nlohmann::json R = {{"case", Case},
                        {"size", Size},
                        {"rank", C.rank()},
                        {"verdict", "pass"},
                        {"detail", ""}};
    if (C.rank() == FRank && Size == FSize) {
      if (Action == "sleep")
        for (;;)
          std::this_thread::sleep_for(std::chrono::seconds(1));
      if (Action == "crash")
        std::raise(SIGSEGV);
      if (Action == "exit")
        ::_exit(7);
      if (Action == "fatal") {
        R["verdict"] = "runtime-error";
        R["detail"] = "cudaErrorIllegalAddress: an illegal memory access was "
                      "encountered (fake)";
        C.result(R);
        ::_exit(3);
      }
      if (Action == "wrong") {
        R["verdict"] = "wrong-output";
        R["detail"] = "fake mismatch";
      }
    }
    C.disarm();
    if (Cfg.Oversubscribe)
      R["device"] = deviceOfRank(C.rank(), Cfg.Gpus);
    double Us = 10.0 + C.rank();
    if (Cfg.Timing)
      R["timing"] = {
          {"candidate",
           {{"median_us", Us}, {"p10_us", Us - 1}, {"p90_us", Us + 1}}},
          {"reference",
           {{"median_us", 2 * Us},
            {"p10_us", 2 * Us - 1},
            {"p90_us", 2 * Us + 1}}}};
    C.result(R);
  }
  C.done();
  return 0;
}

} // namespace pkb::rt
