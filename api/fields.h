// Reading typed fields out of a JSON request body, with the contract's messages
// ("<field> must be <type>", "<field> is too long"). The first failure is kept; once there is
// one, later reads return nothing, so a handler reads every field and checks ok() once.
#pragma once

#include <json/value.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/time_util.h"

namespace supportcrm {

constexpr std::size_t kShortText = 255;  // VARCHAR(255): emails, names, ids, channel, tags...
constexpr std::size_t kFullName = 511;
constexpr std::size_t kSubject = 1000;
// Tags a ticket or a comment carries at most, and items a tags member of a body may hold: the
// list is read, deduplicated and compared in linear time, but a client must not make a
// worker hold or write an unbounded list (issue 42: 90,000 tags took a worker 6 s).
constexpr std::size_t kMaxTags = 100;

class FieldReader {
  public:
    explicit FieldReader(const Json::Value& object) : object_(object) {}

    bool ok() const { return error_.empty(); }
    const std::string& error() const { return error_; }

    // Present and not null.
    bool present(const char* name) const;

    // A string of at most max_chars characters; absent or null gives nullopt.
    std::optional<std::string> string(const char* name, std::size_t max_chars);
    // A string bounded only by the body size limit.
    std::optional<std::string> text(const char* name);
    // A string or a number; numbers become their decimal text (integers keep every digit).
    std::optional<std::string> string_or_number(const char* name, std::size_t max_chars);
    // A JSON integer >= 0 or a string of digits. Digits beyond 64 bits give UINT64_MAX, which
    // no row has, so the lookup that follows answers "not found" as the contract wants.
    std::optional<std::uint64_t> id(const char* name);
    // A JSON integer literal (not 4.0) in [min, max]; message "<name> must be <what>".
    std::optional<std::int64_t> integer(const char* name, std::int64_t min, std::int64_t max,
                                        std::string_view what = "an integer");
    // A count in an INT column: "<name> must be a non-negative integer", and for an integer
    // past the column "<name> must be at most 2147483647".
    std::optional<std::int64_t> count32(const char* name);
    // An array of strings, each at most max_chars characters.
    std::optional<std::vector<std::string>> string_array(const char* name, std::size_t max_chars);
    // The same for tags: at most kMaxTags items ("<name>: at most 100"); with no_blank, an item
    // that is empty or only white space is refused ("<name> must not contain a blank tag": no
    // `tag=` filter could ever find it).
    std::optional<std::vector<std::string>> tag_array(const char* name, bool no_blank);
    // An ISO 8601 datetime with Z or an offset, or a bare date.
    std::optional<timeutil::Millis> datetime(const char* name);

    // Records "<name> is required" unless the field is present (and not null).
    void require(const char* name);

    void fail(std::string message);

  private:
    const Json::Value* get(const char* name) const;

    const Json::Value& object_;
    std::string error_;
};

// isOpenedTicket's rule: true for the boolean true or the string "true", false otherwise.
bool true_or_string_true(const Json::Value& v);

// isFromShop's rule: true, false, "true", "false"; null (absent) gives absent_value; anything
// else nullopt (a 400).
std::optional<bool> boolean_or_string(const Json::Value& v, bool absent_value);

// The exact text of v in the body it was parsed from: JSON the contract wants "stored and
// returned as given" (attachments) keeps its key order and number spelling.
std::string raw_json(const Json::Value& v, std::string_view body);

// ["a","b"] for the given strings.
std::string json_string_array(const std::vector<std::string>& items);

// Text of a JSON number as the contract wants it: integers with every digit, other numbers in
// their shortest round-trip form ("12.5").
std::string number_text(const Json::Value& number);

}  // namespace supportcrm
