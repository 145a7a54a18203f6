// What crosses the master's re-exec (fcgi/reexec.h) and the workers' readiness reports
// (fcgi/readiness.h): both are text formats read by another process image, so a round trip
// and the refusal of anything malformed are checked here, without forking.
#include <gtest/gtest.h>

#include <stdexcept>

#include "fcgi/readiness.h"
#include "fcgi/reexec.h"

namespace {

using supportcrm::Children;
using supportcrm::ReadinessReport;

TEST(ReexecHandover, ChildrenSurviveTheRoundTripWithPhaseAndStartTime) {
    const Children::Clock::time_point t0(std::chrono::nanoseconds(123456789012345));
    std::vector<Children::Child> children{
        {101, Children::Phase::serving, t0, 3},
        {102, Children::Phase::connecting, t0 + std::chrono::seconds(2), 4},
        {103, Children::Phase::stopping, t0 + std::chrono::milliseconds(5), 2},
    };
    const std::string text = supportcrm::encode_children(children);
    EXPECT_EQ(text.find(' '), std::string::npos) << text;
    const std::vector<Children::Child> back = supportcrm::decode_children(text);
    ASSERT_EQ(back.size(), children.size());
    for (std::size_t i = 0; i < back.size(); ++i) {
        EXPECT_EQ(back[i].pid, children[i].pid);
        EXPECT_EQ(back[i].phase, children[i].phase);
        EXPECT_EQ(back[i].started, children[i].started);
    }
    EXPECT_TRUE(supportcrm::decode_children("").empty());
}

TEST(ReexecHandover, MalformedChildrenAreRefused) {
    for (const char* bad :
         {"101", "101:s", "101:x:5", "abc:s:5", "101:s:", "101:s:5,,", "-1:s:5", "101:ss:5"}) {
        EXPECT_THROW(supportcrm::decode_children(bad), std::runtime_error) << bad;
    }
}

TEST(ReadinessReport, LinesRoundTrip) {
    const ReadinessReport serving{42, true, ""};
    EXPECT_EQ(supportcrm::readiness_line(serving), "serving 42\n");
    const std::string failing = supportcrm::readiness_line(
        {43, false, "cannot connect: Access denied for user 'x'@'localhost'\n(using password)"});
    EXPECT_EQ(failing,
              "failing 43 cannot connect: Access denied for user 'x'@'localhost' (using "
              "password)\n");
    auto parsed = supportcrm::parse_readiness_line(failing.substr(0, failing.size() - 1));
    ASSERT_TRUE(parsed);
    EXPECT_EQ(parsed->pid, 43);
    EXPECT_FALSE(parsed->serving);
    EXPECT_EQ(parsed->reason,
              "cannot connect: Access denied for user 'x'@'localhost' (using password)");
    parsed = supportcrm::parse_readiness_line("serving 42");
    ASSERT_TRUE(parsed);
    EXPECT_TRUE(parsed->serving);
    EXPECT_EQ(parsed->pid, 42);
}

TEST(ReadinessReport, ALongReasonStillFitsOneAtomicWrite) {
    const std::string line = supportcrm::readiness_line({7, false, std::string(10000, 'x')});
    EXPECT_LT(line.size(), 4096u);
    EXPECT_EQ(line.back(), '\n');
}

TEST(ReadinessReport, AnythingElseIsNotAReport) {
    for (const char* bad :
         {"", "r", "serving", "serving ", "serving x", "serving 0", "ready 42", "failing -3 no"}) {
        EXPECT_FALSE(supportcrm::parse_readiness_line(bad)) << bad;
    }
}

}  // namespace
