// Hostile strings survive create and fetch byte for byte (SQL metacharacters, quotes,
// backslashes, NUL, control characters, 4-byte UTF-8, combining marks, markup), whether the
// client writes non-ASCII raw or as \u escapes.
#include <string>
#include <vector>

#include "harness.h"

namespace {

using it::HttpResponse;
using it::object;
using it::Shop;

const std::vector<std::string>& hostile_strings() {
    static const std::vector<std::string> s{
        "He said \"hi\"",
        "back\\slash \\\\ \\n \\u0041",
        "'; DROP TABLE customers; --",
        "Robert'); DROP TABLE shops;--",
        "\" OR \"1\"=\"1",
        "`id` = 1 /* comment */ # hash",
        "%s %n %x %%",
        "_%_%",
        "\xf0\x9f\x98\x80\xf0\x9f\x8e\x89 \xf0\x9f\x91\xa8\xe2\x80\x8d\xf0\x9f\x91\xa9\xe2\x80\x8d"
        "\xf0\x9f\x91\xa7",                                       // 😀🎉 and a ZWJ family
        "\xe5\xb1\xb1\xe7\x94\xb0\xe5\xa4\xaa\xe9\x83\x8e",       // 山田太郎
        "e\xcc\x81 n\xcc\x83 a\xcc\x8a\xcc\x81",                  // combining marks
        "\xd9\x85\xd8\xb1\xd8\xad\xd8\xa8\xd8\xa7 \xe2\x80\x8f",  // Arabic + RLM
        std::string("nul\0inside", 10),
        std::string("\0", 1),
        "line1\nline2\r\n\ttabbed\x01\x1f\x7f",
        "</script><script>alert(1)</script>",
        "<b>&amp;&lt;</b>",
        "\xe2\x80\xa8\xe2\x80\xa9",  // U+2028 U+2029
        "\xef\xbb\xbf"
        "bom",
        "\xf4\x8f\xbf\xbf",  // U+10FFFF
        "{\"json\":[\"inside\"]}",
    };
    return s;
}

// Creates a customer carrying `s` in every free-text field and checks both responses.
void expect_round_trip(const Shop& shop, const std::string& s, bool utf8) {
    SCOPED_TRACE("string " + it::to_json(Json::Value(s), false) +
                 (utf8 ? " (raw UTF-8)" : " (escaped)"));
    const Json::Value body = object({{"email", it::unique_email()},
                                     {"first_name", s},
                                     {"last_name", s},
                                     {"full_name", s},
                                     {"storefront_id", s},
                                     {"site_cms_id", s},
                                     {"social_a_user_id", s},
                                     {"social_b_user_id", s},
                                     {"messaging_id", s}});
    const HttpResponse r =
        it::http("POST", "/api/v1/customers", it::json_headers(shop), it::to_json(body, utf8));
    ASSERT_TRUE(it::is_success(r, 201));
    const Json::Value& created = r.json()["customer"];
    EXPECT_EQ(created["first_name"], Json::Value(s));
    EXPECT_EQ(created["last_name"], Json::Value(s));
    EXPECT_EQ(created["storefront_id"], Json::Value(s));

    const Json::Value c = it::fetch_customer(shop, created["id"].asInt64());
    for (const char* f : {"first_name", "last_name", "full_name", "storefront_id", "site_cms_id",
                          "social_a_user_id", "social_b_user_id", "messaging_id"}) {
        EXPECT_EQ(c[f], Json::Value(s)) << f;
    }
}

TEST(CustomersRoundTrip, HostileStringsSurviveExactlyWhenSentAsRawUtf8) {
    const Shop shop = it::make_shop();
    for (const std::string& s : hostile_strings()) {
        expect_round_trip(shop, s, true);
    }
}

TEST(CustomersRoundTrip, HostileStringsSurviveExactlyWhenSentEscaped) {
    const Shop shop = it::make_shop();
    for (const std::string& s : hostile_strings()) {
        expect_round_trip(shop, s, false);
    }
}

TEST(CustomersRoundTrip, EscapedSurrogatePairBecomesOneCharacter) {
    const Shop shop = it::make_shop();
    const std::string body =
        "{\"email\":\"" + it::unique_email() + "\",\"first_name\":\"\\ud83d\\ude00\\u00e9\"}";
    const HttpResponse r = it::post_raw("/api/v1/customers", shop, body);
    ASSERT_TRUE(it::is_success(r, 201));
    EXPECT_EQ(r.json()["customer"]["first_name"], Json::Value("\xf0\x9f\x98\x80\xc3\xa9"));
}

TEST(CustomersRoundTrip, HostileEmailAndPhoneRoundTripAndStillDeduplicate) {
    const Shop shop = it::make_shop();
    const std::string tag = it::unique_suffix();
    const std::string email = "o'brien+\"x\";--" + tag + "@\xe4\xbe\x8b\xe3\x81\x88.test";
    const std::string phone = "'; DROP TABLE customers; -- " + tag;
    const Json::Value created =
        it::create_customer(shop, object({{"email", email}, {"phone_number", phone}}));
    EXPECT_EQ(created["email"], Json::Value(email));
    EXPECT_EQ(created["phone_number"], Json::Value(phone));
    const Json::Value c = it::fetch_customer(shop, created["id"].asInt64());
    EXPECT_EQ(c["email"], Json::Value(email));
    EXPECT_EQ(c["phone_number"], Json::Value(phone));

    const HttpResponse by_email =
        it::post_json("/api/v1/customers", shop, object({{"email", email}}));
    ASSERT_TRUE(it::is_success(by_email, 200));
    EXPECT_EQ(by_email.json()["customer"]["id"], created["id"]);
    const HttpResponse by_phone =
        it::post_json("/api/v1/customers", shop, object({{"phone_number", phone}}));
    ASSERT_TRUE(it::is_success(by_phone, 200));
    EXPECT_EQ(by_phone.json()["customer"]["id"], created["id"]);
}

TEST(CustomersRoundTrip, NulInsideEmailIsNotTruncatedForDuplicateDetection) {
    const Shop shop = it::make_shop();
    const std::string base = it::unique_email();
    const Json::Value plain = it::create_customer(shop, object({{"email", base}}));
    const std::string with_nul = base + std::string("\0x", 2);
    const HttpResponse r = it::post_json("/api/v1/customers", shop, object({{"email", with_nul}}));
    ASSERT_TRUE(it::is_success(r, 201)) << "an email with a NUL must not match the one before it";
    EXPECT_NE(r.json()["customer"]["id"], plain["id"]);
    EXPECT_EQ(r.json()["customer"]["email"], Json::Value(with_nul));
}

TEST(CustomersRoundTrip, TablesSurviveInjectionAttempts) {
    const Shop shop = it::make_shop();
    for (const std::string s : {"x'); DELETE FROM customers; --", "x\\'; DROP TABLE shops; --",
                                "1 OR 1=1", "'; TRUNCATE customers; #"}) {
        it::create_customer(shop, object({{"email", it::unique_email()}, {"first_name", s}}));
    }
    const Json::Value c = it::create_customer(shop, object({{"email", it::unique_email()}}));
    EXPECT_TRUE(it::is_success(it::get("/api/v1/customers/" + c["id"].asString(), shop), 200));
    it::Db db;
    EXPECT_EQ(
        db.count("SELECT COUNT(*) FROM customers WHERE shop_id = ?", {std::to_string(shop.id)}), 5);
}

}  // namespace
