// A small streaming JSON writer that appends to one std::string. Responses are written with it
// rather than built as Json::Value trees: one buffer, no intermediate nodes, doubles in their
// shortest round-trip form, and stored JSON (attachments) spliced in as it is.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace supportcrm {

class JsonWriter {
  public:
    explicit JsonWriter(std::string& out) : out_(out) {}

    JsonWriter& begin_object();
    JsonWriter& end_object();
    JsonWriter& begin_array();
    JsonWriter& end_array();
    // name is one of the API's member names: written as it is, so it must not contain a
    // character that JSON would need escaped (a control character, '"' or '\\').
    JsonWriter& key(std::string_view name);

    JsonWriter& string(std::string_view value);
    JsonWriter& integer(std::int64_t value);
    JsonWriter& uinteger(std::uint64_t value);
    JsonWriter& number(double value);  // shortest text that reads back as the same double
    JsonWriter& boolean(bool value);
    JsonWriter& null();
    JsonWriter& raw(std::string_view json);  // an already-serialized JSON value

    JsonWriter& string_or_null(const std::optional<std::string>& value);
    // A uint64 id written as a JSON string of digits (conversation and message ids).
    JsonWriter& id_string(std::uint64_t value);

    template <typename T>
    JsonWriter& field(std::string_view name, const T& value) {
        key(name);
        return put(value);
    }

  private:
    JsonWriter& put(std::string_view v) { return string(v); }
    JsonWriter& put(const std::string& v) { return string(v); }
    JsonWriter& put(const char* v) { return string(v); }
    JsonWriter& put(const std::optional<std::string>& v) { return string_or_null(v); }
    JsonWriter& put(bool v) { return boolean(v); }
    JsonWriter& put(int v) { return integer(v); }
    JsonWriter& put(long v) { return integer(v); }
    JsonWriter& put(long long v) { return integer(v); }
    JsonWriter& put(unsigned v) { return uinteger(v); }
    JsonWriter& put(unsigned long v) { return uinteger(v); }
    JsonWriter& put(unsigned long long v) { return uinteger(v); }
    JsonWriter& put(double v) { return number(v); }

    void before_value();

    std::string& out_;
    // One bit per open container: does it already hold an element? 64 levels is far more than
    // any response we write.
    std::uint64_t has_element_ = 0;
    int depth_ = 0;
    bool after_key_ = false;
};

// Appends s as a JSON string literal (with quotes) to out.
void append_json_string(std::string& out, std::string_view s);

}  // namespace supportcrm
