#include "common/strict_json.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "common/text.h"

namespace supportcrm::strict_json {
namespace {

bool is_ws(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

bool is_digit(char c) {
    return c >= '0' && c <= '9';
}

// Length of the well-formed UTF-8 sequence (Unicode Table 3-7: no overlongs, no surrogates,
// nothing above U+10FFFF) whose lead byte is at p (a byte >= 0x80), or 0.
std::size_t utf8_sequence_length(const unsigned char* p, const unsigned char* end) {
    auto cont = [&](std::size_t i, unsigned char lo = 0x80, unsigned char hi = 0xBF) {
        return p + i < end && p[i] >= lo && p[i] <= hi;
    };
    const unsigned char lead = p[0];
    if (lead >= 0xC2 && lead <= 0xDF) {
        return cont(1) ? 2 : 0;
    }
    if (lead == 0xE0) {
        return cont(1, 0xA0) && cont(2) ? 3 : 0;
    }
    if ((lead >= 0xE1 && lead <= 0xEC) || lead == 0xEE || lead == 0xEF) {
        return cont(1) && cont(2) ? 3 : 0;
    }
    if (lead == 0xED) {
        return cont(1, 0x80, 0x9F) && cont(2) ? 3 : 0;
    }
    if (lead == 0xF0) {
        return cont(1, 0x90) && cont(2) && cont(3) ? 4 : 0;
    }
    if (lead >= 0xF1 && lead <= 0xF3) {
        return cont(1) && cont(2) && cont(3) ? 4 : 0;
    }
    if (lead == 0xF4) {
        return cont(1, 0x80, 0x8F) && cont(2) && cont(3) ? 4 : 0;
    }
    return 0;
}

class Parser {
  public:
    Parser(std::string_view text, std::size_t start) : text_(text), pos_(start) {}

    bool document(Json::Value& out) {
        skip_ws();
        if (!value(out, 0)) {
            return false;
        }
        skip_ws();
        return pos_ == text_.size();
    }

  private:
    bool at_end() const { return pos_ >= text_.size(); }
    char peek() const { return text_[pos_]; }

    void skip_ws() {
        while (!at_end() && is_ws(peek())) {
            ++pos_;
        }
    }

    bool consume(char c) {
        if (!at_end() && peek() == c) {
            ++pos_;
            return true;
        }
        return false;
    }

    bool literal(std::string_view word) {
        if (text_.substr(pos_, word.size()) != word) {
            return false;
        }
        pos_ += word.size();
        return true;
    }

    bool value(Json::Value& out, int depth) {
        if (at_end()) {
            return false;
        }
        const std::size_t start = pos_;
        bool ok = false;
        switch (peek()) {
            case '{':
                ok = object(out, depth + 1);
                break;
            case '[':
                ok = array(out, depth + 1);
                break;
            case '"': {
                std::string s;
                ok = string(s);
                if (ok) {
                    out = Json::Value(s);
                }
                break;
            }
            case 't':
                ok = literal("true");
                out = true;
                break;
            case 'f':
                ok = literal("false");
                out = false;
                break;
            case 'n':
                ok = literal("null");
                out = Json::Value();
                break;
            default:
                ok = number(out);
        }
        if (ok) {
            out.setOffsetStart(static_cast<std::ptrdiff_t>(start));
            out.setOffsetLimit(static_cast<std::ptrdiff_t>(pos_));
        }
        return ok;
    }

    bool object(Json::Value& out, int depth) {
        if (depth > kMaxDepth) {
            return false;
        }
        ++pos_;  // '{'
        out = Json::Value(Json::objectValue);
        skip_ws();
        if (consume('}')) {
            return true;
        }
        std::string name;
        while (true) {
            if (at_end() || peek() != '"' || !string(name)) {
                return false;
            }
            // RFC 8259 leaves duplicate names to the reader; the contract refuses them, since
            // which of the two a later reader would keep is anybody's guess.
            if (out.find(name.data(), name.data() + name.size()) != nullptr) {
                return false;
            }
            skip_ws();
            if (!consume(':')) {
                return false;
            }
            skip_ws();
            if (!value(out[name], depth)) {
                return false;
            }
            skip_ws();
            if (consume('}')) {
                return true;
            }
            if (!consume(',')) {
                return false;
            }
            skip_ws();
        }
    }

    bool array(Json::Value& out, int depth) {
        if (depth > kMaxDepth) {
            return false;
        }
        ++pos_;  // '['
        out = Json::Value(Json::arrayValue);
        skip_ws();
        if (consume(']')) {
            return true;
        }
        while (true) {
            if (!value(out.append(Json::Value()), depth)) {
                return false;
            }
            skip_ws();
            if (consume(']')) {
                return true;
            }
            if (!consume(',')) {
                return false;
            }
            skip_ws();
        }
    }

    // Four hex digits after "\u" at pos_ (which points at the 'u').
    bool hex4(std::uint32_t& unit) {
        if (text_.size() - pos_ < 5) {
            return false;
        }
        unit = 0;
        for (std::size_t i = 1; i <= 4; ++i) {
            int d = text::hex_digit_value(text_[pos_ + i]);
            if (d < 0) {
                return false;
            }
            unit = unit * 16 + static_cast<std::uint32_t>(d);
        }
        pos_ += 5;
        return true;
    }

    bool escape(std::string& out) {
        ++pos_;  // '\\'
        if (at_end()) {
            return false;
        }
        char c = peek();
        switch (c) {
            case '"':
            case '\\':
            case '/':
                out.push_back(c);
                break;
            case 'b':
                out.push_back('\b');
                break;
            case 'f':
                out.push_back('\f');
                break;
            case 'n':
                out.push_back('\n');
                break;
            case 'r':
                out.push_back('\r');
                break;
            case 't':
                out.push_back('\t');
                break;
            case 'u':
                return unicode_escape(out);
            default:
                return false;
        }
        ++pos_;
        return true;
    }

    // A \uXXXX escape, or a surrogate pair of two; an unpaired surrogate is no character.
    bool unicode_escape(std::string& out) {
        std::uint32_t unit = 0;
        if (!hex4(unit)) {
            return false;
        }
        if (unit >= 0xDC00 && unit <= 0xDFFF) {
            return false;
        }
        if (unit >= 0xD800 && unit <= 0xDBFF) {
            std::uint32_t low = 0;
            if (text_.substr(pos_, 2) != "\\u") {
                return false;
            }
            ++pos_;  // now at 'u'
            if (!hex4(low) || low < 0xDC00 || low > 0xDFFF) {
                return false;
            }
            unit = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
        }
        text::append_utf8(out, unit);
        return true;
    }

    bool string(std::string& out) {
        ++pos_;  // opening quote
        out.clear();
        const auto* bytes = reinterpret_cast<const unsigned char*>(text_.data());
        const auto* end = bytes + text_.size();
        std::size_t run = pos_;  // start of the pending run of bytes copied as they are
        while (!at_end()) {
            const unsigned char c = bytes[pos_];
            if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
                ++pos_;
                continue;
            }
            out.append(text_.data() + run, pos_ - run);
            if (c == '"') {
                ++pos_;
                return true;
            }
            if (c == '\\') {
                if (!escape(out)) {
                    return false;
                }
            } else if (c < 0x20) {
                return false;  // raw control characters must be escaped
            } else {
                std::size_t n = utf8_sequence_length(bytes + pos_, end);
                if (n == 0) {
                    return false;
                }
                out.append(text_.data() + pos_, n);
                pos_ += n;
            }
            run = pos_;
        }
        return false;  // unterminated
    }

    // -? (0 | [1-9][0-9]*) (.[0-9]+)? ([eE][+-]?[0-9]+)?
    bool number(Json::Value& out) {
        const std::size_t start = pos_;
        consume('-');
        const std::size_t int_start = pos_;
        if (at_end() || !is_digit(peek())) {
            return false;
        }
        if (peek() == '0') {
            ++pos_;
        } else {
            while (!at_end() && is_digit(peek())) {
                ++pos_;
            }
        }
        const std::size_t int_end = pos_;
        bool integral = true;
        if (consume('.')) {
            integral = false;
            if (!digits()) {
                return false;
            }
        }
        if (!at_end() && (peek() == 'e' || peek() == 'E')) {
            integral = false;
            ++pos_;
            if (!consume('+')) {
                consume('-');
            }
            if (!digits()) {
                return false;
            }
        }
        if (!at_end() && (is_digit(peek()) || peek() == '.' || peek() == 'e' || peek() == 'E')) {
            return false;  // "01", "1.2.3"
        }
        if (integral &&
            integer(text_.substr(int_start, int_end - int_start), start < int_start, out)) {
            return true;
        }
        return real(text_.substr(start, pos_ - start), out);
    }

    bool digits() {
        const std::size_t from = pos_;
        while (!at_end() && is_digit(peek())) {
            ++pos_;
        }
        return pos_ > from;
    }

    // An integer literal within 64 bits; false (and out untouched) when it does not fit.
    static bool integer(std::string_view magnitude_text, bool negative, Json::Value& out) {
        std::uint64_t magnitude = 0;
        auto [end, ec] = std::from_chars(magnitude_text.data(),
                                         magnitude_text.data() + magnitude_text.size(), magnitude);
        if (ec != std::errc() || end != magnitude_text.data() + magnitude_text.size()) {
            return false;
        }
        constexpr auto kMaxInt = static_cast<std::uint64_t>(INT64_MAX);
        if (negative) {
            if (magnitude > kMaxInt + 1) {
                return false;
            }
            out = magnitude == kMaxInt + 1 ? Json::Value(Json::Int64{INT64_MIN})
                                           : Json::Value(-static_cast<Json::Int64>(magnitude));
        } else if (magnitude <= kMaxInt) {
            out = Json::Value(static_cast<Json::Int64>(magnitude));
        } else {
            out = Json::Value(static_cast<Json::UInt64>(magnitude));
        }
        return true;
    }

    // A number the grammar accepted, as a double; false when it is beyond the double range.
    static bool real(std::string_view literal, Json::Value& out) {
        double d = 0;
        auto [end, ec] = std::from_chars(literal.data(), literal.data() + literal.size(), d);
        if (ec == std::errc::result_out_of_range) {
            // Overflow is refused; underflow reads as the nearest double (0 or subnormal).
            // from_chars reports both the same way, so let strtod tell them apart.
            std::string copy(literal);
            d = std::strtod(copy.c_str(), nullptr);
        } else if (ec != std::errc() || end != literal.data() + literal.size()) {
            return false;
        }
        if (!std::isfinite(d)) {
            return false;
        }
        out = Json::Value(d);
        return true;
    }

    std::string_view text_;
    std::size_t pos_;
};

}  // namespace

bool parse(std::string_view text, Json::Value& out) {
    constexpr std::string_view kBom = "\xEF\xBB\xBF";
    const std::size_t start = text.substr(0, kBom.size()) == kBom ? kBom.size() : 0;
    Parser parser(text, start);
    if (!parser.document(out)) {
        out = Json::Value();
        return false;
    }
    return true;
}

bool valid(std::string_view text) {
    Json::Value ignored;
    return parse(text, ignored);
}

}  // namespace supportcrm::strict_json
