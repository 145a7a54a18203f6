#include "api/fields.h"

#include <charconv>
#include <cmath>
#include <cstdint>

#include "common/json_writer.h"
#include "common/text.h"

namespace supportcrm {

const Json::Value* FieldReader::get(const char* name) const {
    if (!ok()) {
        return nullptr;
    }
    const Json::Value* v = object_.find(name, name + std::char_traits<char>::length(name));
    return (v == nullptr || v->isNull()) ? nullptr : v;
}

bool FieldReader::present(const char* name) const {
    const Json::Value* v = object_.find(name, name + std::char_traits<char>::length(name));
    return v != nullptr && !v->isNull();
}

void FieldReader::require(const char* name) {
    if (ok() && !present(name)) {
        fail(std::string(name) + " is required");
    }
}

void FieldReader::fail(std::string message) {
    if (ok()) {
        error_ = std::move(message);
    }
}

std::optional<std::string> FieldReader::string(const char* name, std::size_t max_chars) {
    std::optional<std::string> s = text(name);
    if (s && text::utf8_length(*s) > max_chars) {
        fail(std::string(name) + " is too long");
        return std::nullopt;
    }
    return s;
}

std::optional<std::string> FieldReader::text(const char* name) {
    const Json::Value* v = get(name);
    if (v == nullptr) {
        return std::nullopt;
    }
    if (!v->isString()) {
        fail(std::string(name) + " must be a string");
        return std::nullopt;
    }
    return v->asString();
}

std::string number_text(const Json::Value& number) {
    char buf[32];
    std::to_chars_result r{};
    if (number.isUInt64()) {
        r = std::to_chars(buf, buf + sizeof buf, number.asLargestUInt());
    } else if (number.isInt64()) {
        r = std::to_chars(buf, buf + sizeof buf, number.asLargestInt());
    } else {
        r = std::to_chars(buf, buf + sizeof buf, number.asDouble());
    }
    return std::string(buf, r.ptr);
}

std::optional<std::string> FieldReader::string_or_number(const char* name, std::size_t max_chars) {
    const Json::Value* v = get(name);
    if (v == nullptr) {
        return std::nullopt;
    }
    if (v->isNumeric() && !v->isBool()) {
        return number_text(*v);
    }
    if (!v->isString()) {
        fail(std::string(name) + " must be a string or number");
        return std::nullopt;
    }
    return string(name, max_chars);
}

std::optional<std::uint64_t> FieldReader::id(const char* name) {
    const Json::Value* v = get(name);
    if (v == nullptr) {
        return std::nullopt;
    }
    if (v->isString()) {
        std::string s = v->asString();
        if (text::is_digits(s)) {
            return text::parse_u64(s).value_or(UINT64_MAX);
        }
    } else if (v->type() == Json::uintValue || (v->type() == Json::intValue && v->asInt64() >= 0)) {
        return v->asLargestUInt();
    } else if (v->type() == Json::realValue && v->asDouble() >= 18446744073709551616.0 &&
               std::floor(v->asDouble()) == v->asDouble()) {
        // An integer literal too large for 64 bits (jsoncpp reads it as a double).
        return UINT64_MAX;
    }
    fail(std::string(name) + " must be an integer");
    return std::nullopt;
}

std::optional<std::int64_t> FieldReader::integer(const char* name, std::int64_t min,
                                                 std::int64_t max, std::string_view what) {
    const Json::Value* v = get(name);
    if (v == nullptr) {
        return std::nullopt;
    }
    // A JSON integer literal: 4.0 is a number, but not the integer the contract asks for.
    bool integer_literal = v->type() == Json::intValue || v->type() == Json::uintValue;
    if (integer_literal && v->isInt64()) {
        std::int64_t n = v->asLargestInt();
        if (n >= min && n <= max) {
            return n;
        }
    }
    fail(std::string(name) + " must be " + std::string(what));
    return std::nullopt;
}

std::optional<std::int64_t> FieldReader::count32(const char* name) {
    const Json::Value* v = get(name);
    const bool literal =
        v != nullptr && (v->type() == Json::intValue || v->type() == Json::uintValue);
    if (literal && v->isUInt64() && v->asUInt64() > INT32_MAX) {
        fail(std::string(name) + " must be at most " + std::to_string(INT32_MAX));
        return std::nullopt;
    }
    return integer(name, 0, INT32_MAX, "a non-negative integer");
}

std::optional<std::vector<std::string>> FieldReader::string_array(const char* name,
                                                                  std::size_t max_chars) {
    const Json::Value* v = get(name);
    if (v == nullptr) {
        return std::nullopt;
    }
    std::vector<std::string> items;
    bool well_typed = v->isArray();
    if (well_typed) {
        items.reserve(v->size());
        for (const Json::Value& item : *v) {
            if (!item.isString()) {
                well_typed = false;
                break;
            }
            items.push_back(item.asString());
        }
    }
    if (!well_typed) {
        fail(std::string(name) + " must be an array of strings");
        return std::nullopt;
    }
    for (const std::string& item : items) {
        if (text::utf8_length(item) > max_chars) {
            fail(std::string(name) + " is too long");
            return std::nullopt;
        }
    }
    return items;
}

std::optional<timeutil::Millis> FieldReader::datetime(const char* name) {
    const Json::Value* v = get(name);
    if (v == nullptr) {
        return std::nullopt;
    }
    if (v->isString()) {
        if (auto parsed = timeutil::parse_iso8601(v->asString())) {
            return parsed->ms;
        }
    }
    fail(std::string(name) + " must be an ISO 8601 datetime");
    return std::nullopt;
}

std::string raw_json(const Json::Value& v, std::string_view body) {
    auto start = static_cast<std::size_t>(v.getOffsetStart());
    auto limit = static_cast<std::size_t>(v.getOffsetLimit());
    return std::string(body.substr(start, limit - start));
}

std::optional<std::vector<std::string>> FieldReader::tag_array(const char* name, bool no_blank) {
    const Json::Value* v = get(name);
    if (v != nullptr && v->isArray() && v->size() > kMaxTags) {
        fail(std::string(name) + ": at most " + std::to_string(kMaxTags));
        return std::nullopt;
    }
    std::optional<std::vector<std::string>> tags = string_array(name, kShortText);
    if (tags && no_blank) {
        for (const std::string& tag : *tags) {
            if (text::trim(tag).empty()) {
                fail(std::string(name) + " must not contain a blank tag");
                return std::nullopt;
            }
        }
    }
    return tags;
}

std::string json_string_array(const std::vector<std::string>& items) {
    std::string out;
    JsonWriter w(out);
    w.begin_array();
    for (const std::string& item : items) {
        w.string(item);
    }
    w.end_array();
    return out;
}

bool true_or_string_true(const Json::Value& v) {
    return (v.isBool() && v.asBool()) || (v.isString() && v.asString() == "true");
}

std::optional<bool> boolean_or_string(const Json::Value& v, bool absent_value) {
    if (v.isNull()) {
        return absent_value;
    }
    if (v.isBool()) {
        return v.asBool();
    }
    if (v.isString() && (v.asString() == "true" || v.asString() == "false")) {
        return v.asString() == "true";
    }
    return std::nullopt;
}

}  // namespace supportcrm
