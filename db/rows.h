// The rows the statements' readers fill in that more than one repository (and the statement
// headers, db/*_sql.h) share. Plain data, no database types: a <resource>_sql.h includes this,
// never a repository header.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace supportcrm {

// What an API key may do (extensions.md §E12), read with its shop by every statement that
// selects SUPPORTCRM_KEY_COLUMNS. A keyed write's row does not carry it (known stays false).
struct KeyTerms {
    bool known = false;
    std::uint64_t id = 0;
    unsigned scopes = 0;                     // common/key_terms.h scope bits
    std::optional<std::int64_t> expires_ms;  // epoch milliseconds; nullopt: never
    std::uint32_t rate_count = 0;            // 0: no rate
    std::uint32_t rate_period_s = 0;
};

// An API key's shop, as every keyed statement reads it (SUPPORTCRM_KEY_COLUMNS).
struct Shop {
    std::uint64_t id = 0;
    std::string domain;
    std::optional<std::uint64_t> brand_id;
    bool deleted = false;
    // The event types the shop's webhooks want (db/webhook_repo.h): read with the key, so a
    // create knows whether to write an event without a statement of its own.
    unsigned webhook_events = 0;
    KeyTerms key;  // the key's own terms, when the row carried them
};

// What a keyed statement found: the key's shop (nullopt: no unrevoked key with that digest)
// and the record asked for (nullopt: not in that shop).
template <typename T>
struct Keyed {
    std::optional<Shop> key;
    std::optional<T> value;
};

struct PersonRow {  // the Customer or User object of a response (SUPPORTCRM_PERSON_COLUMNS)
    std::uint64_t id = 0;
    std::optional<std::string> email, first_name, last_name, full_name, phone_number, storefront_id;
};

}  // namespace supportcrm
