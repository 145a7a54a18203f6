// GET /api/v1/tickets/{ticketId}/comments (api-v1 §5, contract §3, §4, §5, §7): the list shape
// with the conversation's Customer and a null User, attachments exactly as given, order by time
// then id, totalCount, the path id rules, shop isolation, and ids above 2^53.
#include <algorithm>
#include <string>
#include <vector>

#include "harness.h"
#include "tickets_fixtures.h"

namespace {

using it::HttpResponse;
using it::object;
using it::Shop;
using it::tickets::array;
using it::tickets::comments_path;
using it::tickets::World;

std::vector<std::string> sorted(std::vector<std::string> v) {
    std::sort(v.begin(), v.end());
    return v;
}

const std::vector<std::string> kListFields =
    sorted({"id", "text", "time", "Channel", "isFromShop", "subject", "fromEmail", "toEmails",
            "attachments", "files", "tags", "Customer", "User"});
const std::vector<std::string> kCustomerFields =
    sorted({"id", "email", "first_name", "last_name", "full_name"});

// The texts of the listed comments, in order.
std::vector<std::string> texts_of(const Json::Value& list) {
    std::vector<std::string> out;
    for (const Json::Value& c : list["comments"]) {
        out.push_back(c["text"].asString());
    }
    return out;
}

// ---------------------------------------------------------------------------------------------
// The list.

TEST(CommentsList, ATicketWithoutCommentsHasAnEmptyList) {
    const World w = it::tickets::make_world();
    const std::string id = it::tickets::create_ticket_id(w);
    const HttpResponse r = it::get(comments_path(id), w.shop);
    ASSERT_TRUE(it::is_success(r, 200));
    EXPECT_EQ(r.json()["comments"], Json::Value(Json::arrayValue)) << r.describe();
    EXPECT_TRUE(it::is_json_integer(r.json()["totalCount"])) << r.describe();
    EXPECT_EQ(r.json()["totalCount"].asInt64(), 0);
}

TEST(CommentsList, EachCommentHasTheListShape) {
    const World w = it::tickets::make_world();
    const std::string id = it::tickets::create_ticket_id(w);
    const Json::Value made = it::tickets::add_comment(
        w.shop, id,
        object({{"text", "Hello Ann"},
                {"time", "2026-04-05T06:07:08.009Z"},
                {"subject", "Re: your order"},
                {"fromEmail", "shop@example.test"},
                {"toEmails", array({"ann@example.test", "cc@example.test"})},
                {"attachments", array({"a.pdf"})},
                {"tags", array({"reply"})},
                {"Channel", "Website"},
                {"isFromShop", false}}));
    const HttpResponse r = it::get(comments_path(id), w.shop);
    ASSERT_TRUE(it::is_success(r, 200));
    const Json::Value& list = r.json()["comments"];
    ASSERT_EQ(list.size(), 1u) << r.describe();
    EXPECT_EQ(r.json()["totalCount"].asInt64(), 1);
    const Json::Value& c = list[0];
    EXPECT_EQ(it::member_names(c), kListFields) << r.describe();
    EXPECT_TRUE(it::tickets::is_id_string(c["id"])) << r.describe();
    EXPECT_EQ(c["id"], made["id"]);
    EXPECT_EQ(c["text"], Json::Value("Hello Ann"));
    EXPECT_EQ(c["time"], Json::Value("2026-04-05T06:07:08.009Z"));
    EXPECT_EQ(c["Channel"], Json::Value("Website"));
    EXPECT_EQ(c["isFromShop"], Json::Value(false));
    EXPECT_EQ(c["subject"], Json::Value("Re: your order"));
    EXPECT_EQ(c["fromEmail"], Json::Value("shop@example.test"));
    EXPECT_EQ(c["toEmails"], array({"ann@example.test", "cc@example.test"}));
    EXPECT_EQ(c["attachments"], array({"a.pdf"}));
    EXPECT_EQ(c["tags"], array({"reply"}));
    EXPECT_TRUE(c["User"].isNull()) << r.describe();

    const Json::Value& customer = c["Customer"];
    ASSERT_TRUE(customer.isObject()) << r.describe();
    EXPECT_EQ(it::member_names(customer), kCustomerFields) << r.describe();
    EXPECT_TRUE(it::is_json_integer(customer["id"])) << r.describe();
    EXPECT_EQ(customer["id"].asInt64(), w.customer_id);
    for (const char* f : {"email", "first_name", "last_name", "full_name"}) {
        EXPECT_EQ(customer[f], w.customer[f]) << f << " in " << r.describe();
    }
}

TEST(CommentsList, DefaultsOfAMinimalComment) {
    const World w = it::tickets::make_world();
    const std::string id = it::tickets::create_ticket_id(w, object({{"Channel", "Chat"}}));
    it::tickets::add_comment(w.shop, id, object({{"text", "hi"}}));
    const Json::Value list = it::tickets::list_comments(w.shop, id);
    ASSERT_EQ(list["comments"].size(), 1u) << it::to_json(list);
    const Json::Value& c = list["comments"][0];
    EXPECT_EQ(c["Channel"], Json::Value("Chat"));
    EXPECT_EQ(c["isFromShop"], Json::Value(true));
    EXPECT_TRUE(it::tickets::is_recent_utc_millis(c["time"]));
    EXPECT_TRUE(c.isMember("subject") && c["subject"].isNull()) << it::to_json(c);
    EXPECT_TRUE(c.isMember("fromEmail") && c["fromEmail"].isNull()) << it::to_json(c);
    EXPECT_EQ(c["toEmails"], Json::Value(Json::arrayValue)) << it::to_json(c);
    EXPECT_EQ(c["tags"], Json::Value(Json::arrayValue)) << it::to_json(c);
    EXPECT_TRUE(c.isMember("attachments") && c["attachments"].isNull()) << it::to_json(c);
    EXPECT_TRUE(c.isMember("User") && c["User"].isNull()) << it::to_json(c);
}

TEST(CommentsList, AttachmentsComeBackExactlyAsGiven) {
    const World w = it::tickets::make_world();
    const std::string id = it::tickets::create_ticket_id(w);
    const std::vector<std::string> payloads{
        R"({"files":[{"name":"a.pdf","size":1.5}],"n":3.14159})",
        R"({"big":9007199254740993,"huge":12345678901234567890,"neg":-7,"zero":0.0001})",
        R"([1,"two",[3],{"four":null},true,false])",
        R"("just a string")",
        R"(42)",
        R"(true)",
        R"({"nested":{"deep":{"deeper":["ü","注文","\n\"q\""]}},"empty":{},"none":[]})",
        R"({ "spaced" : [ 1.50 , -0 , 1e3 ] , "escaped" : "\u00e9\ud83d\ude9a\u0041" })",
    };
    for (size_t i = 0; i < payloads.size(); ++i) {
        it::tickets::add_comment(
            w.shop, id,
            object({{"text", "c" + std::to_string(i)},
                    {"time", "2026-01-01T00:00:0" + std::to_string(i) + ".000Z"},
                    {"attachments", it::parse_json(payloads[i])}}));
    }
    const Json::Value list = it::tickets::list_comments(w.shop, id);
    ASSERT_EQ(list["comments"].size(), payloads.size()) << it::to_json(list);
    for (size_t i = 0; i < payloads.size(); ++i) {
        SCOPED_TRACE(payloads[i]);
        const Json::Value& c = list["comments"][static_cast<Json::ArrayIndex>(i)];
        EXPECT_EQ(c["text"], Json::Value("c" + std::to_string(i))) << it::to_json(list);
        EXPECT_EQ(c["attachments"], it::parse_json(payloads[i])) << it::to_json(c["attachments"]);
    }
}

