// The Standard Webhooks signature (extensions.md §E5; github.com/standard-webhooks,
// spec/standard-webhooks.md "Signature scheme"): HMAC-SHA256 over "<id>.<timestamp>.<body>",
// keyed with the base64-decoded part of the "whsec_" secret, sent as "v1,<base64>".
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace supportcrm::webhooks {

constexpr std::string_view kSecretPrefix = "whsec_";

// Standard base64 (RFC 4648 §4, with padding), as the scheme uses it.
std::string base64_encode(std::string_view bytes);
// nullopt for text that is not padded standard base64.
std::optional<std::string> base64_decode(std::string_view text);

// "v1,<base64 HMAC-SHA256(key, id + '.' + timestamp + '.' + body)>".
std::string sign(std::string_view key, std::string_view id, std::string_view timestamp,
                 std::string_view body);

// A new secret: "whsec_" + base64 of 32 bytes from OpenSSL's CSPRNG (RAND_bytes); the key is
// the decoded part. Throws std::runtime_error when the generator fails.
std::string generate_secret();

}  // namespace supportcrm::webhooks
