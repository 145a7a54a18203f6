#include "common/strict_json.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "tests/json_corpus.h"

using namespace supportcrm;

namespace {

bool accepts(const std::string& text) {
    return strict_json::valid(text);
}

Json::Value parsed(const std::string& text) {
    Json::Value v;
    EXPECT_TRUE(strict_json::parse(text, v)) << text;
    return v;
}

}  // namespace

// Every example of extensions.md §E1's list, and the ones found on the service before it
// had this reader (jsoncpp's strictMode accepted each of them).
TEST(StrictJson, RefusesWhatE1Lists) {
    for (const char* text : {
             R"({"a":01})",
             R"({"a":-01})",
             R"({"a":-})",
             R"({"a":1.})",
             R"({"a":.5})",
             R"({"a":+1})",
             R"({"a":0x1F})",
             R"({"a":1}//c)",
             R"({/*c*/"a":1})",
             R"({'a':1})",
             R"({"a":[1,]})",
             R"({"a":1,})",
             R"({a:1})",
             "{\"a\":\"x\ty\"}",
             "{\"a\":\"\x01\"}",
             "{\"a\":\"\xC0\xAF\"}",
             "{\"a\":\"\xED\xA0\x80\"}",
             "{\"a\":\"\xFF\"}",
             R"({"a":"\ud800"})",
             R"({"a":"\udc00"})",
             R"({"a":"\ud83d\u0041"})",
             R"({"a":NaN})",
             R"({"a":Infinity})",
             R"({"a":-Infinity})",
             R"({"a":1e400})",
             R"({"a":-1e400})",
             R"({"a":1,"a":2})",
             R"({"a":1} x)",
             R"({"a":1}{})",
             R"({"text":"x","attachments":[01,-,1.]})",
             "",
             "\xEF\xBB\xBF",
             "\xEF\xBB\xBF\xEF\xBB\xBF{}",
             R"({"a":"\x"})",
             R"({"a":"\u12"})",
             R"({"a":tru})",
         }) {
        EXPECT_FALSE(accepts(text)) << text;
    }
}

TEST(StrictJson, AcceptsTheRfcGrammar) {
    for (const char* text : {
             R"({})",
             R"([])",
             R"(0)",
             R"(-0)",
             R"(1.5e+10)",
             R"(1E-2)",
             R"(-0.0)",
             R"("\u0000")",
             R"("\/\b\f\n\r\t\"\\")",
             " \t\r\n{} \n",
             "\xEF\xBB\xBF{}",
             R"({"a":[true,false,null,{"b":"c"}]})",
             R"("\ud83d\ude00")",
             "\"\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80\"",
             R"(1e-400)",
         }) {
        EXPECT_TRUE(accepts(text)) << text;
    }
}

TEST(StrictJson, IntegersKeepTheirTypeLikeJsoncpp) {
    EXPECT_EQ(parsed("9223372036854775807").type(), Json::intValue);
    EXPECT_EQ(parsed("9223372036854775808").type(), Json::uintValue);
    EXPECT_EQ(parsed("18446744073709551615").asLargestUInt(), UINT64_MAX);
    EXPECT_EQ(parsed("-9223372036854775808").asLargestInt(), INT64_MIN);
    // Beyond 64 bits an integer literal is a double, as with jsoncpp (fields.h relies on it).
    EXPECT_EQ(parsed("18446744073709551616").type(), Json::realValue);
    EXPECT_EQ(parsed("-9223372036854775809").type(), Json::realValue);
    EXPECT_EQ(parsed("4.0").type(), Json::realValue);
    EXPECT_EQ(parsed("1e2").type(), Json::realValue);
    EXPECT_DOUBLE_EQ(parsed("12.5").asDouble(), 12.5);
    EXPECT_EQ(parsed("-0").asLargestInt(), 0);
}

TEST(StrictJson, StringsAreDecoded) {
    EXPECT_EQ(parsed(R"("a\"b\\c\/d\u00e9")").asString(), "a\"b\\c/d\xC3\xA9");
    EXPECT_EQ(parsed(R"("\ud83d\ude00")").asString(), "\xF0\x9F\x98\x80");
    EXPECT_EQ(parsed(R"("x\u0000y")").asString(), std::string("x\0y", 3));
    Json::Value o = parsed(R"({"a\u0000b":1})");
    EXPECT_NE(o.find("a\0b", "a\0b" + 3), nullptr);
}

TEST(StrictJson, OffsetsAreIntoTheTextAsGivenWithItsByteOrderMark) {
    const std::string text = "\xEF\xBB\xBF {\"g\" : [1, {\"x\":2}] }";
    Json::Value v = parsed(text);
    const Json::Value& g = v["g"];
    EXPECT_EQ(text.substr(static_cast<std::size_t>(g.getOffsetStart()),
                          static_cast<std::size_t>(g.getOffsetLimit() - g.getOffsetStart())),
              R"([1, {"x":2}])");
    EXPECT_EQ(v.getOffsetStart(), 4);
}

TEST(StrictJson, NestingIsBounded) {
    std::string ok(static_cast<std::size_t>(strict_json::kMaxDepth), '[');
    ok.append(static_cast<std::size_t>(strict_json::kMaxDepth), ']');
    EXPECT_TRUE(accepts(ok));
    std::string deep = "[" + ok + "]";
    EXPECT_FALSE(accepts(deep));
    // Far deeper than any stack would survive without the bound.
    EXPECT_FALSE(accepts(std::string(1'000'000, '[')));
}

TEST(StrictJson, FailureLeavesNull) {
    Json::Value v(Json::objectValue);
    v["x"] = 1;
    EXPECT_FALSE(strict_json::parse(R"({"a":[1,)", v));
    EXPECT_TRUE(v.isNull());
}

// nst/JSONTestSuite as extensions.md §E1 reads it: y_ accepted (but the two duplicate-name
// files), n_ refused, i_ either way — and never a crash.
TEST(StrictJson, JsonTestSuiteCorpus) {
    const std::vector<corpus::Case> cases = corpus::load();
    ASSERT_EQ(cases.size(), 318u) << "corpus at " << corpus::directory();
    int accepted_i = 0;
    for (const corpus::Case& c : cases) {
        const bool ok = accepts(c.body);
        switch (c.expect) {
            case corpus::Expect::accept:
                EXPECT_TRUE(ok) << c.name;
                break;
            case corpus::Expect::refuse:
                EXPECT_FALSE(ok) << c.name;
                break;
            case corpus::Expect::either:
                accepted_i += ok;
                std::printf("%s: %s\n", c.name.c_str(), ok ? "accepted" : "refused");
                break;
        }
    }
    std::printf("i_ files accepted: %d\n", accepted_i);
}