TEST(CommentsList, OrderedByTimeNotByInsertion) {
    const World w = it::tickets::make_world();
    const std::string id = it::tickets::create_ticket_id(w);
    // "now" comes first in insertion and last in time.
    it::tickets::add_comment(w.shop, id, object({{"text", "now"}}));
    it::tickets::add_comment(w.shop, id,
                             object({{"text", "third"}, {"time", "2026-01-03T00:00:00Z"}}));
    it::tickets::add_comment(w.shop, id,
                             object({{"text", "first"}, {"time", "2026-01-01T00:00:00.001Z"}}));
    it::tickets::add_comment(w.shop, id,
                             object({{"text", "second"}, {"time", "2026-01-02T00:00:00+00:00"}}));
    // 2026-01-01T00:00:00.000Z, one millisecond before "first", written with an offset.
    it::tickets::add_comment(w.shop, id,
                             object({{"text", "zeroth"}, {"time", "2026-01-01T02:00:00+02:00"}}));
    const Json::Value list = it::tickets::list_comments(w.shop, id);
    EXPECT_EQ(texts_of(list),
              (std::vector<std::string>{"zeroth", "first", "second", "third", "now"}))
        << it::to_json(list);
    EXPECT_EQ(list["totalCount"].asInt64(), 5);
}

