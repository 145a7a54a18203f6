// Request body handling common to every operation with a body, exercised on
// POST /api/v1/customers (contract §4, §7): JSON object required, application/json required,
// size limit 1 MiB, an empty body is {}.
#include <string>
#include <vector>

#include "harness.h"

namespace {

using it::http;
using it::HttpResponse;
using it::Shop;

constexpr char kPath[] = "/api/v1/customers";
constexpr size_t kMaxBody = 1048576;

// A valid customer-create body of exactly `size` bytes (an ignored field pads it).
std::string body_of_size(size_t size) {
    const std::string head = "{\"email\":\"" + it::unique_email("big") + "\",\"pad\":\"";
    const std::string tail = "\"}";
    return head + std::string(size - head.size() - tail.size(), 'a') + tail;
}

// ---------------------------------------------------------------------------------------------
// 400 invalid_json.

TEST(RequestBody, MalformedJsonIs400InvalidJson) {
    const Shop shop = it::make_shop();
    const std::vector<std::string> bodies{
        "{",
        "}",
        "{\"email\":}",
        "{\"email\":\"a@example.test\"",
        "{'email':'a@example.test'}",
        "{email:\"a@example.test\"}",
        "{\"email\":\"a@example.test\",}",
        "{\"email\":\"unterminated}",
        "nul",
        "{\"email\":\"a@example.test\"} trailing",
        "{\"a\":1}{\"b\":2}",
        "{\"storefront_id\":NaN,\"email\":\"a@example.test\"}",
        "{\"storefront_id\":0x10,\"email\":\"a@example.test\"}",
        "{\"email\":\"a\\qb@example.test\"}",
        "\xef\xbb\xbf\xef\xbb\xbf{}",
    };
    for (const std::string& b : bodies) {
        EXPECT_TRUE(
            it::is_error(it::post_raw(kPath, shop, b), 400, "invalid_json", "Invalid JSON body"));
    }
}

TEST(RequestBody, InvalidUtf8InAStringIs400NotA5xx) {
    const Shop shop = it::make_shop();
    const std::vector<std::string> bad_bytes{
        "\xff",              // never valid
        "\xc3\x28",          // broken two-byte sequence
        "\xc0\xaf",          // overlong '/'
        "\xed\xa0\x80",      // UTF-16 surrogate encoded in UTF-8
        "\xf4\x90\x80\x80",  // beyond U+10FFFF
        "\xe2\x82",          // truncated three-byte sequence
    };
    for (const std::string& bad : bad_bytes) {
        const std::string body =
            "{\"email\":\"" + it::unique_email() + "\",\"first_name\":\"a" + bad + "b\"}";
        EXPECT_TRUE(it::is_error(it::post_raw(kPath, shop, body), 400, "invalid_json",
                                 "Invalid JSON body"));
    }
}

TEST(RequestBody, LoneSurrogateEscapeIs400NotA5xx) {
    const Shop shop = it::make_shop();
    for (const char* esc : {"\\ud800", "\\udc00", "\\ud800x", "\\ud83d\\u0041"}) {
        const std::string body =
            "{\"email\":\"" + it::unique_email() + "\",\"first_name\":\"a" + esc + "b\"}";
        const HttpResponse r = it::post_raw(kPath, shop, body);
        EXPECT_TRUE(it::has_status(r, 400)) << "escape " << esc;
        EXPECT_FALSE(r.json()["success"].asBool()) << r.describe();
    }
}

// ---------------------------------------------------------------------------------------------
// 400 invalid_body.

TEST(RequestBody, JsonThatIsNotAnObjectIs400InvalidBody) {
    const Shop shop = it::make_shop();
    for (const std::string b : {"[1]", "[]", "\"x\"", "1", "-2.5", "true", "false", "null",
                                "[{\"email\":\"a@example.test\"}]"}) {
        EXPECT_TRUE(it::is_error(it::post_raw(kPath, shop, b), 400, "invalid_body",
                                 "Request body must be a JSON object"));
    }
}

TEST(RequestBody, SurroundingWhitespaceIsFine) {
    const Shop shop = it::make_shop();
    const std::string body = " \n\t{\"email\":\"" + it::unique_email() + "\"}\r\n ";
    EXPECT_TRUE(it::is_success(it::post_raw(kPath, shop, body), 201));
}

TEST(RequestBody, DeeplyNestedJsonIs400AndDoesNotHurtTheWorker) {
    const Shop shop = it::make_shop();
    for (const std::string& body :
         {std::string(200000, '['), std::string(100000, '[') + std::string(100000, ']'),
          "{\"email\":\"" + it::unique_email() + "\",\"a\":" + std::string(100000, '[') +
              std::string(100000, ']') + "}"}) {
        const HttpResponse r = it::post_raw(kPath, shop, body);
        EXPECT_LT(r.status, 500) << r.describe();
        if (r.status != 201) {
            EXPECT_TRUE(it::has_status(r, 400));
            const std::string code = r.json()["code"].asString();
            EXPECT_TRUE(code == "invalid_json" || code == "invalid_body") << r.describe();
        }
    }
    // The pool still answers.
    EXPECT_TRUE(it::is_success(
        it::post_json(kPath, shop, it::object({{"email", it::unique_email()}})), 201));
}

TEST(RequestBody, NumberOutOfDoubleRangeIsNotStoredAsInfinity) {
    const Shop shop = it::make_shop();
    for (const char* n : {"1e400", "-1e400"}) {
        const std::string body =
            "{\"email\":\"" + it::unique_email() + "\",\"storefront_id\":" + n + "}";
        const HttpResponse r = it::post_raw(kPath, shop, body);
        EXPECT_TRUE(r.status == 400 || r.status == 201) << r.describe();
        if (r.status == 201) {
            const std::string v = it::to_lower(r.json()["customer"]["storefront_id"].asString());
            EXPECT_EQ(v.find("inf"), std::string::npos) << r.describe();
        }
    }
}

TEST(RequestBody, ChunkedBodyIsRead) {
    const Shop shop = it::make_shop();
    const std::string email = it::unique_email();
    const HttpResponse r = http("POST", kPath,
                                {{"x-api-key", shop.key},
                                 {"Content-Type", "application/json"},
                                 {"Transfer-Encoding", "chunked"}},
                                "{\"email\":\"" + email + "\"}");
    ASSERT_TRUE(it::is_success(r, 201));
    EXPECT_EQ(r.json()["customer"]["email"], Json::Value(email));
}

// ---------------------------------------------------------------------------------------------
// Content-Type.

TEST(RequestBody, OtherContentTypeIs415) {
    const Shop shop = it::make_shop();
    const std::string body = "{\"email\":\"" + it::unique_email() + "\"}";
    for (const char* type :
         {"text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x",
          "application/xml", "text/json", "application/jsonx", "application/json-patch+json"}) {
        EXPECT_TRUE(it::is_error(it::post_raw(kPath, shop, body, type), 415,
                                 "unsupported_media_type", "Content-Type must be application/json"))
            << "Content-Type " << type;
    }
}

TEST(RequestBody, BodyWithoutContentTypeIs415) {
    const Shop shop = it::make_shop();
    const std::string body = "{\"email\":\"" + it::unique_email() + "\"}";
    const HttpResponse r = http("POST", kPath, it::key_header(shop), body);
    EXPECT_TRUE(
        it::is_error(r, 415, "unsupported_media_type", "Content-Type must be application/json"));
}

TEST(RequestBody, JsonWithCharsetIsAccepted) {
    const Shop shop = it::make_shop();
    for (const char* type : {"application/json; charset=utf-8", "application/json;charset=UTF-8",
                             "application/json"}) {
        const std::string body = "{\"email\":\"" + it::unique_email() + "\"}";
        EXPECT_TRUE(it::is_success(it::post_raw(kPath, shop, body, type), 201))
            << "Content-Type " << type;
    }
}

TEST(RequestBody, MediaTypeIsCaseInsensitive) {
    const Shop shop = it::make_shop();
    const std::string body = "{\"email\":\"" + it::unique_email() + "\"}";
    EXPECT_TRUE(it::is_success(it::post_raw(kPath, shop, body, "Application/JSON"), 201));
}

// ---------------------------------------------------------------------------------------------
// Empty body.

TEST(RequestBody, EmptyBodyIsAnEmptyObject) {
    const Shop shop = it::make_shop();
    const char* msg = "email or phone_number is required";
    // 0 bytes, with and without Content-Type.
    EXPECT_TRUE(it::is_error(http("POST", kPath, it::key_header(shop), std::string()), 400,
                             "validation_failed", msg));
    EXPECT_TRUE(it::is_error(it::post_raw(kPath, shop, ""), 400, "validation_failed", msg));
    // No body at all (no Content-Length).
    EXPECT_TRUE(
        it::is_error(http("POST", kPath, it::key_header(shop)), 400, "validation_failed", msg));
    EXPECT_TRUE(it::is_error(it::post_raw(kPath, shop, "{}"), 400, "validation_failed", msg));
}

// ---------------------------------------------------------------------------------------------
// Size limit (max-body-bytes, default 1 MiB).

TEST(RequestBody, BodyOfExactlyOneMebibyteIsAccepted) {
    const Shop shop = it::make_shop();
    const std::string body = body_of_size(kMaxBody);
    ASSERT_EQ(body.size(), kMaxBody);
    EXPECT_TRUE(it::is_success(it::post_raw(kPath, shop, body), 201));
}

TEST(RequestBody, BodyOverOneMebibyteIs413) {
    const Shop shop = it::make_shop();
    const std::string body = body_of_size(kMaxBody + 1);
    ASSERT_EQ(body.size(), kMaxBody + 1);
    EXPECT_TRUE(it::is_error(it::post_raw(kPath, shop, body), 413, "body_too_large",
                             "Request body too large"));
}

TEST(RequestBody, MuchLargerBodyIs413Json) {
    const Shop shop = it::make_shop();
    const std::string body = body_of_size(4 * kMaxBody);
    EXPECT_TRUE(it::is_error(it::post_raw(kPath, shop, body), 413, "body_too_large",
                             "Request body too large"));
}

TEST(RequestBody, OversizeBodyWins413OverItsContent) {
    const Shop shop = it::make_shop();
    // Invalid JSON and a wrong type: size is checked before parsing and before Content-Type.
    EXPECT_TRUE(it::is_error(it::post_raw(kPath, shop, std::string(kMaxBody + 1, '{')), 413,
                             "body_too_large", "Request body too large"));
}

TEST(RequestBody, NoCustomerIsCreatedFromAnOversizeBody) {
    const Shop shop = it::make_shop();
    const std::string body = body_of_size(kMaxBody + 1);
    ASSERT_TRUE(it::has_status(it::post_raw(kPath, shop, body), 413));
    it::Db db;
    EXPECT_EQ(
        db.count("SELECT COUNT(*) FROM customers WHERE shop_id = ?", {std::to_string(shop.id)}), 0);
}

}  // namespace
