// Customers: the only SQL that touches the customers table.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/time_util.h"
#include "db/auth_repo.h"
#include "db/db.h"

namespace supportcrm {

// The columns a client gives when it adds a customer: shared by the new customer and the row,
// so that the row of a new customer is a copy of one part, not of each field.
struct CustomerFields {
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
};

struct NewCustomer : CustomerFields {
    timeutil::Millis created_at = 0;
};

struct CustomerRow : CustomerFields {
    std::uint64_t id = 0;
    std::optional<std::string> storefront_b_id;
    std::optional<std::string> helpdesk_a_id, helpdesk_b_id, helpdesk_c_id, helpdesk_d_id,
        social_b_pseudo, cms;
    std::uint64_t number_of_orders = 0;
    std::string created_at;                     // ISO 8601
    std::optional<std::string> cms_created_at;  // ISO 8601
    std::uint64_t version = 1;                  // what its ETag names (extensions.md §E8)
    // extensions.md §E9: the customer it was merged into (always the last of a chain), and
    // whether it was erased.
    std::optional<std::uint64_t> merged_into;
    bool erased = false;
};

struct InsertedCustomer {
    enum class Result {
        inserted,   // id and shop are set
        duplicate,  // the shop has a customer with this email or phone: find_existing_customer
        no_shop,    // the key is unknown or revoked, or its shop deleted: resolve the key
    };
    Result result = Result::no_shop;
    std::uint64_t id = 0;
    Shop shop;
};

// Inserts the customer into the shop of the key with this digest, in one statement. Unique
// keys on the shop's normalized emails and phone numbers decide races: a losing concurrent
// insert is a duplicate and finds the winner's row.
InsertedCustomer insert_customer(Db& db, const std::string& key_digest, const NewCustomer& c);

// The shop's customer with the same email (trimmed, case-insensitive), else the same phone
// number (trimmed).
std::optional<CustomerRow> find_existing_customer(Db& db, std::uint64_t shop_id,
                                                  const NewCustomer& c);

// The row insert_customer() wrote, without reading it back: every column is known.
CustomerRow row_of_new_customer(std::uint64_t id, const NewCustomer& c);

// GET /api/v1/customers: at most one filter, compared as duplicate detection compares
// (email trimmed and case-insensitive, phone_number trimmed), storefront_id exactly.
struct CustomerFilter {
    enum class Kind { none, email, phone_number, storefront_id, q };
    Kind kind = Kind::none;
    std::string value;
    std::vector<std::string> words;  // Kind::q: the words of `q` (words::query())
};

// Up to `rows` customers of the shop matching the filter with an id below `before_id`, newest
// first.
std::vector<CustomerRow> read_customers_page(Db& db, std::uint64_t shop_id,
                                             const CustomerFilter& filter, std::uint64_t before_id,
                                             std::uint64_t rows);

Keyed<CustomerRow> find_customer(Db& db, const std::string& key_digest, std::uint64_t id);

// The customer after its PATCH (extensions.md §E8), in one statement that also checks its
// version (`before`'s), with its duplicate-detection keys: a version that changed writes nothing
// and raises version_changed() (db.h); an email or phone number another customer of the shop has
// is refused by the unique keys (race-safe): duplicate. Changed searched fields reach the search
// data (db/search/upkeep.h) in the caller's transaction.
enum class CustomerUpdate { updated, duplicate };
CustomerUpdate update_customer(Db& db, std::uint64_t shop_id, const CustomerRow& before,
                               const CustomerRow& after);

// The customers merged into `after` give up the duplicate-detection keys of its email and
// phone number (a PATCH that gives the target one of its merged customers' values); true when
// one did, so that the refused write can be tried again.
bool release_merged_keys(Db& db, const CustomerRow& after);

// --- POST /api/v1/customers/{id}/merge (extensions.md §E9) ----------------------------------

// The two customers of a merge, locked (FOR UPDATE, in id order) in the caller's transaction;
// nullopt for one that is not a customer of the shop.
struct MergePair {
    std::optional<CustomerRow> target, source;
    std::optional<std::string> source_email_key, source_phone_key;
};
MergePair lock_merge_pair(Db& db, std::uint64_t shop_id, std::uint64_t target_id,
                          std::uint64_t source_id);

// The target as the merge leaves it: each null field of the fetch shape takes the source's
// value, numberOfOrders are added (what customer_merge_target writes, for the dry run and the
// answer).
CustomerRow merged_customer(const CustomerRow& target, const CustomerRow& source);

struct Moved {
    std::uint64_t tickets = 0, surveys = 0;
};
// What a merge would move (the dry run).
Moved count_movable(Db& db, std::uint64_t source_id);
// The merge itself, in the caller's transaction, on a pair lock_merge_pair() locked: the
// target's words become those of its merged fields, the source's go (it is no longer listed).
Moved merge_customers(Db& db, std::uint64_t shop_id, const MergePair& pair, timeutil::Millis now);

}  // namespace supportcrm
