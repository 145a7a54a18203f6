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

}  // namespace
}  // namespace supportcrm::csv
