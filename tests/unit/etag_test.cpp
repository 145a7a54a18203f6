#include "api/etag.h"

#include <gtest/gtest.h>

#include <cstdint>

using namespace supportcrm;

TEST(ETag, IsStrongQuotedAndNamesKindIdAndVersion) {
    EXPECT_EQ(etag::of(etag::Kind::ticket, 12, 3), "\"t12.3\"");
    EXPECT_EQ(etag::of(etag::Kind::customer, 12, 3), "\"c12.3\"");
    EXPECT_NE(etag::of(etag::Kind::ticket, 1, 23), etag::of(etag::Kind::ticket, 12, 3));
}

TEST(ETag, ATicketsTagNamesItsVersionAndItsCustomersToo) {
    EXPECT_EQ(etag::of_ticket(12, 3, 7), "\"t12.3.7\"");
    EXPECT_NE(etag::of_ticket(12, 3, 7), etag::of_ticket(12, 3, 8));  // the customer changed
    EXPECT_NE(etag::of_ticket(12, 3, 7), etag::of_ticket(12, 4, 7));
    EXPECT_NE(etag::of_ticket(1, 23, 7), etag::of_ticket(12, 3, 7));
    EXPECT_EQ(etag::of_ticket(UINT64_MAX, UINT64_MAX, UINT64_MAX),
              "\"t18446744073709551615.18446744073709551615.18446744073709551615\"");
}

TEST(ETag, FitsTheLargestIdAndVersion) {  // the tag is formatted in a stack buffer
    EXPECT_EQ(etag::of(etag::Kind::ticket, UINT64_MAX, UINT64_MAX),
              "\"t18446744073709551615.18446744073709551615\"");
    EXPECT_EQ(etag::of(etag::Kind::customer, 0, 0), "\"c0.0\"");
}

TEST(ETag, ParsesStarAndLists) {
    auto any = etag::parse(" * ");
    ASSERT_TRUE(any);
    EXPECT_TRUE(any->any);
    auto list = etag::parse(R"("a", W/"b" ,, "c")");
    ASSERT_TRUE(list);
    ASSERT_EQ(list->tags.size(), 3u);
    EXPECT_FALSE(list->tags[0].weak);
    EXPECT_EQ(list->tags[0].quoted, "\"a\"");
    EXPECT_TRUE(list->tags[1].weak);
    EXPECT_EQ(list->tags[1].quoted, "\"b\"");
    EXPECT_TRUE(etag::parse(R"("")"));  // an empty opaque-tag is a tag
}

TEST(ETag, RefusesWhatIsNotAnEntityTagList) {
    for (const char* bad : {"", " ", "abc", "\"a", "a\"", "\"a\" \"b\"", "W/a", "w/\"a\"", "\"a\"b",
                            "*, \"a\"", "\"a b\"", "\"a\"\"b\"", ",", "\"\x7f\""}) {
        EXPECT_FALSE(etag::parse(bad)) << bad;
    }
}

TEST(ETag, IfMatchIsStrongAWeakTagNeverMatches) {
    const std::string current = etag::of(etag::Kind::ticket, 7, 2);
    EXPECT_TRUE(etag::matches_strong(*etag::parse(current), current));
    EXPECT_TRUE(etag::matches_strong(*etag::parse("\"x\", " + current), current));
    EXPECT_TRUE(etag::matches_strong(*etag::parse("*"), current));
    EXPECT_FALSE(etag::matches_strong(*etag::parse("W/" + current), current));
    EXPECT_FALSE(etag::matches_strong(*etag::parse(etag::of(etag::Kind::ticket, 7, 1)), current));
}

TEST(ETag, IfNoneMatchIsWeak) {
    const std::string current = etag::of(etag::Kind::customer, 7, 2);
    EXPECT_TRUE(etag::matches_weak(*etag::parse("W/" + current), current));
    EXPECT_TRUE(etag::matches_weak(*etag::parse("\"x\"," + current), current));
    EXPECT_TRUE(etag::matches_weak(*etag::parse("*"), current));
    EXPECT_FALSE(etag::matches_weak(*etag::parse("\"x\""), current));
}
