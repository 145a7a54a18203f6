// The rows the statements' readers fill in that more than one repository (and the statement
// headers, db/*_sql.h) share. Plain data, no database types: a <resource>_sql.h includes this,
// never a repository header.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>

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
    // shops.webhook_events, the event types its writes record and those its webhooks want
    // (db/webhook_repo.h, shop_events): read with the key, so a write knows how to write its
    // event without a statement of its own. Until read: every type recorded, none known
    // unwanted (the deliverer then decides), so a Shop filled without it writes no event wrong.
    unsigned webhook_events = 255;
    KeyTerms key;  // the key's own terms, when the row carried them
};

// Where a keyed statement's row carries the key (SUPPORTCRM_KEY_COLUMNS).
enum class KeyJoin : std::uint8_t {
    // The key's tables lead and the record is LEFT JOINed: a row whenever an unrevoked key has
    // the digest, so no row proves an unknown key (customer_by_id, idempotency_answer_for_key).
    whenever_key_exists,
    // The record's tables are joined to the key's: no record, no row, and then the key itself
    // is still unknown (ticket_detail, ticket_for_patch, the comments lists, csat_page_for_key).
    only_with_record,
};

struct KeyedOpener;  // api/handler.h: the one way the layers above read a Keyed

// What a keyed statement found: the key's shop (none: no row carried the key) and the record
// asked for (none: not in that shop). [[nodiscard]] and closed: the repository fills it, and
// it is opened only through KeyedOpener, which applies the key rule (api/key_rule.h) first, so
// no caller can read the record without the key's answer.
template <typename T>
class [[nodiscard]] Keyed {
  public:
    explicit Keyed(KeyJoin join) : join_(join) {}

    // The repository's, while reading the statement's row(s).
    void set_key(Shop shop) { key_ = std::move(shop); }
    T& emplace_record() { return record_.emplace(); }
    void set_record(T record) { record_ = std::move(record); }

  private:
    friend struct KeyedOpener;
    KeyJoin join_;
    std::optional<Shop> key_;
    std::optional<T> record_;
};

struct PersonRow {  // the Customer or User object of a response (SUPPORTCRM_PERSON_COLUMNS)
    std::uint64_t id = 0;
    std::optional<std::string> email, first_name, last_name, full_name, phone_number, storefront_id;
};

}  // namespace supportcrm
