// Opening a keyed statement's result (db/rows.h Keyed<T>, api/handler.h KeyedOpener): the key
// rule first, the record only with the key's answer, and the key's own statement only where no
// row proves nothing. The statements themselves are covered by tests/integration.
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "api/handler.h"

using supportcrm::Caller;
using supportcrm::Checked;
using supportcrm::Db;
using supportcrm::DbSettings;
using supportcrm::Keyed;
using supportcrm::KeyedOpener;
using supportcrm::KeyJoin;
using supportcrm::Opened;
using supportcrm::Shop;

namespace {

// Opening a temporary would leave the answer pointing into a destroyed result.
template <typename K>
concept opens_a_temporary = requires(Caller& c, Db& d) {
    KeyedOpener::open(c, d, K(KeyJoin::only_with_record));
};
static_assert(!opens_a_temporary<Keyed<int>>);

// Nothing outside KeyedOpener reads a Keyed: neither its key nor its record is accessible.
template <typename K>
concept key_readable = requires(K k) {
    k.key_;
};
template <typename K>
concept record_readable = requires(K k) {
    k.record_;
};
static_assert(!key_readable<Keyed<int>> && !record_readable<Keyed<int>>);

Shop live_shop(std::uint64_t id, bool deleted = false) {
    Shop s;
    s.id = id;
    s.deleted = deleted;
    s.key.known = true;
    s.key.id = 500 + id;
    s.key.scopes = 1;
    return s;
}

Keyed<std::string> found(KeyJoin join, std::optional<Shop> key, std::optional<std::string> record) {
    Keyed<std::string> k(join);
    if (key) {
        k.set_key(*key);
    }
    if (record) {
        k.set_record(*record);
    }
    return k;
}

bool is_error(const std::optional<supportcrm::Response>& r, int status, const std::string& code) {
    return r && r->status == status && r->body.find("\"" + code + "\"") != std::string::npos;
}

}  // namespace

TEST(KeyedOpen, ALiveKeysRecordComesWithItsShop) {
    Caller caller("digest-open-1", 1);
    Db unconnected{DbSettings{}};  // would throw if the key's statement ran
    Keyed<std::string> result = found(KeyJoin::whenever_key_exists, live_shop(1), "the record");
    Checked<Opened<std::string>> opened = KeyedOpener::open(caller, unconnected, result);
    ASSERT_FALSE(opened.error);
    ASSERT_NE(opened.value.shop, nullptr);
    EXPECT_EQ(opened.value.shop->id, 1u);
    ASSERT_NE(opened.value.record, nullptr);
    EXPECT_EQ(*opened.value.record, "the record");
}

TEST(KeyedOpen, ALiveKeyWithoutTheRecordIsTheHandlersOwn404) {
    Caller caller("digest-open-2", 1);
    Db unconnected{DbSettings{}};
    Keyed<std::string> result = found(KeyJoin::whenever_key_exists, live_shop(2), std::nullopt);
    Checked<Opened<std::string>> opened = KeyedOpener::open(caller, unconnected, result);
    ASSERT_FALSE(opened.error);
    ASSERT_NE(opened.value.shop, nullptr);
    EXPECT_FALSE(opened.value.record);
}

TEST(KeyedOpen, NoRowOfAStatementLedByTheKeyIsAnUnknownKeyWithoutAStatement) {
    Caller caller("digest-open-3", 1);
    Db unconnected{DbSettings{}};
    Keyed<std::string> result = found(KeyJoin::whenever_key_exists, std::nullopt, std::nullopt);
    Checked<Opened<std::string>> opened = KeyedOpener::open(caller, unconnected, result);
    EXPECT_TRUE(is_error(opened.error, 401, "invalid_api_key"));
    EXPECT_EQ(opened.value.shop, nullptr);
}

TEST(KeyedOpen, ADeletedShopsRecordIsNotGiven) {
    Caller caller("digest-open-4", 1);
    Db unconnected{DbSettings{}};
    Keyed<std::string> result = found(KeyJoin::only_with_record, live_shop(4, true), "secret");
    Checked<Opened<std::string>> opened = KeyedOpener::open(caller, unconnected, result);
    EXPECT_TRUE(is_error(opened.error, 404, "shop_not_found"));
    EXPECT_FALSE(opened.value.record);
}

TEST(KeyedOpen, NoRowOfAnInnerJoinRunsTheKeysOwnStatement) {
    Caller caller("digest-open-5", 1);
    Db unconnected{DbSettings{}};
    // Unsettled: the key's own statement must decide, so the unconnected database is asked.
    Keyed<std::string> result = found(KeyJoin::only_with_record, std::nullopt, std::nullopt);
    EXPECT_ANY_THROW((void)KeyedOpener::open(caller, unconnected, result));
}

TEST(KeyedOpen, NoRowOfAnInnerJoinForASettledKeyIsTheHandlersOwn404) {
    Caller caller("digest-open-6", 1);
    Db unconnected{DbSettings{}};
    ASSERT_NE(caller.learn(live_shop(6)), nullptr);  // settled by an earlier statement
    Keyed<std::string> result = found(KeyJoin::only_with_record, std::nullopt, std::nullopt);
    Checked<Opened<std::string>> opened = KeyedOpener::open(caller, unconnected, result);
    ASSERT_FALSE(opened.error);
    ASSERT_NE(opened.value.shop, nullptr);
    EXPECT_EQ(opened.value.shop->id, 6u);
    EXPECT_FALSE(opened.value.record);
}

TEST(KeyedOpen, AnExportReadsTheRecordOfAKeySettledBeforeItsHead) {
    EXPECT_EQ(KeyedOpener::record_of_settled_key(
                  found(KeyJoin::only_with_record, live_shop(7), std::string("row"))),
              "row");
    EXPECT_FALSE(KeyedOpener::record_of_settled_key(
        found(KeyJoin::only_with_record, std::nullopt, std::nullopt)));
}
