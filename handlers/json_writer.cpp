#include "handlers/json_writer.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>

namespace supportcrm {

namespace {

// Whether any of the 8 bytes in w needs escaping: a control character (below 0x20), '"' or
// '\\'. Bit tricks on a whole word ("has a byte less than n", "has a zero byte"): exact for
// "any", which is all that is asked.
bool word_needs_escape(std::uint64_t w) {
    constexpr std::uint64_t kOnes = 0x0101010101010101ULL;
    constexpr std::uint64_t kHighs = 0x8080808080808080ULL;
    auto has_zero_byte = [](std::uint64_t v) { return (v - kOnes) & ~v & kHighs; };
    std::uint64_t below_space = (w - kOnes * 0x20) & ~w & kHighs;
    return (below_space | has_zero_byte(w ^ (kOnes * '"')) | has_zero_byte(w ^ (kOnes * '\\'))) !=
           0;
}

}  // namespace

void append_json_string(std::string& out, std::string_view s) {
    static const char kHex[] = "0123456789abcdef";
    out.push_back('"');
    std::size_t run = 0;  // start of the pending run of bytes that need no escaping
    for (std::size_t i = 0; i < s.size(); ++i) {
        // Text is mostly plain: step over it 8 bytes at a time (a page of comments is ~10 KB).
        while (i + 8 <= s.size()) {
            std::uint64_t word;
            std::memcpy(&word, s.data() + i, sizeof word);
            if (word_needs_escape(word)) {
                break;
            }
            i += 8;
        }
        if (i == s.size()) {
            break;
        }
        auto c = static_cast<unsigned char>(s[i]);
        if (c >= 0x20 && c != '"' && c != '\\') {
            continue;
        }
        out.append(s.data() + run, i - run);
        run = i + 1;
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
            default:
                out.append("\\u00");
                out.push_back(kHex[c >> 4]);
                out.push_back(kHex[c & 0xF]);
        }
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
    append_json_string(out_, name);
    out_.push_back(':');
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
