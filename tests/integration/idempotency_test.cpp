// Idempotency-Key on every POST (extensions.md §E2), through nginx: the header's format and
// its place in the order of checks, replay byte for byte on each of the four POSTs, which keys
// are shared, 422 and 409, non-2xx answers not stored, and concurrent identical requests.
// The lost-connection cases are in write_safety_test.cpp (they need the fault proxy).
#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "csat_fixtures.h"
#include "fcgi_client.h"
#include "harness.h"
#include "process_fixtures.h"
#include "row_lock.h"
#include "tickets_fixtures.h"

namespace {

constexpr char kCustomers[] = "/api/v1/customers";

it::Headers keyed(const it::Shop& shop, const std::string& idempotency_key) {
    it::Headers h = it::json_headers(shop);
    h.emplace_back("Idempotency-Key", idempotency_key);
    return h;
}

it::HttpResponse post_keyed(const std::string& path, const it::Shop& shop,
                            const std::string& idempotency_key, const std::string& body) {
    return it::http("POST", path, keyed(shop, idempotency_key), body);
}

std::string customer_body(const std::string& email) {
    return it::to_json(it::object({{"email", email}, {"first_name", "Ann"}}));
}

std::string fresh_key() {
    return "k-" + it::unique_suffix();
}

int64_t customers_of(it::Db& db, const it::Shop& shop) {
    return db.count("SELECT COUNT(*) FROM customers WHERE shop_id = ?", {std::to_string(shop.id)});
}

// The first answer and its replay: same status and bytes, the replay (only) marked as one.
::testing::AssertionResult replayed(const it::HttpResponse& first, const it::HttpResponse& again) {
    if (first.header("Idempotency-Replayed")) {
        return ::testing::AssertionFailure() << "the first answer is marked replayed";
    }
    if (again.header("Idempotency-Replayed") != std::optional<std::string>("true")) {
        return ::testing::AssertionFailure()
               << "no Idempotency-Replayed: true on " << again.describe();
    }
    if (again.status != first.status || again.body != first.body) {
        return ::testing::AssertionFailure()
               << "replay differs: " << first.describe() << " then " << again.describe();
    }
    if (again.header("Content-Type") != first.header("Content-Type")) {
        return ::testing::AssertionFailure() << "Content-Type differs";
    }
    return ::testing::AssertionSuccess();
}

// ---------------------------------------------------------------------------------------------
// Format and order of checks.

TEST(IdempotencyKey, MalformedValuesAre400) {
    const it::Shop shop = it::make_shop();
    const std::string body = customer_body(it::unique_email());
    for (const std::string& bad :
         {std::string(256, 'k'), std::string(""), std::string("a b"), std::string("caf\xc3\xa9")}) {
        EXPECT_TRUE(it::is_error(post_keyed(kCustomers, shop, bad, body), 400,
                                 "invalid_idempotency_key", "Invalid Idempotency-Key"))
            << it::printable(bad);
    }
    it::Db db;
    EXPECT_EQ(customers_of(db, shop), 0) << "nothing written for a malformed key";
}

TEST(IdempotencyKey, AControlCharacterInTheKeyIs400) {
    const it::Shop shop = it::make_shop();
    EXPECT_TRUE(
        it::is_error(post_keyed(kCustomers, shop, "a\x7f", customer_body(it::unique_email())), 400,
                     "invalid_idempotency_key", "Invalid Idempotency-Key"));
}

// A key sent twice is no key (RFC 9110 5.3: its lines combine into "a, b", which has a space),
// whether nginx combines the lines itself (1.23+) or hands each one over (1.22).
TEST(IdempotencyKey, ARepeatedHeaderIs400AndWritesNothing) {
    const it::Shop shop = it::make_shop();
    const std::string body = customer_body(it::unique_email());
    for (const auto& [first, second] : {std::pair<std::string, std::string>{"k-a", "k-b"},
                                        std::pair<std::string, std::string>{"k-same", "k-same"}}) {
        it::Headers h = keyed(shop, first);
        h.emplace_back("Idempotency-Key", second);
        EXPECT_TRUE(it::is_error(it::http("POST", kCustomers, h, body), 400,
                                 "invalid_idempotency_key", "Invalid Idempotency-Key"))
            << first << " + " << second;
    }
    it::Db db;
    EXPECT_EQ(customers_of(db, shop), 0);
    EXPECT_TRUE(it::is_success(post_keyed(kCustomers, shop, "k-a", body), 201))
        << "a key that came in a refused pair was never claimed";
}

TEST(IdempotencyKey, TheLongestAndTheOddestValidKeysAreAccepted) {
    const it::Shop shop = it::make_shop();
    EXPECT_TRUE(it::is_success(
        post_keyed(kCustomers, shop, std::string(255, 'k'), customer_body(it::unique_email())),
        201));
    EXPECT_TRUE(it::is_success(post_keyed(kCustomers, shop, "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~",
                                          customer_body(it::unique_email())),
                               201));
}

TEST(IdempotencyKey, KeyAndShopErrorsComeBeforeTheFormat) {
    it::Headers unknown = {{"x-api-key", "scrm_unknown"},
                           {"Content-Type", "application/json"},
                           {"Idempotency-Key", "a b"}};
    EXPECT_TRUE(it::is_error(it::http("POST", kCustomers, unknown, "{}"), 401, "invalid_api_key"));
    it::Headers none = {{"Content-Type", "application/json"}, {"Idempotency-Key", "a b"}};
    EXPECT_TRUE(it::is_error(it::http("POST", kCustomers, none, "{}"), 401, "missing_api_key"));

    const it::Shop gone = it::make_shop();
    it::admin({"shop", "delete", "--domain", gone.domain});
    EXPECT_TRUE(it::is_error(post_keyed(kCustomers, gone, "a b", "{}"), 404, "shop_not_found"));
    EXPECT_TRUE(it::is_error(post_keyed(kCustomers, gone, "fine", "{}"), 404, "shop_not_found"));
}

TEST(IdempotencyKey, TheFormatComesBeforeTheBody) {
    const it::Shop shop = it::make_shop();
    EXPECT_TRUE(it::is_error(post_keyed(kCustomers, shop, "", "{not json"), 400,
                             "invalid_idempotency_key"));
}

TEST(IdempotencyKey, TheFormatComesBeforeThePathId) {
    const it::Shop shop = it::make_shop();
    EXPECT_TRUE(it::is_error(post_keyed("/api/v1/tickets/x/comments", shop, "", "{}"), 400,
                             "invalid_idempotency_key"));
}

TEST(IdempotencyKey, IgnoredOnOtherMethods) {
    const it::tickets::World w = it::tickets::make_world();
    it::Headers h = it::key_header(w.shop);
    h.emplace_back("Idempotency-Key", "not valid here either");
    const std::string path = "/api/v1/customers/" + w.customer["id"].asString();
    const it::HttpResponse r = it::http("GET", path, h);
    EXPECT_TRUE(it::is_success(r, 200));
    EXPECT_FALSE(r.header("Idempotency-Replayed"));
}

// ---------------------------------------------------------------------------------------------
// Replay, on each of the four POSTs.

TEST(IdempotencyKey, CustomerCreateIsReplayedByteForByteAndWrittenOnce) {
    const it::Shop shop = it::make_shop();
    const std::string key = fresh_key();
    const std::string body = customer_body(it::unique_email());
    const it::HttpResponse first = post_keyed(kCustomers, shop, key, body);
    ASSERT_TRUE(it::is_success(first, 201));
    const it::HttpResponse again = post_keyed(kCustomers, shop, key, body);
    EXPECT_TRUE(replayed(first, again));
    it::Db db;
    EXPECT_EQ(customers_of(db, shop), 1);
}

TEST(IdempotencyKey, AnExistingCustomerAnswerIsStoredToo) {
    const it::Shop shop = it::make_shop();
    const std::string email = it::unique_email();
    it::create_customer(shop, it::object({{"email", email}}));
    const std::string key = fresh_key();
    const it::HttpResponse first = post_keyed(kCustomers, shop, key, customer_body(email));
    ASSERT_TRUE(it::is_success(first, 200));
    EXPECT_TRUE(replayed(first, post_keyed(kCustomers, shop, key, customer_body(email))));
}

TEST(IdempotencyKey, TicketCreateIsReplayedAndWrittenOnce) {
    const it::tickets::World w = it::tickets::make_world();
    const std::string key = fresh_key();
    const std::string body = it::to_json(it::object(
        {{"customerId", w.customer["id"]}, {"Channel", "Mail"}, {"isOpenedTicket", true}}));
    const it::HttpResponse first = post_keyed(it::tickets::kTicketsPath, w.shop, key, body);
    ASSERT_TRUE(it::is_success(first, 201));
    EXPECT_TRUE(replayed(first, post_keyed(it::tickets::kTicketsPath, w.shop, key, body)));
    it::Db db;
    const std::string customer = w.customer["id"].asString();
    EXPECT_EQ(db.count("SELECT COUNT(*) FROM conversations WHERE customer_id = ?", {customer}), 1);
    EXPECT_EQ(db.count("SELECT COUNT(*) FROM human_tickets h JOIN conversations c ON "
                       "c.id = h.conversation_id WHERE c.customer_id = ?",
                       {customer}),
              1);
}

TEST(IdempotencyKey, CommentCreateIsReplayedAndWrittenOnce) {
    const it::tickets::World w = it::tickets::make_world();
    const std::string ticket = it::tickets::create_ticket_id(w);
    const std::string key = fresh_key();
    const std::string body = it::to_json(it::object({{"text", "hello"}, {"isFromShop", false}}));
    const std::string path = it::tickets::comments_path(ticket);
    const it::HttpResponse first = post_keyed(path, w.shop, key, body);
    ASSERT_TRUE(it::is_success(first, 201));
    EXPECT_TRUE(replayed(first, post_keyed(path, w.shop, key, body)));
    it::Db db;
    EXPECT_EQ(db.count("SELECT COUNT(*) FROM messages WHERE conversation_id = ?", {ticket}), 1);
}

TEST(IdempotencyKey, SurveyCreateIsReplayedAndCountedOnce) {
    const it::csat::CsatShop s = it::csat::make_csat_shop();
    const std::string key = fresh_key();
    const std::string body =
        it::to_json(it::object({{"conversationId", s.conversation_id}, {"mark", 5}}));
    const it::HttpResponse first = post_keyed("/api/v1/csat", s.shop, key, body);
    ASSERT_TRUE(it::is_success(first, 201));
    EXPECT_TRUE(replayed(first, post_keyed("/api/v1/csat", s.shop, key, body)));
    it::Db db;
    EXPECT_EQ(
        db.count("SELECT COUNT(*) FROM surveys WHERE conversation_id = ?", {s.conversation_id}), 1);
    EXPECT_EQ(it::csat::list(s.shop)["stats"]["totalSurveys"].asInt(), 1);
}

// ---------------------------------------------------------------------------------------------
// Whose keys, compared how.

TEST(IdempotencyKey, EveryApiKeyOfTheShopSharesItsKeysInEitherHeader) {
    const it::Shop shop = it::make_shop();
    const auto [second_id, second_key] = it::make_key(shop.domain);
    const std::string key = fresh_key();
    const std::string body = customer_body(it::unique_email());
    const it::HttpResponse first = post_keyed(kCustomers, shop, key, body);
    ASSERT_TRUE(it::is_success(first, 201));
    it::Headers bearer = {{"Authorization", "Bearer " + second_key},
                          {"Content-Type", "application/json"},
                          {"Idempotency-Key", key}};
    EXPECT_TRUE(replayed(first, it::http("POST", kCustomers, bearer, body)));
}

TEST(IdempotencyKey, AnotherShopsSameKeyIsItsOwn) {
    const it::Shop a = it::make_shop();
    const it::Shop b = it::make_shop();
    const std::string key = fresh_key();
    const std::string body = customer_body(it::unique_email());
    ASSERT_TRUE(it::is_success(post_keyed(kCustomers, a, key, body), 201));
    const it::HttpResponse other = post_keyed(kCustomers, b, key, body);
    EXPECT_TRUE(it::is_success(other, 201));
    EXPECT_FALSE(other.header("Idempotency-Replayed"));
    it::Db db;
    EXPECT_EQ(customers_of(db, b), 1);
}

TEST(IdempotencyKey, KeysAreCaseSensitive) {
    const it::Shop shop = it::make_shop();
    const std::string key = "Order-" + it::unique_suffix();
    ASSERT_TRUE(
        it::is_success(post_keyed(kCustomers, shop, key, customer_body(it::unique_email())), 201));
    const it::HttpResponse lower =
        post_keyed(kCustomers, shop, it::to_lower(key), customer_body(it::unique_email()));
    EXPECT_TRUE(it::is_success(lower, 201));
    EXPECT_FALSE(lower.header("Idempotency-Replayed"));
    it::Db db;
    EXPECT_EQ(customers_of(db, shop), 2);
}

// ---------------------------------------------------------------------------------------------
// 422: the key was used for another request.

TEST(IdempotencyKey, AnotherBodyOrPathIs422AndWritesNothing) {
    const it::tickets::World w = it::tickets::make_world();
    const std::string key = fresh_key();
    const std::string body = customer_body(it::unique_email());
    ASSERT_TRUE(it::is_success(post_keyed(kCustomers, w.shop, key, body), 201));
    const char kReused[] = "Idempotency-Key was already used for a different request";
    EXPECT_TRUE(it::is_error(post_keyed(kCustomers, w.shop, key, customer_body(it::unique_email())),
                             422, "idempotency_key_reused", kReused));
    const std::string ticket =
        it::to_json(it::object({{"customerId", w.customer["id"]}, {"Channel", "Mail"}}));
    EXPECT_TRUE(it::is_error(post_keyed(it::tickets::kTicketsPath, w.shop, key, ticket), 422,
                             "idempotency_key_reused", kReused));
    it::Db db;
    EXPECT_EQ(customers_of(db, w.shop), 2) << "the world's customer and the keyed one";
    EXPECT_EQ(db.count("SELECT COUNT(*) FROM conversations WHERE shop_id = ?",
                       {std::to_string(w.shop.id)}),
              0);
}

TEST(IdempotencyKey, TheSameJsonInOtherBytesIs422) {
    const it::Shop shop = it::make_shop();
    const std::string key = fresh_key();
    const std::string body = customer_body(it::unique_email());
    ASSERT_TRUE(it::is_success(post_keyed(kCustomers, shop, key, body), 201));
    EXPECT_TRUE(
        it::is_error(post_keyed(kCustomers, shop, key, body + " "), 422, "idempotency_key_reused"));
}

// ---------------------------------------------------------------------------------------------
// Answers other than 2xx are not stored.

TEST(IdempotencyKey, A404IsNotStoredAndTheFixedRetryIsProcessed) {
    const it::tickets::World w = it::tickets::make_world();
    const std::string key = fresh_key();
    const std::string wrong =
        it::to_json(it::object({{"customerId", "999999999999"}, {"Channel", "Mail"}}));
    EXPECT_TRUE(it::is_error(post_keyed(it::tickets::kTicketsPath, w.shop, key, wrong), 404,
                             "customer_not_found"));
    const std::string fixed =
        it::to_json(it::object({{"customerId", w.customer["id"]}, {"Channel", "Mail"}}));
    const it::HttpResponse r = post_keyed(it::tickets::kTicketsPath, w.shop, key, fixed);
    EXPECT_TRUE(it::is_success(r, 201));
    EXPECT_FALSE(r.header("Idempotency-Replayed"));
}

TEST(IdempotencyKey, A400IsNotStoredAndTheFixedRetryIsProcessed) {
    const it::Shop shop = it::make_shop();
    const std::string key = fresh_key();
    EXPECT_TRUE(it::is_error(post_keyed(kCustomers, shop, key, "{}"), 400, "validation_failed"));
    EXPECT_TRUE(
        it::is_success(post_keyed(kCustomers, shop, key, customer_body(it::unique_email())), 201));
}

TEST(IdempotencyKey, AFailedCommentLeavesTheKeyFreeForTheFixedRetry) {
    // A comment on a ticket of another shop: 404, its claim rolled back with it.
    const it::tickets::World w = it::tickets::make_world();
    const it::tickets::World other = it::tickets::make_world();
    const std::string foreign = it::tickets::create_ticket_id(other);
    const std::string key = fresh_key();
    const std::string body = it::to_json(it::object({{"text", "hi"}}));
    EXPECT_TRUE(it::is_error(post_keyed(it::tickets::comments_path(foreign), w.shop, key, body),
                             404, "ticket_not_found"));
    const std::string own = it::tickets::create_ticket_id(w);
    EXPECT_TRUE(
        it::is_success(post_keyed(it::tickets::comments_path(own), w.shop, key, body), 201));
    it::Db db;
    EXPECT_EQ(db.count("SELECT COUNT(*) FROM idempotency_keys WHERE shop_id = ?",
                       {std::to_string(w.shop.id)}),
              1);
}

// ---------------------------------------------------------------------------------------------
// 409 and concurrency.

TEST(IdempotencyKey, WhileTheFirstRequestIsInProgressTheKeyIs409WhateverTheBody) {
    const it::tickets::World w = it::tickets::make_world();
    const std::string ticket = it::tickets::create_ticket_id(w);
    const std::string key = fresh_key();
    const std::string body = it::to_json(it::object({{"text", "first"}}));
    const std::string path = it::tickets::comments_path(ticket);

    it::RowLock lock("SELECT id FROM conversations WHERE id = " + ticket + " FOR UPDATE");
    // Every request through host A: its pool uses the database the lock is taken on (a row
    // lock on one Galera node does not hold up a writer on another; scripts/test --galera).
    const auto post_keyed = [](const std::string& p, const it::Shop& shop, const std::string& k,
                               const std::string& b) {
        return it::http_on(0, "POST", p, keyed(shop, k), b);
    };
    auto first =
        std::async(std::launch::async, [&] { return post_keyed(path, w.shop, key, body); });
    ASSERT_TRUE(lock.someone_waits(std::chrono::seconds(30))) << "the first request did not block";
    const char kInUse[] = "A request with this Idempotency-Key is in progress";
    EXPECT_TRUE(
        it::is_error(post_keyed(path, w.shop, key, body), 409, "idempotency_key_in_use", kInUse));
    EXPECT_TRUE(it::is_error(post_keyed(path, w.shop, key, R"({"text":"other"})"), 409,
                             "idempotency_key_in_use", kInUse));
    lock.release();
    const it::HttpResponse done = first.get();
    ASSERT_TRUE(it::is_success(done, 201));
    EXPECT_TRUE(replayed(done, post_keyed(path, w.shop, key, body)));
    it::Db db;
    EXPECT_EQ(db.count("SELECT COUNT(*) FROM messages WHERE conversation_id = ?", {ticket}), 1);
}

TEST(IdempotencyKey, TenParallelIdenticalRequestsWriteOnceAndTheOthersReplayOr409) {
    const it::Shop shop = it::make_shop();
    const std::string key = fresh_key();
    const std::string body = customer_body(it::unique_email());
    std::vector<std::future<it::HttpResponse>> sent;
    for (int i = 0; i < 10; ++i) {
        sent.push_back(std::async(std::launch::async,
                                  [&] { return post_keyed(kCustomers, shop, key, body); }));
    }
    int fresh = 0;
    std::optional<std::string> created;
    for (auto& f : sent) {
        const it::HttpResponse r = f.get();
        if (r.status == 409) {
            EXPECT_TRUE(it::is_error(r, 409, "idempotency_key_in_use"));
            continue;
        }
        ASSERT_TRUE(it::is_success(r, 201));
        if (!r.header("Idempotency-Replayed")) {
            ++fresh;
        }
        if (created) {
            EXPECT_EQ(r.body, *created) << "every 201 is the same answer";
        }
        created = r.body;
    }
    EXPECT_EQ(fresh, 1) << "exactly one request was processed";
    it::Db db;
    EXPECT_EQ(customers_of(db, shop), 1);
    EXPECT_EQ(db.count("SELECT COUNT(*) FROM idempotency_keys WHERE shop_id = ?",
                       {std::to_string(shop.id)}),
              1);
}

// ---------------------------------------------------------------------------------------------
// Retention: keys are kept 25 hours (at least the 24 of E2), then deleted by the workers.

TEST(IdempotencyKey, KeysOlderThan25HoursAreDeletedByTheWorkersAndYoungerOnesKept) {
    const it::Shop shop = it::make_shop();
    it::Db db;
    const std::string old_key = "old-" + it::unique_suffix();
    const std::string young_key = "young-" + it::unique_suffix();
    const std::string hash(64, 'a');
    for (const auto& [key, hours] : {std::pair{old_key, 26}, std::pair{young_key, 24}}) {
        ASSERT_EQ(db.execute("INSERT INTO idempotency_keys (shop_id, idem_key, request_hash, "
                             "status, body, created_at) VALUES (?, ?, ?, 201, '{}', "
                             "UTC_TIMESTAMP(3) - INTERVAL ? HOUR)",
                             {std::to_string(shop.id), key, hash, std::to_string(hours)}),
                  0);
    }
    // A worker of its own: the pool's workers may have run their once-a-minute batch just now.
    it::proc::TempDir dir;
    it::proc::SpawnOptions o;
    o.program = it::proc::fcgi_binary();
    o.args = {"--config", it::env().config, "--listen", dir.file("s.sock"), "--workers", "1"};
    o.stderr_path = dir.file("fcgi.log");
    o.stdout_path = dir.file("fcgi.out");
    it::proc::Process master(o);
    ASSERT_TRUE(master.wait_for_log("ready: 1 workers serving", it::proc::Millis(20000)))
        << master.log();
    it::fcgi::Request health;
    health.uri = "/healthz";
    EXPECT_EQ(it::fcgi::request(dir.file("s.sock"), health, it::proc::Millis(15000)).status, 200);
    // Its first batch runs right after that answer (a pool worker may have taken the row first).
    const std::string count =
        "SELECT COUNT(*) FROM idempotency_keys WHERE shop_id = ? AND idem_key = ?";
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (db.count(count, {std::to_string(shop.id), old_key}) != 0 &&
           std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    EXPECT_EQ(db.count(count, {std::to_string(shop.id), old_key}), 0);
    EXPECT_EQ(db.count(count, {std::to_string(shop.id), young_key}), 1);
}

}  // namespace
