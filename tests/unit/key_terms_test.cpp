// The operator's key terms (common/key_terms.h): what `key create` / `key rotate` accept and
// the exact refusals for unknown scopes, a past or malformed --expires and a bad --rate.
#include "common/key_terms.h"

#include "gtest/gtest.h"

namespace supportcrm::key_terms {
namespace {

constexpr timeutil::Millis kNow = 1'795'000'000'000;  // 2026-11-18

TEST(KeyTermsTest, ScopesParseToTheSetMask) {
    EXPECT_EQ(parse_scopes("read").value, scope::read);
    EXPECT_EQ(parse_scopes("read,write,export").value, scope::default_set);
    EXPECT_EQ(parse_scopes(" erase , read ").value, scope::erase | scope::read);
    EXPECT_EQ(parse_scopes("read,read").value, scope::read);
    EXPECT_EQ(parse_scopes("read,write,export,erase").value, scope::all);
}

TEST(KeyTermsTest, UnknownOrEmptyScopesAreRefusedByName) {
    Parsed<unsigned> p = parse_scopes("read,admin");
    EXPECT_FALSE(p.value);
    EXPECT_EQ(p.error, "--scopes: unknown scope 'admin' (read, write, export, erase)");
    EXPECT_FALSE(parse_scopes("").value);
    EXPECT_FALSE(parse_scopes("read,").value);
    EXPECT_FALSE(parse_scopes("Read").value);  // names are exact
}

TEST(KeyTermsTest, ScopeNamesAndSetLiteralFollowTheSetOrder) {
    EXPECT_EQ(scope_names(scope::erase | scope::read), (std::vector<std::string>{"read", "erase"}));
    EXPECT_EQ(scope_set_literal(scope::default_set), "read,write,export");
    EXPECT_EQ(scope_set_literal(0), "");
}

TEST(KeyTermsTest, ExpiresMustBeAFutureDatetime) {
    EXPECT_EQ(parse_expires("2027-01-31T00:00:00Z", kNow).value, 1'801'353'600'000);
    EXPECT_EQ(parse_expires("2027-01-31", kNow).value, 1'801'353'600'000);
    EXPECT_EQ(parse_expires("2027-01-31T02:00:00+02:00", kNow).value, 1'801'353'600'000);
    Parsed<timeutil::Millis> past = parse_expires("2020-01-01T00:00:00Z", kNow);
    EXPECT_FALSE(past.value);
    EXPECT_EQ(past.error, "--expires is in the past");
    EXPECT_FALSE(parse_expires(timeutil::format_iso(kNow), kNow).value);  // now is not future
    for (const char* bad : {"tomorrow", "2027-13-01", "2027-01-31T00:00:00", "", "1801267200"}) {
        Parsed<timeutil::Millis> p = parse_expires(bad, kNow);
        EXPECT_FALSE(p.value) << bad;
        EXPECT_EQ(p.error.rfind("--expires must be a datetime", 0), 0u) << bad;
    }
}

TEST(KeyTermsTest, RateIsNPerSecondOrPerMinute) {
    Parsed<Rate> s = parse_rate("10/s");
    ASSERT_TRUE(s.value);
    EXPECT_EQ(s.value->count, 10u);
    EXPECT_EQ(s.value->period_s, 1u);
    Parsed<Rate> m = parse_rate("600/m");
    ASSERT_TRUE(m.value);
    EXPECT_EQ(m.value->period_s, 60u);
    EXPECT_EQ(rate_text(*m.value), "600/m");
    EXPECT_EQ(rate_text(*s.value), "10/s");
}

TEST(KeyTermsTest, BadRatesAreRefused) {
    EXPECT_EQ(parse_rate("0/s").error, "--rate: N must be from 1 to 1000000");
    EXPECT_EQ(parse_rate("5/h").error,
              "--rate must be N/s or N/m (requests per second or per minute)");
    for (const char* bad : {"5", "/s", "-1/s", "1.5/s", "5/S", "5/sec", "1000001/s", " 5/s"}) {
        EXPECT_FALSE(parse_rate(bad).value) << bad;
        EXPECT_FALSE(parse_rate(bad).error.empty()) << bad;
    }
}

TEST(KeyTermsTest, OverlapHours) {
    EXPECT_EQ(parse_overlap_hours("24").value, 24u);
    EXPECT_EQ(parse_overlap_hours("0").value, 0u);
    EXPECT_FALSE(parse_overlap_hours("-1").value);
    EXPECT_FALSE(parse_overlap_hours("1.5").value);
    EXPECT_FALSE(parse_overlap_hours("9000").value);
}

}  // namespace
}  // namespace supportcrm::key_terms
