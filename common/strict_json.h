// RFC 8259 JSON text, read strictly (extensions.md §E1). jsoncpp's own reader is lenient in ways
// its strictMode() does not switch off (leading zeros, "-", "1.", raw control characters,
// overlong UTF-8, unpaired surrogates), and what it accepts was stored and later served to
// clients that could not read it back. This reader accepts exactly the RFC's grammar, plus
// the rules the contract adds: UTF-8 only, no duplicate member names, numbers within the
// double range, nesting within kMaxDepth.
#pragma once

#include <json/value.h>

#include <cstddef>
#include <string_view>

namespace supportcrm::strict_json {

// Arrays and objects nested deeper than this are refused (the recursion is bounded).
constexpr int kMaxDepth = 256;

// Parses text into out; false when text is not one JSON value (with surrounding white space),
// and out is then null (nothing of a partial parse is left in it).
// One UTF-8 byte-order mark at the very start is skipped (RFC 8259 §8.1). Every value's offsets
// (Json::Value::getOffsetStart/Limit) are byte offsets into text itself, BOM included, so the
// exact text of a value can be sliced from the bytes that were read.
// Integer literals become intValue (within int64) or uintValue (above INT64_MAX, within
// uint64), like jsoncpp's reader; other numbers become realValue.
bool parse(std::string_view text, Json::Value& out);

// True when text is a JSON text parse() accepts (nothing kept).
bool valid(std::string_view text);

}  // namespace supportcrm::strict_json
