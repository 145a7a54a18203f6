#include "handlers/json_writer.h"

#include <gtest/gtest.h>

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
