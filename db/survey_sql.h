// The CSAT statements and the layout of their rows. Included by db/statements.h (which gathers
// every statement list) and survey_repo.cpp (their reader).
#pragma once

#include "db/auth_sql.h"
#include "db/columns.h"

namespace supportcrm {

// clang-format off

// A survey's customer (SurveyCustomer).
#define SUPPORTCRM_SURVEY_CUSTOMER_COLUMNS "cu.id, cu.email, cu.full_name, cu.phone_number"
// The same as a survey read shows it: id 0 for an erased customer, whose `customer` is null
// (extensions.md §E9; write_survey()).
#define SUPPORTCRM_SHOWN_SURVEY_CUSTOMER_COLUMNS \
    "IF(cu.erased_at IS NULL, cu.id, 0) AS id, cu.email, cu.full_name, cu.phone_number"
#define SUPPORTCRM_SURVEY_COLUMNS_WITH(domain)                                   \
    "s.id, s.mark, s.comment, s.graph_nodes, s.node_ids, s.message_id, "         \
    SUPPORTCRM_MILLIS("s.created_at") ", " domain ", "                           \
    "s.conversation_id, " SUPPORTCRM_SHOWN_SURVEY_CUSTOMER_COLUMNS
#define SUPPORTCRM_SURVEY_COLUMNS SUPPORTCRM_SURVEY_COLUMNS_WITH("sh.domain")
#define SUPPORTCRM_SURVEY_COLUMNS_OF_KEY_SHOP SUPPORTCRM_SURVEY_COLUMNS_WITH("ks.domain")

// The key's shop's surveys per mark as "n1 n2 n3 n4 n5": whole days from the daily counts
// (DATE range), the partial first day from the surveys themselves (DATETIME range).
#define SUPPORTCRM_DAY_COUNTS                                                                   \
    "(SELECT CONCAT_WS(' ', SUM(IF(d.mark = 1, d.count, 0)), SUM(IF(d.mark = 2, d.count, 0)), " \
    "SUM(IF(d.mark = 3, d.count, 0)), SUM(IF(d.mark = 4, d.count, 0)), "                        \
    "SUM(IF(d.mark = 5, d.count, 0))) FROM survey_daily_counts d "                              \
    "WHERE d.shop_id = ks.id AND d.day BETWEEN ? AND ?) AS day_counts"
#define SUPPORTCRM_RAW_COUNTS                                                    \
    "(SELECT CONCAT_WS(' ', SUM(r.mark = 1), SUM(r.mark = 2), SUM(r.mark = 3), " \
    "SUM(r.mark = 4), SUM(r.mark = 5)) FROM surveys r "                          \
    "WHERE r.shop_id = ks.id AND r.created_at BETWEEN ? AND ?) AS raw_counts"
#define SUPPORTCRM_SURVEY_JOINS                                         \
    "JOIN surveys s ON s.id = p.id JOIN shops sh ON sh.id = s.shop_id " \
    "JOIN customers cu ON cu.id = s.customer_id"

// The spans of survey_span_counts in minutes (sql/005; kCsatSpans below says the same).
#define SUPPORTCRM_CSAT_SPANS "SELECT 15 AS span UNION ALL SELECT 60 UNION ALL SELECT 1440"

// E4: a survey row with what the export adds to the list shape.
#define SUPPORTCRM_EXPORT_COLUMNS SUPPORTCRM_SURVEY_COLUMNS ", s.channel, s.assigned_to"
// E4's filters on surveys s: a bit mask of marks, then channel, assigned_to and customer_id,
// each bound twice (NULL: not filtered).
#define SUPPORTCRM_SURVEY_FILTER                                                  \
    " AND (? >> s.mark) & 1 = 1 AND (? IS NULL OR s.channel = ?) "                \
    "AND (? IS NULL OR s.assigned_to = ?) AND (? IS NULL OR s.customer_id = ?) "
#define SUPPORTCRM_FILTERED_FROM(index)                                             \
    " FROM surveys s FORCE INDEX (" index ") JOIN shops sh ON sh.id = s.shop_id " \
    "JOIN customers cu ON cu.id = s.customer_id "
// The window's counts from the spans given as JSON [[span, start, tag], ...] (minutes since
// 1000-01-01): each span is an index lookup of (shop, span, start, rollup) returning its rows
// per (channel, agent) of that rollup (sql/005); grouped by `key`.
#define SUPPORTCRM_SPAN_COUNTS(key)                                                            \
    "SELECT " key ", SUM(c.c1), SUM(c.c2), SUM(c.c3), SUM(c.c4), SUM(c.c5) FROM JSON_TABLE(?, " \
    "'$[*]' COLUMNS (span INT UNSIGNED PATH '$[0]', start BIGINT UNSIGNED PATH '$[1]', "       \
    "tag INT UNSIGNED PATH '$[2]')) j "                                                        \
    "JOIN survey_span_counts c ON c.shop_id = ? AND c.span = j.span AND c.start = j.start "    \
    "AND c.rollup = ? "                                                                        \
    "WHERE (? IS NULL OR c.channel = ?) AND (? IS NULL OR c.agent = ?) GROUP BY " key

// A deleted shop's surveys behave as nonexistent, in brand scope too.
#define SUPPORTCRM_BRAND_SHOPS "SELECT id FROM shops WHERE brand_id = ? AND deleted_at IS NULL"

namespace sql_text {
// The statements: one entry each, S(name, (params), SQL) or, a keyed read, K(name, (params),
// columns, joins, tail) (db/auth_sql.h). db/statements.h gathers every list into the
// Stmt enum and the statement table; the line below defines sql_text::<name> for the layouts.
#define SUPPORTCRM_SURVEY_STATEMENTS(S, K)                                                         \
    S(survey_conversation, (Id, Id),                                                                         \
      "SELECT " SUPPORTCRM_SURVEY_CUSTOMER_COLUMNS ", c.channel, c.assigned_to FROM conversations c " \
      "JOIN customers cu ON cu.id = c.customer_id WHERE c.id = ? AND c.shop_id = ? "               \
      /* Shared locks: a merge moving the ticket (its rows locked FOR UPDATE) commits first and */ \
      /* the survey then reads the ticket's new customer (extensions.md E9). */                    \
      "LOCK IN SHARE MODE")                                                                        \
    S(survey_insert, (Id, Id, Id, Int, OptText, OptInt64, Text, Text, Text, OptId, Time),                                                                               \
      "INSERT INTO surveys (shop_id, conversation_id, customer_id, mark, comment, message_id, "    \
      "graph_nodes, node_ids, channel, assigned_to, created_at) "                                  \
      "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id")                                     \
    /* The new survey's row in each span of survey_span_counts (sql/005): one statement, the row's */ \
    /* own columns, the same arithmetic as the migration's backfill. */                            \
    S(survey_span_bump, (Id),                                                                            \
      "INSERT INTO survey_span_counts "                                                            \
      "(shop_id, span, start, rollup, channel, agent, c1, c2, c3, c4, c5) "                        \
      "SELECT s.shop_id, l.span, "                                                                 \
      "TIMESTAMPDIFF(MINUTE, '1000-01-01 00:00:00', s.created_at) DIV l.span * l.span, "           \
      "r.rollup, IF(r.rollup & 1, '', s.channel), IF(r.rollup & 2, 0, COALESCE(s.assigned_to, 0)), " \
      "s.mark = 1, s.mark = 2, s.mark = 3, s.mark = 4, s.mark = 5 FROM surveys s "                 \
      "JOIN (" SUPPORTCRM_CSAT_SPANS ") l JOIN (SELECT 0 AS rollup UNION ALL SELECT 1 "            \
      "UNION ALL SELECT 2 UNION ALL SELECT 3) r WHERE s.id = ? "                                   \
      "ON DUPLICATE KEY UPDATE c1 = c1 + VALUES(c1), c2 = c2 + VALUES(c2), "                       \
      "c3 = c3 + VALUES(c3), c4 = c4 + VALUES(c4), c5 = c5 + VALUES(c5)")                          \
    S(survey_day_count_bump, (Id, Text, Int),                                                                       \
      "INSERT INTO survey_daily_counts (shop_id, day, mark, count) VALUES (?, ?, ?, 1) "           \
      "ON DUPLICATE KEY UPDATE count = count + 1")                                                 \
    /* The page: a backward range scan of ix_surveys_shop_created, stopping after the page; the */ \
    /* index is forced (docs/performance.md, "The statements' shapes"). */                         \
    S(csat_page_shop, (Id, Time, Time, Id, Id),                                                                              \
      "SELECT " SUPPORTCRM_SURVEY_COLUMNS " FROM surveys s FORCE INDEX (ix_surveys_shop_created) " \
      "JOIN shops sh ON sh.id = s.shop_id JOIN customers cu ON cu.id = s.customer_id "             \
      "WHERE s.shop_id = ? AND s.created_at BETWEEN ? AND ? "                                      \
      "ORDER BY s.created_at DESC, s.id DESC LIMIT ? OFFSET ?")                                    \
    /* Shop scope in one statement, so in one snapshot without a transaction: the page, one survey */ \
    /* per row, then the window's counts per mark (SUPPORTCRM_DAY_COUNTS, SUPPORTCRM_RAW_COUNTS: */ \
    /* evaluated once, the key's shop is a constant table), then the key's shop. No rows (an */    \
    /* unknown key, an empty window, a page past the end): the caller resolves the key and falls */ \
    /* back to csat_page_shop + csat_stats_shop (docs/performance.md, "The statements' shapes"). */ \
    K(csat_page_for_key, (Text, Text, Text, Text, Time, Time, Id, Id),                            \
      SUPPORTCRM_SURVEY_COLUMNS_OF_KEY_SHOP ", " SUPPORTCRM_DAY_COUNTS ", " SUPPORTCRM_RAW_COUNTS,  \
      "JOIN surveys s FORCE INDEX (ix_surveys_shop_created) "                                      \
      "ON s.shop_id = ks.id AND s.created_at BETWEEN ? AND ? "                                     \
      "JOIN customers cu ON cu.id = s.customer_id",                                                \
      "ORDER BY s.created_at DESC, s.id DESC LIMIT ? OFFSET ?")                                    \
    /* Deep pages in brand scope (see survey_repo.cpp): the brand's surveys in the window are */   \
    /* sorted as a whole. */                                                                       \
    S(csat_page_brand, (Id, Time, Time, Id, Id),                                                                             \
      "SELECT " SUPPORTCRM_SURVEY_COLUMNS                                                          \
      " FROM (SELECT id FROM surveys WHERE shop_id IN (" SUPPORTCRM_BRAND_SHOPS                    \
      ") AND created_at BETWEEN ? AND ? "                                                          \
      "ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?) p " SUPPORTCRM_SURVEY_JOINS             \
      " ORDER BY s.created_at DESC, s.id DESC")                                                    \
    S(brand_shop_ids, (Id), SUPPORTCRM_BRAND_SHOPS " ORDER BY id")                                       \
    /* Stats: whole days from the per-day counts, plus the raw rows of the partial first day */    \
    /* (a startDate with a time of day); the caller passes empty ranges for parts not needed. */   \
    S(csat_stats_shop, (Id, Text, Text, Id, Text, Text),                                                                             \
      "SELECT mark, SUM(n) FROM ("                                                                 \
      "SELECT mark, count AS n FROM survey_daily_counts WHERE shop_id = ? AND day BETWEEN ? AND ? " \
      "UNION ALL SELECT mark, COUNT(*) FROM surveys WHERE shop_id = ? "                            \
      "AND created_at BETWEEN ? AND ? GROUP BY mark) t GROUP BY mark")                             \
    /* ---- E4 (extensions.md): filtered pages, counts from survey_span_counts, the export. */     \
    /* Pages: the window's range of ix_surveys_shop_created (or of the customer's surveys) read */ \
    /* backwards, the filters checked on the way. */                                               \
    S(csat_filtered_page, (Positional<12>),                                                                          \
      "SELECT " SUPPORTCRM_EXPORT_COLUMNS SUPPORTCRM_FILTERED_FROM("ix_surveys_shop_created")      \
      "WHERE s.shop_id = ? AND s.created_at BETWEEN ? AND ?" SUPPORTCRM_SURVEY_FILTER              \
      "ORDER BY s.created_at DESC, s.id DESC LIMIT ? OFFSET ?")                                    \
    S(csat_customer_page, (Positional<13>),                                                                          \
      "SELECT " SUPPORTCRM_EXPORT_COLUMNS SUPPORTCRM_FILTERED_FROM("ix_surveys_customer")          \
      "WHERE s.customer_id = ? AND s.shop_id = ? AND s.created_at BETWEEN ? AND ?"                 \
      SUPPORTCRM_SURVEY_FILTER "ORDER BY s.created_at DESC, s.id DESC LIMIT ? OFFSET ?")           \
    /* The export's chunks: the next rows after the keyset cursor (created_at, id), newest first. */ \
    S(csat_export_chunk, (Positional<14>),                                                                           \
      "SELECT " SUPPORTCRM_EXPORT_COLUMNS SUPPORTCRM_FILTERED_FROM("ix_surveys_shop_created")      \
      "WHERE s.shop_id = ? AND s.created_at >= ? AND s.created_at <= ? "                           \
      "AND (s.created_at < ? OR (s.created_at = ? AND s.id < ?))" SUPPORTCRM_SURVEY_FILTER         \
      "ORDER BY s.created_at DESC, s.id DESC LIMIT ?")                                             \
    S(csat_export_customer_chunk, (Positional<15>),                                                                  \
      "SELECT " SUPPORTCRM_EXPORT_COLUMNS SUPPORTCRM_FILTERED_FROM("ix_surveys_customer")          \
      "WHERE s.customer_id = ? AND s.shop_id = ? AND s.created_at >= ? AND s.created_at <= ? "     \
      "AND (s.created_at < ? OR (s.created_at = ? AND s.id < ?))" SUPPORTCRM_SURVEY_FILTER         \
      "ORDER BY s.created_at DESC, s.id DESC LIMIT ?")                                             \
    S(csat_span_counts_by_tag, (Text, Id, UInt, OptText, OptText, OptId, OptId), SUPPORTCRM_SPAN_COUNTS("j.tag"))                                    \
    S(csat_span_counts_by_channel, (Text, Id, UInt, OptText, OptText, OptId, OptId), SUPPORTCRM_SPAN_COUNTS("c.channel"))                            \
    S(csat_span_counts_by_agent, (Text, Id, UInt, OptText, OptText, OptId, OptId), SUPPORTCRM_SPAN_COUNTS("c.agent"))                                \
    /* Surveys counted one by one: the parts of a window off the quarter-hour grid (at most 15 */  \
    /* minutes each), and a customer's surveys. */                                                 \
    S(csat_count_rows, (Id, Time, Time),                                                                             \
      "SELECT " SUPPORTCRM_MILLIS("s.created_at") ", s.mark, s.channel, s.assigned_to "            \
      "FROM surveys s FORCE INDEX (ix_surveys_shop_created) "                                      \
      "WHERE s.shop_id = ? AND s.created_at >= ? AND s.created_at < ?")                            \
    S(csat_count_customer_rows, (Id, Id, Time, Time),                                                                    \
      "SELECT " SUPPORTCRM_MILLIS("s.created_at") ", s.mark, s.channel, s.assigned_to "            \
      "FROM surveys s FORCE INDEX (ix_surveys_customer) "                                          \
      "WHERE s.customer_id = ? AND s.shop_id = ? AND s.created_at >= ? AND s.created_at < ?")      \
    /* GET /api/v1/customers/{id}/export (extensions.md E9): the customer's surveys, createdAt */  \
    /* ascending, in keyset chunks after (created_at, id) along ix_surveys_customer. */            \
    S(customer_export_surveys, (Id, Text, Text, Id, Id),                                                                     \
      "SELECT " SUPPORTCRM_SURVEY_COLUMNS " FROM surveys s FORCE INDEX (ix_surveys_customer) "     \
      "JOIN shops sh ON sh.id = s.shop_id JOIN customers cu ON cu.id = s.customer_id "             \
      "WHERE s.customer_id = ? AND s.created_at >= ? AND (s.created_at > ? OR s.id > ?) "          \
      "ORDER BY s.created_at, s.id LIMIT ?")
SUPPORTCRM_SURVEY_STATEMENTS(SUPPORTCRM_SQL_TEXT, SUPPORTCRM_KEYED_SQL_TEXT)

}  // namespace sql_text

// clang-format on

// The spans of survey_span_counts, largest first, in minutes (SUPPORTCRM_CSAT_SPANS).
// Each divides the next, so the greedy cover in survey_repo.cpp is exact.
inline constexpr unsigned kCsatSpans[] = {1440, 60, 15};

// Offsets into SUPPORTCRM_SURVEY_CUSTOMER_COLUMNS.
namespace survey_customer_col {
constexpr unsigned at(std::string_view name) {
    return column_of(SUPPORTCRM_SURVEY_CUSTOMER_COLUMNS, name);
}
constexpr unsigned id = at("id"), email = at("email"), name = at("full_name"),
                   phone = at("phone_number");
}  // namespace survey_customer_col
constexpr unsigned kSurveyCustomerColumns = count_columns(SUPPORTCRM_SURVEY_CUSTOMER_COLUMNS);

// Offsets into SUPPORTCRM_SURVEY_COLUMNS_WITH(domain); `customer` is where the run of
// SUPPORTCRM_SURVEY_CUSTOMER_COLUMNS starts.
namespace survey_col {
constexpr unsigned at(std::string_view name) {
    return column_of(SUPPORTCRM_SURVEY_COLUMNS, name);
}
constexpr unsigned id = at("s.id"), mark = at("mark"), comment = at("comment"),
                   graph_nodes = at("graph_nodes"), node_ids = at("node_ids"),
                   message_id = at("message_id"), created_at = at("created_at"),
                   shop_domain = at("domain"), conversation_id = at("conversation_id"),
                   customer = at("cu.id");
}  // namespace survey_col
constexpr unsigned kSurveyColumns = count_columns(SUPPORTCRM_SURVEY_COLUMNS);
SUPPORTCRM_LAYOUT_CHECK(survey_col::customer + kSurveyCustomerColumns == kSurveyColumns,
                        "the survey's customer is the last run of SUPPORTCRM_SURVEY_COLUMNS_WITH");

namespace layout {
namespace survey_conversation {
constexpr ColumnRun customer{1, kSurveyCustomerColumns};
constexpr unsigned channel = customer.next(), assigned_to = channel + 1;
SUPPORTCRM_LAYOUT_CHECK(assigned_to == result_columns(sql_text::survey_conversation));
}  // namespace survey_conversation
namespace survey_export {  // csat_filtered_page, csat_customer_page, csat_export_*chunk
constexpr ColumnRun survey{1, kSurveyColumns};
constexpr unsigned channel = survey.next(), assigned_to = channel + 1;
SUPPORTCRM_LAYOUT_CHECK(assigned_to == result_columns(sql_text::csat_filtered_page));
SUPPORTCRM_LAYOUT_CHECK(assigned_to == result_columns(sql_text::csat_customer_page));
SUPPORTCRM_LAYOUT_CHECK(assigned_to == result_columns(sql_text::csat_export_chunk));
SUPPORTCRM_LAYOUT_CHECK(assigned_to == result_columns(sql_text::csat_export_customer_chunk));
}  // namespace survey_export
namespace csat_span_counts {  // by tag, channel or agent
constexpr unsigned key = 1;
constexpr ColumnRun marks{2, 5};
SUPPORTCRM_LAYOUT_CHECK(marks.last() == result_columns(sql_text::csat_span_counts_by_tag));
}  // namespace csat_span_counts
namespace csat_count_rows {
constexpr unsigned created_at = 1, mark = 2, channel = 3, assigned_to = 4;
SUPPORTCRM_LAYOUT_CHECK(assigned_to == result_columns(sql_text::csat_count_rows));
SUPPORTCRM_LAYOUT_CHECK(assigned_to == result_columns(sql_text::csat_count_customer_rows));
}  // namespace csat_count_rows
namespace survey_page {  // csat_page_shop, csat_page_brand
constexpr ColumnRun survey{1, kSurveyColumns};
SUPPORTCRM_LAYOUT_CHECK(survey.last() == result_columns(sql_text::csat_page_shop));
SUPPORTCRM_LAYOUT_CHECK(survey.last() == result_columns(sql_text::csat_page_brand));
}  // namespace survey_page
namespace csat_page_for_key {
constexpr ColumnRun survey{1, kSurveyColumns};
constexpr unsigned day_counts = survey.next(), raw_counts = day_counts + 1;
constexpr ColumnRun key{raw_counts + 1, kKeyColumns};
SUPPORTCRM_LAYOUT_CHECK(key.last() == result_columns(sql_text::csat_page_for_key));
}  // namespace csat_page_for_key
namespace csat_stats_shop {
constexpr unsigned mark = 1, count = 2;
SUPPORTCRM_LAYOUT_CHECK(count == result_columns(sql_text::csat_stats_shop));
}  // namespace csat_stats_shop
namespace returned_id {  // survey_insert
SUPPORTCRM_LAYOUT_CHECK(result_columns(sql_text::survey_insert) == 1);
}
namespace brand_shop_ids {
constexpr unsigned id = 1;
SUPPORTCRM_LAYOUT_CHECK(id == result_columns(sql_text::brand_shop_ids));
}  // namespace brand_shop_ids
namespace customer_export_surveys {
constexpr ColumnRun survey{1, kSurveyColumns};
SUPPORTCRM_LAYOUT_CHECK(survey.last() == result_columns(sql_text::customer_export_surveys));
}  // namespace customer_export_surveys
}  // namespace layout

}  // namespace supportcrm