TEST(CommentsList, EqualTimesAreOrderedById) {
    const World w = it::tickets::make_world();
    const std::string id = it::tickets::create_ticket_id(w);
    const std::string same = "2026-02-02T02:02:02.222Z";
    std::vector<std::string> ids;
    for (const char* text : {"a", "b", "c", "d"}) {
        ids.push_back(
            it::tickets::add_comment(w.shop, id, object({{"text", text}, {"time", same}}))["id"]
                .asString());
    }
    it::tickets::add_comment(w.shop, id, object({{"text", "earlier"}, {"time", "2026-02-02"}}));
    const Json::Value list = it::tickets::list_comments(w.shop, id);
    EXPECT_EQ(texts_of(list), (std::vector<std::string>{"earlier", "a", "b", "c", "d"}))
        << it::to_json(list);
    std::vector<std::string> listed;
    for (const Json::Value& c : list["comments"]) {
        listed.push_back(c["id"].asString());
    }
    ASSERT_EQ(listed.size(), 5u);
    for (size_t i = 2; i < listed.size(); ++i) {
        EXPECT_LT(it::tickets::compare_ids(listed[i - 1], listed[i]), 0) << it::to_json(list);
    }
    EXPECT_EQ(std::vector<std::string>(listed.begin() + 1, listed.end()), ids);
}

TEST(CommentsList, OnlyTheCommentsOfThatTicket) {
    const World w = it::tickets::make_world();
    const std::string mine = it::tickets::create_ticket_id(w);
    const std::string sibling = it::tickets::create_ticket_id(w);
    it::tickets::add_comment(w.shop, mine, object({{"text", "mine"}}));
    it::tickets::add_comment(w.shop, sibling, object({{"text", "sibling 1"}}));
    it::tickets::add_comment(w.shop, sibling, object({{"text", "sibling 2"}}));
    const Json::Value list = it::tickets::list_comments(w.shop, mine);
    EXPECT_EQ(texts_of(list), std::vector<std::string>{"mine"}) << it::to_json(list);
    EXPECT_EQ(list["totalCount"].asInt64(), 1);
    EXPECT_EQ(it::tickets::list_comments(w.shop, sibling)["totalCount"].asInt64(), 2);
}

TEST(CommentsList, CustomerIsTheConversationsCustomer) {
    const World w = it::tickets::make_world();
    const int64_t second = it::tickets::make_customer(w.shop);
    const std::string id =
        it::tickets::create_ticket(
            w.shop, object({{"customerId", Json::Int64(second)}, {"Channel", "Mail"}}))["id"]
            .asString();
    it::tickets::add_comment(w.shop, id, object({{"text", "to the second customer"}}));
    const Json::Value c = it::tickets::list_comments(w.shop, id)["comments"][0];
    EXPECT_EQ(c["Customer"]["id"].asInt64(), second) << it::to_json(c);
    EXPECT_TRUE(c["Customer"]["first_name"].isNull()) << it::to_json(c);
    EXPECT_TRUE(c["Customer"]["full_name"].isNull()) << it::to_json(c);
}

// ---------------------------------------------------------------------------------------------
// Ids above 2^53.

TEST(CommentsList, BigConversationAndMessageIdsSurvive) {
    const World w = it::tickets::make_world();
    it::tickets::PlantedConversation conv;
    conv.shop_id = w.shop.id;
    conv.customer_id = w.customer_id;
    conv.channel = "Planted";
    const std::string id = it::tickets::plant_conversation(conv);
    it::tickets::PlantedMessage m;
    m.conversation_id = id;
    m.text = "planted message";
    m.time = "2026-01-01 00:00:00.000";
    m.attachments = R"({"n":9007199254740993})";
    const std::string message_id = it::tickets::plant_message(m);
    const Json::Value added =
        it::tickets::add_comment(w.shop, id, object({{"text", "added through v1"}}));
    ASSERT_TRUE(it::tickets::is_id_string(added["id"])) << it::to_json(added);
    EXPECT_GT(it::tickets::compare_ids(added["id"].asString(), message_id), 0);
    EXPECT_EQ(added["Channel"], Json::Value("Planted"));

    const HttpResponse r = it::get(comments_path(id), w.shop);
    ASSERT_TRUE(it::is_success(r, 200));
    EXPECT_NE(r.body.find("\"" + message_id + "\""), std::string::npos) << r.describe();
    const Json::Value& list = r.json()["comments"];
    ASSERT_EQ(list.size(), 2u) << r.describe();
    EXPECT_EQ(r.json()["totalCount"].asInt64(), 2);
    EXPECT_EQ(list[0]["id"], Json::Value(message_id));
    EXPECT_EQ(list[0]["text"], Json::Value("planted message"));
    EXPECT_EQ(list[0]["time"], Json::Value("2026-01-01T00:00:00.000Z"));
    EXPECT_EQ(list[0]["attachments"], it::parse_json(R"({"n":9007199254740993})"));
    EXPECT_EQ(list[0]["Customer"]["id"].asInt64(), w.customer_id);
    EXPECT_EQ(list[1]["id"], added["id"]);
    EXPECT_EQ(list[1]["text"], Json::Value("added through v1"));
}

