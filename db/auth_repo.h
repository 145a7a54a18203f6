// Resolving an API key's digest to its shop: one indexed lookup per request, no caching, so a
// revoked key or a deleted shop takes effect on the very next request.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "db/db.h"
#include "db/rows.h"

namespace supportcrm {

// The shop of an unrevoked key with this digest; nullopt when there is none.
std::optional<Shop> find_shop_by_key_digest(Db& db, const std::string& digest_hex);

// Writes the key's lastUsedAt unless it was written within the minute. Never waits for a row
// lock and never fails the request: a touch that cannot run now is skipped (false).
bool touch_key(Db& db, std::uint64_t key_id);

}  // namespace supportcrm
