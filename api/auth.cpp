#include "api/auth.h"

#include "common/text.h"

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

}  // namespace supportcrm
