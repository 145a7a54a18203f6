// The two daemons' shared skeleton (common/daemon.h, common/signals.h): the command line
// sequence's exit statuses, and a wait that a stop signal ends however it is timed.
#include "common/daemon.h"

#include <gtest/gtest.h>
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/program_options.hpp>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "common/build_info.h"
#include "common/signals.h"

namespace {

using supportcrm::Config;
namespace daemon = supportcrm::daemon;

int start(std::vector<std::string> args, std::string* out = nullptr) {
    args.insert(args.begin(), "supportcrm-test");
    std::vector<char*> argv;
    for (std::string& a : args) {
        argv.push_back(a.data());
    }
    boost::program_options::variables_map command_line;
    Config config;
    testing::internal::CaptureStdout();
    testing::internal::CaptureStderr();
    std::optional<int> done =
        daemon::start(static_cast<int>(argv.size()), argv.data(),
                      {"supportcrm-test", nullptr, nullptr}, command_line, config);
    const std::string printed = testing::internal::GetCapturedStdout();
    testing::internal::GetCapturedStderr();
    if (out != nullptr) {
        *out = printed;
    }
    return done.value_or(-1);
}

TEST(DaemonStart, HelpVersionABadFlagAndABadConfigEndWithTheirStatus) {
    std::string out;
    EXPECT_EQ(start({"--version"}, &out), 0);
    EXPECT_EQ(out, "supportcrm-test " + supportcrm::build_info::describe() + "\n");
    EXPECT_EQ(start({"--help"}, &out), 0);
    EXPECT_NE(out.find("--test-config"), std::string::npos);
    EXPECT_EQ(start({"--no-such-flag"}), 2);
    EXPECT_EQ(start({"--config", "/nonexistent/supportcrm.conf"}), supportcrm::kExitConfig);
}

TEST(DaemonStart, TestConfigPrintsTheSummaryAndARunnableConfigGoesOn) {
    char path[] = "/tmp/supportcrm-daemon-test-XXXXXX";
    const int fd = mkstemp(path);
    ASSERT_GE(fd, 0);
    close(fd);
    std::string out;
    EXPECT_EQ(start({"--config", path, "--test-config"}, &out), 0);
    EXPECT_EQ(out.rfind("supportcrm-test: configuration OK: config=" + std::string(path), 0), 0u)
        << out;
    EXPECT_EQ(start({"--config", path}), -1);  // nothing printed: the daemon runs
    std::remove(path);
}

// In a child process: the handlers are process-wide.
template <typename Body>
int in_child(Body body) {
    const pid_t pid = fork();
    if (pid == 0) {
        _exit(body());
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 100;
}

TEST(Signals, AStopThatCameBeforeThePauseEndsItAtOnce) {
    EXPECT_EQ(in_child([] {
                  supportcrm::signals::install_stop_handlers();
                  raise(SIGTERM);
                  return supportcrm::signals::pause_ms(600'000) ? 1 : 0;
              }),
              0);
}

TEST(Signals, AStopDuringThePauseEndsIt) {
    EXPECT_EQ(in_child([] {
                  supportcrm::signals::install_stop_handlers();
                  const pthread_t waiting = pthread_self();
                  // Aimed at the waiting thread, whether it is before or inside its wait.
                  std::thread stopper([waiting] { pthread_kill(waiting, SIGTERM); });
                  const bool timed_out = supportcrm::signals::pause_ms(600'000);
                  stopper.join();
                  return timed_out ? 1 : 0;
              }),
              0);
}

TEST(Signals, APauseWithoutASignalRunsItsTime) {
    EXPECT_EQ(in_child([] {
                  supportcrm::signals::install_stop_handlers();
                  return supportcrm::signals::pause_ms(1) ? 0 : 1;
              }),
              0);
}

}  // namespace

TEST(BuildInfo, NamesAVersionAndARevisionOfPlainCharacters) {
    // tools/build_info/build_info.cmake: a version the metric's label can carry unescaped.
    EXPECT_FALSE(supportcrm::build_info::version().empty());
    EXPECT_EQ(supportcrm::build_info::version().find_first_not_of(
                  "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.+~:-"),
              std::string_view::npos);
    const std::string_view revision = supportcrm::build_info::revision();
    EXPECT_TRUE(revision == "unknown" || revision.size() == 12 || revision.size() == 18)
        << revision;
    EXPECT_EQ(supportcrm::build_info::describe(), std::string(supportcrm::build_info::version()) +
                                                      " (revision " + std::string(revision) + ")");
}
