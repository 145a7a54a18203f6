// What this worker last read about each key's terms (extensions.md §E12), so a keyed write
// (whose own statement's row does not carry the terms) knows them without a statement of its
// own. Only for a second: scopes and rate never change after `key create`, but a rotation sets
// the old key's expiry, so an entry older than kFresh is not used and the key's own statement
// reads the terms again. Revocation is never cached: every keyed statement checks it
// (SUPPORTCRM_KEY_MATCH), so a revoked key is refused by every worker at its next request.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "db/rows.h"

namespace supportcrm::key_cache {

constexpr std::int64_t kFreshMs = 1000;

// What the key's row said: its terms, and whether its shop is deleted (a shop is never
// restored, so a deleted one stays deleted). With it admit() answers a deleted shop's key 404
// before its scope or rate (api/key_rule.h: shop_live comes before both).
struct Seen {
    KeyTerms terms;
    bool shop_deleted = false;
};

// What the key with this digest's row said at most kFreshMs before now_ms.
std::optional<Seen> fresh(const std::string& digest, std::int64_t now_ms);

// What the key's row just said.
void remember(const std::string& digest, const Seen& seen, std::int64_t now_ms);

// Whether this worker should write the key's lastUsedAt now: true at most once a minute per key
// (and the statement itself writes the row at most once a minute, whichever worker runs it).
bool touch_due(std::uint64_t key_id, std::int64_t now_ms);

}  // namespace supportcrm::key_cache
