#include "common/time_zone.h"

#include <gtest/gtest.h>

namespace supportcrm::tz {
namespace {

using timeutil::Millis;

Millis utc(int y, unsigned m, unsigned d, int h = 0, int min = 0) {
    return (timeutil::days_from_civil(y, m, d) * 86400 + h * 3600 + min * 60) * 1000;
}
std::int64_t day(int y, unsigned m, unsigned d) {
    return timeutil::days_from_civil(y, m, d);
}

TEST(TimeZone, UnknownAndMalformedNamesAreNotZones) {
    EXPECT_EQ(find_zone("Mars/Olympus_Mons"), nullptr);
    EXPECT_EQ(find_zone(""), nullptr);
    EXPECT_EQ(find_zone("../../etc/passwd"), nullptr);
    EXPECT_EQ(find_zone("/etc/passwd"), nullptr);
    EXPECT_EQ(find_zone("Europe/../Europe/Paris"), nullptr);
    EXPECT_EQ(find_zone("Europe"), nullptr);  // a directory
    EXPECT_EQ(find_zone("Europe/Paris "), nullptr);
    EXPECT_EQ(find_zone("right/Europe/Paris"), nullptr);  // leap-second clock
}

// Issue 25: only names of tzdata's list (zones and backward links), none of the directory's
// other files.
TEST(TimeZone, OnlyTzdataZoneAndLinkNamesAreZones) {
    for (const char* not_a_zone :
         {"localtime", "posixrules", "Factory", "posix/Europe/Paris", "right/UTC", "posix/UTC",
          "zone.tab", "tzdata.zi", "leapseconds", "iso3166.tab", "zone1970.tab", "SECURITY"}) {
        EXPECT_FALSE(is_listed_zone(not_a_zone)) << not_a_zone;
        EXPECT_EQ(find_zone(not_a_zone), nullptr) << not_a_zone;
    }
    for (const char* zone : {"Europe/Paris", "America/Argentina/Buenos_Aires", "UTC", "Etc/GMT+5",
                             "US/Eastern", "Asia/Calcutta", "GB", "Etc/UTC", "EST5EDT"}) {
        EXPECT_TRUE(is_listed_zone(zone)) << zone;
        EXPECT_NE(find_zone(zone), nullptr) << zone;
    }
}

TEST(TimeZone, TheZoneListIsTzdataZisZonesAndLinks) {
    const auto names = parse_zone_list(
        "# version 2025b\nR E 1977 1980 - Ap Su>=1 1u 1 S\nZ Europe/Paris 0:9:21 - LMT 1891 Mar "
        "16\n"
        "0:9:21 - PMT 1911 Mar 11\nZ Factory 0 - -00\nL Europe/Paris Europe/Monaco\n"
        "L Etc/UTC UTC\n");
    EXPECT_EQ(names, (std::set<std::string, std::less<>>{"Europe/Monaco", "Europe/Paris", "UTC"}));
}

TEST(TimeZone, ZonesAreLoadedOncePerProcess) {
    const Zone* a = find_zone("Europe/Paris");
    ASSERT_NE(a, nullptr);
    EXPECT_EQ(find_zone("Europe/Paris"), a);
}

TEST(TimeZone, ParisAroundTheLastSundayOfOctober) {
    const Zone* z = find_zone("Europe/Paris");
    ASSERT_NE(z, nullptr);
    // 2026-10-25: CEST (+2) until 01:00 UTC, CET (+1) after; that day has 25 hours.
    EXPECT_EQ(z->offset_at(utc(2026, 10, 25, 0, 59) / 1000), 7200);
    EXPECT_EQ(z->offset_at(utc(2026, 10, 25, 1, 0) / 1000), 3600);
    EXPECT_EQ(z->day_start(day(2026, 10, 25)), utc(2026, 10, 24, 22));
    EXPECT_EQ(z->day_start(day(2026, 10, 26)), utc(2026, 10, 25, 23));
    EXPECT_EQ(z->day_start(day(2026, 3, 29)), utc(2026, 3, 28, 23));  // 23-hour day
    EXPECT_EQ(z->day_start(day(2026, 3, 30)), utc(2026, 3, 29, 22));
    EXPECT_EQ(z->local_day(utc(2026, 10, 25, 22, 59)), day(2026, 10, 25));
    EXPECT_EQ(z->local_day(utc(2026, 10, 25, 23, 0)), day(2026, 10, 26));
}

TEST(TimeZone, BeyondTheFilesTransitionsTheFooterRuleApplies) {
    const Zone* z = find_zone("Europe/Paris");
    ASSERT_NE(z, nullptr);
    // 2045-10-29 is the last Sunday of October 2045.
    EXPECT_EQ(z->day_start(day(2045, 10, 29)), utc(2045, 10, 28, 22));
    EXPECT_EQ(z->day_start(day(2045, 10, 30)), utc(2045, 10, 29, 23));
    EXPECT_EQ(z->offset_at(utc(2045, 7, 1) / 1000), 7200);
    EXPECT_EQ(z->offset_at(utc(2045, 1, 1) / 1000), 3600);
}

TEST(TimeZone, HalfHourAnd45MinuteOffsets) {
    const Zone* kolkata = find_zone("Asia/Kolkata");
    ASSERT_NE(kolkata, nullptr);
    EXPECT_EQ(kolkata->day_start(day(2026, 11, 1)), utc(2026, 10, 31, 18, 30));
    const Zone* kathmandu = find_zone("Asia/Kathmandu");
    ASSERT_NE(kathmandu, nullptr);
    EXPECT_EQ(kathmandu->day_start(day(2026, 11, 1)), utc(2026, 10, 31, 18, 15));
}

TEST(TimeZone, SouthernHemisphereAndNegativeOffsets) {
    const Zone* sydney = find_zone("Australia/Sydney");
    ASSERT_NE(sydney, nullptr);
    EXPECT_EQ(sydney->offset_at(utc(2026, 1, 15) / 1000), 11 * 3600);  // AEDT
    EXPECT_EQ(sydney->offset_at(utc(2026, 7, 15) / 1000), 10 * 3600);  // AEST
    EXPECT_EQ(sydney->offset_at(utc(2050, 1, 15) / 1000), 11 * 3600);  // footer rule
    const Zone* ny = find_zone("America/New_York");
    ASSERT_NE(ny, nullptr);
    EXPECT_EQ(ny->day_start(day(2026, 11, 1)), utc(2026, 11, 1, 4));
    EXPECT_EQ(ny->day_start(day(2026, 11, 2)), utc(2026, 11, 2, 5));
}

TEST(TimeZone, MidnightInAGapStartsTheDayAtTheTransition) {
    // America/Santiago moves its clocks at 24:00 local: 2026-09-06 has no 00:00.
    const Zone* z = find_zone("America/Santiago");
    ASSERT_NE(z, nullptr);
    Millis start = z->day_start(day(2026, 9, 6));
    EXPECT_EQ(z->local_day(start), day(2026, 9, 6));
    EXPECT_EQ(z->local_day(start - 1), day(2026, 9, 5));
}

TEST(TimeZone, PosixRules) {
    auto r = parse_posix_rule("CET-1CEST,M3.5.0,M10.5.0/3");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->std_offset, 3600);
    EXPECT_EQ(r->dst_offset, 7200);
    EXPECT_EQ(r->end.time, 3 * 3600);
    auto ist = parse_posix_rule("IST-5:30");
    ASSERT_TRUE(ist);
    EXPECT_FALSE(ist->has_dst);
    EXPECT_EQ(ist->std_offset, 5 * 3600 + 1800);
    auto quoted = parse_posix_rule("<-03>3");
    ASSERT_TRUE(quoted);
    EXPECT_EQ(quoted->std_offset, -3 * 3600);
    EXPECT_FALSE(parse_posix_rule("EST5EDT,J60,J300"));
    EXPECT_FALSE(parse_posix_rule(""));
}

TEST(TimeZone, NotATzifFile) {
    EXPECT_FALSE(parse_tzif(""));
    EXPECT_FALSE(parse_tzif("TZif2"));
    EXPECT_FALSE(parse_tzif(std::string(200, 'x')));
}

}  // namespace
}  // namespace supportcrm::tz
