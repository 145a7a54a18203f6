#include "common/address_policy.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>

#include <cstdint>
#include <memory>
#include <set>

namespace supportcrm::webhooks {
namespace {

struct Ipv4Range {
    std::uint32_t network;  // host byte order
    int bits;
    const char* kind;
};
// Not public unicast (RFC 6890): what a webhook must not reach unless allowed.
constexpr Ipv4Range kRefusedIpv4[] = {
    {0x7f000000, 8, "loopback"},
    {0x0a000000, 8, "private"},
    {0xac100000, 12, "private"},
    {0xc0a80000, 16, "private"},
    {0x64400000, 10, "private (shared address space)"},
    {0xa9fe0000, 16, "link-local"},
    {0xc0000000, 24, "reserved (IETF protocol assignments)"},
    {0xc0000200, 24, "reserved (documentation)"},
    {0xc6336400, 24, "reserved (documentation)"},
    {0xcb007100, 24, "reserved (documentation)"},
    {0xc6120000, 15, "reserved (benchmarking)"},
    {0x00000000, 8, "unspecified"},
    {0xe0000000, 4, "multicast"},
    {0xf0000000, 4, "reserved"},
};

std::string refused_ipv4(std::uint32_t address) {
    for (const Ipv4Range& r : kRefusedIpv4) {
        const std::uint32_t mask = ~std::uint32_t{0} << (32 - r.bits);
        if ((address & mask) == r.network) {
            return r.kind;
        }
    }
    return "";
}

// The IPv4 address in four bytes of an IPv6 address, from `at` on.
std::uint32_t embedded_ipv4(const unsigned char* b, int at) {
    return (std::uint32_t{b[at]} << 24) | (std::uint32_t{b[at + 1]} << 16) |
           (std::uint32_t{b[at + 2]} << 8) | b[at + 3];
}

// Whether the first `bits` bits of b are those of `prefix` (16 bytes).
bool in_prefix(const unsigned char* b, const unsigned char (&prefix)[16], int bits) {
    for (int i = 0; i < bits / 8; ++i) {
        if (b[i] != prefix[i]) {
            return false;
        }
    }
    return true;  // every prefix here ends on a byte boundary
}

// Translation and tunnelling prefixes: an address in them reaches an IPv4 address through a
// gateway (NAT64, SIIT, 6to4, Teredo), which may be a refused one, or one of the gateway's
// own network. None is needed to reach a public receiver (its own address is): all refused,
// and the message names the IPv4 address embedded where there is one.
struct TranslatedRange {
    unsigned char prefix[16];
    int bits;
    int ipv4_at;  // where the embedded IPv4 address starts; -1: none to show
    const char* kind;
};
constexpr TranslatedRange kTranslatedIpv6[] = {
    {{0x00, 0x64, 0xff, 0x9b}, 96, 12, "NAT64"},                              // 64:ff9b::/96
    {{0x00, 0x64, 0xff, 0x9b, 0x00, 0x01}, 48, -1, "NAT64 (local use)"},      // 64:ff9b:1::/48
    {{0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0}, 96, 12, "IPv4-translated"},  // ::ffff:0:0:0/96
    {{0x20, 0x02}, 16, 2, "6to4"},                                            // 2002::/16
    {{0x20, 0x01, 0x00, 0x00}, 32, -1, "Teredo"},                             // 2001::/32
};

std::string refused_ipv6(const in6_addr& a) {
    const unsigned char* b = a.s6_addr;
    if (IN6_IS_ADDR_LOOPBACK(&a)) {
        return "loopback";
    }
    if (IN6_IS_ADDR_UNSPECIFIED(&a)) {
        return "unspecified";
    }
    if (IN6_IS_ADDR_V4MAPPED(&a) || IN6_IS_ADDR_V4COMPAT(&a)) {
        // ::ffff:a.b.c.d reaches a.b.c.d; ::a.b.c.d (deprecated) is checked the same way.
        return refused_ipv4(embedded_ipv4(b, 12));
    }
    for (const TranslatedRange& r : kTranslatedIpv6) {
        if (!in_prefix(b, r.prefix, r.bits)) {
            continue;
        }
        if (r.ipv4_at < 0) {
            return r.kind;
        }
        const std::uint32_t v4 = embedded_ipv4(b, r.ipv4_at);
        const std::string reached = refused_ipv4(v4);
        const in_addr shown{htonl(v4)};
        char text[INET_ADDRSTRLEN] = "";
        inet_ntop(AF_INET, &shown, text, sizeof text);
        return std::string(r.kind) + " (reaches " + text + (reached.empty() ? "" : ", " + reached) +
               ")";
    }
    if (b[0] == 0x20 && b[1] == 0x01 && b[2] == 0x0d && b[3] == 0xb8) {
        return "reserved (documentation)";  // 2001:db8::/32
    }
    if (b[0] == 0x01 && b[1] == 0x00 && b[2] == 0 && b[3] == 0 && b[4] == 0 && b[5] == 0 &&
        b[6] == 0 && b[7] == 0) {
        return "reserved (discard-only)";  // 100::/64
    }
    if ((b[0] & 0xfe) == 0xfc) {
        return "private (unique local)";
    }
    if (b[0] == 0xfe && (b[1] & 0xc0) == 0x80) {
        return "link-local";
    }
    if (b[0] == 0xfe && (b[1] & 0xc0) == 0xc0) {
        return "private (site-local)";
    }
    if (b[0] == 0xff) {
        return "multicast";
    }
    return "";
}

std::string numeric(const sockaddr* address) {
    char text[INET6_ADDRSTRLEN] = "";
    if (address->sa_family == AF_INET) {
        inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(address)->sin_addr, text,
                  sizeof text);
    } else if (address->sa_family == AF_INET6) {
        inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6*>(address)->sin6_addr, text,
                  sizeof text);
    }
    return text;
}

