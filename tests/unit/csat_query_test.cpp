#include "api/csat_query.h"

#include <gtest/gtest.h>

using namespace supportcrm;
using timeutil::format_iso;

namespace {

// A fixed "now" so no test depends on the wall clock or on midnight passing.
const timeutil::Millis kNow = timeutil::parse_iso8601("2026-11-22T13:14:15.678Z")->ms;

CsatParse parse(const std::string& query) {
    return parse_csat_query(QueryParams(query), kNow);
}

}  // namespace

TEST(CsatQuery, DefaultsAreSevenDaysBackToTheEndOfToday) {
    CsatParse p = parse("");
    ASSERT_EQ(p.error, "");
    EXPECT_EQ(p.params.page, 0u);
    EXPECT_EQ(p.params.limit, 10u);
    EXPECT_FALSE(p.params.brand);
    EXPECT_EQ(format_iso(p.params.start), "2026-11-15T00:00:00.000Z");
    EXPECT_EQ(format_iso(p.params.end), "2026-11-22T23:59:59.999Z");
}

TEST(CsatQuery, BareDatesAndDatetimes) {
    CsatParse p = parse("startDate=2026-11-01&endDate=2026-11-03");
    EXPECT_EQ(format_iso(p.params.start), "2026-11-01T00:00:00.000Z");
    EXPECT_EQ(format_iso(p.params.end), "2026-11-03T23:59:59.999Z");
    CsatParse q = parse("startDate=2026-11-01T10:30:00Z&endDate=2026-11-03T05:00:00Z");
    EXPECT_EQ(format_iso(q.params.start), "2026-11-01T10:30:00.000Z");
    EXPECT_EQ(format_iso(q.params.end), "2026-11-03T23:59:59.999Z");
}

TEST(CsatQuery, EndDateWithAnOffsetMovesToTheEndOfItsUtcDay) {
    // 2026-11-03T01:00+02:00 is 2026-11-02T23:00Z.
    CsatParse p = parse("endDate=2026-11-03T01:00:00%2B02:00&startDate=2026-11-01");
    EXPECT_EQ(format_iso(p.params.end), "2026-11-02T23:59:59.999Z");
    CsatParse unencoded = parse("endDate=2026-11-03T01:00:00+02:00&startDate=2026-11-01");
    EXPECT_EQ(format_iso(unencoded.params.end), "2026-11-02T23:59:59.999Z");
}

TEST(CsatQuery, LimitIsCappedAtOneHundred) {
    EXPECT_EQ(parse("limit=100").params.limit, 100u);
    EXPECT_EQ(parse("limit=101").params.limit, 100u);
    EXPECT_EQ(parse("limit=99999999999999999999999").params.limit, 100u);
    EXPECT_EQ(parse("limit=1").params.limit, 1u);
}

TEST(CsatQuery, InvalidValuesHaveTheContractsMessages) {
    EXPECT_EQ(parse("page=-1").error, "Invalid page");
    EXPECT_EQ(parse("page=").error, "Invalid page");
    EXPECT_EQ(parse("page=1.5").error, "Invalid page");
    EXPECT_EQ(parse("limit=0").error, "Invalid limit");
    EXPECT_EQ(parse("limit=abc").error, "Invalid limit");
    EXPECT_EQ(parse("scope=Brand").error, "Invalid scope");
    EXPECT_EQ(parse("scope=").error, "Invalid scope");
    EXPECT_EQ(parse("startDate=yesterday").error, "Invalid startDate");
    EXPECT_EQ(parse("startDate=2026-01-01T10:00:00").error, "Invalid startDate");
    EXPECT_EQ(parse("endDate=2026-02-30").error, "Invalid endDate");
    EXPECT_EQ(parse("startDate=2026-11-04&endDate=2026-11-03").error,
              "startDate must not be after endDate");
    // Same day: the end moves to 23:59:59.999 first, so this is valid.
    EXPECT_EQ(parse("startDate=2026-11-03T20:00:00Z&endDate=2026-11-03T10:00:00Z").error, "");
}

TEST(CsatQuery, ScopeBrand) {
    EXPECT_TRUE(parse("scope=brand").params.brand);
}

TEST(CsatStats, RoundsHalfUpToTwoDecimals) {
    // marks 5,4,4 -> average 4.333.. -> 4.33; satisfied 3/3 -> 100
    CsatStats a = csat_stats({0, 0, 0, 0, 2, 1});
    EXPECT_EQ(a.total, 3u);
    EXPECT_DOUBLE_EQ(a.average_rating, 4.33);
    EXPECT_DOUBLE_EQ(a.satisfaction_rate, 100);
    // marks 1,2,5 -> average 2.666.. -> 2.67; satisfied 1/3 -> 33.33
    CsatStats b = csat_stats({0, 1, 1, 0, 0, 1});
    EXPECT_DOUBLE_EQ(b.average_rating, 2.67);
    EXPECT_DOUBLE_EQ(b.satisfaction_rate, 33.33);
    // 2 of 3 satisfied -> 66.666.. -> 66.67
    EXPECT_DOUBLE_EQ(csat_stats({0, 1, 0, 0, 2, 0}).satisfaction_rate, 66.67);
}

TEST(CsatStats, ExactHalvesRoundUp) {
    // 1/8 = 0.125 -> 0.13 (binary floating point would give 0.12)
    EXPECT_DOUBLE_EQ(round2_ratio(1, 8, 1), 0.13);
    EXPECT_DOUBLE_EQ(round2_ratio(4335, 1000, 1), 4.34);
}

