#include "common/json_writer.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <string_view>

using supportcrm::JsonWriter;

TEST(JsonWriter, NestedObjectsAndArraysGetCommasRight) {
    std::string out;
    JsonWriter w(out);
    w.begin_object().field("a", 1).key("b").begin_array().integer(1).string("x").null().end_array();
    w.key("c").begin_object().end_object().field("d", true).end_object();
    EXPECT_EQ(out, R"({"a":1,"b":[1,"x",null],"c":{},"d":true})");
}

TEST(JsonWriter, EscapesQuotesBackslashesAndControlCharacters) {
    std::string out;
    JsonWriter(out).string(std::string("q\"b\\n\n\x01\0z", 9));
    EXPECT_EQ(out, R"("q\"b\\n\n\u0001\u0000z")");
}

TEST(JsonWriter, Utf8PassesThroughUnchanged) {
    std::string out;
    JsonWriter(out).string("caf\xc3\xa9 \xf0\x9f\x98\x80 </script>");
    EXPECT_EQ(out, "\"caf\xc3\xa9 \xf0\x9f\x98\x80 </script>\"");
}

TEST(JsonWriter, NumbersInShortestRoundTripForm) {
    std::string out;
    JsonWriter w(out);
    w.begin_array().number(4.33).number(12.5).number(4.0).number(0.1).uinteger(UINT64_MAX);
    w.id_string(9007199254740993ULL).end_array();
    EXPECT_EQ(out, R"([4.33,12.5,4,0.1,18446744073709551615,"9007199254740993"])");
}

TEST(JsonWriter, RawValuesAreSplicedAsGiven) {
    std::string out;
    JsonWriter w(out);
    w.begin_object().key("attachments").raw(R"([{"n":3.14159}])").field("x", "y").end_object();
    EXPECT_EQ(out, R"({"attachments":[{"n":3.14159}],"x":"y"})");
}

TEST(JsonWriter, OptionalStringsBecomeNull) {
    std::string out;
    JsonWriter w(out);
    w.begin_object()
        .field("a", std::optional<std::string>())
        .field("b", std::optional<std::string>("v"));
    w.end_object();
    EXPECT_EQ(out, R"({"a":null,"b":"v"})");
}

namespace {

// The plain definition the fast path must agree with: one byte at a time.
std::string escaped_bytewise(std::string_view s) {
    static const char kHex[] = "0123456789abcdef";
    std::string out = "\"";
    for (char ch : s) {
        auto c = static_cast<unsigned char>(ch);
        switch (c) {
            case '"':
                out += "\\\"";
                break;
            case '\\':
                out += "\\\\";
                break;
            case '\n':
                out += "\\n";
                break;
            case '\r':
                out += "\\r";
                break;
            case '\t':
                out += "\\t";
                break;
            case '\b':
                out += "\\b";
                break;
            case '\f':
                out += "\\f";
                break;
            default:
                if (c < 0x20) {
                    out += "\\u00";
                    out += kHex[c >> 4];
                    out += kHex[c & 0xF];
                } else {
                    out += ch;
                }
        }
    }
    return out + "\"";
}

}  // namespace

// Every byte value that matters, at every offset of an 8-byte word and at the end of texts of
// every length up to 40, among plain ASCII and UTF-8 bytes (0x80 and above must never count as
// special, nor hide a special byte next to them).
TEST(JsonWriter, WordAtATimeEscapingMatchesBytewiseEscaping) {
    const unsigned char kSpecial[] = {0x00, 0x01, 0x08, 0x0a, 0x1f, 0x20, 0x21, '"',
                                      '\\', 0x5b, 0x5d, 0x7f, 0x80, 0xa2, 0xdf, 0xff};
    for (std::size_t len = 0; len <= 40; ++len) {
        for (const char* filler : {"abcdefgh", "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80"}) {
            std::string base;
            for (std::size_t i = 0; i < len; ++i) {
                base += filler[i % std::strlen(filler)];
            }
            for (std::size_t pos = 0; pos < len; ++pos) {
                for (unsigned char special : kSpecial) {
                    std::string text = base;
                    text[pos] = static_cast<char>(special);
                    std::string out;
                    supportcrm::append_json_string(out, text);
                    ASSERT_EQ(out, escaped_bytewise(text))
                        << "len " << len << " pos " << pos << " byte " << int(special);
                }
            }
            std::string out;
            supportcrm::append_json_string(out, base);
            ASSERT_EQ(out, escaped_bytewise(base));
        }
    }
}
