// Result-column counting (db/columns.h): what the static_asserts beside every statement rely on.
// The statements' own layouts are checked at compile time where they are written.
#include "db/columns.h"

#include <gtest/gtest.h>

using supportcrm::ColumnRun;
using supportcrm::count_columns;
using supportcrm::result_columns;

TEST(Columns, ACommaCountsOnlyOutsideParenthesesAndQuotes) {
    EXPECT_EQ(count_columns("a"), 1u);
    EXPECT_EQ(count_columns("a, b, c"), 3u);
    EXPECT_EQ(count_columns("a, f(b, g(c, d)) AS x, e"), 3u);
    EXPECT_EQ(count_columns("CONCAT_WS(', ', a, b), ',' AS comma, \"x,y\", `p,q`"), 4u);
    EXPECT_EQ(count_columns(SUPPORTCRM_MILLIS("t.at") ", t.id"), 2u);
}

TEST(Columns, ASelectHasTheColumnsOfItsOwnListNotOfItsSubqueries) {
    EXPECT_EQ(result_columns("SELECT 1"), 1u);
    EXPECT_EQ(result_columns("SELECT a, b FROM t WHERE c IN (1, 2)"), 2u);
    EXPECT_EQ(result_columns("SELECT a, (SELECT x, y FROM u LIMIT 1) AS s, b FROM t"), 3u);
    EXPECT_EQ(result_columns("SELECT m, SUM(n) FROM (SELECT m, n, o FROM t) t GROUP BY m"), 2u);
}

TEST(Columns, AWriteHasTheColumnsItReturns) {
    EXPECT_EQ(result_columns("INSERT INTO t (a, b) VALUES (?, ?)"), 0u);
    EXPECT_EQ(result_columns("UPDATE t SET a = ?, b = ? WHERE id = ?"), 0u);
    EXPECT_EQ(result_columns("INSERT INTO t (a, b) VALUES (?, ?) RETURNING id"), 1u);
    EXPECT_EQ(result_columns("INSERT INTO t (a, b) SELECT x, ? FROM u WHERE id = ? "
                             "RETURNING id, a, (SELECT c FROM v WHERE v.id = t.a)"),
              3u);
}

TEST(Columns, RunsFollowEachOther) {
    constexpr ColumnRun first{1, 3};
    constexpr ColumnRun second = first.then(4);
    static_assert(second.first == 4 && second.last() == 7 && second[2] == 6);
    EXPECT_EQ(first.last(), 3u);
    EXPECT_EQ(second.next(), 8u);
}