TEST(CsatStats, EmptyWindowIsZeros) {
    CsatStats s = csat_stats({});
    EXPECT_EQ(s.total, 0u);
    EXPECT_EQ(s.average_rating, 0);
    EXPECT_EQ(s.satisfaction_rate, 0);
}

TEST(QueryParams, DecodesAndTakesTheFirstValue) {
    QueryParams q("a=1&b=x%20y&a=2&flag&c=%zz&d=");
    EXPECT_EQ(q.get("a"), "1");
    EXPECT_EQ(q.get("b"), "x y");
    EXPECT_EQ(q.get("flag"), "");
    EXPECT_EQ(q.get("c"), "%zz");
    EXPECT_EQ(q.get("d"), "");
    EXPECT_FALSE(q.get("missing"));
}

// ---- E4

TEST(CsatQueryE4, FiltersAndGroups) {
    CsatParse p = parse("mark=5,4,4&channel=Mail&assignedTo=7&customerId=9&groupBy=agent");
    ASSERT_EQ(p.error, "");
    EXPECT_EQ(p.params.filters.marks, (1u << 4) | (1u << 5));
    EXPECT_EQ(p.params.filters.channel, "Mail");
    EXPECT_EQ(p.params.filters.assigned_to, 7u);
    EXPECT_EQ(p.params.filters.customer_id, 9u);
    EXPECT_EQ(p.params.group_by, CsatGroupBy::agent);
    EXPECT_FALSE(p.params.v1_answerable());
    EXPECT_TRUE(parse("").params.v1_answerable());
    EXPECT_TRUE(parse("mark=1,2,3,4,5").params.v1_answerable());
}

TEST(CsatQueryE4, ZoneDaysMakeTheWindow) {
    CsatParse p = parse("tz=Asia/Kolkata&startDate=2026-03-10&endDate=2026-03-11");
    ASSERT_EQ(p.error, "");
    EXPECT_EQ(format_iso(p.params.start), "2026-03-09T18:30:00.000Z");
    EXPECT_EQ(format_iso(p.params.end), "2026-03-11T18:29:59.999Z");
    EXPECT_EQ(p.params.tz_name, "Asia/Kolkata");
    // The default window: kNow is 2026-11-22T13:14 UTC, 18:44 in Kolkata.
    CsatParse d = parse("tz=Asia/Kolkata");
    EXPECT_EQ(format_iso(d.params.start), "2026-11-14T18:30:00.000Z");
    EXPECT_EQ(format_iso(d.params.end), "2026-11-22T18:29:59.999Z");
    // A datetime endDate ends the zone's day it falls on: 2026-11-02T20:00Z is the 3rd there.
    CsatParse e = parse("tz=Asia/Kolkata&startDate=2026-11-01&endDate=2026-11-02T20:00:00Z");
    EXPECT_EQ(format_iso(e.params.end), "2026-11-03T18:29:59.999Z");
    // Paris's 25-hour day.
    CsatParse f = parse("tz=Europe/Paris&startDate=2026-10-25&endDate=2026-10-25&groupBy=day");
    EXPECT_EQ(format_iso(f.params.start), "2026-10-24T22:00:00.000Z");
    EXPECT_EQ(format_iso(f.params.end), "2026-10-25T22:59:59.999Z");
    std::vector<WindowPart> parts = csat_window_parts(f.params);
    ASSERT_EQ(parts.size(), 1u);
    EXPECT_EQ(parts[0].end - parts[0].start + 1, 25 * 3600 * 1000);
}

TEST(CsatQueryE4, DayPartsAreClippedToTheWindow) {
    CsatParse p = parse("startDate=2026-05-02T10:00:00Z&endDate=2026-05-04&groupBy=day");
    ASSERT_EQ(p.error, "");
    std::vector<WindowPart> parts = csat_window_parts(p.params);
    ASSERT_EQ(parts.size(), 3u);
    EXPECT_EQ(format_iso(parts[0].start), "2026-05-02T10:00:00.000Z");
    EXPECT_EQ(format_iso(parts[0].end), "2026-05-02T23:59:59.999Z");
    EXPECT_EQ(parts[2].tag, 2u);
    EXPECT_EQ(format_iso(parts[2].end), "2026-05-04T23:59:59.999Z");
}

TEST(CsatQueryE4, ErrorsInOrder) {
    EXPECT_EQ(parse("mark=0").error, "Invalid mark");
    EXPECT_EQ(parse("mark=1,,2").error, "Invalid mark");
    EXPECT_EQ(parse("assignedTo=0").error, "Invalid assignedTo");
    EXPECT_EQ(parse("customerId=x").error, "Invalid customerId");
    EXPECT_EQ(parse("tz=Nowhere/Land").error, "Invalid tz");
    EXPECT_EQ(parse("groupBy=week").error, "Invalid groupBy");
    EXPECT_EQ(parse("limit=0&mark=0").error, "Invalid limit");
    EXPECT_EQ(parse("mark=0&tz=Nowhere").error, "Invalid mark");
    EXPECT_EQ(parse("tz=Nowhere&startDate=2026-02-02&endDate=2026-02-01").error, "Invalid tz");
    EXPECT_EQ(parse("groupBy=day&startDate=2000-01-01&endDate=2020-01-01").error,
              "Invalid groupBy");
    // format is the export's: the list does not look at it.
    EXPECT_EQ(parse("format=xml").error, "");
    CsatParse e = parse_csat_query(QueryParams("format=xml&page=x"), kNow, CsatEndpoint::export_);
    EXPECT_EQ(e.error, "Invalid format");
    CsatParse c = parse_csat_query(QueryParams("format=csv"), kNow, CsatEndpoint::export_);
    EXPECT_EQ(c.params.format, CsatFormat::csv);
}
