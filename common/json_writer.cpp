#include "common/json_writer.h"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "common/text.h"

namespace supportcrm {

namespace {

// Bytes that need escaping in a JSON string: control characters (below 0x20), '"' and '\\'.
constexpr std::array<bool, 256> kNeedsEscape = [] {
    std::array<bool, 256> table{};
    for (int c = 0; c < 0x20; ++c) {
        table[static_cast<std::size_t>(c)] = true;
    }
    table['"'] = true;
    table['\\'] = true;
    return table;
}();

bool byte_needs_escape(unsigned char c) {
    return kNeedsEscape[c];
}

#if defined(__SSE2__)
// Bit i set when byte i of the 16 at p needs escaping.
unsigned escape_mask16(const char* p) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const __m128i control = _mm_set1_epi8(0x1f);
    const __m128i is_control = _mm_cmpeq_epi8(_mm_max_epu8(v, control), control);  // v <= 0x1f
    const __m128i is_quote = _mm_cmpeq_epi8(v, _mm_set1_epi8('"'));
    const __m128i is_backslash = _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'));
    return static_cast<unsigned>(
        _mm_movemask_epi8(_mm_or_si128(_mm_or_si128(is_control, is_quote), is_backslash)));
}
#endif

// The position of the first byte at or after `from` that needs escaping, or s.size(). Text is
// mostly plain, so it is scanned 16 bytes at a time where the CPU allows (a page of comments
// is ~10 KB of it); the last partial block is read as the text's final 16 bytes, overlapping
// bytes already seen.
std::size_t next_to_escape(std::string_view s, std::size_t from) {
    const std::size_t n = s.size();
    std::size_t i = from;
#if defined(__SSE2__)
    constexpr std::size_t kBlock = 16;
    for (; i + kBlock <= n; i += kBlock) {
        if (unsigned mask = escape_mask16(s.data() + i)) {
            return i + static_cast<std::size_t>(__builtin_ctz(mask));
        }
    }
    if (i < n && n >= kBlock) {
        const std::size_t start = n - kBlock;
        unsigned mask = escape_mask16(s.data() + start) >> (i - start);
        return mask ? i + static_cast<std::size_t>(__builtin_ctz(mask)) : n;
    }
#endif
    while (i < n && !byte_needs_escape(static_cast<unsigned char>(s[i]))) {
        ++i;
    }
    return i;
}

void append_escape(std::string& out, unsigned char c) {
    switch (c) {
        case '"':
            out.append("\\\"");
            break;
        case '\\':
            out.append("\\\\");
            break;
        case '\n':
            out.append("\\n");
            break;
        case '\r':
            out.append("\\r");
            break;
        case '\t':
            out.append("\\t");
            break;
        case '\b':
            out.append("\\b");
            break;
        case '\f':
            out.append("\\f");
            break;
        default: {
            const char escaped[] = {
                '\\', 'u', '0', '0', text::hex_digit(c >> 4), text::hex_digit(c)};
            out.append(escaped, sizeof escaped);
        }
    }
}

}  // namespace

void append_json_string(std::string& out, std::string_view s) {
    out.push_back('"');
    std::size_t run = 0;  // start of the pending run of bytes that need no escaping
    for (std::size_t i = next_to_escape(s, 0); i < s.size(); i = next_to_escape(s, run)) {
        out.append(s.data() + run, i - run);
        append_escape(out, static_cast<unsigned char>(s[i]));
        run = i + 1;
    }
    out.append(s.data() + run, s.size() - run);
    out.push_back('"');
}

void JsonWriter::before_value() {
    if (after_key_) {
        after_key_ = false;
        return;
    }
    if (depth_ > 0) {
        std::uint64_t bit = std::uint64_t{1} << (depth_ - 1);
        if (has_element_ & bit) {
            out_.push_back(',');
        }
        has_element_ |= bit;
    }
}

JsonWriter& JsonWriter::begin_object() {
    before_value();
    out_.push_back('{');
    ++depth_;
    has_element_ &= ~(std::uint64_t{1} << (depth_ - 1));
    return *this;
}

JsonWriter& JsonWriter::end_object() {
    --depth_;
    out_.push_back('}');
    return *this;
}

JsonWriter& JsonWriter::begin_array() {
    before_value();
    out_.push_back('[');
    ++depth_;
    has_element_ &= ~(std::uint64_t{1} << (depth_ - 1));
    return *this;
}

JsonWriter& JsonWriter::end_array() {
    --depth_;
    out_.push_back(']');
    return *this;
}

JsonWriter& JsonWriter::key(std::string_view name) {
    before_value();
    // Member names are the API's own literals and never need escaping (json_writer.h).
    out_.append(1, '"').append(name).append("\":", 2);
    after_key_ = true;
    return *this;
}

JsonWriter& JsonWriter::string(std::string_view value) {
    before_value();
    append_json_string(out_, value);
    return *this;
}

JsonWriter& JsonWriter::integer(std::int64_t value) {
    before_value();
    char buf[24];
    auto r = std::to_chars(buf, buf + sizeof buf, value);
    out_.append(buf, r.ptr);
    return *this;
}

JsonWriter& JsonWriter::uinteger(std::uint64_t value) {
    before_value();
    char buf[24];
    auto r = std::to_chars(buf, buf + sizeof buf, value);
    out_.append(buf, r.ptr);
    return *this;
}

JsonWriter& JsonWriter::number(double value) {
    if (!std::isfinite(value)) {
        return null();  // JSON has no NaN or infinity
    }
    before_value();
    char buf[32];
    auto r = std::to_chars(buf, buf + sizeof buf, value);
    out_.append(buf, r.ptr);
    return *this;
}

JsonWriter& JsonWriter::boolean(bool value) {
    before_value();
    out_.append(value ? "true" : "false");
    return *this;
}

JsonWriter& JsonWriter::null() {
    before_value();
    out_.append("null");
    return *this;
}

JsonWriter& JsonWriter::raw(std::string_view json) {
    before_value();
    out_.append(json);
    return *this;
}

JsonWriter& JsonWriter::string_or_null(const std::optional<std::string>& value) {
    return value ? string(*value) : null();
}

JsonWriter& JsonWriter::id_string(std::uint64_t value) {
    before_value();
    char buf[24];
    auto r = std::to_chars(buf, buf + sizeof buf, value);
    out_.push_back('"');
    out_.append(buf, r.ptr);
    out_.push_back('"');
    return *this;
}

}  // namespace supportcrm
