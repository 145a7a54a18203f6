// Authentication and the shop of the key (api-v1 "Authentication", contract §2, §4, §7):
// x-api-key or Authorization: Bearer; x-api-key wins; 401 missing/invalid; revoked keys and
// deleted shops stop working at once; order of checks route -> key -> shop -> id -> body.
#include <cctype>
#include <optional>
#include <string>
#include <vector>

#include "harness.h"

namespace {

using it::Headers;
using it::http;
using it::HttpResponse;
using it::Shop;

constexpr std::string_view kMissing = "API key is required";
constexpr std::string_view kInvalid = "Invalid API key";

// One request per existing route (method + path that the route table knows), with a body
// where the route takes one. Used to check that auth guards every operation. The ticket,
// comment and CSAT operations are separate so that their tests name what they need.
struct RouteCall {
    std::string method;
    std::string path;
    std::optional<std::string> body;
};

std::vector<RouteCall> customer_routes() {
    return {
        {"POST", "/api/v1/customers", std::string(R"({"email":"a@example.test"})")},
        {"GET", "/api/v1/customers/1", std::nullopt},
    };
}

std::vector<RouteCall> ticket_and_csat_routes() {
    return {
        {"POST", "/api/v1/tickets", std::string(R"({"customerId":1,"Channel":"Mail"})")},
        {"GET", "/api/v1/tickets/1", std::nullopt},
        {"GET", "/api/v1/tickets/1/comments", std::nullopt},
        {"POST", "/api/v1/tickets/1/comments", std::string(R"({"text":"hi"})")},
        {"GET", "/api/v1/csat", std::nullopt},
        {"POST", "/api/v1/csat", std::string(R"({"conversationId":"1","mark":5})")},
    };
}

HttpResponse call(const RouteCall& c, Headers h) {
    if (c.body) {
        h.emplace_back("Content-Type", "application/json");
    }
    return http(c.method, c.path, h, c.body);
}

Json::Value customer_body() {
    Json::Value b;
    b["email"] = it::unique_email();
    return b;
}

HttpResponse create_with(const Headers& auth) {
    Headers h = auth;
    h.emplace_back("Content-Type", "application/json");
    return http("POST", "/api/v1/customers", h, it::to_json(customer_body()));
}

// ---------------------------------------------------------------------------------------------
// Missing key.

void expect_missing_key_answers(const std::vector<RouteCall>& routes) {
    for (const RouteCall& c : routes) {
        const HttpResponse r = call(c, {});
        EXPECT_TRUE(it::is_error(r, 401, "missing_api_key", kMissing));
        const std::string v = r.header("www-authenticate").value_or("");
        EXPECT_TRUE(it::starts_with(it::to_lower(v), "bearer"))
            << "WWW-Authenticate is \"" << v << "\" for " << r.describe();
    }
}

TEST(Auth, MissingKeyIs401WithWwwAuthenticateOnCustomerRoutes) {
    expect_missing_key_answers(customer_routes());
}

TEST(Auth, MissingKeyIs401WithWwwAuthenticateOnTicketAndCsatRoutes) {
    expect_missing_key_answers(ticket_and_csat_routes());
}

TEST(Auth, AuthorizationWithAnotherSchemeCountsAsMissing) {
    const Shop shop = it::make_shop();
    const HttpResponse r =
        http("GET", "/api/v1/customers/1", {{"Authorization", "Basic " + shop.key}});
    EXPECT_TRUE(it::is_error(r, 401, "missing_api_key", kMissing));
}

TEST(Auth, EmptyKeyHeadersAreRejectedWith401) {
    const std::vector<Headers> variants{
        {{"x-api-key", ""}},
        {{"Authorization", "Bearer"}},
        {{"Authorization", "Bearer "}},
        {{"Authorization", ""}},
    };
    for (const Headers& h : variants) {
        const HttpResponse r = http("GET", "/api/v1/customers/1", h);
        ASSERT_TRUE(it::has_status(r, 401));
        const std::string code = r.json()["code"].asString();
        EXPECT_TRUE(code == "missing_api_key" || code == "invalid_api_key") << r.describe();
    }
}

// ---------------------------------------------------------------------------------------------
// Invalid key.

void expect_invalid_key_answers(const std::vector<RouteCall>& routes) {
    for (const RouteCall& c : routes) {
        const HttpResponse r = call(c, {{"x-api-key", "no-such-key-" + it::unique_suffix()}});
        EXPECT_TRUE(it::is_error(r, 401, "invalid_api_key", kInvalid));
    }
}

TEST(Auth, UnknownXApiKeyIs401InvalidOnCustomerRoutes) {
    expect_invalid_key_answers(customer_routes());
}

TEST(Auth, UnknownXApiKeyIs401InvalidOnTicketAndCsatRoutes) {
    expect_invalid_key_answers(ticket_and_csat_routes());
}

TEST(Auth, UnknownBearerKeyIs401Invalid) {
    const HttpResponse r = http("GET", "/api/v1/customers/1",
                                {{"Authorization", "Bearer no-such-key-" + it::unique_suffix()}});
    EXPECT_TRUE(it::is_error(r, 401, "invalid_api_key", kInvalid));
}

TEST(Auth, KeyWithHostileCharactersIs401Invalid) {
    for (const std::string& k :
         {std::string("' OR '1'='1"), std::string("%00"), std::string(5000, 'k'),
          std::string("\xff\xfe"), std::string("key with spaces")}) {
        const HttpResponse r = http("GET", "/api/v1/customers/1", {{"x-api-key", k}});
        EXPECT_TRUE(it::is_error(r, 401, "invalid_api_key", kInvalid));
    }
}

TEST(Auth, KeyIsCaseSensitive) {
    const Shop shop = it::make_shop();
    std::string flipped = shop.key;
    bool changed = false;
    for (char& ch : flipped) {
        if (std::islower(static_cast<unsigned char>(ch))) {
            ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
            changed = true;
        } else if (std::isupper(static_cast<unsigned char>(ch))) {
            ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
            changed = true;
        }
    }
    if (!changed) {
        GTEST_SUCCEED() << "key has no letters; nothing to flip";
        return;
    }
    EXPECT_TRUE(
        it::is_error(create_with({{"x-api-key", flipped}}), 401, "invalid_api_key", kInvalid));
}

// ---------------------------------------------------------------------------------------------
// Valid key in either header.

TEST(Auth, XApiKeyWorks) {
    const Shop shop = it::make_shop();
    EXPECT_TRUE(it::is_success(create_with({{"x-api-key", shop.key}}), 201));
}

TEST(Auth, XApiKeyHeaderNameIsCaseInsensitive) {
    const Shop shop = it::make_shop();
    EXPECT_TRUE(it::is_success(create_with({{"X-API-KEY", shop.key}}), 201));
    EXPECT_TRUE(it::is_success(create_with({{"X-Api-Key", shop.key}}), 201));
}

TEST(Auth, BearerKeyWorks) {
    const Shop shop = it::make_shop();
    EXPECT_TRUE(it::is_success(create_with({{"Authorization", "Bearer " + shop.key}}), 201));
}

TEST(Auth, BearerSchemeIsCaseInsensitive) {
    const Shop shop = it::make_shop();
    for (const char* scheme : {"bearer", "BEARER", "BeArEr"}) {
        const HttpResponse r =
            create_with({{"Authorization", std::string(scheme) + " " + shop.key}});
        EXPECT_TRUE(it::is_success(r, 201)) << "scheme " << scheme;
    }
}

TEST(Auth, BearerKeyWorksOnFetch) {
    const Shop shop = it::make_shop();
    const Json::Value c = it::create_customer(shop, customer_body());
    const HttpResponse r = http("GET", "/api/v1/customers/" + std::to_string(c["id"].asInt64()),
                                {{"Authorization", "Bearer " + shop.key}});
    EXPECT_TRUE(it::is_success(r, 200));
}

TEST(Auth, XApiKeyWinsOverBogusBearer) {
    const Shop shop = it::make_shop();
    const HttpResponse r = create_with(
        {{"x-api-key", shop.key}, {"Authorization", "Bearer bogus-" + it::unique_suffix()}});
    EXPECT_TRUE(it::is_success(r, 201));
}

TEST(Auth, BogusXApiKeyWinsOverValidBearer) {
    const Shop shop = it::make_shop();
    const HttpResponse r = create_with(
        {{"x-api-key", "bogus-" + it::unique_suffix()}, {"Authorization", "Bearer " + shop.key}});
    EXPECT_TRUE(it::is_error(r, 401, "invalid_api_key", kInvalid));
}

TEST(Auth, XApiKeyOfOneShopWinsOverBearerOfAnother) {
    const Shop a = it::make_shop();
    const Shop b = it::make_shop();
    const HttpResponse r =
        create_with({{"Authorization", "Bearer " + b.key}, {"x-api-key", a.key}});
    ASSERT_TRUE(it::is_success(r, 201));
    EXPECT_EQ(r.json()["customer"]["shopDomain"].asString(), a.domain);
}

// ---------------------------------------------------------------------------------------------
// Revoked keys.

TEST(Auth, RevokedKeyStopsWorkingAtOnce) {
    const Shop shop = it::make_shop();
    const Json::Value c = it::create_customer(shop, customer_body());
    const std::string path = "/api/v1/customers/" + std::to_string(c["id"].asInt64());
    ASSERT_TRUE(it::is_success(it::get(path, shop), 200));

    const Json::Value out = it::admin({"key", "revoke", "--id", std::to_string(shop.key_id)});
    EXPECT_EQ(out["revoked"], Json::Value(true)) << it::to_json(out);

    // Several requests, so that every worker of the pool is likely asked (no stale cache).
    for (int i = 0; i < 8; ++i) {
        EXPECT_TRUE(it::is_error(it::get(path, shop), 401, "invalid_api_key", kInvalid));
        EXPECT_TRUE(it::is_error(http("GET", path, {{"Authorization", "Bearer " + shop.key}}), 401,
                                 "invalid_api_key", kInvalid));
    }
    EXPECT_TRUE(
        it::is_error(create_with({{"x-api-key", shop.key}}), 401, "invalid_api_key", kInvalid));
}

TEST(Auth, RevokingOneKeyLeavesOtherKeysOfTheShopWorking) {
    const Shop shop = it::make_shop();
    const auto [second_id, second_key] = it::make_key(shop.domain);
    it::admin({"key", "revoke", "--id", std::to_string(shop.key_id)});
    EXPECT_TRUE(
        it::is_error(create_with({{"x-api-key", shop.key}}), 401, "invalid_api_key", kInvalid));
    const HttpResponse r = create_with({{"x-api-key", second_key}});
    ASSERT_TRUE(it::is_success(r, 201));
    EXPECT_EQ(r.json()["customer"]["shopDomain"].asString(), shop.domain);
}

TEST(Auth, TwoKeysOfOneShopSeeTheSameCustomers) {
    const Shop shop = it::make_shop();
    const auto second = it::make_key(shop.domain);
    const Json::Value c = it::create_customer(shop, customer_body());
    const HttpResponse r = http("GET", "/api/v1/customers/" + std::to_string(c["id"].asInt64()),
                                {{"x-api-key", second.second}});
    EXPECT_TRUE(it::is_success(r, 200));
}

// ---------------------------------------------------------------------------------------------
// Deleted shop.

TEST(Auth, DeletedShopIs404ShopNotFoundOnCustomerCreate) {
    const Shop shop = it::make_shop();
    const Json::Value out = it::admin({"shop", "delete", "--domain", shop.domain});
    EXPECT_EQ(out["deleted"], Json::Value(true)) << it::to_json(out);
    EXPECT_TRUE(it::is_error(create_with({{"x-api-key", shop.key}}), 404, "shop_not_found",
                             "Shop not found"));
    EXPECT_TRUE(it::is_error(create_with({{"Authorization", "Bearer " + shop.key}}), 404,
                             "shop_not_found", "Shop not found"));
}

TEST(Auth, DeletedShopIs404ShopNotFoundOnCustomerFetch) {
    const Shop shop = it::make_shop();
    const Json::Value c = it::create_customer(shop, customer_body());
    const std::string path = "/api/v1/customers/" + std::to_string(c["id"].asInt64());
    ASSERT_TRUE(it::is_success(it::get(path, shop), 200));
    it::admin({"shop", "delete", "--domain", shop.domain});
    for (int i = 0; i < 4; ++i) {
        EXPECT_TRUE(it::is_error(it::get(path, shop), 404, "shop_not_found", "Shop not found"));
    }
}

TEST(Auth, DeletedShopIs404ShopNotFoundOnTicketAndCsatRoutes) {
    const Shop shop = it::make_shop();
    it::admin({"shop", "delete", "--domain", shop.domain});
    for (const RouteCall& c : ticket_and_csat_routes()) {
        EXPECT_TRUE(it::is_error(call(c, {{"x-api-key", shop.key}}), 404, "shop_not_found",
                                 "Shop not found"));
    }
}

TEST(Auth, RevokedKeyOfADeletedShopIs401) {
    const Shop shop = it::make_shop();
    it::admin({"key", "revoke", "--id", std::to_string(shop.key_id)});
    it::admin({"shop", "delete", "--domain", shop.domain});
    EXPECT_TRUE(
        it::is_error(create_with({{"x-api-key", shop.key}}), 401, "invalid_api_key", kInvalid));
}

TEST(Auth, DeletingAShopLeavesOtherShopsWorking) {
    const Shop gone = it::make_shop();
    const Shop kept = it::make_shop();
    it::admin({"shop", "delete", "--domain", gone.domain});
    EXPECT_TRUE(it::is_success(create_with({{"x-api-key", kept.key}}), 201));
}

// ---------------------------------------------------------------------------------------------
// Order of checks: route -> key -> shop -> path id -> body.

TEST(CheckOrder, KeyIsCheckedBeforePathId) {
    EXPECT_TRUE(
        it::is_error(http("GET", "/api/v1/customers/abc"), 401, "missing_api_key", kMissing));
    EXPECT_TRUE(it::is_error(http("GET", "/api/v1/customers/"), 401, "missing_api_key", kMissing));
    EXPECT_TRUE(it::is_error(http("GET", "/api/v1/customers/abc", {{"x-api-key", "bogus"}}), 401,
                             "invalid_api_key", kInvalid));
}

TEST(CheckOrder, KeyIsCheckedBeforeBody) {
    EXPECT_TRUE(
        it::is_error(http("POST", "/api/v1/customers", {{"Content-Type", "application/json"}}, "{"),
                     401, "missing_api_key", kMissing));
    EXPECT_TRUE(
        it::is_error(http("POST", "/api/v1/customers", {{"Content-Type", "text/plain"}}, "hello"),
                     401, "missing_api_key", kMissing));
    EXPECT_TRUE(it::is_error(
        http("POST", "/api/v1/customers", {{"Content-Type", "application/json"}}, "[1]"), 401,
        "missing_api_key", kMissing));
    EXPECT_TRUE(
        it::is_error(http("POST", "/api/v1/customers",
                          {{"Content-Type", "application/json"}, {"x-api-key", "bogus"}}, "{}"),
                     401, "invalid_api_key", kInvalid));
}

TEST(CheckOrder, KeyIsCheckedBeforeBodySize) {
    const std::string big = "{\"pad\":\"" + std::string(1048577, 'a') + "\"}";
    EXPECT_TRUE(
        it::is_error(http("POST", "/api/v1/customers", {{"Content-Type", "application/json"}}, big),
                     401, "missing_api_key", kMissing));
}

TEST(CheckOrder, ShopIsCheckedBeforePathIdAndBody) {
    const Shop shop = it::make_shop();
    it::admin({"shop", "delete", "--domain", shop.domain});
    EXPECT_TRUE(it::is_error(it::get("/api/v1/customers/abc", shop), 404, "shop_not_found",
                             "Shop not found"));
    EXPECT_TRUE(
        it::is_error(it::get("/api/v1/customers/", shop), 404, "shop_not_found", "Shop not found"));
    EXPECT_TRUE(it::is_error(it::post_raw("/api/v1/customers", shop, "{"), 404, "shop_not_found",
                             "Shop not found"));
    EXPECT_TRUE(it::is_error(it::post_raw("/api/v1/customers", shop, "hi", "text/plain"), 404,
                             "shop_not_found", "Shop not found"));
    EXPECT_TRUE(it::is_error(it::post_raw("/api/v1/customers", shop, "{}"), 404, "shop_not_found",
                             "Shop not found"));
}

TEST(CheckOrder, RouteIsCheckedBeforeShop) {
    const Shop shop = it::make_shop();
    it::admin({"shop", "delete", "--domain", shop.domain});
    EXPECT_TRUE(it::is_error(it::http("DELETE", "/api/v1/customers", it::key_header(shop)), 405,
                             "method_not_allowed", "Method not allowed"));
    EXPECT_TRUE(
        it::is_error(it::get("/api/v1/no-such-route", shop), 404, "not_found", "Not found"));
}

}  // namespace

