// Resolving an API key's digest to its shop: one indexed lookup per request, no caching, so a
// revoked key or a deleted shop takes effect on the very next request.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "db/db.h"

namespace supportcrm {

struct Shop {
    std::uint64_t id = 0;
    std::string domain;
    std::optional<std::uint64_t> brand_id;
    bool deleted = false;
    // The event types the shop's webhooks want (db/webhook_repo.h): read with the key, so a
    // create knows whether to write an event without a statement of its own.
    unsigned webhook_events = 0;
};

// The shop of an unrevoked key with this digest; nullopt when there is none.
std::optional<Shop> find_shop_by_key_digest(Db& db, const std::string& digest_hex);

// What a keyed statement found: the key's shop (nullopt: no unrevoked key with that digest)
// and the record asked for (nullopt: not in that shop).
template <typename T>
struct Keyed {
    std::optional<Shop> key;
    std::optional<T> value;
};

}  // namespace supportcrm
