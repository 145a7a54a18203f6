// Byte-level text rules shared by validation and the JSON writer: UTF-8 well-formedness,
// lengths in characters (the database counts characters, not bytes), trimming and digits.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace supportcrm::text {

// True when s is well-formed UTF-8 (no overlongs, no surrogates, nothing above U+10FFFF).
bool is_valid_utf8(std::string_view s);

// Number of code points in a well-formed UTF-8 string.
std::size_t utf8_length(std::string_view s);

// s without leading and trailing ASCII white space.
std::string_view trim(std::string_view s);

// True when s is empty or only Unicode White_Space (extensions.md §E1 "blank": U+0009..U+000D,
// U+0020, U+0085, U+00A0, U+1680, U+2000..U+200A, U+2028, U+2029, U+202F, U+205F, U+3000).
// s is well-formed UTF-8 (the strict JSON reader's strings are).
bool is_blank(std::string_view s);

// Appends code point cp (at most U+10FFFF, not a surrogate) to out as UTF-8. Inline for the
// same reason as hex_digit_value below.
inline void append_utf8(std::string& out, std::uint32_t cp) {
    if (cp < 0x80) {
        out.push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
        out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
        out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else {
        out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
}

// The value of an ASCII hex digit (0-9, a-f, A-F), or -1 (percent-decoding, JSON \u escapes).
// Inline: the strict JSON reader is a library of its own and needs nothing else of text.cpp.
inline int hex_digit_value(char c) {
    if (c >= '0' && c <= '9') {
        return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
        return c - 'a' + 10;
    }
    if (c >= 'A' && c <= 'F') {
        return c - 'A' + 10;
    }
    return -1;
}

// The lower-case hex digit of v's low four bits: hex_digit_value's inverse, and the one hex
// encoder (key digests, random hex, request ids, JSON \u00XX escapes).
inline char hex_digit(unsigned v) {
    return "0123456789abcdef"[v & 0xF];
}

// True when s is non-empty and every byte is 0-9.
bool is_digits(std::string_view s);

// The value of a non-empty all-digits string; nullopt when it is not one or overflows 64 bits.
std::optional<std::uint64_t> parse_u64(std::string_view s);

// ASCII-lowercased copy; MIME types and header schemes are ASCII by definition.
std::string ascii_lower(std::string_view s);

// Case-insensitive ASCII comparison.
bool iequals(std::string_view a, std::string_view b);

// The contract's full_name when none is given: the names present joined by a space, or
// nullopt when neither is.
std::optional<std::string> join_names(const std::optional<std::string>& first,
                                      const std::optional<std::string>& last);

}  // namespace supportcrm::text
