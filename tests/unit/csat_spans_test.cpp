// E4's counting plan: which spans of survey_span_counts cover a window, which ends are read
// survey by survey, and how counts add up per group (db/csat_spans.h). The statements that
// run the plan are tested against MariaDB in tests/integration (csat analytics).
#include "db/csat_spans.h"

#include <gtest/gtest.h>

namespace supportcrm {
namespace {

constexpr timeutil::Millis kMinute = 60'000;
constexpr timeutil::Millis kDay2 = timeutil::kMillisPerDay;  // 1970-01-02T00:00:00Z
// 1970-01-02 in minutes since 1000-01-01 (sql/005): 354,286 days.
constexpr std::uint64_t kDay2Minute = 354'286ULL * 1440;

std::string span(unsigned length, std::uint64_t minute, unsigned tag) {
    return "[" + std::to_string(length) + "," + std::to_string(minute) + "," + std::to_string(tag) +
           "]";
}

TEST(CsatSpanPlan, AWholeDayIsOneDaySpanAndNothingIsReadRowByRow) {
    const SpanPlan plan = plan_cover({{kDay2, kDay2 + timeutil::kMillisPerDay - 1, 7}});
    EXPECT_EQ(plan.json, "[" + span(1440, kDay2Minute, 7) + "]");
    EXPECT_TRUE(plan.raw.empty());
    EXPECT_TRUE(plan.has_spans());
}

TEST(CsatSpanPlan, EndsOffTheQuarterHourGridAreReadRowByRow) {
    // [00:05, 01:20): quarter hours 00:15..01:15 from the spans, the two ends from the rows.
    const SpanPlan plan = plan_cover({{kDay2 + 5 * kMinute, kDay2 + 80 * kMinute - 1, 0}});
    EXPECT_EQ(plan.json, "[" + span(15, kDay2Minute + 15, 0) + "," + span(15, kDay2Minute + 30, 0) +
                             "," + span(15, kDay2Minute + 45, 0) + "," +
                             span(15, kDay2Minute + 60, 0) + "]");
    ASSERT_EQ(plan.raw.size(), 2u);
    EXPECT_EQ(plan.raw[0].start, kDay2 + 5 * kMinute);
    EXPECT_EQ(plan.raw[0].end, kDay2 + 15 * kMinute);
    EXPECT_EQ(plan.raw[1].start, kDay2 + 75 * kMinute);
    EXPECT_EQ(plan.raw[1].end, kDay2 + 80 * kMinute);
}

TEST(CsatSpanPlan, TheLargestAlignedSpanIsTakenFirst) {
    // [23:00 day 1, 01:00 day 3): an hour, a day, an hour.
    const SpanPlan plan =
        plan_cover({{kDay2 - 60 * kMinute, kDay2 + timeutil::kMillisPerDay + 60 * kMinute - 1, 3}});
    EXPECT_EQ(plan.json, "[" + span(60, kDay2Minute - 60, 3) + "," + span(1440, kDay2Minute, 3) +
                             "," + span(60, kDay2Minute + 1440, 3) + "]");
    EXPECT_TRUE(plan.raw.empty());
}

TEST(CsatSpanPlan, APartShorterThanAQuarterHourIsReadWhole) {
    const SpanPlan plan = plan_cover({{kDay2 + kMinute, kDay2 + 10 * kMinute - 1, 2}});
    EXPECT_EQ(plan.json, "[]");
    EXPECT_FALSE(plan.has_spans());
    ASSERT_EQ(plan.raw.size(), 1u);
    EXPECT_EQ(plan.raw[0].start, kDay2 + kMinute);
    EXPECT_EQ(plan.raw[0].end, kDay2 + 10 * kMinute);
    EXPECT_EQ(plan.raw[0].tag, 2u);
}

TEST(CsatTally, KeepsOnlyTheFilterMarksAndDropsGroupsLeftEmpty) {
    Tally tally(CountKey::channel, (1u << 4) | (1u << 5));  // marks 4 and 5
    tally.at(0, "email", 0)[5] += 2;
    tally.at(0, "email", 0)[1] += 9;  // not asked for
    tally.at(0, "chat", 0)[1] += 3;   // only marks not asked for: no group
    const std::vector<GroupCounts> groups = tally.take();
    ASSERT_EQ(groups.size(), 1u);
    EXPECT_EQ(groups[0].channel, "email");
    EXPECT_EQ(groups[0].by_mark[5], 2u);
    EXPECT_EQ(groups[0].by_mark[1], 0u);
}

TEST(CsatTally, AgentZeroIsTheUnassignedGroup) {
    Tally tally(CountKey::agent, 0b111110);
    tally.at(0, {}, 0)[3] += 1;
    tally.at(0, {}, 42)[3] += 1;
    tally.at(0, {}, 42)[4] += 1;
    std::vector<GroupCounts> groups = tally.take();
    ASSERT_EQ(groups.size(), 2u);
    // std::map order of the identities "0" < "42".
    EXPECT_FALSE(groups[0].agent.has_value());
    EXPECT_EQ(groups[1].agent, 42u);
    EXPECT_EQ(groups[1].by_mark[3] + groups[1].by_mark[4], 2u);
}

}  // namespace
}  // namespace supportcrm
