#include "common/keys.h"

#include <openssl/evp.h>
#include <openssl/rand.h>

#include <stdexcept>
#include <vector>

#include "common/text.h"

namespace supportcrm::keys {
namespace {

std::string to_hex(const unsigned char* data, std::size_t n) {
    std::string out(n * 2, '0');
    for (std::size_t i = 0; i < n; ++i) {
        out[2 * i] = text::hex_digit(data[i] >> 4);
        out[2 * i + 1] = text::hex_digit(data[i]);
    }
    return out;
}

}  // namespace

std::string random_hex(std::size_t bytes) {
    std::vector<unsigned char> buf(bytes);
    if (RAND_bytes(buf.data(), static_cast<int>(buf.size())) != 1) {
        throw std::runtime_error("RAND_bytes failed");
    }
    return to_hex(buf.data(), buf.size());
}

std::string generate() {
    return "scrm_" + random_hex(32);
}

std::string digest_hex(std::string_view key) {
    // Fetched once per process: EVP_sha256() makes OpenSSL 3 look the implementation up again
    // on every digest (a third of the digest's cost, on every request).
    static EVP_MD* const sha256 = EVP_MD_fetch(nullptr, "SHA256", nullptr);
    if (sha256 == nullptr) {
        throw std::runtime_error("EVP_MD_fetch(SHA256) failed");
    }
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    if (EVP_Digest(key.data(), key.size(), md, &len, sha256, nullptr) != 1) {
        throw std::runtime_error("EVP_Digest(sha256) failed");
    }
    return to_hex(md, len);
}

}  // namespace supportcrm::keys
