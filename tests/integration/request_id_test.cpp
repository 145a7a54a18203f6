// X-Request-Id (contract §6): every response carries one, the client's own when it sent one;
// the request's log line carries it too. Keys never reach the log (contract §2).
#include <cctype>
#include <optional>
#include <string>
#include <vector>

#include "harness.h"

namespace {

using it::Headers;
using it::http;
using it::HttpResponse;

std::string request_id(const HttpResponse& r) {
    return r.header("x-request-id").value_or("");
}

TEST(RequestId, GeneratedWhenTheRequestHasNone) {
    const it::Shop shop = it::make_shop();
    Json::Value body;
    body["email"] = it::unique_email();
    const std::vector<HttpResponse> responses{
        http("GET", "/healthz"),
        it::post_json("/api/v1/customers", shop, body),                    // 201
        it::get("/api/v1/customers/0", shop),                              // 404
        http("GET", "/api/v1/customers/1"),                                // 401
        http("GET", "/api/v1/no-such-route"),                              // 404 route
        http("DELETE", "/api/v1/customers"),                               // 405
        it::post_raw("/api/v1/customers", shop, "{", "application/json"),  // 400
    };
    for (const HttpResponse& r : responses) {
        EXPECT_FALSE(request_id(r).empty()) << "no X-Request-Id: " << r.describe();
    }
}

TEST(RequestId, GeneratedIdsDifferBetweenRequests) {
    const std::string a = request_id(http("GET", "/api/v1/customers/1"));
    const std::string b = request_id(http("GET", "/api/v1/customers/1"));
    ASSERT_FALSE(a.empty());
    EXPECT_NE(a, b);
}

TEST(RequestId, EchoedOnSuccess) {
    const it::Shop shop = it::make_shop();
    const std::string id = "abc-123-" + it::unique_suffix();
    Json::Value body;
    body["email"] = it::unique_email();
    const HttpResponse r =
        http("POST", "/api/v1/customers",
             {{"x-api-key", shop.key}, {"Content-Type", "application/json"}, {"X-Request-Id", id}},
             it::to_json(body));
    ASSERT_TRUE(it::is_success(r, 201));
    EXPECT_EQ(request_id(r), id);
}

TEST(RequestId, EchoedOnErrors) {
    const it::Shop shop = it::make_shop();
    struct Case {
        std::string method;
        std::string path;
        bool with_key;
        std::optional<std::string> body;
        long status;
    };
    const std::vector<Case> cases{
        {"GET", "/api/v1/customers/1", false, std::nullopt, 401},
        {"GET", "/api/v1/no-such-route", false, std::nullopt, 404},
        {"DELETE", "/api/v1/customers", true, std::nullopt, 405},
        {"GET", "/api/v1/customers/abc", true, std::nullopt, 400},
        {"GET", "/api/v1/customers/0", true, std::nullopt, 404},
        {"POST", "/api/v1/customers", true, std::string("{"), 400},
        // 413 from the application (over max-body-bytes) and from nginx (over its backstop).
        {"POST", "/api/v1/customers", true, std::string(1048577, ' '), 413},
        {"POST", "/api/v1/customers", true, std::string(4 * 1048576, ' '), 413},
    };
    for (const Case& c : cases) {
        const std::string id = "abc-123-" + it::unique_suffix();
        Headers h{{"X-Request-Id", id}};
        if (c.with_key) {
            h.emplace_back("x-api-key", shop.key);
        }
        if (c.body) {
            h.emplace_back("Content-Type", "application/json");
        }
        const HttpResponse r = http(c.method, c.path, h, c.body);
        EXPECT_TRUE(it::has_status(r, c.status));
        EXPECT_EQ(request_id(r), id) << r.describe();
    }
}

TEST(RequestId, EchoedOnHealthz) {
    const std::string id = "health-" + it::unique_suffix();
    const HttpResponse r = http("GET", "/healthz", {{"X-Request-Id", id}});
    EXPECT_TRUE(it::has_status(r, 200));
    EXPECT_EQ(request_id(r), id);
}

TEST(RequestId, AnOverlongIdStillGetsAnAnswerWithSomeId) {
    const HttpResponse r =
        http("GET", "/api/v1/customers/1", {{"X-Request-Id", std::string(2000, 'r')}});
    EXPECT_TRUE(it::is_error(r, 401, "missing_api_key", "API key is required"));
}

TEST(RequestId, WrittenToTheFcgiLog) {
    const it::Shop shop = it::make_shop();
    const std::string ok_id = "it-log-ok-" + it::unique_suffix();
    const std::string err_id = "it-log-err-" + it::unique_suffix();
    Json::Value body;
    body["email"] = it::unique_email();
    EXPECT_TRUE(it::is_success(http("POST", "/api/v1/customers",
                                    {{"x-api-key", shop.key},
                                     {"Content-Type", "application/json"},
                                     {"X-Request-Id", ok_id}},
                                    it::to_json(body)),
                               201));
    EXPECT_TRUE(it::has_status(
        http("GET", "/api/v1/customers/0", {{"x-api-key", shop.key}, {"X-Request-Id", err_id}}),
        404));
    EXPECT_TRUE(it::wait_for_log(ok_id))
        << "request id " << ok_id << " not found in " << it::env().fcgi_log;
    EXPECT_TRUE(it::wait_for_log(err_id))
        << "request id " << err_id << " not found in " << it::env().fcgi_log;
}

TEST(RequestId, ApiKeysNeverReachTheLog) {
    const it::Shop shop = it::make_shop();
    const std::string bogus_key = "bogus-key-" + it::unique_suffix();
    const std::string last_id = "it-nokey-" + it::unique_suffix();
    Json::Value body;
    body["email"] = it::unique_email();
    it::post_json("/api/v1/customers", shop, body);
    http("GET", "/api/v1/customers/0", {{"Authorization", "Bearer " + shop.key}});
    http("POST", "/api/v1/customers", {{"x-api-key", shop.key}, {"Content-Type", "text/plain"}},
         "x");
    http("GET", "/api/v1/customers/1", {{"x-api-key", bogus_key}});
    http("GET", "/api/v1/customers/1", {{"Authorization", "Bearer " + bogus_key}});
    http("GET", "/api/v1/customers/abc", {{"x-api-key", shop.key}, {"X-Request-Id", last_id}});
    // The last request is in the log, so the ones before it are too.
    ASSERT_TRUE(it::wait_for_log(last_id))
        << "request id " << last_id << " not found in " << it::env().fcgi_log;
    const std::string log = it::read_fcgi_log();
    EXPECT_EQ(log.find(shop.key), std::string::npos) << "a valid API key is in the log";
    const std::string digest = it::sha256_hex(shop.key);
    std::string digest_upper = digest;
    for (char& ch : digest_upper) {
        ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    }
    EXPECT_EQ(log.find(digest), std::string::npos)
        << "the SHA-256 of a valid API key is in the log";
    EXPECT_EQ(log.find(digest_upper), std::string::npos)
        << "the SHA-256 of a valid API key is in the log";
    EXPECT_EQ(log.find(bogus_key), std::string::npos) << "a rejected API key is in the log";
}

}  // namespace
