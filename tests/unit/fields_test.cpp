#include "api/fields.h"

#include <gtest/gtest.h>

#include "common/strict_json.h"

using namespace supportcrm;

namespace {

Json::Value parse(const std::string& text) {
    Json::Value v;
    EXPECT_TRUE(strict_json::parse(text, v)) << text;
    return v;
}

}  // namespace

TEST(FieldReader, AbsentAndNullStringsAreNullopt) {
    Json::Value body = parse(R"({"a":null})");
    FieldReader f(body);
    EXPECT_FALSE(f.string("a", 10));
    EXPECT_FALSE(f.string("missing", 10));
    EXPECT_TRUE(f.ok());
}

TEST(FieldReader, WrongTypeNamesTheField) {
    Json::Value body = parse(R"({"email":5})");
    FieldReader f(body);
    f.string("email", 255);
    EXPECT_EQ(f.error(), "email must be a string");
}

TEST(FieldReader, FirstErrorWins) {
    Json::Value body = parse(R"({"a":1,"b":2})");
    FieldReader f(body);
    f.string("a", 5);
    f.string("b", 5);
    EXPECT_EQ(f.error(), "a must be a string");
}

TEST(FieldReader, LengthIsCountedInCharacters) {
    std::string e255, e256;
    for (int i = 0; i < 255; ++i) {
        e255 += "\xc3\xa9";
    }
    e256 = e255 + "x";
    Json::Value body;
    body["ok"] = e255;
    body["long"] = e256;
    FieldReader f(body);
    EXPECT_EQ(f.string("ok", 255), e255);
    EXPECT_TRUE(f.ok());
    f.string("long", 255);
    EXPECT_EQ(f.error(), "long is too long");
}

TEST(FieldReader, NumbersBecomeTheirDecimalText) {
    Json::Value body = parse(R"({"a":12345678901234567890,"b":12.5,"c":-7,"d":"x1","e":true})");
    FieldReader f(body);
    EXPECT_EQ(f.string_or_number("a", 255), "12345678901234567890");
    EXPECT_EQ(f.string_or_number("b", 255), "12.5");
    EXPECT_EQ(f.string_or_number("c", 255), "-7");
    EXPECT_EQ(f.string_or_number("d", 255), "x1");
    f.string_or_number("e", 255);
    EXPECT_EQ(f.error(), "e must be a string or number");
}

TEST(FieldReader, IdsAreIntegersOrDigitStrings) {
    Json::Value body = parse(
        R"({"a":42,"b":"42","c":"99999999999999999999999","d":"4x","e":-1,"f":1.5,"g":99999999999999999999999,"h":7.0})");
    FieldReader f(body);
    EXPECT_EQ(f.id("a"), 42u);
    EXPECT_EQ(f.id("b"), 42u);
    EXPECT_EQ(f.id("c"), UINT64_MAX);  // beyond 64 bits: no such row
    EXPECT_EQ(f.id("g"), UINT64_MAX);
    EXPECT_TRUE(f.ok());
    for (const char* bad : {"d", "e", "f", "h"}) {
        FieldReader g(body);
        g.id(bad);
        EXPECT_EQ(g.error(), std::string(bad) + " must be an integer");
    }
}

TEST(FieldReader, IntegersMustBeIntegerLiterals) {
    Json::Value body = parse(R"({"a":4,"b":4.0,"c":"4","d":9})");
    EXPECT_EQ(FieldReader(body).integer("a", 1, 5), 4);
    for (const char* bad : {"b", "c", "d"}) {
        FieldReader f(body);
        f.integer(bad, 1, 5, "an integer between 1 and 5");
        EXPECT_EQ(f.error(), std::string(bad) + " must be an integer between 1 and 5");
    }
}

TEST(FieldReader, StringArrays) {
    Json::Value body = parse(R"({"ok":["a","b"],"mixed":["a",1],"notarray":"a"})");
    FieldReader f(body);
    EXPECT_EQ(f.string_array("ok", 255), (std::vector<std::string>{"a", "b"}));
    f.string_array("mixed", 255);
    EXPECT_EQ(f.error(), "mixed must be an array of strings");
    FieldReader g(body);
    g.string_array("notarray", 255);
    EXPECT_EQ(g.error(), "notarray must be an array of strings");
}

TEST(FieldReader, DatetimesNeedAZone) {
    Json::Value body = parse(R"({"a":"2026-01-01T10:00:00+02:00","b":"2026-01-01T10:00:00"})");
    FieldReader f(body);
    EXPECT_EQ(timeutil::format_iso(*f.datetime("a")), "2026-01-01T08:00:00.000Z");
    f.datetime("b");
    EXPECT_EQ(f.error(), "b must be an ISO 8601 datetime");
}

TEST(FieldReader, RequireTreatsNullAsMissing) {
    Json::Value body = parse(R"({"customerId":null})");
    FieldReader f(body);
    f.require("customerId");
    EXPECT_EQ(f.error(), "customerId is required");
}

TEST(FieldRules, IsOpenedTicketIsTrueOnlyForTrueOrStringTrue) {
    EXPECT_TRUE(true_or_string_true(Json::Value(true)));
    EXPECT_TRUE(true_or_string_true(Json::Value("true")));
    EXPECT_FALSE(true_or_string_true(Json::Value("TRUE")));
    EXPECT_FALSE(true_or_string_true(Json::Value(1)));
    EXPECT_FALSE(true_or_string_true(Json::Value()));
    EXPECT_FALSE(true_or_string_true(Json::Value(false)));
}

TEST(FieldRules, IsFromShopAcceptsBooleansAndTheirStrings) {
    EXPECT_EQ(boolean_or_string(Json::Value(), true), true);
    EXPECT_EQ(boolean_or_string(Json::Value(false), true), false);
    EXPECT_EQ(boolean_or_string(Json::Value("false"), true), false);
    EXPECT_EQ(boolean_or_string(Json::Value("true"), true), true);
    EXPECT_FALSE(boolean_or_string(Json::Value("no"), true));
    EXPECT_FALSE(boolean_or_string(Json::Value(0), true));
}

TEST(FieldRules, RawJsonKeepsTheTextAsGiven) {
    std::string body = R"({"att" : {"b":1, "a":[1.50]} })";
    Json::Value v = parse(body);
    EXPECT_EQ(raw_json(v["att"], body), R"({"b":1, "a":[1.50]})");
}

// A body that starts with a byte-order mark: the value is sliced from the bytes that were read,
// not three bytes off (the stored text used to begin mid-token).
TEST(FieldRules, RawJsonAfterAByteOrderMarkIsTheValueItself) {
    std::string body =
        "\xEF\xBB\xBF"
        R"({"graphNodes":{"node":"ab"},"nodeIds":[1, 2]})";
    Json::Value v = parse(body);
    EXPECT_EQ(raw_json(v["graphNodes"], body), R"({"node":"ab"})");
    EXPECT_EQ(raw_json(v["nodeIds"], body), "[1, 2]");
}
