// Log lines: the journald priority prefix exactly when stderr is the journal, and the plain
// format otherwise (common/log.cpp).
#include "common/log.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <regex>
#include <string>

namespace {

using supportcrm::log::format_line;
using supportcrm::log::journal_prefix;
using supportcrm::log::Level;
using supportcrm::log::stderr_is_journal;

// Sets JOURNAL_STREAM for one test and restores the previous value.
class JournalStream {
  public:
    explicit JournalStream(const char* value) {
        const char* old = std::getenv("JOURNAL_STREAM");
        had_ = old != nullptr;
        old_ = had_ ? old : "";
        if (value != nullptr) {
            setenv("JOURNAL_STREAM", value, 1);
        } else {
            unsetenv("JOURNAL_STREAM");
        }
    }
    ~JournalStream() {
        if (had_) {
            setenv("JOURNAL_STREAM", old_.c_str(), 1);
        } else {
            unsetenv("JOURNAL_STREAM");
        }
    }

  private:
    bool had_;
    std::string old_;
};

TEST(Log, EachLevelHasItsSyslogPriority) {
    EXPECT_EQ(journal_prefix(Level::debug), "<7>");
    EXPECT_EQ(journal_prefix(Level::info), "<6>");
    EXPECT_EQ(journal_prefix(Level::warning), "<4>");
    EXPECT_EQ(journal_prefix(Level::error), "<3>");
}

TEST(Log, JournalLinesStartWithThePriorityThenThePlainLine) {
    const std::string plain = format_line(Level::warning, "disk almost full", false);
    const std::string journal = format_line(Level::warning, "disk almost full", true);
    const std::regex shape(
        "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z WARNING pid=[0-9]+ disk almost full\n$");
    EXPECT_TRUE(std::regex_match(plain, shape)) << plain;
    ASSERT_EQ(journal.rfind("<4>", 0), 0u) << journal;
    EXPECT_TRUE(std::regex_match(journal.substr(3), shape)) << journal;
    EXPECT_EQ(format_line(Level::error, "x", true).rfind("<3>", 0), 0u);
    EXPECT_EQ(format_line(Level::info, "x", true).rfind("<6>", 0), 0u);
}

TEST(Log, NewlinesInAMessageCannotForgeALine) {
    const std::string line = format_line(Level::info, "a\n<3>forged\r", true);
    EXPECT_EQ(line.find('\n'), line.size() - 1) << line;
    EXPECT_EQ(line.find('\r'), std::string::npos) << line;
}

TEST(Log, StderrIsTheJournalOnlyWhenJournalStreamNamesIt) {
    struct stat st {};
    ASSERT_EQ(fstat(STDERR_FILENO, &st), 0);
    const std::string mine = std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino);
    const std::string other = std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino + 1);
    {
        JournalStream set(nullptr);
        EXPECT_FALSE(stderr_is_journal());
    }
    {
        JournalStream set(mine.c_str());
        EXPECT_TRUE(stderr_is_journal());
    }
    {
        // Inherited by a process whose stderr was redirected elsewhere: not the journal.
        JournalStream set(other.c_str());
        EXPECT_FALSE(stderr_is_journal());
    }
    {
        JournalStream set("garbage");
        EXPECT_FALSE(stderr_is_journal());
    }
}

// Issue 25: a line that could come once per request while the database is down.
TEST(Log, ThrottleWritesTheFirstThenOneAWhileCountingTheRest) {
    using namespace std::chrono_literals;
    using supportcrm::log::Throttle;
    Throttle throttle(5s);
    const auto at = [](std::chrono::milliseconds ms) {
        return Throttle::Clock::time_point{} + 1h + ms;
    };
    EXPECT_EQ(throttle.admit("down", at(0ms)), "down");
    for (int i = 1; i <= 700; ++i) {
        EXPECT_EQ(throttle.admit("down", at(std::chrono::milliseconds(i * 7))), "");  // to 4.9 s
    }
    EXPECT_EQ(throttle.admit("down", at(5000ms)),
              "down (700 more like it in the last 5 s not logged)");
    EXPECT_EQ(throttle.admit("down", at(5001ms)), "");
    EXPECT_EQ(throttle.success(), 1u);
    // A new run is written at once.
    EXPECT_EQ(throttle.admit("down again", at(5002ms)), "down again");
    EXPECT_EQ(throttle.success(), 0u);
}

}  // namespace
