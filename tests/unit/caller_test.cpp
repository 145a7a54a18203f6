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
