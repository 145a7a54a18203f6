#include "common/time_util.h"

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

TEST(TimeUtil, StartOfUtcDay) {
    auto ms = parse_iso8601("2026-11-22T13:14:15.999Z")->ms;
    EXPECT_EQ(format_iso(start_of_utc_day(ms)), "2026-11-22T00:00:00.000Z");
    EXPECT_EQ(format_iso(start_of_utc_day(-1)), "1969-12-31T00:00:00.000Z");
}

// format_iso / format_db write every field with its fixed width, across the whole DATETIME
// range, before and after the epoch.
TEST(TimeUtil, FormatsEveryFieldAtFixedWidthAcrossTheDatetimeRange) {
    const char* const kInstants[] = {
        "1000-01-01T00:00:00.000Z", "1969-12-31T23:59:59.999Z", "1970-01-01T00:00:00.000Z",
        "1970-01-01T00:00:00.001Z", "2024-02-29T09:05:07.010Z", "2026-11-22T13:45:30.120Z",
        "9999-12-31T23:59:59.999Z",
    };
    for (const char* text : kInstants) {
        auto p = parse_iso8601(text);
        ASSERT_TRUE(p) << text;
        EXPECT_EQ(format_iso(p->ms), text);
        EXPECT_EQ(format_db(p->ms), std::string(text, 10) + " " + std::string(text + 11, 12));
    }
}

TEST(TimeUtil, FormatsMillisecondsBelowTen) {
    EXPECT_EQ(format_iso(7), "1970-01-01T00:00:00.007Z");
    EXPECT_EQ(format_iso(-1), "1969-12-31T23:59:59.999Z");
}
