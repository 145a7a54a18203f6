// API keys: random secrets shown once, stored and looked up only as their SHA-256 digest.
#pragma once

#include <string>
#include <string_view>

namespace supportcrm::keys {

// "scrm_" followed by 256 random bits in hex (OpenSSL's CSPRNG).
std::string generate();

// Lower-case hex SHA-256 of the key, the form the api_keys table stores.
std::string digest_hex(std::string_view key);

// n random bytes as lower-case hex (request ids, passwords in scripts' stead).
std::string random_hex(std::size_t bytes);

}  // namespace supportcrm::keys
