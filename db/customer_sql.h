// The customers statements and the layout of their rows. Included by db/statements.h (which gathers
// every statement list) and customer_repo.cpp (their reader).
#pragma once

#include "db/auth_sql.h"
#include "db/columns.h"

namespace supportcrm {

// clang-format off

// Whether the customer is gone (extensions.md §E9), in one column: NULL for a live customer, the
// id it was merged into (first: 308 to the target), else 0 for an erased one. One column, not two:
// Connector/C++ builds a column-name map per result set, about 1.4k instructions a column on
// every customer read (docs/performance.md, "Few result columns").
#define SUPPORTCRM_CUSTOMER_GONE \
    "IF(c.merged_into IS NULL AND c.erased_at IS NOT NULL, CAST(0 AS UNSIGNED), c.merged_into) AS gone"
#define SUPPORTCRM_CUSTOMER_COLUMNS                                                            \
    "c.id, c.email, c.phone_number, c.first_name, c.last_name, c.full_name, c.storefront_id, " \
    "c.site_cms_id, c.storefront_b_id, c.social_a_user_id, c.social_b_user_id, "               \
    "c.messaging_id, c.helpdesk_a_id, c.helpdesk_b_id, c.helpdesk_c_id, c.helpdesk_d_id, "     \
    "c.social_b_pseudo, c.cms, c.number_of_orders, "                                           \
    SUPPORTCRM_MILLIS("c.created_at") ", " SUPPORTCRM_MILLIS("c.cms_created_at") ", c.version, "     \
    SUPPORTCRM_CUSTOMER_GONE

namespace sql_text {

// GET /api/v1/customers: a page of the shop's customers, newest first, after the cursor's id
// (the first page binds UINT64_MAX), one filter at most; the page's limit + 1 rows tell whether
// one follows. Each filter has its own statement, so each uses its own index (sql/003).
// A merged customer is not listed: the unfiltered and storefront_id pages leave it out, and an
// email or phone_number lookup that finds it lists its target instead (extensions.md §E9: the
// source's email and phone keep finding the target; merged_into is always the last target).
#define SUPPORTCRM_CUSTOMER_PAGE(filter)                                                  \
    "SELECT " SUPPORTCRM_CUSTOMER_COLUMNS " FROM customers c WHERE c.shop_id = ? " filter \
    " AND c.merged_into IS NULL AND c.id < ? ORDER BY c.id DESC LIMIT ?"
#define SUPPORTCRM_CUSTOMER_KEY_PAGE(key)                                                  \
    "SELECT " SUPPORTCRM_CUSTOMER_COLUMNS " FROM customers s "                             \
    "JOIN customers c ON c.id = COALESCE(s.merged_into, s.id) WHERE s.shop_id = ? AND " key \
    " AND c.id < ? ORDER BY c.id DESC LIMIT ?"
// The customer a duplicate-detection key names: the row holding it, or the target it was
// merged into.
#define SUPPORTCRM_CUSTOMER_BY_KEY(key)                                                         \
    "SELECT " SUPPORTCRM_CUSTOMER_COLUMNS " FROM customers s "                                  \
    "JOIN customers c ON c.id = COALESCE(s.merged_into, s.id) WHERE s.shop_id = ? AND " key

// The statements: one entry each, S(name, (params), SQL) or, a keyed read, K(name, (params),
// columns, joins, tail) (db/auth_sql.h). db/statements.h gathers every list into the
// Stmt enum and the statement table; the line below defines sql_text::<name> for the layouts.
#define SUPPORTCRM_CUSTOMER_STATEMENTS(S, K)                                                       \
    S(customer_insert, (OptText, OptText, OptText, OptText, OptText, OptText, OptText, OptText, OptText, OptText, OptText, OptText, Time, Key),                                                                             \
      "INSERT INTO customers (shop_id, email, email_key, phone_number, phone_key, first_name, "    \
      "last_name, full_name, storefront_id, site_cms_id, social_a_user_id, social_b_user_id, "     \
      "messaging_id, created_at) "                                                                 \
      "SELECT ks.id, ?, LOWER(?), ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ? FROM " SUPPORTCRM_KEY_TABLES     \
      " WHERE " SUPPORTCRM_KEY_MATCH " AND ks.deleted_at IS NULL "                                 \
      "RETURNING id, shop_id, (SELECT domain FROM shops WHERE shops.id = customers.shop_id) AS domain") \
    K(customer_by_id, (Id), SUPPORTCRM_CUSTOMER_COLUMNS,                                          \
      "LEFT JOIN customers c ON c.id = ? AND c.shop_id = ks.id", "")                               \
    S(customer_by_email_key, (Id, Text), SUPPORTCRM_CUSTOMER_BY_KEY("s.email_key = LOWER(?)"))                \
    S(customer_by_phone_key, (Id, Text), SUPPORTCRM_CUSTOMER_BY_KEY("s.phone_key = ?"))                        \
    S(customers_page, (Id, Id, Id), SUPPORTCRM_CUSTOMER_PAGE(""))                                                \
    S(customers_page_email, (Id, Text, Id, Id), SUPPORTCRM_CUSTOMER_KEY_PAGE("s.email_key = LOWER(?)"))               \
    S(customers_page_phone, (Id, Text, Id, Id), SUPPORTCRM_CUSTOMER_KEY_PAGE("s.phone_key = ?"))                      \
    S(customers_page_storefront, (Id, Text, Id, Id), SUPPORTCRM_CUSTOMER_PAGE("AND c.storefront_id = ?"))              \
    /* PATCH /api/v1/customers/{id} (extensions.md E8): the read is customer_by_id; the write */   \
    /* checks the version the read saw (no row matched: another change won) and keeps the */       \
    /* duplicate-detection keys in step, so the unique keys refuse another customer's email or */  \
    /* phone number however the requests race. */                                                   \
    S(customer_update, (OptText, OptText, OptText, OptText, OptText, OptText, OptText, OptText, OptText, OptText, OptText, OptText, Id, Id),                                                                             \
      "UPDATE customers SET email = ?, email_key = LOWER(?), phone_number = ?, phone_key = ?, "    \
      "first_name = ?, last_name = ?, full_name = ?, storefront_id = ?, site_cms_id = ?, "         \
      "social_a_user_id = ?, social_b_user_id = ?, messaging_id = ?, version = version + 1 "       \
      "WHERE id = ? AND version = ?")                                                            \
    /* POST /api/v1/customers/{id}/merge (extensions.md E9). Both rows locked in one statement, */ \
    /* in id order (the primary key's range scan): two merges in opposite directions lock in */    \
    /* the same order, so the second waits for the first and then sees its outcome. */            \
    S(customer_merge_lock, (Id, Id, Id),                                                                         \
      "SELECT " SUPPORTCRM_CUSTOMER_COLUMNS ", c.email_key, c.phone_key FROM customers c "         \
      "WHERE c.shop_id = ? AND c.id IN (?, ?) ORDER BY c.id FOR UPDATE")                           \
    /* The source first: it gives up a duplicate-detection key the target takes (the target's */  \
    /* email or phone was null), so the unique keys never see it twice. */                        \
    S(customer_merge_source, (Id, Bool, Bool, Id),                                                                       \
      "UPDATE customers SET merged_into = ?, email_key = IF(?, NULL, email_key), "                 \
      "phone_key = IF(?, NULL, phone_key), version = version + 1 WHERE id = ?")                    \
    /* Chains resolve in one hop: whatever was merged into the source now names the target. */    \
    S(customer_merge_repoint, (Id, Id), "UPDATE customers SET merged_into = ? WHERE merged_into = ?")        \
    /* Each null field of the fetch shape takes the source's value; the keys assigned first, */    \
    /* while t.email / t.phone_number still show whether the target had one. */                    \
    S(customer_merge_target, (Id, OptText, OptText, Id),                                                                       \
      "UPDATE customers t JOIN customers s ON s.id = ? SET "                                       \
      "t.email_key = IF(t.email IS NULL, ?, t.email_key), "                                        \
      "t.phone_key = IF(t.phone_number IS NULL, ?, t.phone_key), "                                 \
      "t.email = COALESCE(t.email, s.email), t.phone_number = COALESCE(t.phone_number, s.phone_number), " \
      "t.first_name = COALESCE(t.first_name, s.first_name), "                                      \
      "t.last_name = COALESCE(t.last_name, s.last_name), "                                         \
      "t.full_name = COALESCE(t.full_name, s.full_name), "                                         \
      "t.storefront_id = COALESCE(t.storefront_id, s.storefront_id), "                             \
      "t.site_cms_id = COALESCE(t.site_cms_id, s.site_cms_id), "                                   \
      "t.storefront_b_id = COALESCE(t.storefront_b_id, s.storefront_b_id), "                       \
      "t.social_a_user_id = COALESCE(t.social_a_user_id, s.social_a_user_id), "                    \
      "t.social_b_user_id = COALESCE(t.social_b_user_id, s.social_b_user_id), "                    \
      "t.messaging_id = COALESCE(t.messaging_id, s.messaging_id), "                                \
      "t.helpdesk_a_id = COALESCE(t.helpdesk_a_id, s.helpdesk_a_id), "                             \
      "t.helpdesk_b_id = COALESCE(t.helpdesk_b_id, s.helpdesk_b_id), "                             \
      "t.helpdesk_c_id = COALESCE(t.helpdesk_c_id, s.helpdesk_c_id), "                             \
      "t.helpdesk_d_id = COALESCE(t.helpdesk_d_id, s.helpdesk_d_id), "                             \
      "t.social_b_pseudo = COALESCE(t.social_b_pseudo, s.social_b_pseudo), "                       \
      "t.cms = COALESCE(t.cms, s.cms), "                                                           \
      "t.cms_created_at = COALESCE(t.cms_created_at, s.cms_created_at), "                          \
      "t.number_of_orders = t.number_of_orders + s.number_of_orders, t.version = t.version + 1 "   \
      "WHERE t.id = ?")                                                                            \
    /* The moves: a ticket's fetch shape names its customer, so its version (ETag) changes. */    \
    S(customer_merge_tickets, (Id, Time, Id),                                                                      \
      "UPDATE conversations SET customer_id = ?, version = version + 1, updated_at = ? "           \
      "WHERE customer_id = ?")                                                                     \
    S(customer_merge_surveys, (Id, Id), "UPDATE surveys SET customer_id = ? WHERE customer_id = ?")          \
    /* A PATCH giving the target an email or phone number a customer merged into it still holds */ \
    /* as its key: the merged row lets it go (the target holds it now and is found by it). */      \
    S(customer_release_merged_keys, (OptText, OptText, Id, OptText, OptText),                                                                \
      "UPDATE customers SET email_key = IF(email_key = LOWER(?), NULL, email_key), "               \
      "phone_key = IF(phone_key = ?, NULL, phone_key) "                                            \
      "WHERE merged_into = ? AND (email_key = LOWER(?) OR phone_key = ?)")                         \
    /* dryRun: what would move. */                                                                 \
    S(customer_merge_counts, (Id, Id),                                                                       \
      "SELECT (SELECT COUNT(*) FROM conversations WHERE customer_id = ?), "                        \
      "(SELECT COUNT(*) FROM surveys WHERE customer_id = ?)")
SUPPORTCRM_CUSTOMER_STATEMENTS(SUPPORTCRM_SQL_TEXT, SUPPORTCRM_KEYED_SQL_TEXT)

}  // namespace sql_text

// clang-format on

// Offsets into SUPPORTCRM_CUSTOMER_COLUMNS.
namespace customer_col {
constexpr unsigned at(std::string_view name) {
    return column_of(SUPPORTCRM_CUSTOMER_COLUMNS, name);
}
constexpr unsigned id = at("id"), email = at("email"), phone_number = at("phone_number"),
                   first_name = at("first_name"), last_name = at("last_name"),
                   full_name = at("full_name"), storefront_id = at("storefront_id"),
                   site_cms_id = at("site_cms_id"), storefront_b_id = at("storefront_b_id"),
                   social_a_user_id = at("social_a_user_id"),
                   social_b_user_id = at("social_b_user_id"), messaging_id = at("messaging_id"),
                   helpdesk_a_id = at("helpdesk_a_id"), helpdesk_b_id = at("helpdesk_b_id"),
                   helpdesk_c_id = at("helpdesk_c_id"), helpdesk_d_id = at("helpdesk_d_id"),
                   social_b_pseudo = at("social_b_pseudo"), cms = at("cms"),
                   number_of_orders = at("number_of_orders"), created_at = at("created_at"),
                   cms_created_at = at("cms_created_at"), version = at("version"),
                   gone = at("gone");
}  // namespace customer_col
constexpr unsigned kCustomerColumns = count_columns(SUPPORTCRM_CUSTOMER_COLUMNS);

namespace layout {
namespace customer_insert {  // RETURNING
constexpr unsigned id = 1, shop_id = 2, shop_domain = 3;
SUPPORTCRM_LAYOUT_CHECK(shop_domain == result_columns(sql_text::customer_insert));
}  // namespace customer_insert
namespace customer_by_id {
constexpr ColumnRun customer{1, kCustomerColumns};
constexpr ColumnRun key = customer.then(kKeyColumns);
SUPPORTCRM_LAYOUT_CHECK(key.last() == result_columns(sql_text::customer_by_id));
}  // namespace customer_by_id
namespace customer_by_key {  // customer_by_email_key, customer_by_phone_key
constexpr ColumnRun customer{1, kCustomerColumns};
SUPPORTCRM_LAYOUT_CHECK(customer.last() == result_columns(sql_text::customer_by_email_key));
SUPPORTCRM_LAYOUT_CHECK(customer.last() == result_columns(sql_text::customer_by_phone_key));
}  // namespace customer_by_key
namespace customers_page {  // and its filtered variants
constexpr ColumnRun customer{1, kCustomerColumns};
SUPPORTCRM_LAYOUT_CHECK(customer.last() == result_columns(sql_text::customers_page));
SUPPORTCRM_LAYOUT_CHECK(customer.last() == result_columns(sql_text::customers_page_email));
SUPPORTCRM_LAYOUT_CHECK(customer.last() == result_columns(sql_text::customers_page_phone));
SUPPORTCRM_LAYOUT_CHECK(customer.last() == result_columns(sql_text::customers_page_storefront));
}  // namespace customers_page
namespace customer_merge_lock {
constexpr ColumnRun customer{1, kCustomerColumns};
constexpr unsigned email_key = customer.last() + 1, phone_key = email_key + 1;
SUPPORTCRM_LAYOUT_CHECK(phone_key == result_columns(sql_text::customer_merge_lock));
}  // namespace customer_merge_lock
}  // namespace layout

}  // namespace supportcrm
