// Caller: what a keyed statement's row means for the request, in the contract's order. The key's
// own statement (resolve() on an unresolved caller) needs the database and is covered by the
// integration tests; once the key is settled, nothing here touches the database.
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
    EXPECT_TRUE(is_error(caller.adopt(std::nullopt), 401, "invalid_api_key"));
    EXPECT_FALSE(caller.shop_id());
    Db unconnected{DbSettings{}};  // settled: the key's statement is not run again
    EXPECT_TRUE(is_error(caller.resolve(unconnected), 401, "invalid_api_key"));
}

TEST(Caller, ADeletedShopIs404AndWinsOverTheOperationsOwnError) {
    Caller caller("digest");
    EXPECT_TRUE(is_error(caller.adopt(shop_with(7, true)), 404, "shop_not_found"));
    Db unconnected{DbSettings{}};
    Response own;
    own.status = 400;
    own.body = R"({"success":false,"code":"invalid_id"})";
    Response answered = caller.after_key_checks(unconnected, own);
    EXPECT_EQ(answered.status, 404);
    EXPECT_NE(answered.body.find("shop_not_found"), std::string::npos);
    EXPECT_FALSE(caller.shop_id());  // the access log shows no shop for a refused request
}

TEST(Caller, ALiveShopLetsTheOperationsOwnAnswerThrough) {
    Caller caller("digest");
    EXPECT_FALSE(caller.adopt(shop_with(7, false)));
    EXPECT_EQ(caller.shop().id, 7u);
    EXPECT_EQ(caller.shop().domain, "shop-7.example");
    EXPECT_EQ(caller.shop_id(), 7u);
    Db unconnected{DbSettings{}};
    Response own;
    own.status = 404;
    own.body = R"({"success":false,"code":"ticket_not_found"})";
    EXPECT_EQ(caller.after_key_checks(unconnected, own).body, own.body);
}

TEST(Caller, AnAcceptedWriteSettlesTheShop) {
    Caller caller("digest");
    Shop shop;
    shop.id = 42;
    caller.accepted(shop);
    EXPECT_EQ(caller.shop_id(), 42u);
    Db unconnected{DbSettings{}};
    EXPECT_FALSE(caller.resolve(unconnected));
}

TEST(Caller, ShopBeforeTheKeyIsSettledIsAProgrammingError) {
    Caller caller("digest");
    EXPECT_THROW(caller.shop(), std::logic_error);
}
