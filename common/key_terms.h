// What an API key may do and for how long (extensions.md §E12): its scopes, its expiry and its
// rate, as the operator writes them on the command line and as the api_keys row stores them.
// One module for both sides, so `key create` refuses exactly what the service could not honour.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/time_util.h"

namespace supportcrm::key_terms {

// The bits of api_keys.scopes (a SET: its value + 0 is this mask, in the SET's order).
namespace scope {
constexpr unsigned read = 1, write = 2, export_ = 4, erase = 8;
constexpr unsigned all = read | write | export_ | erase;
// What a key gets without --scopes, and what every key made before E12 has.
constexpr unsigned default_set = read | write | export_;
}  // namespace scope

// "read", "write", "export", "erase" for one bit; "" for anything else.
std::string_view scope_name(unsigned bit);
// The names of the bits of mask, in the order read, write, export, erase.
std::vector<std::string> scope_names(unsigned mask);
// "read,write" — the SET literal the api_keys row takes.
std::string scope_set_literal(unsigned mask);

// A parse: the value, or the one-line message the CLI prints.
template <typename T>
struct Parsed {
    std::optional<T> value;
    std::string error;
};

// --scopes: a comma list of known scope names (spaces around names allowed, repeats harmless,
// at least one).
Parsed<unsigned> parse_scopes(std::string_view list);

// --expires: a datetime (contract §3's input forms) strictly after now.
Parsed<timeutil::Millis> parse_expires(std::string_view text, timeutil::Millis now);

// --rate: "N/s" or "N/m", N from 1 to kMaxRateCount.
struct Rate {
    std::uint32_t count = 0;
    std::uint32_t period_s = 0;  // 1 or 60
};
constexpr std::uint32_t kMaxRateCount = 1'000'000;
Parsed<Rate> parse_rate(std::string_view text);
// "N/s" or "N/m", as the CLI prints it back.
std::string rate_text(const Rate& rate);

// --overlap-hours: 0 .. kMaxOverlapHours (0: the old key stops now).
constexpr std::uint64_t kMaxOverlapHours = 24 * 365;
Parsed<std::uint64_t> parse_overlap_hours(std::string_view text);

}  // namespace supportcrm::key_terms