// ---------------------------------------------------------------------------------------------
// The path id and shop isolation.

TEST(CommentsList, AMissingIdIsRequired) {
    const World w = it::tickets::make_world();
    EXPECT_TRUE(it::is_error(it::get("/api/v1/tickets//comments", w.shop), 400, "validation_failed",
                             "ticketId is required"));
}

TEST(CommentsList, AnIdThatIsNotDigitsIsInvalid) {
    const World w = it::tickets::make_world();
    for (const char* bad : {"abc", "12x", "-1", "1.0", "1%20"}) {
        SCOPED_TRACE(bad);
        EXPECT_TRUE(it::is_error(it::get(comments_path(bad), w.shop), 400, "invalid_id",
                                 "Invalid ticketId"));
    }
}

TEST(CommentsList, AnUnknownIdIsNotFound) {
    const World w = it::tickets::make_world();
    for (const char* unknown : {"0", "18446744073709551615", "99999999999999999999999"}) {
        SCOPED_TRACE(unknown);
        EXPECT_TRUE(it::is_error(it::get(comments_path(unknown), w.shop), 404, "ticket_not_found",
                                 "Ticket not found"));
    }
}

TEST(CommentsList, AnotherShopsTicketIsNotFound) {
    const World w = it::tickets::make_world();
    const World other = it::tickets::make_world();
    const std::string id = it::tickets::create_ticket_id(other);
    it::tickets::add_comment(other.shop, id, object({{"text", "private"}}));
    const HttpResponse r = it::get(comments_path(id), w.shop);
    EXPECT_TRUE(it::is_error(r, 404, "ticket_not_found", "Ticket not found"));
    EXPECT_EQ(r.body.find("private"), std::string::npos) << r.describe();
}

TEST(CommentsList, KeyComesBeforeThePathId) {
    const Shop gone = it::make_shop();
    it::admin({"shop", "delete", "--domain", gone.domain});
    EXPECT_TRUE(it::is_error(it::http("GET", comments_path("abc")), 401, "missing_api_key",
                             "API key is required"));
    EXPECT_TRUE(
        it::is_error(it::get(comments_path("abc"), gone), 404, "shop_not_found", "Shop not found"));
}

TEST(CommentsList, OtherMethodsAreNotAllowed) {
    const World w = it::tickets::make_world();
    const std::string id = it::tickets::create_ticket_id(w);
    for (const char* method : {"PUT", "DELETE", "PATCH"}) {
        SCOPED_TRACE(method);
        const HttpResponse r = it::http(method, comments_path(id), it::key_header(w.shop));
        EXPECT_TRUE(it::is_error(r, 405, "method_not_allowed", "Method not allowed"));
        const std::string allow = r.header("allow").value_or("");
        EXPECT_NE(allow.find("GET"), std::string::npos) << r.describe();
        EXPECT_NE(allow.find("POST"), std::string::npos) << r.describe();
    }
}

}  // namespace

// The list resolves the key inside its own statement, whose rows come back for a deleted
// shop's ticket too: the shop must still be refused, with comments present or not.
TEST(CommentsList, ADeletedShopsOwnTicketIs404ShopNotFound) {
    const World w = it::tickets::make_world();
    const std::string with_comments = it::tickets::create_ticket_id(w);
    it::tickets::add_comment(w.shop, with_comments, it::object({{"text", "hello"}}));
    const std::string without_comments = it::tickets::create_ticket_id(w);
    it::admin({"shop", "delete", "--domain", w.shop.domain});
    for (const std::string& id : {with_comments, without_comments}) {
        EXPECT_TRUE(it::is_error(it::get(comments_path(id), w.shop), 404, "shop_not_found",
                                 "Shop not found"));
        EXPECT_TRUE(it::is_error(it::get(it::tickets::ticket_path(id), w.shop), 404,
                                 "shop_not_found", "Shop not found"));
        EXPECT_TRUE(
            it::is_error(it::post_json(comments_path(id), w.shop, it::object({{"text", "after"}})),
                         404, "shop_not_found", "Shop not found"));
    }
}
