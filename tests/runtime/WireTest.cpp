//===- WireTest.cpp - Framing and fd passing ------------------------------===//
#include "pkb/rt/Wire.h"
#include "pkb/rt/Launcher.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

using namespace pkb::rt;

TEST(Wire, MessageWithFdsRoundTrip) {
  int Sv[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, Sv), 0);
  int Pipe[2];
  ASSERT_EQ(::pipe(Pipe), 0);
  std::string Big(100000, 'x');
  ASSERT_TRUE(sendMessage(Sv[0], {MsgType::Allgather, "hello", {Pipe[1]}}));
  ASSERT_TRUE(sendMessage(Sv[0], {MsgType::Log, Big, {}}));
  auto M = recvMessage(Sv[1]);
  ASSERT_TRUE(M.has_value());
  EXPECT_EQ(M->Type, MsgType::Allgather);
  EXPECT_EQ(M->Payload, "hello");
  ASSERT_EQ(M->Fds.size(), 1u);
  // The received fd is the pipe's write end: data goes through.
  ASSERT_EQ(::write(M->Fds[0], "z", 1), 1);
  char C = 0;
  ASSERT_EQ(::read(Pipe[0], &C, 1), 1);
  EXPECT_EQ(C, 'z');
  auto M2 = recvMessage(Sv[1]);
  ASSERT_TRUE(M2.has_value());
  EXPECT_EQ(M2->Payload.size(), Big.size());
  ::close(Sv[0]);
  EXPECT_FALSE(recvMessage(Sv[1]).has_value()); // EOF
  ::close(Sv[1]);
  ::close(M->Fds[0]);
  ::close(Pipe[0]);
  ::close(Pipe[1]);
}

TEST(Wire, ListenRejectsLongPath) {
  auto L = listenUnix("/tmp/" + std::string(200, 'a'));
  EXPECT_FALSE(L);
  std::string Err = L ? std::string() : L.error().Message;
  EXPECT_NE(Err.find("too long"), std::string::npos);
}

TEST(Launcher, ScrubbedEnvironment) {
  const char *Env[] = {"PATH=/bin",
                       "SECRET_TOKEN=x",
                       "NCCL_DEBUG=INFO",
                       "NCCL_NVLS_ENABLE=1",
                       "HOME=/root",
                       "CUDA_VISIBLE_DEVICES=0,1",
                       nullptr};
  auto V = scrubbedEnvironment("/tmp/scr", {{"PKB_X", "1"}},
                               const_cast<char **>(Env));
  auto Has = [&](const std::string &S) {
    return std::find(V.begin(), V.end(), S) != V.end();
  };
  EXPECT_TRUE(Has("PATH=/bin"));
  EXPECT_TRUE(Has("NCCL_DEBUG=INFO"));
  EXPECT_TRUE(Has("NCCL_NVLS_ENABLE=0")); // forced off
  EXPECT_TRUE(Has("TORCH_SYMM_MEM_DISABLE_MULTICAST=1"));
  EXPECT_TRUE(Has("NVSHMEM_DISABLE_NVLS=1"));
  EXPECT_TRUE(Has("HOME=/tmp/scr"));
  EXPECT_TRUE(Has("CUDA_VISIBLE_DEVICES=0,1"));
  EXPECT_TRUE(Has("PKB_X=1"));
  for (const auto &S : V)
    EXPECT_EQ(S.rfind("SECRET_TOKEN", 0), std::string::npos);
}

TEST(Launcher, SanitizerSummaryCount) {
  EXPECT_EQ(sanitizerErrorCount("========= ERROR SUMMARY: 0 errors\n"), 0);
  EXPECT_EQ(sanitizerErrorCount("x\n========= ERROR SUMMARY: 3 errors\n"
                                "========= ERROR SUMMARY: 1 error\n"),
            4);
  EXPECT_EQ(sanitizerErrorCount("nothing"), 0);
  // Killed before the summary: count the reports themselves.
  EXPECT_EQ(sanitizerErrorCount("========= COMPUTE-SANITIZER\n"
                                "========= Invalid __global__ read of size 16 "
                                "bytes\n=========     at reduceKernel\n"
                                "========= Invalid __global__ read of size 16 "
                                "bytes\n"),
            2);
}

TEST(Launcher, SanitizerExcerptPrefersKernelReports) {
  std::string Log = "========= COMPUTE-SANITIZER\n"
                    "========= Program hit cudaErrorNoKernelImageForDevice\n"
                    "=========     Host Frame: libnccl\n"
                    "========= Invalid __global__ read of size 16 bytes\n"
                    "=========     at reduceKernel+0x90\n"
                    "=========     by thread (0,0,0)\n";
  EXPECT_EQ(sanitizerExcerpt(Log, 2),
            "========= Invalid __global__ read of size 16 bytes\n"
            "=========     at reduceKernel+0x90");
  EXPECT_EQ(sanitizerExcerpt("plain\ntext\n", 1), "plain");
}

TEST(Launcher, WaitStatusWords) {
  EXPECT_EQ(describeWaitStatus(3 << 8), "exited with status 3");
  EXPECT_EQ(describeWaitStatus(11), "killed by signal 11 (SIGSEGV)");
}
