// Customers: the only SQL that touches the customers table.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "handlers/repo/db.h"
#include "handlers/time_util.h"

namespace supportcrm {

struct NewCustomer {
    std::optional<std::string> email;
    std::optional<std::string> phone_number;
    std::optional<std::string> first_name;
    std::optional<std::string> last_name;
    std::optional<std::string> full_name;
    std::optional<std::string> storefront_id;
    std::optional<std::string> site_cms_id;
    std::optional<std::string> social_a_user_id;
    std::optional<std::string> social_b_user_id;
    std::optional<std::string> messaging_id;
    timeutil::Millis created_at = 0;
};

struct CustomerRow {
    std::uint64_t id = 0;
    std::optional<std::string> email, phone_number, first_name, last_name, full_name;
    std::optional<std::string> storefront_id, site_cms_id, storefront_b_id, social_a_user_id,
        social_b_user_id, messaging_id;
    std::optional<std::string> helpdesk_a_id, helpdesk_b_id, helpdesk_c_id, helpdesk_d_id,
        social_b_pseudo, cms;
    std::uint64_t number_of_orders = 0;
    std::string created_at;                     // ISO 8601
    std::optional<std::string> cms_created_at;  // ISO 8601
};

struct CreateOutcome {
    CustomerRow customer;
    bool created;  // false: an existing customer with the same email or phone was returned
};

// Inserts the customer, or returns the shop's existing one with the same email (trimmed,
// case-insensitive), else the same phone number (trimmed). Unique keys in the database make
// this safe under concurrency: a losing concurrent insert finds the winner's row.
CreateOutcome create_or_find_customer(Db& db, std::uint64_t shop_id, const NewCustomer& customer);

std::optional<CustomerRow> find_customer(Db& db, std::uint64_t shop_id, std::uint64_t id);

}  // namespace supportcrm
