// The SSRF rule of extensions.md §E5: a webhook's host is resolved by the deliverer itself and
// refused when an address is loopback, private, link-local (or otherwise not a public unicast
// address) unless webhook-allow-private is set; the address checked is the one libcurl then
// connects to (CURLOPT_RESOLVE pins it), so a second DNS answer cannot swap it (rebinding).
#pragma once

#include <sys/socket.h>

#include <string>
#include <variant>

namespace supportcrm::webhooks {

// Why an address is not delivered to ("loopback", "private", ...), or "" when it is public.
std::string refused_kind(const sockaddr* address);

struct PinnedAddress {
    std::string resolve_entry;  // "HOST:PORT:ADDRESS" for CURLOPT_RESOLVE; "" for an IP literal
    std::string address;        // the addresses, numeric, comma-separated (for messages)
    std::string pins;           // the same as CURLOPT_RESOLVE lists them (IPv6 in brackets)
};
struct Refusal {
    std::string reason;  // for the attempt's record and the log
};

// Resolves host (as the URL spells it; an IPv6 literal in brackets) and checks every address
// it has: one refused address refuses the host. Otherwise all of them are pinned.
std::variant<PinnedAddress, Refusal> resolve_and_check(const std::string& host, unsigned port,
                                                       bool allow_private);

}  // namespace supportcrm::webhooks
