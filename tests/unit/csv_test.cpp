#include "api/csv.h"

#include <gtest/gtest.h>

namespace supportcrm::csv {
namespace {

std::string cell(std::string_view v) {
    std::string out;
    append_cell(out, v);
    return out;
}

TEST(Csv, PlainCellsAreAsGiven) {
    EXPECT_EQ(cell(""), "");
    EXPECT_EQ(cell("hello world"), "hello world");
    EXPECT_EQ(cell("caf\xc3\xa9"), "caf\xc3\xa9");
    EXPECT_EQ(cell("a'b"), "a'b");
}

TEST(Csv, QuotesCommasQuotesAndLineBreaks) {
    EXPECT_EQ(cell("a,b"), "\"a,b\"");
    EXPECT_EQ(cell("say \"hi\""), "\"say \"\"hi\"\"\"");
    EXPECT_EQ(cell("two\nlines"), "\"two\nlines\"");
    EXPECT_EQ(cell("cr\rhere"), "\"cr\rhere\"");
}

TEST(Csv, FormulaLeadsArePrefixed) {
    EXPECT_EQ(cell("=1+2"), "'=1+2");
    EXPECT_EQ(cell("+33 1 23"), "'+33 1 23");
    EXPECT_EQ(cell("-5"), "'-5");
    EXPECT_EQ(cell("@SUM(A1)"), "'@SUM(A1)");
    EXPECT_EQ(cell("\tx"), "'\tx");
    EXPECT_EQ(cell("x=1"), "x=1");  // only the first character counts
}

TEST(Csv, PrefixedCellsAreQuotedWhenTheyNeedIt) {
    EXPECT_EQ(cell("\rx"), "\"'\rx\"");
    EXPECT_EQ(cell("=HYPERLINK(\"http://x\",\"y\")"),
              "\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\"");
}

// Issue 25: a spreadsheet in a ';'-separator locale splits a cell at ';' (and may at ','), and
// skips leading spaces: every part that would start a formula is prefixed.
TEST(Csv, SemicolonCellsAreQuotedAndEveryPartIsNeutralised) {
    EXPECT_EQ(cell("a;b"), "\"a;b\"");
    EXPECT_EQ(cell("x;=cmd|' /C calc'!A0;y"), "\"x;'=cmd|' /C calc'!A0;y\"");
    EXPECT_EQ(cell("x,+1;-2;@3"), "\"x,'+1;'-2;'@3\"");
    EXPECT_EQ(cell("x;y=1"), "\"x;y=1\"");
    EXPECT_EQ(cell("=a;=b"), "\"'=a;'=b\"");
}

TEST(Csv, LeadingSpacesAndFullWidthFormsDoNotHideATrigger) {
    EXPECT_EQ(cell(" =1+2"), "' =1+2");
    EXPECT_EQ(cell("   @SUM(A1)"), "'   @SUM(A1)");
    EXPECT_EQ(cell("\xc2\xa0=1"), "'\xc2\xa0=1");
    EXPECT_EQ(cell(" \xc2\xa0 -1"), "' \xc2\xa0 -1");
    EXPECT_EQ(cell("\xef\xbc\x9d"
                   "1+2"),
              "'\xef\xbc\x9d"
              "1+2");  // full-width = (U+FF1D)
    EXPECT_EQ(cell(" \xef\xbc\x8b"
                   "1"),
              "' \xef\xbc\x8b"
              "1");  // full-width + after a space
    EXPECT_EQ(cell("x; =cmd"), "\"x;' =cmd\"");
    EXPECT_EQ(cell("x,\xc2\xa0@y"), "\"x,'\xc2\xa0@y\"");
    EXPECT_EQ(cell(" plain"), " plain");
    EXPECT_EQ(cell("\xc2\xa0text"), "\xc2\xa0text");
    EXPECT_EQ(cell("a, b"), "\"a, b\"");
}

}  // namespace
}  // namespace supportcrm::csv
