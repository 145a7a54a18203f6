#include "fcgi/auth.h"

#include "handlers/api_error.h"
#include "handlers/repo/keys.h"
#include "handlers/text.h"

namespace supportcrm {

std::optional<std::string_view> api_key_of(const Request& request) {
    if (request.x_api_key && !text::trim(*request.x_api_key).empty()) {
        return text::trim(*request.x_api_key);
    }
    if (!request.authorization) {
        return std::nullopt;
    }
    std::string_view value = text::trim(*request.authorization);
    constexpr std::string_view kScheme = "bearer";
    if (value.size() <= kScheme.size() ||
        !text::iequals(value.substr(0, kScheme.size()), kScheme) ||
        (value[kScheme.size()] != ' ' && value[kScheme.size()] != '\t')) {
        return std::nullopt;
    }
    std::string_view token = text::trim(value.substr(kScheme.size()));
    if (token.empty()) {
        return std::nullopt;
    }
    return token;
}

AuthOutcome authenticate(const Request& request, Db& db) {
    AuthOutcome out;
    std::optional<std::string_view> key = api_key_of(request);
    if (!key) {
        out.error = errors::missing_api_key();
        return out;
    }
    std::optional<Shop> shop = find_shop_by_key_digest(db, keys::digest_hex(*key));
    if (!shop) {
        out.error = errors::invalid_api_key();
    } else if (shop->deleted) {
        out.error = errors::shop_not_found();
    } else {
        out.shop = std::move(shop);
    }
    return out;
}

}  // namespace supportcrm
