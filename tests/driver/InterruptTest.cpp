//===- InterruptTest.cpp - Ctrl-C, SIGTERM and output safety --------------===//
//
// runInChildren under SIGINT/SIGTERM with real child processes (and their
// own children), InterruptGuard's second-signal kill, and the pkbcheck
// binary: `check` and `eval` interrupted mid-run, -o /dev/full, and an
// output path that is one of the inputs.
//
//===----------------------------------------------------------------------===//

#include "ProcessPool.h"

#include "TestUtil.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace fs = std::filesystem;
using nlohmann::json;
using namespace pkb;

namespace {

fs::path freshDir(const std::string &Name) {
  fs::path D =
      fs::temp_directory_path() / (Name + "-" + std::to_string(::getpid()));
  fs::remove_all(D);
  fs::create_directories(D);
  return D;
}

/// True once \p Pid no longer runs (gone, or a zombie nobody reaped yet).
bool gone(pid_t Pid) {
  for (int I = 0; I < 40; ++I) {
    std::ifstream Stat("/proc/" + std::to_string(Pid) + "/stat");
    std::string S;
    if (!std::getline(Stat, S))
      return true;
    size_t Paren = S.rfind(')');
    if (Paren != std::string::npos && Paren + 2 < S.size() &&
        S[Paren + 2] == 'Z')
      return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

/// Processes whose command line mentions \p Needle (pgrep -f).
std::vector<pid_t> processesMentioning(const std::string &Needle) {
  std::vector<pid_t> Out;
  for (const auto &E : fs::directory_iterator("/proc")) {
    std::string Name = E.path().filename().string();
    if (Name.find_first_not_of("0123456789") != std::string::npos)
      continue;
    std::string Cmd = pkb::test::slurp(E.path() / "cmdline");
    if (Cmd.find(Needle) != std::string::npos && !gone(std::stoi(Name)))
      Out.push_back(std::stoi(Name));
  }
  return Out;
}

FileReport okReport(const std::string &P) {
  FileReport R;
  R.Path = P;
  return R;
}

volatile sig_atomic_t MarkCalls = 0;
extern "C" void markHandler(int) { MarkCalls = MarkCalls + 1; }

/// Runs four paths, two at a time: "fast" ends at once, "slow*" start a
/// grandchild (as a compiler would) and sleep; \p Sig arrives after 1.5 s.
void interruptPool(int Sig) {
  fs::path D = freshDir("pkb_pool_int");
  std::vector<std::string> Paths = {"fast", "slow1", "slow2", "never"};
  PoolOptions PO;
  PO.Jobs = 2;
  PO.TimeoutSeconds = 60;
  struct sigaction Mine{}, Orig{}, OrigTerm{};
  Mine.sa_handler = markHandler;
  sigemptyset(&Mine.sa_mask);
  ::sigaction(SIGINT, &Mine, &Orig);
  ::sigaction(SIGTERM, &Mine, &OrigTerm);
  std::thread Killer([Sig] {
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    ::kill(::getpid(), Sig);
  });
  std::vector<std::string> Done;
  auto T0 = std::chrono::steady_clock::now();
  int Got = runInChildren(
      Paths, PO,
      [&](const std::string &P) -> FileReport {
        if (P != "fast") {
          pid_t G = ::fork();
          if (G == 0) {
            ::sleep(60);
            ::_exit(0);
          }
          std::ofstream(D / (P + ".pids")) << ::getpid() << " " << G << "\n";
          ::sleep(60);
        }
        return okReport(P);
      },
      [&](size_t I, FileReport) { Done.push_back(Paths[I]); });
  Killer.join();
  double Secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - T0)
          .count();
  EXPECT_EQ(Got, Sig);
  EXPECT_LT(Secs, 10.0);
  EXPECT_EQ(Done, std::vector<std::string>{"fast"});
  EXPECT_FALSE(fs::exists(D / "never.pids")) << "started after the signal";
  for (const char *P : {"slow1", "slow2"}) {
    std::ifstream In(D / (std::string(P) + ".pids"));
    pid_t Child = 0, Grandchild = 0;
    ASSERT_TRUE(In >> Child >> Grandchild) << P;
    EXPECT_TRUE(gone(Child)) << P << " child " << Child;
    EXPECT_TRUE(gone(Grandchild)) << P << " grandchild " << Grandchild;
  }
  // The handlers in place before the run are back, and were not called.
  struct sigaction Now{};
  ::sigaction(SIGINT, nullptr, &Now);
  EXPECT_EQ(Now.sa_handler, &markHandler);
  ::sigaction(SIGTERM, nullptr, &Now);
  EXPECT_EQ(Now.sa_handler, &markHandler);
  EXPECT_EQ(MarkCalls, 0);
  ::sigaction(SIGINT, &Orig, nullptr);
  ::sigaction(SIGTERM, &OrigTerm, nullptr);
  fs::remove_all(D);
}

const std::string Bin = PKB_BINARY_DIR "/bin/pkbcheck";

/// Starts pkbcheck with \p Args, stdout and stderr to \p Log.
pid_t spawnPkb(const std::vector<std::string> &Args, const fs::path &Log) {
  pid_t P = ::fork();
  if (P == 0) {
    int Fd = ::open(Log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(Fd, 1);
    ::dup2(Fd, 2);
    std::vector<char *> Argv{const_cast<char *>("pkbcheck")};
    for (const std::string &A : Args)
      Argv.push_back(const_cast<char *>(A.c_str()));
    Argv.push_back(nullptr);
    ::execv(Bin.c_str(), Argv.data());
    ::_exit(127);
  }
  return P;
}

/// Exit status of \p P; -N if killed by signal N.
int waitExit(pid_t P) {
  int St = 0;
  while (::waitpid(P, &St, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(St) ? WEXITSTATUS(St) : -WTERMSIG(St);
}

/// Runs pkbcheck to completion; returns its exit status, output in \p Log.
int runPkb(const std::vector<std::string> &Args, const fs::path &Log) {
  return waitExit(spawnPkb(Args, Log));
}

/// Starts pkbcheck, sends \p Sig after \p Ms milliseconds, returns the exit
/// status (or -1 with a failure if it ended before the signal).
int interruptPkb(const std::vector<std::string> &Args, const fs::path &Log,
                 int Sig, int Ms) {
  pid_t P = spawnPkb(Args, Log);
  std::this_thread::sleep_for(std::chrono::milliseconds(Ms));
  int St = 0;
  if (::waitpid(P, &St, WNOHANG) == P) {
    ADD_FAILURE() << "pkbcheck ended before the signal:\n"
                  << pkb::test::slurp(Log);
    return -1;
  }
  ::kill(P, Sig);
  return waitExit(P);
}

bool haveBinary() {
#ifdef PKB_HAVE_ANALYZER
  return fs::exists(Bin);
#else
  return false;
#endif
}

} // namespace

TEST(Interrupt, SigintKillsEveryChildGroupAndStops) { interruptPool(SIGINT); }

TEST(Interrupt, SigtermKillsEveryChildGroupAndStops) {
  interruptPool(SIGTERM);
  EXPECT_EQ(interruptExitStatus(SIGINT), 130);
  EXPECT_EQ(interruptExitStatus(SIGTERM), 143);
  EXPECT_EQ(signalName(SIGTERM), "SIGTERM");
}

TEST(Interrupt, GuardRecordsTheFirstSignalAndTheSecondKills) {
  pid_t P = ::fork();
  if (P == 0) {
    InterruptGuard G(/*SecondSignalKills=*/true);
    ::raise(SIGINT);
    if (G.signal() != SIGINT)
      ::_exit(3);
    ::raise(SIGINT); // kills
    ::_exit(4);
  }
  EXPECT_EQ(waitExit(P), -SIGINT);
  P = ::fork();
  if (P == 0) {
    InterruptGuard G;
    ::raise(SIGTERM);
    ::raise(SIGINT); // ignored: the first one is kept
    ::_exit(G.signal() == SIGTERM ? 0 : 5);
  }
  EXPECT_EQ(waitExit(P), 0);
}

TEST(Interrupt, CheckLeavesValidSarifAndNoChildren) {
  if (!haveBinary())
    GTEST_SKIP() << "no analyzer binary";
  fs::path D = freshDir("pkb_check_int");
  fs::path Out = D / "x.sarif", Log = D / "log.txt";
  int Rc = interruptPkb({"check", PKB_SOURCE_DIR "/kernels/corpus", "-j", "2",
                         "--format", "sarif", "-o", Out.string()},
                        Log, SIGINT, 4000);
  EXPECT_EQ(Rc, 130) << pkb::test::slurp(Log);
  json J = json::parse(pkb::test::slurp(Out), nullptr, false);
  ASSERT_FALSE(J.is_discarded()) << "not valid JSON:\n"
                                 << pkb::test::slurp(Out);
  const json &Inv = J["runs"][0]["invocations"][0];
  EXPECT_EQ(Inv["executionSuccessful"], false);
  EXPECT_EQ(Inv["exitCode"], 130);
  bool Noted = false;
  for (const json &N : Inv["toolExecutionNotifications"])
    Noted |= N["descriptor"]["id"] == "interrupted";
  EXPECT_TRUE(Noted);
  EXPECT_NE(pkb::test::slurp(Log).find("pkbcheck: interrupted by SIGINT"),
            std::string::npos)
      << pkb::test::slurp(Log);
  EXPECT_TRUE(processesMentioning(D.string()).empty())
      << "child processes outlived pkbcheck";
  std::vector<std::string> Left;
  for (const auto &E : fs::directory_iterator(D))
    Left.push_back(E.path().filename().string());
  std::sort(Left.begin(), Left.end());
  EXPECT_EQ(Left, (std::vector<std::string>{"log.txt", "x.sarif"}));
  fs::remove_all(D);
}

TEST(Interrupt, EvalStopsWithValidRecordsOnSigterm) {
  if (!haveBinary())
    GTEST_SKIP() << "no analyzer binary";
  fs::path D = freshDir("pkb_eval_int");
  fs::path Out = D / "e.jsonl", Log = D / "log.txt";
  int Rc = interruptPkb({"eval", PKB_SOURCE_DIR "/kernels/corpus",
                         "--static-only", "-j", "2", "-o", Out.string()},
                        Log, SIGTERM, 4000);
  EXPECT_EQ(Rc, 143) << pkb::test::slurp(Log);
  std::ifstream In(Out);
  std::string Line;
  while (std::getline(In, Line))
    EXPECT_FALSE(json::parse(Line, nullptr, false).is_discarded()) << Line;
  std::string L = pkb::test::slurp(Log);
  EXPECT_NE(L.find("interrupted by SIGTERM"), std::string::npos) << L;
  EXPECT_NE(L.find("Run the same command again"), std::string::npos) << L;
  EXPECT_TRUE(processesMentioning(D.string()).empty());
  fs::remove_all(D);
}

TEST(OutputSafety, WriteErrorExitsTwoWithTheReason) {
  if (!haveBinary())
    GTEST_SKIP() << "no analyzer binary";
  fs::path D = freshDir("pkb_devfull");
  fs::path Log = D / "log.txt";
  EXPECT_EQ(runPkb({"check", PKB_SOURCE_DIR "/kernels/corpus/correct",
                    "--format", "sarif", "-o", "/dev/full"},
                   Log),
            2);
  EXPECT_EQ(pkb::test::slurp(Log),
            "pkbcheck: error: cannot write '/dev/full': No space "
            "left on device\n");
  EXPECT_EQ(runPkb({"check", PKB_SOURCE_DIR "/kernels/corpus/correct", "-o",
                    (D / "missing" / "x.sarif").string()},
                   Log),
            2);
  EXPECT_NE(pkb::test::slurp(Log).find("No such file or directory"),
            std::string::npos);
  fs::remove_all(D);
}

TEST(OutputSafety, RefusesToOverwriteAnInput) {
  if (!haveBinary())
    GTEST_SKIP() << "no analyzer binary";
  fs::path D = freshDir("pkb_out_is_input");
  fs::path K = D / "k.cu", Log = D / "log.txt";
  const std::string Src = "__global__ void k(int *p) { p[0] = 1; }\n";
  std::ofstream(K) << Src;
  for (const std::vector<std::string> &Args :
       {std::vector<std::string>{"check", K.string(), "-o", K.string()},
        std::vector<std::string>{"check", D.string(), "-o",
                                 (D / "." / "k.cu").string()}}) {
    EXPECT_EQ(runPkb(Args, Log), 2);
    EXPECT_NE(pkb::test::slurp(Log).find(
                  "is one of the inputs; refusing to overwrite it"),
              std::string::npos)
        << pkb::test::slurp(Log);
    EXPECT_EQ(pkb::test::slurp(K), Src);
  }
  fs::path R = D / "r.jsonl";
  std::ofstream(R) << "{}\n";
  EXPECT_EQ(runPkb({"report", R.string(), "-o", R.string()}, Log), 2);
  EXPECT_NE(pkb::test::slurp(Log).find(
                "output '" + R.string() +
                "' is one of the inputs; refusing to overwrite it"),
            std::string::npos)
      << pkb::test::slurp(Log);
  EXPECT_EQ(pkb::test::slurp(R), "{}\n");
  fs::remove_all(D);
}
