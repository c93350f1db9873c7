//===- SubprocessTest.cpp - The one fork/exec helper and Expected ---------===//
#include "pkb/support/Subprocess.h"
#include "pkb/support/Expected.h"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <unistd.h>

using namespace pkb::support;
namespace fs = std::filesystem;

TEST(Expected, ValueOrError) {
  Expected<int> A = 3;
  ASSERT_TRUE(A);
  EXPECT_EQ(*A, 3);
  Expected<int> B = fail("no");
  EXPECT_FALSE(B);
  EXPECT_EQ(B.error().Message, "no");
  Expected<void> Ok;
  EXPECT_TRUE(Ok);
  Expected<void> Bad = fail("bad");
  EXPECT_FALSE(Bad);
  EXPECT_EQ(Bad.error().Message, "bad");
}

TEST(Subprocess, CaptureExitCodeAndOutput) {
  auto R = runCapture({"/bin/sh", "-c", "echo out; echo err >&2; exit 3"});
  ASSERT_TRUE(R) << R.error().Message;
  EXPECT_EQ(R->ExitCode, 3);
  EXPECT_NE(R->Output.find("out"), std::string::npos);
  EXPECT_NE(R->Output.find("err"), std::string::npos);
  EXPECT_FALSE(R->TimedOut);
  auto Missing = runCapture({"/no/such/program"});
  ASSERT_TRUE(Missing);
  EXPECT_EQ(Missing->ExitCode, 127);
  EXPECT_NE(Missing->Output.find("cannot execute"), std::string::npos);
}

TEST(Subprocess, DeadlineKillsTheProcessGroup) {
  auto Start = std::chrono::steady_clock::now();
  // The grandchild holds the pipe too: only killing the group ends it.
  auto R = runCapture({"/bin/sh", "-c", "sleep 30 & sleep 30"}, 0.3);
  double Secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - Start)
          .count();
  ASSERT_TRUE(R);
  EXPECT_TRUE(R->TimedOut);
  EXPECT_EQ(R->ExitCode, 128 + SIGKILL);
  EXPECT_LT(Secs, 10.0);
}

TEST(Subprocess, BodyWritesToThePipeAndFileOutput) {
  SpawnOptions O;
  O.Out = SpawnOptions::Output::Pipe;
  O.Body = [](int Fd) {
    const char Msg[] = "hello";
    return ::write(Fd, Msg, 5) == 5 && ::getpgrp() == ::getpid() ? 7 : 1;
  };
  auto C = spawnProcess(O);
  ASSERT_TRUE(C) << C.error().Message;
  char Buf[16] = {};
  ssize_t N = ::read(C->OutFd, Buf, sizeof(Buf));
  ::close(C->OutFd);
  EXPECT_EQ(std::string(Buf, N > 0 ? static_cast<size_t>(N) : 0), "hello");
  EXPECT_EQ(exitCode(waitStatus(C->Pid)), 7); // own process group

  fs::path Log = fs::temp_directory_path() /
                 ("pkb-subprocess-" + std::to_string(::getpid()) + ".log");
  SpawnOptions F;
  F.Argv = {"/bin/sh", "-c", "echo \"$X\"; pwd"};
  F.Env = std::vector<std::string>{"X=from-env", "PATH=/bin:/usr/bin"};
  F.Cwd = "/";
  F.Out = SpawnOptions::Output::File;
  F.OutputFile = Log.string();
  auto D = spawnProcess(F);
  ASSERT_TRUE(D) << D.error().Message;
  EXPECT_EQ(exitCode(waitStatus(D->Pid)), 0);
  std::ifstream In(Log);
  std::string A, B;
  std::getline(In, A);
  std::getline(In, B);
  EXPECT_EQ(A, "from-env");
  EXPECT_EQ(B, "/");
  fs::remove(Log);

  F.OutputFile = "/no/such/dir/x.log";
  EXPECT_FALSE(spawnProcess(F));
}
