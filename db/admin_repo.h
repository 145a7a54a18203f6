// The operator's writes (brands, shops, keys, users) behind supportcrm-admin. Failures the
// operator can fix are AdminError with a one-line message.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

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
CreatedKey create_key(Db& db, const std::string& shop_domain,
                      const std::optional<std::string>& label);

// Revokes the key (idempotent); AdminError when there is no such key.
void revoke_key(Db& db, std::uint64_t key_id);

struct NewUser {
    std::string email;
    std::optional<std::string> first_name;
    std::optional<std::string> last_name;
};
std::uint64_t create_user(Db& db, const std::string& shop_domain, const NewUser& user);

}  // namespace supportcrm
