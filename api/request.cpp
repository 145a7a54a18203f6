#include "api/request.h"

#include <algorithm>
#include <random>

#include "common/keys.h"
#include "common/text.h"

namespace supportcrm {

bool StringBody::read(std::string& out, std::size_t max) {
    if (body_.size() > max) {
        return false;
    }
    out = body_;
    return true;
}

std::size_t StringBody::read_some(char* buffer, std::size_t size) {
    const std::size_t n = std::min(size, body_.size() - offset_);
    body_.copy(buffer, n, offset_);
    offset_ += n;
    return n;
}

Request::BodyState Request::load_body(std::size_t max_bytes) {
    if (body_state_ != BodyState::unread) {
        return body_state_;
    }
    if (content_length && *content_length > max_bytes) {
        body_state_ = BodyState::too_large;  // refused unread: no point taking it in
    } else if (body_source != nullptr && !body_source->read(body_, max_bytes)) {
        body_.clear();
        body_state_ = BodyState::too_large;
    } else {
        body_state_ = BodyState::ok;
    }
    return body_state_;
}

void split_request_uri(std::string_view uri, std::string& path, std::string& query) {
    auto q = uri.find('?');
    path.assign(uri.substr(0, q));
    query.assign(q == std::string_view::npos ? std::string_view() : uri.substr(q + 1));
}

std::optional<std::string> acceptable_request_id(std::string_view v) {
    if (v.empty() || v.size() > 128) {
        return std::nullopt;
    }
    for (char c : v) {
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                  c == '.' || c == '_' || c == ':' || c == '-';
        if (!ok) {
            return std::nullopt;
        }
    }
    return std::string(v);
}

std::string generate_request_id() {
    // Seeded from the CSPRNG on first use in each worker (the master never makes request ids,
    // so no two workers share a seed); ids need uniqueness, not secrecy.
    static std::mt19937_64 rng(std::stoull(keys::random_hex(8), nullptr, 16));
    std::uint64_t v = rng();
    std::string id(16, '0');
    for (int i = 15; i >= 0; --i) {
        id[static_cast<std::size_t>(i)] = text::hex_digit(static_cast<unsigned>(v));
        v >>= 4;
    }
    return id;
}

}  // namespace supportcrm
