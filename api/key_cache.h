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

// The terms of the key with this digest read at most kFreshMs before now_ms.
std::optional<KeyTerms> fresh(const std::string& digest, std::int64_t now_ms);

// Terms just read from the key's row.
void remember(const std::string& digest, const KeyTerms& terms, std::int64_t now_ms);

// Whether this worker should write the key's lastUsedAt now: true at most once a minute per key
// (and the statement itself writes the row at most once a minute, whichever worker runs it).
bool touch_due(std::uint64_t key_id, std::int64_t now_ms);

}  // namespace supportcrm::key_cache
