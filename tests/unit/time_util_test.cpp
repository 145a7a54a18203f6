#include "handlers/time_util.h"

#include <gtest/gtest.h>

using namespace supportcrm::timeutil;

TEST(TimeUtil, BareDateIsMidnightUtc) {
    auto p = parse_iso8601("2026-11-22");
    ASSERT_TRUE(p);
    EXPECT_TRUE(p->date_only);
    EXPECT_EQ(format_iso(p->ms), "2026-11-22T00:00:00.000Z");
}

TEST(TimeUtil, OffsetIsConvertedToUtcWithMilliseconds) {
    auto p = parse_iso8601("2026-01-01T01:30:00.5+02:00");
    ASSERT_TRUE(p);
    EXPECT_FALSE(p->date_only);
    EXPECT_EQ(format_iso(p->ms), "2025-12-31T23:30:00.500Z");
}

TEST(TimeUtil, NegativeOffsetAndCompactOffset) {
    EXPECT_EQ(format_iso(parse_iso8601("2026-03-01T22:00:00-0230")->ms),
              "2026-03-02T00:30:00.000Z");
    EXPECT_EQ(format_iso(parse_iso8601("2026-03-01T22:00Z")->ms), "2026-03-01T22:00:00.000Z");
}

TEST(TimeUtil, FractionIsTruncatedToMilliseconds) {
    EXPECT_EQ(format_iso(parse_iso8601("2026-03-01T00:00:00.123987Z")->ms),
              "2026-03-01T00:00:00.123Z");
}

TEST(TimeUtil, DatetimeWithoutZoneIsRejected) {
    EXPECT_FALSE(parse_iso8601("2026-01-01T10:00:00"));
}

TEST(TimeUtil, ImpossibleDatesAreRejected) {
    EXPECT_FALSE(parse_iso8601("2026-02-29"));
    EXPECT_TRUE(parse_iso8601("2024-02-29"));
    EXPECT_FALSE(parse_iso8601("2026-13-01"));
    EXPECT_FALSE(parse_iso8601("2026-01-01T24:00:00Z"));
    EXPECT_FALSE(parse_iso8601("2026-1-01"));
    EXPECT_FALSE(parse_iso8601(""));
    EXPECT_FALSE(parse_iso8601("2026-01-01Tjunk"));
    EXPECT_FALSE(parse_iso8601("2026-01-01T10:00:00Zjunk"));
    EXPECT_FALSE(parse_iso8601("0999-12-31"));  // outside DATETIME's range
}

TEST(TimeUtil, DatabaseTextRoundTrips) {
    auto ms = parse_db("2026-11-22 01:25:52.123");
    ASSERT_TRUE(ms);
    EXPECT_EQ(format_db(*ms), "2026-11-22 01:25:52.123");
    EXPECT_EQ(db_to_iso("2026-11-22 01:25:52"), "2026-11-22T01:25:52.000Z");
    EXPECT_EQ(db_to_iso("garbage"), "");
}

TEST(TimeUtil, StartOfUtcDay) {
    auto ms = parse_iso8601("2026-11-22T13:14:15.999Z")->ms;
    EXPECT_EQ(format_iso(start_of_utc_day(ms)), "2026-11-22T00:00:00.000Z");
    EXPECT_EQ(format_iso(start_of_utc_day(-1)), "1969-12-31T00:00:00.000Z");
}
