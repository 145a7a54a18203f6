// The operator's writes (brands, shops, keys, users) behind supportcrm-admin. Failures the
// operator can fix are AdminError with a one-line message.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "db/auth_repo.h"
#include "db/db.h"

namespace supportcrm {

struct AdminError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

std::uint64_t create_brand(Db& db, const std::string& name);

// Throws AdminError when the brand does not exist or the domain is taken.
std::uint64_t create_shop(Db& db, const std::string& domain, std::optional<std::uint64_t> brand_id);

// The live (not deleted) shop with this domain, or AdminError.
Shop live_shop(Db& db, const std::string& domain);

// Marks the shop deleted; its keys then answer 404 "Shop not found".
void delete_shop(Db& db, const std::string& domain);

struct CreatedKey {
    std::uint64_t id;
    std::string secret;  // shown once, never stored
};
// What a new key may do (extensions.md §E12); checked by common/key_terms.h before.
struct NewKeyTerms {
    std::optional<std::string> label;
    unsigned scopes = 0;
    std::optional<std::int64_t> expires_ms;
    std::uint32_t rate_count = 0;  // 0: no rate
    std::uint32_t rate_period_s = 0;
};
CreatedKey create_key(Db& db, const std::string& shop_domain, const NewKeyTerms& terms);

// One key as `key list` shows it.
struct KeyRow {
    std::uint64_t id = 0;
    NewKeyTerms terms;
    std::int64_t created_ms = 0;
    std::optional<std::int64_t> last_used_ms;
    bool revoked = false;
};
std::vector<KeyRow> keys_of_shop(Db& db, const std::string& shop_domain);

// key rotate: a new key with the old one's terms (label, scopes, rate and expiry); the old one
// expires at the end of the overlap (or earlier, when it was to expire before). A key is
// replaced at most once: AdminError for an unknown, revoked or expired key, and for one that
// has a live successor already.
struct RotatedKey {
    CreatedKey key;
    std::int64_t old_expires_ms = 0;
};
RotatedKey rotate_key(Db& db, std::uint64_t key_id, std::int64_t overlap_ms);

// Revokes the key (idempotent); AdminError when there is no such key.
void revoke_key(Db& db, std::uint64_t key_id);

struct NewUser {
    std::string email;
    std::optional<std::string> first_name;
    std::optional<std::string> last_name;
};
std::uint64_t create_user(Db& db, const std::string& shop_domain, const NewUser& user);

}  // namespace supportcrm