// Every operation resolves the key, and most do it inside the statement that does their work.
// Whatever else is wrong with a request — path id, body, fields, the record it names — an
// unknown or revoked key is 401 and a deleted shop is 404 shop_not_found, on every route.
std::vector<RouteCall> requests_wrong_in_every_other_way() {
    const std::string big = "{\"pad\":\"" + std::string(1048577, 'a') + "\"}";
    const std::string none = "/999999999999";
    std::vector<RouteCall> calls;
    for (const std::string collection : {"/api/v1/customers", "/api/v1/tickets"}) {
        calls.push_back({"POST", collection, std::string("{")});
        calls.push_back({"POST", collection, std::string("[1]")});
        calls.push_back({"POST", collection, std::string("{}")});
        calls.push_back({"POST", collection, big});
        calls.push_back({"GET", collection + "/abc", std::nullopt});
        calls.push_back({"GET", collection + "/", std::nullopt});
        calls.push_back({"GET", collection + none, std::nullopt});
        // extensions.md §E3: the lists' query checks come after the key's.
        calls.push_back({"GET", collection + "?limit=0", std::nullopt});
        calls.push_back({"GET", collection + "?cursor=bogus", std::nullopt});
    }
    calls.push_back({"GET", "/api/v1/customers?email=a@x.test&phone_number=1", std::nullopt});
    calls.push_back({"GET", "/api/v1/tickets?customerId=x", std::nullopt});
    calls.push_back({"GET", "/api/v1/tickets/1/comments?limit=0", std::nullopt});
    calls.push_back({"GET", "/api/v1/tickets/1/comments?cursor=bogus", std::nullopt});
    calls.push_back({"POST", "/api/v1/customers", std::string(R"({"email":"a@example.test"})")});
    calls.push_back({"POST", "/api/v1/tickets", std::string(R"({"customerId":"1"})")});
    for (const std::string comments :
         {"/api/v1/tickets/abc/comments", "/api/v1/tickets/999999999999/comments"}) {
        calls.push_back({"GET", comments, std::nullopt});
        calls.push_back({"POST", comments, std::string(R"({"text":"hi"})")});
    }
    calls.push_back({"POST", "/api/v1/tickets/999999999999/comments", std::string("{}")});
    calls.push_back({"POST", "/api/v1/tickets/999999999999/comments", big});
    calls.push_back({"GET", "/api/v1/csat?limit=0", std::nullopt});
    calls.push_back({"GET", "/api/v1/csat?startDate=yesterday", std::nullopt});
    calls.push_back({"POST", "/api/v1/csat", std::string(R"({"mark":9})")});
    calls.push_back({"POST", "/api/v1/csat", std::string(R"({"conversationId":"1","mark":5})")});
    return calls;
}

TEST(CheckOrder, KeyAndShopComeBeforeEveryOtherErrorOnEveryRoute) {
    const Shop deleted = it::make_shop();
    it::admin({"shop", "delete", "--domain", deleted.domain});
    const Shop revoked = it::make_shop();
    it::admin({"key", "revoke", "--id", std::to_string(revoked.key_id)});
    for (const RouteCall& c : requests_wrong_in_every_other_way()) {
        SCOPED_TRACE(c.method + " " + c.path + " " + c.body.value_or("").substr(0, 40));
        EXPECT_TRUE(it::is_error(call(c, {{"x-api-key", "scrm_unknown"}}), 401, "invalid_api_key",
                                 kInvalid));
        EXPECT_TRUE(it::is_error(call(c, {{"Authorization", "Bearer " + revoked.key}}), 401,
                                 "invalid_api_key", kInvalid));
        EXPECT_TRUE(it::is_error(call(c, {{"x-api-key", deleted.key}}), 404, "shop_not_found",
                                 "Shop not found"));
    }
}
