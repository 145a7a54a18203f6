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
        const std::uint32_t v4 = (std::uint32_t{b[12]} << 24) | (std::uint32_t{b[13]} << 16) |
                                 (std::uint32_t{b[14]} << 8) | b[15];
        return refused_ipv4(v4);
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
    if (!is_literal(name)) {
        // CURLOPT_RESOLVE: "HOST:PORT:ADDRESS[,ADDRESS]...", IPv6 addresses in brackets.
        pinned.resolve_entry = host + ":" + std::to_string(port) + ":" + pins;
    }
    return pinned;
}

}  // namespace supportcrm::webhooks
