#include "common/key_terms.h"

#include "common/text.h"

namespace supportcrm::key_terms {
namespace {

constexpr unsigned kBits[] = {scope::read, scope::write, scope::export_, scope::erase};

std::optional<unsigned> scope_bit(std::string_view name) {
    for (unsigned bit : kBits) {
        if (scope_name(bit) == name) {
            return bit;
        }
    }
    return std::nullopt;
}

}  // namespace

std::string_view scope_name(unsigned bit) {
    switch (bit) {
        case scope::read:
            return "read";
        case scope::write:
            return "write";
        case scope::export_:
            return "export";
        case scope::erase:
            return "erase";
        default:
            return "";
    }
}

std::vector<std::string> scope_names(unsigned mask) {
    std::vector<std::string> names;
    for (unsigned bit : kBits) {
        if (mask & bit) {
            names.emplace_back(scope_name(bit));
        }
    }
    return names;
}

std::string scope_set_literal(unsigned mask) {
    std::string out;
    for (const std::string& name : scope_names(mask)) {
        out.append(out.empty() ? "" : ",").append(name);
    }
    return out;
}

Parsed<unsigned> parse_scopes(std::string_view list) {
    Parsed<unsigned> out;
    unsigned mask = 0;
    while (true) {
        const std::size_t comma = list.find(',');
        const std::string_view name = text::trim(list.substr(0, comma));
        std::optional<unsigned> bit = scope_bit(name);
        if (!bit) {
            out.error =
                "--scopes: unknown scope '" + std::string(name) + "' (read, write, export, erase)";
            return out;
        }
        mask |= *bit;
        if (comma == std::string_view::npos) {
            break;
        }
        list.remove_prefix(comma + 1);
    }
    out.value = mask;
    return out;
}

Parsed<timeutil::Millis> parse_expires(std::string_view text, timeutil::Millis now) {
    Parsed<timeutil::Millis> out;
    std::optional<timeutil::ParsedInstant> at = timeutil::parse_iso8601(text::trim(text));
    if (!at) {
        out.error = "--expires must be a datetime such as 2027-01-31T00:00:00Z or 2027-01-31";
        return out;
    }
    if (at->ms <= now) {
        out.error = "--expires is in the past";
        return out;
    }
    out.value = at->ms;
    return out;
}

Parsed<Rate> parse_rate(std::string_view text) {
    Parsed<Rate> out;
    const std::size_t slash = text.find('/');
    const std::string_view unit = slash == std::string_view::npos ? "" : text.substr(slash + 1);
    std::optional<std::uint64_t> count = text::parse_u64(text.substr(0, slash));
    if (slash == std::string_view::npos || (unit != "s" && unit != "m") || !count) {
        out.error = "--rate must be N/s or N/m (requests per second or per minute)";
        return out;
    }
    if (*count < 1 || *count > kMaxRateCount) {
        out.error = "--rate: N must be from 1 to " + std::to_string(kMaxRateCount);
        return out;
    }
    out.value = Rate{static_cast<std::uint32_t>(*count), unit == "s" ? 1u : 60u};
    return out;
}

std::string rate_text(const Rate& rate) {
    return std::to_string(rate.count) + (rate.period_s == 1 ? "/s" : "/m");
}

Parsed<std::uint64_t> parse_overlap_hours(std::string_view text) {
    Parsed<std::uint64_t> out;
    std::optional<std::uint64_t> hours = text::parse_u64(text);
    if (!hours || *hours > kMaxOverlapHours) {
        out.error =
            "--overlap-hours must be an integer from 0 to " + std::to_string(kMaxOverlapHours);
        return out;
    }
    out.value = *hours;
    return out;
}

}  // namespace supportcrm::key_terms
