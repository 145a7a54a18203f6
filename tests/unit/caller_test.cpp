// Caller: what a keyed statement's row means for the request, in the contract's order. The key's
// own statement (resolve() on an unresolved caller) needs the database and is covered by the
// integration tests; once learn() has settled the key, nothing here touches the database (the
// unconnected Db below would throw if it were asked).
#include "api/caller.h"

#include <gtest/gtest.h>

#include <optional>
#include <stdexcept>
#include <string>

using supportcrm::Caller;
using supportcrm::Db;
using supportcrm::DbSettings;
using supportcrm::Response;
using supportcrm::Shop;

namespace {

Shop shop_with(std::uint64_t id, bool deleted) {
    Shop s;
    s.id = id;
    s.domain = "shop-" + std::to_string(id) + ".example";
    s.deleted = deleted;
    return s;
}

bool is_error(const std::optional<Response>& r, int status, const std::string& code) {
    return r && r->status == status && r->body.find("\"" + code + "\"") != std::string::npos;
}

}  // namespace

TEST(Caller, NoRowMeansAnUnknownKey) {
    Caller caller("digest");
    EXPECT_EQ(caller.learn(std::nullopt), nullptr);
    EXPECT_TRUE(is_error(caller.error(), 401, "invalid_api_key"));
    EXPECT_FALSE(caller.shop_id());
    Db unconnected{DbSettings{}};  // settled: the key's statement is not run again
    EXPECT_EQ(caller.resolve(unconnected), nullptr);
    EXPECT_TRUE(is_error(caller.error(), 401, "invalid_api_key"));
}

TEST(Caller, ADeletedShopIs404AndNoShop) {
    Caller caller("digest");
    EXPECT_EQ(caller.learn(shop_with(7, true)), nullptr);
    EXPECT_TRUE(is_error(caller.error(), 404, "shop_not_found"));
    EXPECT_FALSE(caller.shop_id());  // the access log shows no shop for a refused request
    EXPECT_THROW(caller.shop(), std::logic_error);
    Db unconnected{DbSettings{}};
    EXPECT_EQ(caller.resolve(unconnected), nullptr);
    EXPECT_TRUE(is_error(caller.error(), 404, "shop_not_found"));
}

TEST(Caller, ALiveShopIsTheCallersAndHasNoError) {
    Caller caller("digest");
    const Shop* shop = caller.learn(shop_with(7, false));
    ASSERT_NE(shop, nullptr);
    EXPECT_EQ(shop->id, 7u);
    EXPECT_EQ(shop->domain, "shop-7.example");
    EXPECT_EQ(&caller.shop(), shop);
    EXPECT_EQ(caller.shop_id(), 7u);
    EXPECT_FALSE(caller.error());
    Db unconnected{DbSettings{}};
    EXPECT_EQ(caller.resolve(unconnected), shop);  // no second look at the key
}

TEST(Caller, AnAcceptedWriteSettlesTheShop) {
    // A keyed write that succeeded names its shop, possibly by id alone (a new comment).
    Caller caller("digest");
    Shop shop;
    shop.id = 42;
    ASSERT_NE(caller.learn(shop), nullptr);
    EXPECT_EQ(caller.shop_id(), 42u);
    Db unconnected{DbSettings{}};
    ASSERT_NE(caller.resolve(unconnected), nullptr);
    EXPECT_EQ(caller.resolve(unconnected)->id, 42u);
}

TEST(Caller, NothingIsKnownBeforeTheKeyIsSettled) {
    Caller caller("digest");
    EXPECT_FALSE(caller.error());  // dispatch then runs the key's own statement
    EXPECT_FALSE(caller.shop_id());
    EXPECT_THROW(caller.shop(), std::logic_error);
}

// extensions.md §E12: the key's terms ride on its row; expiry, scope and rate are judged
// from it in the order key (401) -> shop (404) -> scope (403) -> rate (429).
namespace {

Shop keyed_shop(std::uint64_t key_id, unsigned scopes, bool deleted = false) {
    Shop s = shop_with(9, deleted);
    s.key.known = true;
    s.key.id = key_id;
    s.key.scopes = scopes;
    return s;
}

bool has_header(const Response& r, const std::string& name, const std::string& value) {
    for (const auto& [n, v] : r.headers) {
        if (n == name && v == value) {
            return true;
        }
    }
    return false;
}

constexpr unsigned kRead = 1, kWrite = 2;

}  // namespace

