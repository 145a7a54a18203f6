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

}  // namespace supportcrm
