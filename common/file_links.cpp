#include "common/file_links.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "common/text.h"

namespace supportcrm::file_links {
namespace {

bool unreserved(unsigned char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '.' || c == '_' || c == '~';
}

std::string hmac_sha256_hex(std::string_view key, std::string_view message) {
    unsigned char mac[EVP_MAX_MD_SIZE];
    unsigned int length = 0;
    HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
         reinterpret_cast<const unsigned char*>(message.data()), message.size(), mac, &length);
    std::string hex;
    hex.reserve(length * 2);
    for (unsigned int i = 0; i < length; ++i) {
        hex += text::hex_digit(mac[i] >> 4);
        hex += text::hex_digit(mac[i] & 0x0f);
    }
    return hex;
}

}  // namespace

std::string clean_filename(std::string_view decoded) {
    std::string out(decoded);
    for (char& c : out) {
        const auto u = static_cast<unsigned char>(c);
        if (u == '/' || u == '\\' || u < 0x20 || u == 0x7f) {
            c = '_';
        }
    }
    return out;
}

std::string percent_encode(std::string_view bytes) {
    static const char kHex[] = "0123456789ABCDEF";
    std::string out;
    out.reserve(bytes.size() * 3);
    for (char c : bytes) {
        const auto u = static_cast<unsigned char>(c);
        if (unreserved(u)) {
            out += c;
        } else {
            out += '%';
            out += kHex[u >> 4];
            out += kHex[u & 0x0f];
        }
    }
    return out;
}

std::string content_disposition(std::string_view filename) {
    return "attachment; filename*=UTF-8''" + percent_encode(filename);
}

std::string sign(std::string_view secret, std::uint64_t id, std::string_view filename,
                 std::int64_t expires) {
    std::string message = std::to_string(id);
    message.append("\n").append(filename).append("\n").append(std::to_string(expires));
    return hmac_sha256_hex(secret, message);
}

bool verify(std::string_view secret, std::uint64_t id, std::string_view filename,
            std::int64_t expires, std::string_view sig, std::int64_t now) {
    const std::string expected = sign(secret, id, filename, expires);
    if (sig.size() != expected.size()) {
        return false;
    }
    // Compared whole, in constant time, before the expiry: the answer's timing says nothing of
    // how much of a forged signature was right.
    const bool same = CRYPTO_memcmp(expected.data(), sig.data(), expected.size()) == 0;
    return same && expires >= now;
}

std::string link(std::string_view base, std::string_view secret, std::uint64_t id,
                 std::string_view filename, std::int64_t expires) {
    while (!base.empty() && base.back() == '/') {
        base.remove_suffix(1);
    }
    std::string out(base);
    out.append("/files/").append(std::to_string(id)).append("/").append(percent_encode(filename));
    out.append("?expires=").append(std::to_string(expires));
    out.append("&sig=").append(sign(secret, id, filename, expires));
    return out;
}

}  // namespace supportcrm::file_links