TEST(Caller, AnExpiredKeyIs401BeforeItsShop) {
    Caller caller("digest-expired", kRead);
    Shop s = keyed_shop(1001, kRead, /*deleted=*/true);
    s.key.expires_ms = 1000;  // 1970
    EXPECT_EQ(caller.learn(s), nullptr);
    EXPECT_TRUE(is_error(caller.error(), 401, "invalid_api_key"));
    EXPECT_NE(caller.error()->body.find("API key expired"), std::string::npos);
}

TEST(Caller, TheShopComesBeforeTheScope) {
    Caller caller("digest-deleted", kWrite);
    EXPECT_EQ(caller.learn(keyed_shop(1002, kRead, true)), nullptr);
    EXPECT_TRUE(is_error(caller.error(), 404, "shop_not_found"));
}

TEST(Caller, AKeyWithoutTheRoutesScopeIs403) {
    Caller caller("digest-scope", kWrite);
    EXPECT_EQ(caller.learn(keyed_shop(1003, kRead)), nullptr);
    EXPECT_TRUE(is_error(caller.error(), 403, "insufficient_scope"));
    EXPECT_NE(caller.error()->body.find("API key lacks the write scope"), std::string::npos);
    Caller reader("digest-scope", kRead);
    EXPECT_NE(reader.learn(keyed_shop(1003, kRead)), nullptr);
}

TEST(Caller, ARatedKeyTakesOneTokenPerRequestAndIsRefusedOverIt) {
    Shop s = keyed_shop(1004, kRead);
    s.key.rate_count = 2;
    s.key.rate_period_s = 60;
    Db unconnected{DbSettings{}};
    for (int i = 0; i < 2; ++i) {
        Caller caller("digest-rated", kRead);
        ASSERT_NE(caller.learn(s), nullptr) << i;
        caller.learn(s);  // a second look at the row takes no second token
        ASSERT_NE(caller.resolve(unconnected), nullptr);
    }
    Caller over("digest-rated", kRead);
    EXPECT_EQ(over.learn(s), nullptr);
    std::optional<Response> refused = over.error();
    ASSERT_TRUE(is_error(refused, 429, "rate_limited"));
    EXPECT_TRUE(has_header(*refused, "Retry-After", "30"));
}

// api/key_cache.h keeps whether the key's shop is deleted: within the cache's second, admit()
// answers a deleted shop's key 404 from it, never 429 (or 403), and runs no statement.
TEST(Caller, ACachedDeletedShopIs404BeforeTheRateAndTheScope) {
    Shop s = keyed_shop(1005, kRead, /*deleted=*/true);
    s.key.rate_count = 1;
    s.key.rate_period_s = 60;
    Caller first("digest-deleted-rated", kRead);
    EXPECT_EQ(first.learn(s), nullptr);
    EXPECT_TRUE(is_error(first.error(), 404, "shop_not_found"));
    Db unconnected{DbSettings{}};  // would throw if admit() ran the key's statement
    for (int i = 0; i < 3; ++i) {
        Caller again("digest-deleted-rated", kRead);
        EXPECT_TRUE(
            is_error(again.admit(unconnected, /*writes_in_statement=*/true), 404, "shop_not_found"))
            << i;
        Caller writer("digest-deleted-rated", kWrite);  // lacks the scope too
        EXPECT_TRUE(is_error(writer.admit(unconnected, true), 404, "shop_not_found")) << i;
    }
}

TEST(Caller, ACachedLiveKeyOverItsRateIs429WithoutAStatement) {
    Shop s = keyed_shop(1006, kRead);
    s.key.rate_count = 1;
    s.key.rate_period_s = 60;
    Caller first("digest-live-rated", kRead);
    ASSERT_NE(first.learn(s), nullptr);  // the one token
    Db unconnected{DbSettings{}};
    Caller over("digest-live-rated", kRead);
    EXPECT_TRUE(is_error(over.admit(unconnected, false), 429, "rate_limited"));
}
