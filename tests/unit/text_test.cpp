#include "common/text.h"

#include <gtest/gtest.h>

using namespace supportcrm::text;

TEST(Text, Utf8Validation) {
    EXPECT_TRUE(is_valid_utf8("plain"));
    EXPECT_TRUE(is_valid_utf8("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"));
    EXPECT_TRUE(is_valid_utf8(std::string("nul\0inside", 10)));
    EXPECT_FALSE(is_valid_utf8("\xc3"));              // truncated
    EXPECT_FALSE(is_valid_utf8("\xc0\xaf"));          // overlong
    EXPECT_FALSE(is_valid_utf8("\xed\xa0\x80"));      // surrogate
    EXPECT_FALSE(is_valid_utf8("\xf4\x90\x80\x80"));  // above U+10FFFF
    EXPECT_FALSE(is_valid_utf8("\xff"));
}

TEST(Text, LengthCountsCharactersNotBytes) {
    EXPECT_EQ(utf8_length("abc"), 3u);
    EXPECT_EQ(utf8_length("\xc3\xa9\xc3\xa9"), 2u);
    EXPECT_EQ(utf8_length("\xf0\x9f\x98\x80"), 1u);
}

TEST(Text, TrimAndDigits) {
    EXPECT_EQ(trim("  a b \t\n"), "a b");
    EXPECT_EQ(trim(" \t "), "");
    EXPECT_TRUE(is_digits("0123"));
    EXPECT_FALSE(is_digits(""));
    EXPECT_FALSE(is_digits("12a"));
    EXPECT_FALSE(is_digits("-1"));
}

TEST(Text, ParseU64RejectsOverflow) {
    EXPECT_EQ(parse_u64("18446744073709551615"), UINT64_MAX);
    EXPECT_FALSE(parse_u64("18446744073709551616"));
    EXPECT_EQ(parse_u64("007"), 7u);
}

TEST(Text, JoinNames) {
    EXPECT_EQ(join_names(std::string("Ann"), std::string("Lee")), "Ann Lee");
    EXPECT_EQ(join_names(std::string("Ann"), std::nullopt), "Ann");
    EXPECT_EQ(join_names(std::nullopt, std::string("Lee")), "Lee");
    EXPECT_FALSE(join_names(std::nullopt, std::nullopt));
}

TEST(Text, CaseInsensitiveAscii) {
    EXPECT_TRUE(iequals("Bearer", "bEARER"));
    EXPECT_FALSE(iequals("Bearer", "Bearer "));
    EXPECT_EQ(ascii_lower("Application/JSON"), "application/json");
}

// extensions.md §E1: blank is empty or only Unicode White_Space, not only ASCII's.
TEST(Text, BlankIsUnicodeWhiteSpace) {
    for (const char* s : {"", " ", "\t\n\v\f\r", "\xC2\x85", "\xC2\xA0", "\xE1\x9A\x80",
                          "\xE2\x80\x80\xE2\x80\x8A", "\xE2\x80\xA8\xE2\x80\xA9", "\xE2\x80\xAF",
                          "\xE2\x81\x9F", "\xE3\x80\x80", " \xC2\xA0 \xE3\x80\x80 "}) {
        EXPECT_TRUE(is_blank(s)) << s;
    }
    // Zero-width space (U+200B) and the BOM (U+FEFF) are not White_Space; neither is text.
    for (const char* s : {"x", " x ", "\xE2\x80\x8B", "\xEF\xBB\xBF",
                          "\xC2\xA0"
                          "a",
                          "\xC3\xA9"}) {
        EXPECT_FALSE(is_blank(s)) << s;
    }
}
