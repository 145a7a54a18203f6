#include "api/cursor.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <array>
#include <stdexcept>

namespace supportcrm {
namespace {

constexpr unsigned char kVersion = 1;
constexpr std::size_t kKeyBytes = 16;                            // time, id
constexpr std::size_t kMacBytes = 16;                            // HMAC-SHA256 truncated: 128 bits
constexpr std::size_t kCursorBytes = 1 + kKeyBytes + kMacBytes;  // 33: 44 base64 characters

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

using Bytes = std::array<unsigned char, kCursorBytes>;

void put_u64(std::string& out, std::uint64_t v) {
    for (int shift = 56; shift >= 0; shift -= 8) {
        out.push_back(static_cast<char>((v >> shift) & 0xff));
    }
}

std::uint64_t get_u64(const unsigned char* p) {
    std::uint64_t v = 0;
    for (int i = 0; i < 8; ++i) {
        v = (v << 8) | p[i];
    }
    return v;
}

// Length-prefixed, so that no two scopes share a message.
std::string mac_input(const CursorScope& scope, std::string_view payload) {
    std::string m;
    m.reserve(64 + scope.list.size() + scope.filters.size());
    put_u64(m, scope.shop_id);
    put_u64(m, scope.list.size());
    m.append(scope.list);
    put_u64(m, scope.parent_id);
    put_u64(m, scope.filters.size());
    m.append(scope.filters);
    m.append(payload);
    return m;
}

std::array<unsigned char, EVP_MAX_MD_SIZE> mac_of(std::string_view secret, const CursorScope& scope,
                                                  std::string_view payload) {
    std::array<unsigned char, EVP_MAX_MD_SIZE> mac{};
    unsigned int len = 0;
    const std::string m = mac_input(scope, payload);
    if (!HMAC(EVP_sha256(), secret.data(), static_cast<int>(secret.size()),
              reinterpret_cast<const unsigned char*>(m.data()), m.size(), mac.data(), &len) ||
        len < kMacBytes) {
        throw std::runtime_error("HMAC-SHA256 failed");
    }
    return mac;
}

std::string payload_of(const SortKey& key) {
    std::string p;
    p.push_back(static_cast<char>(kVersion));
    put_u64(p, static_cast<std::uint64_t>(key.time));
    put_u64(p, key.id);
    return p;
}

int alphabet_index(char c) {
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    if (c == '-')
        return 62;
    if (c == '_')
        return 63;
    return -1;
}

}  // namespace

std::string encode_cursor(std::string_view secret, const CursorScope& scope, const SortKey& key) {
    std::string bytes = payload_of(key);
    auto mac = mac_of(secret, scope, bytes);
    bytes.append(reinterpret_cast<const char*>(mac.data()), kMacBytes);
    std::string out;
    out.reserve(kCursorBytes / 3 * 4);
    for (std::size_t i = 0; i < bytes.size(); i += 3) {  // 33 bytes: whole groups, no padding
        std::uint32_t group = (static_cast<unsigned char>(bytes[i]) << 16) |
                              (static_cast<unsigned char>(bytes[i + 1]) << 8) |
                              static_cast<unsigned char>(bytes[i + 2]);
        for (int shift = 18; shift >= 0; shift -= 6) {
            out.push_back(kAlphabet[(group >> shift) & 0x3f]);
        }
    }
    return out;
}

std::optional<SortKey> decode_cursor(std::string_view secret, const CursorScope& scope,
                                     std::string_view cursor) {
    if (cursor.size() != kCursorBytes / 3 * 4) {
        return std::nullopt;
    }
    Bytes bytes{};
    for (std::size_t i = 0, o = 0; i < cursor.size(); i += 4, o += 3) {
        std::uint32_t group = 0;
        for (std::size_t j = 0; j < 4; ++j) {
            int v = alphabet_index(cursor[i + j]);
            if (v < 0) {
                return std::nullopt;
            }
            group = (group << 6) | static_cast<std::uint32_t>(v);
        }
        bytes[o] = static_cast<unsigned char>(group >> 16);
        bytes[o + 1] = static_cast<unsigned char>(group >> 8);
        bytes[o + 2] = static_cast<unsigned char>(group);
    }
    if (bytes[0] != kVersion) {
        return std::nullopt;
    }
    std::string_view payload(reinterpret_cast<const char*>(bytes.data()), 1 + kKeyBytes);
    auto mac = mac_of(secret, scope, payload);
    if (CRYPTO_memcmp(mac.data(), bytes.data() + 1 + kKeyBytes, kMacBytes) != 0) {
        return std::nullopt;
    }
    return SortKey{static_cast<std::int64_t>(get_u64(bytes.data() + 1)), get_u64(bytes.data() + 9)};
}

}  // namespace supportcrm
