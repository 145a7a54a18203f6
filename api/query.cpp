#include "api/query.h"

#include "common/text.h"

namespace supportcrm {

std::string percent_decode(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '%' && i + 2 < s.size()) {
            int hi = text::hex_digit_value(s[i + 1]);
            int lo = text::hex_digit_value(s[i + 2]);
            if (hi >= 0 && lo >= 0) {
                out.push_back(static_cast<char>(hi * 16 + lo));
                i += 2;
                continue;
            }
        }
        out.push_back(s[i]);
    }
    return out;
}

QueryParams::QueryParams(std::string_view query) {
    while (!query.empty()) {
        auto amp = query.find('&');
        std::string_view pair = query.substr(0, amp);
        query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
        if (pair.empty()) {
            continue;
        }
        auto eq = pair.find('=');
        std::string_view name = pair.substr(0, eq);
        std::string_view value =
            eq == std::string_view::npos ? std::string_view() : pair.substr(eq + 1);
        params_.emplace_back(percent_decode(name), percent_decode(value));
    }
}

std::optional<std::string> QueryParams::get(std::string_view name) const {
    for (const auto& [n, v] : params_) {
        if (n == name) {
            return v;
        }
    }
    return std::nullopt;
}

std::vector<std::string> QueryParams::get_all(std::string_view name) const {
    std::vector<std::string> out;
    for (const auto& [n, v] : params_) {
        if (n == name) {
            out.push_back(v);
        }
    }
    return out;
}

}  // namespace supportcrm
