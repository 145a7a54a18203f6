// The CSAT statements and the layout of their rows. Internal to db/: included by db.cpp (the
// statement table) and survey_repo.cpp (their reader).
#pragma once

#include "db/auth_sql.h"
#include "db/columns.h"

namespace supportcrm {

// clang-format off

// A survey's customer (SurveyCustomer).
#define SUPPORTCRM_SURVEY_CUSTOMER_COLUMNS "cu.id, cu.email, cu.full_name, cu.phone_number"
#define SUPPORTCRM_SURVEY_COLUMNS_WITH(domain)                                   \
    "s.id, s.mark, s.comment, s.graph_nodes, s.node_ids, s.message_id, "         \
    SUPPORTCRM_MILLIS("s.created_at") ", " domain ", "                           \
    "s.conversation_id, " SUPPORTCRM_SURVEY_CUSTOMER_COLUMNS
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

// A deleted shop's surveys behave as nonexistent, in brand scope too.
#define SUPPORTCRM_BRAND_SHOPS "SELECT id FROM shops WHERE brand_id = ? AND deleted_at IS NULL"

namespace sql_text {

inline constexpr char survey_conversation[] =
    "SELECT " SUPPORTCRM_SURVEY_CUSTOMER_COLUMNS " FROM conversations c "
    "JOIN customers cu ON cu.id = c.customer_id WHERE c.id = ? AND c.shop_id = ?";
inline constexpr char survey_insert[] =
    "INSERT INTO surveys (shop_id, conversation_id, customer_id, mark, comment, message_id, "
    "graph_nodes, node_ids, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id";
inline constexpr char survey_day_count_bump[] =
    "INSERT INTO survey_daily_counts (shop_id, day, mark, count) VALUES (?, ?, ?, 1) "
    "ON DUPLICATE KEY UPDATE count = count + 1";
// The page: a backward range scan of ix_surveys_shop_created, stopping after the page; the
// index is forced (docs/performance.md, "The statements' shapes").
inline constexpr char csat_page_shop[] =
    "SELECT " SUPPORTCRM_SURVEY_COLUMNS " FROM surveys s FORCE INDEX (ix_surveys_shop_created) "
    "JOIN shops sh ON sh.id = s.shop_id JOIN customers cu ON cu.id = s.customer_id "
    "WHERE s.shop_id = ? AND s.created_at BETWEEN ? AND ? "
    "ORDER BY s.created_at DESC, s.id DESC LIMIT ? OFFSET ?";
// Shop scope in one statement, so in one snapshot without a transaction: the page, one survey
// per row, then the window's counts per mark (SUPPORTCRM_DAY_COUNTS, SUPPORTCRM_RAW_COUNTS:
// evaluated once, the key's shop is a constant table), then the key's shop. No rows (an
// unknown key, an empty window, a page past the end): the caller resolves the key and falls
// back to csat_page_shop + csat_stats_shop (docs/performance.md, "The statements' shapes").
inline constexpr char csat_page_for_key[] =
    "SELECT " SUPPORTCRM_SURVEY_COLUMNS_OF_KEY_SHOP ", " SUPPORTCRM_DAY_COUNTS
    ", " SUPPORTCRM_RAW_COUNTS ", " SUPPORTCRM_KEY_COLUMNS " FROM " SUPPORTCRM_KEY_TABLES
    " JOIN surveys s FORCE INDEX (ix_surveys_shop_created) "
    "ON s.shop_id = ks.id AND s.created_at BETWEEN ? AND ? "
    "JOIN customers cu ON cu.id = s.customer_id WHERE " SUPPORTCRM_KEY_MATCH
    " ORDER BY s.created_at DESC, s.id DESC LIMIT ? OFFSET ?";
// Deep pages in brand scope (see survey_repo.cpp): the brand's surveys in the window are
// sorted as a whole.
inline constexpr char csat_page_brand[] =
    "SELECT " SUPPORTCRM_SURVEY_COLUMNS
    " FROM (SELECT id FROM surveys WHERE shop_id IN (" SUPPORTCRM_BRAND_SHOPS
    ") AND created_at BETWEEN ? AND ? "
    "ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?) p " SUPPORTCRM_SURVEY_JOINS
    " ORDER BY s.created_at DESC, s.id DESC";
inline constexpr char brand_shop_ids[] = SUPPORTCRM_BRAND_SHOPS " ORDER BY id";
// Stats: whole days from the per-day counts, plus the raw rows of the partial first day
// (a startDate with a time of day); the caller passes empty ranges for parts not needed.
inline constexpr char csat_stats_shop[] =
    "SELECT mark, SUM(n) FROM ("
    "SELECT mark, count AS n FROM survey_daily_counts WHERE shop_id = ? AND day BETWEEN ? AND ? "
    "UNION ALL SELECT mark, COUNT(*) FROM surveys WHERE shop_id = ? "
    "AND created_at BETWEEN ? AND ? GROUP BY mark) t GROUP BY mark";

}  // namespace sql_text

// clang-format on

// Offsets into SUPPORTCRM_SURVEY_CUSTOMER_COLUMNS.
namespace survey_customer_col {
enum : unsigned { id, email, name, phone, count_ };
}
constexpr unsigned kSurveyCustomerColumns = count_columns(SUPPORTCRM_SURVEY_CUSTOMER_COLUMNS);
static_assert(survey_customer_col::count_ == kSurveyCustomerColumns,
              "survey_customer_col names every column of SUPPORTCRM_SURVEY_CUSTOMER_COLUMNS");

// Offsets into SUPPORTCRM_SURVEY_COLUMNS_WITH(domain); `customer` is where the run of
// SUPPORTCRM_SURVEY_CUSTOMER_COLUMNS starts.
namespace survey_col {
enum : unsigned {
    id,
    mark,
    comment,
    graph_nodes,
    node_ids,
    message_id,
    created_at,
    shop_domain,
    conversation_id,
    customer,
    count_ = customer + kSurveyCustomerColumns
};
}  // namespace survey_col
constexpr unsigned kSurveyColumns = count_columns(SUPPORTCRM_SURVEY_COLUMNS);
static_assert(survey_col::count_ == kSurveyColumns,
              "survey_col names every column of SUPPORTCRM_SURVEY_COLUMNS_WITH");

namespace layout {
namespace survey_conversation {
constexpr ColumnRun customer{1, kSurveyCustomerColumns};
static_assert(customer.last() == result_columns(sql_text::survey_conversation));
}  // namespace survey_conversation
namespace survey_page {  // csat_page_shop, csat_page_brand
constexpr ColumnRun survey{1, kSurveyColumns};
static_assert(survey.last() == result_columns(sql_text::csat_page_shop));
static_assert(survey.last() == result_columns(sql_text::csat_page_brand));
}  // namespace survey_page
namespace csat_page_for_key {
constexpr ColumnRun survey{1, kSurveyColumns};
constexpr unsigned day_counts = survey.next(), raw_counts = day_counts + 1;
constexpr ColumnRun key{raw_counts + 1, kKeyColumns};
static_assert(key.last() == result_columns(sql_text::csat_page_for_key));
}  // namespace csat_page_for_key
namespace csat_stats_shop {
constexpr unsigned mark = 1, count = 2;
static_assert(count == result_columns(sql_text::csat_stats_shop));
}  // namespace csat_stats_shop
namespace returned_id {  // survey_insert
static_assert(result_columns(sql_text::survey_insert) == 1);
}
namespace brand_shop_ids {
constexpr unsigned id = 1;
static_assert(id == result_columns(sql_text::brand_shop_ids));
}  // namespace brand_shop_ids
}  // namespace layout

}  // namespace supportcrm
