#include "common/webhook_signature.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <stdexcept>
#include <vector>

namespace supportcrm::webhooks {

std::string base64_encode(std::string_view bytes) {
    std::string out(4 * ((bytes.size() + 2) / 3), '\0');
    // EVP_EncodeBlock writes no newlines and pads with '='; it also writes a NUL after the text.
    std::vector<unsigned char> buffer(out.size() + 1);
    const int n =
        EVP_EncodeBlock(buffer.data(), reinterpret_cast<const unsigned char*>(bytes.data()),
                        static_cast<int>(bytes.size()));
    out.assign(reinterpret_cast<const char*>(buffer.data()), static_cast<std::size_t>(n));
    return out;
}

std::optional<std::string> base64_decode(std::string_view text) {
    if (text.size() % 4 != 0) {
        return std::nullopt;
    }
    static constexpr std::string_view kAlphabet =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::size_t padding = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '=' && i + 2 >= text.size() && (i + 1 == text.size() || text[i + 1] == '=')) {
            ++padding;
        } else if (padding != 0 || kAlphabet.find(c) == std::string_view::npos) {
            return std::nullopt;
        }
    }
    // EVP_DecodeBlock ignores nothing and returns whole 3-byte groups, padding counted as zeros.
    std::vector<unsigned char> buffer(text.size() / 4 * 3 + 1);
    const int n =
        EVP_DecodeBlock(buffer.data(), reinterpret_cast<const unsigned char*>(text.data()),
                        static_cast<int>(text.size()));
    if (n < 0 || static_cast<std::size_t>(n) < padding) {
        return std::nullopt;
    }
    return std::string(reinterpret_cast<const char*>(buffer.data()),
                       static_cast<std::size_t>(n) - padding);
}

std::string sign(std::string_view key, std::string_view id, std::string_view timestamp,
                 std::string_view body) {
    std::string content;
    content.reserve(id.size() + timestamp.size() + body.size() + 2);
    content.append(id).append(".").append(timestamp).append(".").append(body);
    unsigned char mac[EVP_MAX_MD_SIZE];
    unsigned int mac_size = 0;
    if (HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
             reinterpret_cast<const unsigned char*>(content.data()), content.size(), mac,
             &mac_size) == nullptr) {
        throw std::runtime_error("HMAC-SHA256 failed");
    }
    return "v1," + base64_encode(std::string_view(reinterpret_cast<const char*>(mac), mac_size));
}

std::string generate_secret() {
    unsigned char key[32];
    if (RAND_bytes(key, sizeof key) != 1) {
        throw std::runtime_error("RAND_bytes failed: cannot generate a webhook secret");
    }
    std::string secret =
        std::string(kSecretPrefix) +
        base64_encode(std::string_view(reinterpret_cast<const char*>(key), sizeof key));
    OPENSSL_cleanse(key, sizeof key);
    return secret;
}

}  // namespace supportcrm::webhooks
