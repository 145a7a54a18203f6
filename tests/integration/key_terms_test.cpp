// Keys that fit the job (extensions.md §E12), through nginx and the whole pool: every route
// by its scope (403 insufficient_scope, nothing written), the order route -> key -> shop ->
// scope -> the rest, expiry (401 "API key expired"), rotation with an overlap, the per-key
// rate (429 + Retry-After, RateLimit-* on every answer of a rated key), lastUsedAt, and the
// CLI's refusals (non-zero exit, nothing written).
#include <chrono>
#include <future>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "harness.h"

namespace {

using it::Headers;
using it::HttpResponse;
using it::Shop;
using Clock = std::chrono::steady_clock;

// A key of the shop with these extra `key create` flags; returns {id, secret, printed line}.
struct Key {
    int64_t id = 0;
    std::string secret;
    Json::Value printed;
};
Key make_key(const std::string& domain, std::vector<std::string> flags) {
    std::vector<std::string> args{"key", "create", "--shop", domain};
    args.insert(args.end(), flags.begin(), flags.end());
    Key k;
    k.printed = it::admin(args);
    k.id = k.printed["id"].asInt64();
    k.secret = k.printed["key"].asString();
    return k;
}

Shop with_key(const Shop& shop, const Key& key) {
    Shop s = shop;
    s.key = key.secret;
    s.key_id = key.id;
    return s;
}

std::string iso_in(std::chrono::seconds from_now) {
    const auto t = std::chrono::system_clock::now() + from_now;
    const std::time_t tt = std::chrono::system_clock::to_time_t(t);
    std::tm tm{};
    gmtime_r(&tt, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

// One call per route class of the table, with a body where it takes one.
struct Call {
    std::string method;
    std::string path;
    std::optional<std::string> body;
    std::string scope;  // the scope E12 gives it
};

std::vector<Call> calls(int64_t customer_id, const std::string& ticket_id, int64_t other_id) {
    const std::string c = "/api/v1/customers/" + std::to_string(customer_id);
    const std::string t = "/api/v1/tickets/" + ticket_id;
    const std::string new_customer = R"({"email":")" + it::unique_email("scope") + R"("})";
    return {
        {"GET", "/api/v1/customers", std::nullopt, "read"},
        {"GET", c, std::nullopt, "read"},
        {"GET", "/api/v1/tickets", std::nullopt, "read"},
        {"GET", t, std::nullopt, "read"},
        {"GET", t + "/comments", std::nullopt, "read"},
        {"GET", "/api/v1/csat", std::nullopt, "read"},
        {"POST", "/api/v1/customers", new_customer, "write"},
        {"PATCH", c, std::string(R"({"first_name":"Scoped"})"), "write"},
        {"POST", "/api/v1/tickets",
         R"({"customerId":)" + std::to_string(customer_id) + R"(,"Channel":"Mail"})", "write"},
        {"PATCH", t, std::string(R"({"name":"Scoped"})"), "write"},
        {"POST", t + "/comments", std::string(R"({"text":"scoped"})"), "write"},
        {"POST", "/api/v1/csat", R"({"conversationId":")" + ticket_id + R"(","mark":5})", "write"},
        {"GET", "/api/v1/csat/export", std::nullopt, "export"},
        // E9: a dry run, so that the customers stay as they are for the next scope.
        {"POST", c + "/merge", R"({"sourceId":)" + std::to_string(other_id) + R"(,"dryRun":true})",
         "write"},
        {"GET", c + "/export", std::nullopt, "export"},
        // E9: last, the erase scope comes last too: the customer is gone afterwards.
        {"DELETE", c, std::nullopt, "erase"},
    };
}

HttpResponse send(const Call& c, const std::string& key, Headers extra = {}) {
    Headers h{{"x-api-key", key}};
    if (c.body) {
        h.emplace_back("Content-Type", "application/json");
    }
    h.insert(h.end(), extra.begin(), extra.end());
    // The customer export's 200 is ndjson (its own test checks each line); every other
    // answer is JSON.
    const bool ndjson_export = c.path.size() > 7 &&
                               c.path.compare(c.path.size() - 7, 7, "/export") == 0 &&
                               c.path.rfind("/api/v1/customers/", 0) == 0;
    if (!ndjson_export) {
        return it::http(c.method, c.path, h, c.body);
    }
    it::HttpResponse r = it::http_any_body(c.method, c.path, h, c.body);
    EXPECT_LT(r.status, 500) << r.describe();
    if (r.status != 200) {
        it::expect_json_body(r);
    }
    it::expect_described(r);
    return r;
}

struct Fixture {
    Shop shop;
    int64_t customer_id = 0;
    int64_t other_customer_id = 0;  // a merge's source
    std::string ticket_id;
};

Fixture fixture() {
    Fixture f;
    f.shop = it::make_shop();
    f.customer_id =
        it::create_customer(f.shop, it::object({{"email", it::unique_email()}}))["id"].asInt64();
    f.other_customer_id =
        it::create_customer(f.shop, it::object({{"email", it::unique_email()}}))["id"].asInt64();
    HttpResponse t = it::post_json(
        "/api/v1/tickets", f.shop,
        it::object({{"customerId", Json::Value(Json::Int64(f.customer_id))}, {"Channel", "Mail"}}));
    if (t.status != 201) {
        throw std::runtime_error("ticket create: " + t.describe());
    }
    f.ticket_id = t.json()["ticket"]["id"].asString();
    return f;
}

int64_t customer_count(const Shop& shop) {
    HttpResponse r = it::get("/api/v1/customers?limit=100", shop);
    return static_cast<int64_t>(r.json()["customers"].size());
}

TEST(KeyScopes, EveryRouteAnswers403WithoutItsScopeAndRunsWithIt) {
    const Fixture f = fixture();
    for (const std::string scope : {"read", "write", "export", "erase"}) {
        const Key key = make_key(f.shop.domain, {"--scopes", scope});
        EXPECT_EQ(it::to_json(key.printed["scopes"]), "[\"" + scope + "\"]");
        for (const Call& c : calls(f.customer_id, f.ticket_id, f.other_customer_id)) {
            HttpResponse r = send(c, key.secret);
            if (c.scope == scope) {
                EXPECT_NE(r.status, 403) << scope << ": " << r.describe();
                EXPECT_LT(r.status, 300) << scope << ": " << r.describe();
            } else {
                EXPECT_TRUE(it::is_error(r, 403, "insufficient_scope",
                                         "API key lacks the " + c.scope + " scope"))
                    << scope;
            }
        }
    }
}

TEST(KeyScopes, AKeyWithoutWriteWritesNothingAlsoWithIdempotencyKey) {
    const Fixture f = fixture();
    const Shop reader = with_key(f.shop, make_key(f.shop.domain, {"--scopes", "read,export"}));
    const int64_t before = customer_count(f.shop);
    for (int i = 0; i < 6; ++i) {  // several workers
        const Call c{"POST", "/api/v1/customers",
                     R"({"email":")" + it::unique_email("ro") + R"("})", "write"};
        EXPECT_TRUE(it::is_error(send(c, reader.key), 403, "insufficient_scope"));
        EXPECT_TRUE(
            it::is_error(send(c, reader.key, {{"Idempotency-Key", "scope-" + it::unique_suffix()}}),
                         403, "insufficient_scope", "API key lacks the write scope"));
        const Call comment{"POST", "/api/v1/tickets/" + f.ticket_id + "/comments",
                           std::string(R"({"text":"nope"})"), "write"};
        EXPECT_TRUE(it::is_error(send(comment, reader.key), 403, "insufficient_scope"));
    }
    EXPECT_EQ(customer_count(f.shop), before);
    HttpResponse comments = it::get("/api/v1/tickets/" + f.ticket_id + "/comments", f.shop);
    EXPECT_EQ(comments.json()["comments"].size(), 0u) << comments.describe();
}

TEST(KeyScopes, OrderIsRouteKeyShopScopeThenTheRest) {
    const Fixture f = fixture();
    const Key reader = make_key(f.shop.domain, {"--scopes", "read"});
    // Scope before the path id and the body's fields (valid JSON: the Prism check relays it).
    EXPECT_TRUE(
        it::is_error(it::http("PATCH", "/api/v1/customers/abc",
                              {{"x-api-key", reader.secret}, {"Content-Type", "application/json"}},
                              std::string(R"({"first_name":5})")),
                     403, "insufficient_scope", "API key lacks the write scope"));
    // Route first, then the key.
    EXPECT_TRUE(it::is_error(it::http("DELETE", "/api/v1/tickets/1", {{"x-api-key", "nope"}}), 405,
                             "method_not_allowed"));
    EXPECT_TRUE(it::is_error(
        it::http("POST", "/api/v1/customers", {{"x-api-key", "scrm_unknown"}}, std::string("{}")),
        401, "invalid_api_key", "Invalid API key"));
    // The shop before the scope.
    it::admin({"shop", "delete", "--domain", f.shop.domain});
    EXPECT_TRUE(
        it::is_error(send({"POST", "/api/v1/customers", std::string("{}"), "write"}, reader.secret),
                     404, "shop_not_found", "Shop not found"));
}

TEST(KeyExpiry, AnExpiredKeyIsRefusedByEveryWorker) {
    const Fixture f = fixture();
    const Key key = make_key(f.shop.domain, {"--expires", iso_in(std::chrono::seconds(3))});
    EXPECT_TRUE(key.printed["expiresAt"].isString()) << it::to_json(key.printed);
    const std::string path = "/api/v1/customers/" + std::to_string(f.customer_id);
    EXPECT_TRUE(it::is_success(it::http("GET", path, {{"x-api-key", key.secret}}), 200));
    // Wait for the expiry (a condition, bounded), then every worker refuses, reads and writes.
    const auto deadline = Clock::now() + std::chrono::seconds(15);
    while (it::http("GET", path, {{"x-api-key", key.secret}}).status == 200 &&
           Clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    for (int i = 0; i < 8; ++i) {
        EXPECT_TRUE(it::is_error(it::http("GET", path, {{"x-api-key", key.secret}}), 401,
                                 "invalid_api_key", "API key expired"));
        EXPECT_TRUE(it::is_error(send({"POST", "/api/v1/customers",
                                       R"({"email":")" + it::unique_email("x") + R"("})", "write"},
                                      key.secret),
                                 401, "invalid_api_key", "API key expired"));
    }
}

TEST(KeyRotation, TheOldKeyWorksThroughTheOverlapThenNot) {
    const Fixture f = fixture();
    const Key old = make_key(f.shop.domain, {"--label", "shop-sync", "--scopes", "read"});
    const std::string path = "/api/v1/customers/" + std::to_string(f.customer_id);
    // Warm every worker's copy of the old key's terms: the rotation must reach them all.
    for (int i = 0; i < 8; ++i) {
        it::http("GET", path, {{"x-api-key", old.secret}});
    }
    const Json::Value rotated = it::admin({"key", "rotate", "--id", std::to_string(old.id)});
    EXPECT_EQ(rotated["replaces"].asInt64(), old.id);
    ASSERT_TRUE(rotated["oldExpiresAt"].isString());
    const std::string fresh = rotated["key"].asString();
    EXPECT_TRUE(it::is_success(it::http("GET", path, {{"x-api-key", old.secret}}), 200));
    EXPECT_TRUE(it::is_success(it::http("GET", path, {{"x-api-key", fresh}}), 200));
    // Same scopes and label.
    EXPECT_TRUE(it::is_error(send({"POST", "/api/v1/customers", std::string("{}"), "write"}, fresh),
                             403, "insufficient_scope"));
    const Json::Value list = it::admin({"key", "list", "--shop", f.shop.domain});
    bool seen = false;
    for (const Json::Value& k : list["keys"]) {
        if (k["id"].asInt64() == rotated["id"].asInt64()) {
            seen = true;
            EXPECT_EQ(k["label"].asString(), "shop-sync");
            EXPECT_EQ(it::to_json(k["scopes"]), "[\"read\"]");
        }
        if (k["id"].asInt64() == old.id) {
            EXPECT_EQ(k["expiresAt"], rotated["oldExpiresAt"]);
        }
    }
    EXPECT_TRUE(seen) << it::to_json(list);

    // Overlap 0: the second rotation ends the first successor at once; within a second no
    // worker takes it any more.
    const Json::Value again =
        it::admin({"key", "rotate", "--id", rotated["id"].asString(), "--overlap-hours", "0"});
    // The spec's bound itself: refused everywhere 1 s after the change.
    std::this_thread::sleep_for(std::chrono::milliseconds(1000));
    for (int i = 0; i < 8; ++i) {
        EXPECT_TRUE(it::is_error(it::http("GET", path, {{"x-api-key", fresh}}), 401,
                                 "invalid_api_key", "API key expired"));
    }
    EXPECT_TRUE(
        it::is_success(it::http("GET", path, {{"x-api-key", again["key"].asString()}}), 200));
}

// Issue 43: a rotation keeps every term of the key, its expiry too (the successor of an
// --expires key never expired), and replaces a key at most once (rotating the same old key
// twice left two live keys), also when two rotations race.
TEST(KeyRotation, TheSuccessorKeepsTheExpiryAndAKeyIsReplacedOnlyOnce) {
    const Fixture f = fixture();
    const Key old =
        make_key(f.shop.domain, {"--scopes", "read", "--rate", "600/m", "--expires", "2099-01-01"});
    const Json::Value rotated = it::admin({"key", "rotate", "--id", std::to_string(old.id)});
    auto listed = [&](int64_t id) {
        const Json::Value list = it::admin({"key", "list", "--shop", f.shop.domain});
        for (const Json::Value& k : list["keys"]) {
            if (k["id"].asInt64() == id) {
                return k;
            }
        }
        ADD_FAILURE() << "key " << id << " not listed";
        return Json::Value();
    };
    const Json::Value successor = listed(rotated["id"].asInt64());
    EXPECT_EQ(successor["expiresAt"].asString(), "2099-01-01T00:00:00.000Z");
    EXPECT_EQ(successor["rate"].asString(), "600/m");
    EXPECT_EQ(it::to_json(successor["scopes"]), "[\"read\"]");

    const auto keys = [&] {
        return it::admin({"key", "list", "--shop", f.shop.domain})["keys"].size();
    };
    const auto before = keys();
    const it::AdminResult twice = it::admin_raw({"key", "rotate", "--id", std::to_string(old.id)});
    EXPECT_NE(twice.exit_code, 0);
    EXPECT_NE(twice.err.find("rotated already: its successor is key " + rotated["id"].asString()),
              std::string::npos)
        << twice.err;
    EXPECT_EQ(keys(), before);

    // Two rotations of one key at once: one successor.
    const Key raced = make_key(f.shop.domain, {});
    auto rotate = [&] {
        return it::admin_raw({"key", "rotate", "--id", std::to_string(raced.id)}).exit_code;
    };
    auto a = std::async(std::launch::async, rotate);
    auto b = std::async(std::launch::async, rotate);
    const int ra = a.get();
    const int rb = b.get();
    EXPECT_TRUE((ra == 0) != (rb == 0)) << ra << " " << rb;
    it::Db db;
    EXPECT_EQ(db.count("SELECT COUNT(*) FROM api_keys WHERE replaces_id = ? AND revoked_at IS NULL",
                       {std::to_string(raced.id)}),
              1);
}

TEST(KeyRate, OverTheRateIs429WithRetryAfterAndHeadersOnEveryAnswer) {
    const Fixture f = fixture();
    const Key key = make_key(f.shop.domain, {"--rate", "3/m"});
    EXPECT_EQ(key.printed["rate"].asString(), "3/m");
    const std::string path = "/api/v1/customers/" + std::to_string(f.customer_id);
    // The budget is per host (extensions.md E12): every request of the count goes to one host,
    // also when the suite runs against two (scripts/test --galera).
    for (int i = 0; i < 3; ++i) {
        HttpResponse r = it::http_on(0, "GET", path, {{"x-api-key", key.secret}});
        ASSERT_TRUE(it::is_success(r, 200));
        EXPECT_EQ(r.header("RateLimit-Limit"), "3");
        EXPECT_EQ(r.header("RateLimit-Remaining"), std::to_string(2 - i));
        ASSERT_TRUE(r.header("RateLimit-Reset"));
        EXPECT_GE(std::stoi(*r.header("RateLimit-Reset")), 1);
    }
    // Over the budget, on every worker (one budget for the host), reads and writes alike.
    for (int i = 0; i < 6; ++i) {
        HttpResponse r =
            i % 2 == 0
                ? it::http_on(0, "GET", path, {{"x-api-key", key.secret}})
                : it::http_on(0, "POST", "/api/v1/customers",
                              {{"x-api-key", key.secret}, {"Content-Type", "application/json"}},
                              R"({"email":")" + it::unique_email("rl") + R"("})");
        EXPECT_TRUE(it::is_error(r, 429, "rate_limited", "Too many requests"));
        ASSERT_TRUE(r.header("Retry-After")) << r.describe();
        EXPECT_GE(std::stoi(*r.header("Retry-After")), 1);
        EXPECT_LE(std::stoi(*r.header("Retry-After")), 20);
        EXPECT_EQ(r.header("RateLimit-Limit"), "3");
        EXPECT_EQ(r.header("RateLimit-Remaining"), "0");
    }
    // A key without a rate carries no RateLimit headers; other keys are not affected.
    HttpResponse other = it::get(path, f.shop);
    ASSERT_TRUE(it::is_success(other, 200));
    EXPECT_FALSE(other.header("RateLimit-Limit"));
    // Answers refused before the rate is taken still carry the headers (403 here).
    const Key scoped = make_key(f.shop.domain, {"--rate", "100/s", "--scopes", "read"});
    HttpResponse refused =
        send({"POST", "/api/v1/customers", std::string("{}"), "write"}, scoped.secret);
    EXPECT_TRUE(it::is_error(refused, 403, "insufficient_scope"));
    EXPECT_EQ(refused.header("RateLimit-Limit"), "100");
}

// api/key_rule.h: the shop comes before the rate. A worker that has just answered a deleted
// shop's key 404 keeps the key's terms for a second (api/key_cache.h); before it kept the
// shop's `deleted` too, the next request of that key there took a token from those terms and,
// over the rate, answered 429.
TEST(KeyRate, ADeletedShopsKeyIs404AlsoOverItsRate) {
    const Fixture f = fixture();
    const Key key = make_key(f.shop.domain, {"--rate", "1/m"});
    const std::string path = "/api/v1/customers/" + std::to_string(f.customer_id);
    ASSERT_TRUE(it::is_success(it::http_on(0, "GET", path, {{"x-api-key", key.secret}}), 200));
    it::admin({"shop", "delete", "--domain", f.shop.domain});
    // Past the workers' copies of the live shop (kFreshMs), so none of them can answer from one.
    std::this_thread::sleep_for(std::chrono::milliseconds(1200));
    for (int i = 0; i < 12; ++i) {
        HttpResponse r = it::http_on(0, "GET", path, {{"x-api-key", key.secret}});
        EXPECT_TRUE(it::is_error(r, 404, "shop_not_found", "Shop not found")) << i;
    }
}

TEST(KeyList, ShowsTermsAndLastUsedAt) {
    const Fixture f = fixture();
    const Key key = make_key(f.shop.domain, {"--label", "reports", "--scopes", "read,export",
                                             "--rate", "600/m", "--expires", "2099-01-01"});
    EXPECT_EQ(it::to_json(key.printed["scopes"]), "[\"read\",\"export\"]");
    EXPECT_EQ(key.printed["expiresAt"].asString(), "2099-01-01T00:00:00.000Z");
    auto find = [&] {
        const Json::Value list = it::admin({"key", "list", "--shop", f.shop.domain});
        for (const Json::Value& k : list["keys"]) {
            if (k["id"].asInt64() == key.id) {
                return k;
            }
        }
        return Json::Value();
    };
    Json::Value listed = find();
    EXPECT_EQ(it::member_names(listed),
              (std::vector<std::string>{"createdAt", "expiresAt", "id", "label", "lastUsedAt",
                                        "rate", "revoked", "scopes"}));
    EXPECT_TRUE(listed["lastUsedAt"].isNull());
    EXPECT_EQ(listed["rate"].asString(), "600/m");
    EXPECT_EQ(listed["revoked"], Json::Value(false));
    ASSERT_TRUE(it::is_success(it::http("GET", "/api/v1/customers/" + std::to_string(f.customer_id),
                                        {{"x-api-key", key.secret}}),
                               200));
    // Written after the answer is made, before it is sent: poll for it all the same.
    const auto deadline = Clock::now() + std::chrono::seconds(10);
    while (find()["lastUsedAt"].isNull() && Clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    listed = find();
    ASSERT_TRUE(listed["lastUsedAt"].isString()) << it::to_json(listed);
    const auto used = it::parse_utc_millis(listed["lastUsedAt"].asString());
    ASSERT_TRUE(used);
    EXPECT_LT(std::chrono::abs(std::chrono::system_clock::now() - *used), std::chrono::minutes(2));
}

TEST(KeyCli, BadTermsAreRefusedAndNothingIsWritten) {
    const Shop shop = it::make_shop();
    const auto count = [&] {
        return it::admin({"key", "list", "--shop", shop.domain})["keys"].size();
    };
    const auto before = count();
    const std::vector<std::pair<std::vector<std::string>, std::string>> bad = {
        {{"--scopes", "read,admin"}, "unknown scope 'admin'"},
        {{"--scopes", ""}, "unknown scope"},
        {{"--expires", "2020-01-01T00:00:00Z"}, "--expires is in the past"},
        {{"--expires", "next week"}, "--expires must be a datetime"},
        {{"--rate", "0/s"}, "--rate: N must be from 1"},
        {{"--rate", "5/h"}, "--rate must be N/s or N/m"},
    };
    for (const auto& [flags, message] : bad) {
        std::vector<std::string> args{"key", "create", "--shop", shop.domain};
        args.insert(args.end(), flags.begin(), flags.end());
        const it::AdminResult r = it::admin_raw(args);
        EXPECT_NE(r.exit_code, 0) << flags[1];
        EXPECT_NE(r.err.find(message), std::string::npos) << flags[1] << ": " << r.err;
        EXPECT_TRUE(r.out.empty()) << r.out;
    }
    EXPECT_NE(it::admin_raw(
                  {"key", "rotate", "--id", std::to_string(shop.key_id), "--overlap-hours", "-3"})
                  .exit_code,
              0);
    EXPECT_NE(it::admin_raw({"key", "rotate", "--id", "999999999"}).exit_code, 0);
    it::admin({"key", "revoke", "--id", std::to_string(shop.key_id)});
    const it::AdminResult revoked =
        it::admin_raw({"key", "rotate", "--id", std::to_string(shop.key_id)});
    EXPECT_NE(revoked.exit_code, 0);
    EXPECT_NE(revoked.err.find("revoked"), std::string::npos) << revoked.err;
    EXPECT_EQ(count(), before);
}

}  // namespace
