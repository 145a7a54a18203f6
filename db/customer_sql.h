// The customers statements and the layout of their rows. Included by db/statements.h (which gathers
// every statement list) and customer_repo.cpp (their reader).
#pragma once

#include "db/auth_sql.h"
#include "db/columns.h"

namespace supportcrm {

// clang-format off

#define SUPPORTCRM_CUSTOMER_COLUMNS                                                            \
    "c.id, c.email, c.phone_number, c.first_name, c.last_name, c.full_name, c.storefront_id, " \
    "c.site_cms_id, c.storefront_b_id, c.social_a_user_id, c.social_b_user_id, "               \
    "c.messaging_id, c.helpdesk_a_id, c.helpdesk_b_id, c.helpdesk_c_id, c.helpdesk_d_id, "     \
    "c.social_b_pseudo, c.cms, c.number_of_orders, "                                           \
    SUPPORTCRM_MILLIS("c.created_at") ", " SUPPORTCRM_MILLIS("c.cms_created_at") ", c.version"

namespace sql_text {

// GET /api/v1/customers: a page of the shop's customers, newest first, after the cursor's id
// (the first page binds UINT64_MAX), one filter at most; the page's limit + 1 rows tell whether
// one follows. Each filter has its own statement, so each uses its own index (sql/003).
#define SUPPORTCRM_CUSTOMER_PAGE(filter)                                                  \
    "SELECT " SUPPORTCRM_CUSTOMER_COLUMNS " FROM customers c WHERE c.shop_id = ? " filter \
    " AND c.id < ? ORDER BY c.id DESC LIMIT ?"

// The statements: one entry each, S(name, SQL). db/statements.h gathers every list into the
// Stmt enum and the statement table; the line below defines sql_text::<name> for the layouts.
#define SUPPORTCRM_CUSTOMER_STATEMENTS(S)                                                          \
    S(customer_insert,                                                                             \
      "INSERT INTO customers (shop_id, email, email_key, phone_number, phone_key, first_name, "    \
      "last_name, full_name, storefront_id, site_cms_id, social_a_user_id, social_b_user_id, "     \
      "messaging_id, created_at) "                                                                 \
      "SELECT ks.id, ?, LOWER(?), ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ? FROM " SUPPORTCRM_KEY_TABLES     \
      " WHERE " SUPPORTCRM_KEY_MATCH " AND ks.deleted_at IS NULL "                                 \
      "RETURNING id, shop_id, (SELECT domain FROM shops WHERE shops.id = customers.shop_id) AS domain") \
    S(customer_by_id,                                                                              \
      "SELECT " SUPPORTCRM_CUSTOMER_COLUMNS ", " SUPPORTCRM_KEY_COLUMNS                            \
      " FROM " SUPPORTCRM_KEY_TABLES                                                               \
      " LEFT JOIN customers c ON c.id = ? AND c.shop_id = ks.id WHERE " SUPPORTCRM_KEY_MATCH)      \
    S(customer_by_email_key,                                                                       \
      "SELECT " SUPPORTCRM_CUSTOMER_COLUMNS                                                        \
      " FROM customers c WHERE c.shop_id = ? AND c.email_key = LOWER(?)")                          \
    S(customer_by_phone_key,                                                                       \
      "SELECT " SUPPORTCRM_CUSTOMER_COLUMNS                                                        \
      " FROM customers c WHERE c.shop_id = ? AND c.phone_key = ?")                                 \
    S(customers_page, SUPPORTCRM_CUSTOMER_PAGE(""))                                                \
    S(customers_page_email, SUPPORTCRM_CUSTOMER_PAGE("AND c.email_key = LOWER(?)"))                \
    S(customers_page_phone, SUPPORTCRM_CUSTOMER_PAGE("AND c.phone_key = ?"))                       \
    S(customers_page_storefront, SUPPORTCRM_CUSTOMER_PAGE("AND c.storefront_id = ?"))              \
    /* PATCH /api/v1/customers/{id} (extensions.md E8): the read is customer_by_id; the write */   \
    /* checks the version the read saw (no row matched: another change won) and keeps the */       \
    /* duplicate-detection keys in step, so the unique keys refuse another customer's email or */  \
    /* phone number however the requests race. */                                                   \
    S(customer_update,                                                                             \
      "UPDATE customers SET email = ?, email_key = LOWER(?), phone_number = ?, phone_key = ?, "    \
      "first_name = ?, last_name = ?, full_name = ?, storefront_id = ?, site_cms_id = ?, "         \
      "social_a_user_id = ?, social_b_user_id = ?, messaging_id = ?, version = version + 1 "       \
      "WHERE id = ? AND version = ?")
SUPPORTCRM_CUSTOMER_STATEMENTS(SUPPORTCRM_SQL_TEXT)

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
                   cms_created_at = at("cms_created_at"), version = at("version");
}  // namespace customer_col
constexpr unsigned kCustomerColumns = count_columns(SUPPORTCRM_CUSTOMER_COLUMNS);

namespace layout {
namespace customer_insert {  // RETURNING
constexpr unsigned id = 1, shop_id = 2, shop_domain = 3;
static_assert(shop_domain == result_columns(sql_text::customer_insert));
}  // namespace customer_insert
namespace customer_by_id {
constexpr ColumnRun customer{1, kCustomerColumns};
constexpr ColumnRun key = customer.then(kKeyColumns);
static_assert(key.last() == result_columns(sql_text::customer_by_id));
}  // namespace customer_by_id
namespace customer_by_key {  // customer_by_email_key, customer_by_phone_key
constexpr ColumnRun customer{1, kCustomerColumns};
static_assert(customer.last() == result_columns(sql_text::customer_by_email_key));
static_assert(customer.last() == result_columns(sql_text::customer_by_phone_key));
}  // namespace customer_by_key
namespace customers_page {  // and its filtered variants
constexpr ColumnRun customer{1, kCustomerColumns};
static_assert(customer.last() == result_columns(sql_text::customers_page));
static_assert(customer.last() == result_columns(sql_text::customers_page_email));
static_assert(customer.last() == result_columns(sql_text::customers_page_phone));
static_assert(customer.last() == result_columns(sql_text::customers_page_storefront));
}  // namespace customers_page
}  // namespace layout

}  // namespace supportcrm