bool is_literal(const std::string& name) {
    in6_addr buffer{};
    return inet_pton(AF_INET, name.c_str(), &buffer) == 1 ||
           inet_pton(AF_INET6, name.c_str(), &buffer) == 1;
}

struct AddrinfoFree {
    void operator()(addrinfo* list) const { freeaddrinfo(list); }
};

}  // namespace

std::string refused_kind(const sockaddr* address) {
    if (address->sa_family == AF_INET) {
        return refused_ipv4(ntohl(reinterpret_cast<const sockaddr_in*>(address)->sin_addr.s_addr));
    }
    if (address->sa_family == AF_INET6) {
        return refused_ipv6(reinterpret_cast<const sockaddr_in6*>(address)->sin6_addr);
    }
    return "not an IP address";
}

std::variant<PinnedAddress, Refusal> resolve_and_check(const std::string& host, unsigned port,
                                                       bool allow_private) {
    std::string name = host;
    if (name.size() > 2 && name.front() == '[' && name.back() == ']') {
        name = name.substr(1, name.size() - 2);
    }
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* found = nullptr;
    const int rc = getaddrinfo(name.c_str(), nullptr, &hints, &found);
    if (rc != 0) {
        return Refusal{"cannot resolve " + name + ": " + gai_strerror(rc)};
    }
    std::unique_ptr<addrinfo, AddrinfoFree> list(found);
    // Every address is checked, and every address is pinned: libcurl may try each of them
    // (happy eyeballs), and none other.
    PinnedAddress pinned;
    std::string pins;
    std::set<std::string> seen;  // one address per socket type comes back several times
    for (const addrinfo* a = list.get(); a != nullptr; a = a->ai_next) {
        if (a->ai_family != AF_INET && a->ai_family != AF_INET6) {
            continue;
        }
        const std::string text = numeric(a->ai_addr);
        const std::string kind = refused_kind(a->ai_addr);
        if (!kind.empty() && !allow_private) {
            return Refusal{"refused: " + name + " resolves to " + text + ", a " + kind +
                           " address (webhook-allow-private is false)"};
        }
        const std::string pin = a->ai_family == AF_INET6 ? "[" + text + "]" : text;
        if (!seen.insert(pin).second) {
            continue;
        }
        pinned.address += (pinned.address.empty() ? "" : ",") + text;
        pins += (pins.empty() ? "" : ",") + pin;
    }
    if (pins.empty()) {
        return Refusal{"cannot resolve " + name + ": no IPv4 or IPv6 address"};
    }
    pinned.pins = pins;
    if (!is_literal(name)) {
        // CURLOPT_RESOLVE: "HOST:PORT:ADDRESS[,ADDRESS]...", IPv6 addresses in brackets.
        pinned.resolve_entry = host + ":" + std::to_string(port) + ":" + pins;
    }
    return pinned;
}

}  // namespace supportcrm::webhooks
