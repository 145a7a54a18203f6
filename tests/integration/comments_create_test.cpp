// POST /api/v1/tickets/{ticketId}/comments (api-v1 §6, contract §3, §4, §5, §7): 201 with the
// comment, defaults from the conversation, isFromShop / toEmails / tags / attachments rules,
// lengths and datetimes, the update of the conversation in the same transaction, the order of
// checks, shop isolation, and ids above 2^53.
#include <latch>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "harness.h"
#include "tickets_fixtures.h"

namespace {

using it::HttpResponse;
using it::object;
using it::Shop;
using it::tickets::array;
using it::tickets::comments_path;
using it::tickets::repeat;
using it::tickets::World;

const std::vector<std::string> kCommentFields{
    "id", "text", "time", "Channel", "isFromShop", "subject", "fromEmail", "toEmails", "tags"};

HttpResponse post(const Shop& shop, const std::string& ticket_id, const Json::Value& body) {
    return it::post_json(comments_path(ticket_id), shop, body);
}

// The columns of a conversation the comment route updates, as the database holds them.
struct ConversationRow {
    std::optional<std::string> last_message;
    std::string last_message_time;  // "YYYY-MM-DDTHH:MM:SS.mmmZ"
    int64_t unread_chat_count = -1;
};

ConversationRow read_conversation(const std::string& id) {
    it::Db db;
    ConversationRow row;
    const std::string where = " FROM conversations WHERE id = CAST(? AS UNSIGNED)";
    row.last_message = db.scalar("SELECT last_message" + where, {id});
    row.last_message_time =
        db.scalar("SELECT " + it::tickets::utc_millis_sql("last_message_time") + where, {id})
            .value_or("(no row)");
    row.unread_chat_count = db.count("SELECT unread_chat_count" + where, {id});
    return row;
}

int64_t count_messages(const std::string& conversation_id) {
    it::Db db;
    return db.count("SELECT COUNT(*) FROM messages WHERE conversation_id = CAST(? AS UNSIGNED)",
                    {conversation_id});
}

// ---------------------------------------------------------------------------------------------
// The created comment.

TEST(CommentsCreate, MinimalCommentReturns201WithTheDefaults) {
    const World w = it::tickets::make_world();
    const std::string id = it::tickets::create_ticket_id(w, object({{"Channel", "Website"}}));
    const HttpResponse r = post(w.shop, id, object({{"text", "Hello"}}));
    ASSERT_TRUE(it::is_success(r, 201));
    const Json::Value& c = r.json()["comment"];
    ASSERT_TRUE(it::tickets::has_members(c, kCommentFields)) << r.describe();
    EXPECT_TRUE(it::tickets::is_id_string(c["id"])) << r.describe();
    EXPECT_EQ(c["text"], Json::Value("Hello"));
    EXPECT_TRUE(it::tickets::is_recent_utc_millis(c["time"]));
    EXPECT_EQ(c["Channel"], Json::Value("Website"));
    EXPECT_EQ(c["isFromShop"], Json::Value(true));
    EXPECT_TRUE(c["subject"].isNull()) << r.describe();
    EXPECT_TRUE(c["fromEmail"].isNull()) << r.describe();
    EXPECT_EQ(c["toEmails"], Json::Value(Json::arrayValue)) << r.describe();
    EXPECT_EQ(c["tags"], Json::Value(Json::arrayValue)) << r.describe();
    EXPECT_EQ(count_messages(id), 1);
}

TEST(CommentsCreate, EveryGivenFieldComesBack) {
    const World w = it::tickets::make_world();
    const std::string id = it::tickets::create_ticket_id(w);
    const HttpResponse r =
        post(w.shop, id,
             object({{"text", "Your parcel left today"},
                     {"time", "2026-05-06T07:08:09.123+02:00"},
                     {"subject", "Shipping update"},
                     {"fromEmail", "shop@example.test"},
                     {"toEmails", array({"ann@example.test", "bo@example.test"})},
                     {"tags", array({"shipping", "auto"})},
                     {"attachments", object({{"files", array({"label.pdf"})}})},
                     {"Channel", "Website"},
                     {"isFromShop", false}}));
    ASSERT_TRUE(it::is_success(r, 201));
    const Json::Value& c = r.json()["comment"];
    EXPECT_EQ(c["text"], Json::Value("Your parcel left today"));
    EXPECT_EQ(c["time"], Json::Value("2026-05-06T05:08:09.123Z"));
    EXPECT_EQ(c["subject"], Json::Value("Shipping update"));
    EXPECT_EQ(c["fromEmail"], Json::Value("shop@example.test"));
    EXPECT_EQ(c["toEmails"], array({"ann@example.test", "bo@example.test"}));
    EXPECT_EQ(c["tags"], array({"shipping", "auto"}));
    EXPECT_EQ(c["Channel"], Json::Value("Website"));
    EXPECT_EQ(c["isFromShop"], Json::Value(false));
}

TEST(CommentsCreate, NullOptionalFieldsAreAbsent) {
    const World w = it::tickets::make_world();
    const std::string id = it::tickets::create_ticket_id(w, object({{"Channel", "Chat"}}));
    Json::Value body = object({{"text", "x"}});
    for (const char* f : {"time", "subject", "fromEmail", "toEmails", "attachments", "tags",
                          "Channel", "isFromShop"}) {
        body[f] = Json::Value();
    }
    const HttpResponse r = post(w.shop, id, body);
    ASSERT_TRUE(it::is_success(r, 201));
    const Json::Value& c = r.json()["comment"];
    EXPECT_TRUE(it::tickets::is_recent_utc_millis(c["time"]));
    EXPECT_EQ(c["Channel"], Json::Value("Chat"));
    EXPECT_EQ(c["isFromShop"], Json::Value(true));
    EXPECT_TRUE(c["subject"].isNull()) << r.describe();
    EXPECT_TRUE(c["fromEmail"].isNull()) << r.describe();
    EXPECT_EQ(c["toEmails"], Json::Value(Json::arrayValue)) << r.describe();
    EXPECT_EQ(c["tags"], Json::Value(Json::arrayValue)) << r.describe();
}

TEST(CommentsCreate, TextIsKeptAsGiven) {
    const World w = it::tickets::make_world();
    const std::string id = it::tickets::create_ticket_id(w);
    const std::string unicode = "Zoë’s 注文 🚚 \"quoted\" \\ back\nnew line";
    EXPECT_EQ(it::tickets::add_comment(w.shop, id, object({{"text", unicode}}))["text"],
              Json::Value(unicode));
    // text is bounded only by the body limit.
    const std::string big = repeat("t", 500000);
    const Json::Value c = it::tickets::add_comment(w.shop, id, object({{"text", big}}));
    EXPECT_EQ(c["text"].asString().size(), big.size());
    EXPECT_TRUE(c["text"] == Json::Value(big));
}

TEST(CommentsCreate, DatetimesInAreConvertedToUtcMilliseconds) {
    const World w = it::tickets::make_world();
    const std::string id = it::tickets::create_ticket_id(w);
    const std::vector<std::pair<std::string, std::string>> cases{
        {"2026-01-01T10:00:00+02:00", "2026-01-01T08:00:00.000Z"},
        {"2026-12-31T23:30:00-01:00", "2027-01-01T00:30:00.000Z"},
        {"2026-03-04T05:06:07Z", "2026-03-04T05:06:07.000Z"},
        {"2026-03-04T05:06:07.890Z", "2026-03-04T05:06:07.890Z"},
        {"2026-03-04", "2026-03-04T00:00:00.000Z"},
    };
    for (const auto& [in, out] : cases) {
        SCOPED_TRACE(in);
        EXPECT_EQ(
            it::tickets::add_comment(w.shop, id, object({{"text", "t"}, {"time", in}}))["time"],
            Json::Value(out));
    }
}

// ---------------------------------------------------------------------------------------------
// isFromShop, toEmails, tags.

TEST(CommentsCreate, IsFromShopAcceptsBooleansAndTheirStrings) {
    const World w = it::tickets::make_world();
    const std::string id = it::tickets::create_ticket_id(w);
    const std::vector<std::pair<Json::Value, bool>> cases{
        {Json::Value(true), true},
        {Json::Value(false), false},
        {Json::Value("true"), true},
        {Json::Value("false"), false},
    };
    for (const auto& [value, expected] : cases) {
        SCOPED_TRACE("isFromShop " + it::to_json(value));
        const Json::Value c =
            it::tickets::add_comment(w.shop, id, object({{"text", "x"}, {"isFromShop", value}}));
        EXPECT_EQ(c["isFromShop"], Json::Value(expected)) << it::to_json(c);
    }
}

TEST(CommentsCreate, IsFromShopRejectsEveryOtherValue) {
    const World w = it::tickets::make_world();
    const std::string id = it::tickets::create_ticket_id(w);
    for (const Json::Value& value :
         {Json::Value("yes"), Json::Value("TRUE"), Json::Value("False"), Json::Value(""),
          Json::Value(1), Json::Value(0), Json::Value(Json::arrayValue),
          Json::Value(Json::objectValue)}) {
        SCOPED_TRACE("isFromShop " + it::to_json(value));
        EXPECT_TRUE(it::tickets::is_validation_error_for(
            post(w.shop, id, object({{"text", "x"}, {"isFromShop", value}})), "isFromShop"));
    }
    EXPECT_EQ(count_messages(id), 0);
}

TEST(CommentsCreate, ToEmailsThatIsNotAnArrayBecomesEmpty) {
    const World w = it::tickets::make_world();
    const std::string id = it::tickets::create_ticket_id(w);
    for (const Json::Value& value : {Json::Value("x@example.test"), Json::Value(5),
                                     Json::Value(true), Json::Value(Json::objectValue)}) {
        SCOPED_TRACE("toEmails " + it::to_json(value));
        const Json::Value c =
            it::tickets::add_comment(w.shop, id, object({{"text", "x"}, {"toEmails", value}}));
        EXPECT_EQ(c["toEmails"], Json::Value(Json::arrayValue)) << it::to_json(c);
    }
    const Json::Value list = it::tickets::list_comments(w.shop, id);
    for (const Json::Value& c : list["comments"]) {
        EXPECT_EQ(c["toEmails"], Json::Value(Json::arrayValue)) << it::to_json(c);
    }
}

TEST(CommentsCreate, ToEmailsItemsMustBeStrings) {
    const World w = it::tickets::make_world();
    const std::string id = it::tickets::create_ticket_id(w);
    for (const Json::Value& value : {array({"a@example.test", 1}), array({Json::Value()}),
                                     array({array({"a"})}), array({object({{"email", "a"}})})}) {
        SCOPED_TRACE("toEmails " + it::to_json(value));
        EXPECT_TRUE(it::tickets::is_validation_error_for(
            post(w.shop, id, object({{"text", "x"}, {"toEmails", value}})), "toEmails"));
    }
    EXPECT_EQ(count_messages(id), 0);
}

// Regression: a valid toEmails array after a field that already failed crashed the worker
// (503) instead of answering 400 for the first failure.
TEST(CommentsCreate, AValidToEmailsAfterAnEarlierFailureStillAnswers400) {
    const World w = it::tickets::make_world();
    const std::string id = it::tickets::create_ticket_id(w);
    const Json::Value to = array({"a@example.test"});
    EXPECT_TRUE(it::is_error(post(w.shop, id, object({{"text", ""}, {"toEmails", to}})), 400,
                             "validation_failed", "text is required"));
    EXPECT_TRUE(it::tickets::is_validation_error_for(
        post(w.shop, id, object({{"text", "x"}, {"subject", 5}, {"toEmails", to}})), "subject"));
    EXPECT_TRUE(it::tickets::is_validation_error_for(
        post(w.shop, id, object({{"text", "x"}, {"time", "never"}, {"toEmails", to}})), "time"));
    EXPECT_EQ(count_messages(id), 0);
}

TEST(CommentsCreate, EveryFieldWrongAtOnceIsOneValidationFailure) {
    const World w = it::tickets::make_world();
    const std::string id = it::tickets::create_ticket_id(w);
    const HttpResponse r = post(w.shop, id,
                                object({{"text", 1},
                                        {"time", 2},
                                        {"subject", 3},
                                        {"fromEmail", 4},
                                        {"toEmails", array({5})},
                                        {"tags", array({6})},
                                        {"Channel", 7},
                                        {"isFromShop", 8}}));
    EXPECT_TRUE(it::is_error(r, 400, "validation_failed"));
    EXPECT_EQ(count_messages(id), 0);
}

TEST(CommentsCreate, TagsMustBeAnArrayOfStrings) {
    const World w = it::tickets::make_world();
    const std::string id = it::tickets::create_ticket_id(w);
    for (const Json::Value& value :
         {Json::Value("x"), Json::Value(3), Json::Value(Json::objectValue), array({"a", 1}),
          array({Json::Value()})}) {
        SCOPED_TRACE("tags " + it::to_json(value));
        EXPECT_TRUE(it::is_error(post(w.shop, id, object({{"text", "x"}, {"tags", value}})), 400,
                                 "validation_failed", "tags must be an array of strings"));
    }
    EXPECT_EQ(count_messages(id), 0);
}

// ---------------------------------------------------------------------------------------------
// Validation.

TEST(CommentsCreate, TextIsRequiredAndNotBlank) {
    const World w = it::tickets::make_world();
    const std::string id = it::tickets::create_ticket_id(w);
    for (const Json::Value& body :
         {Json::Value(Json::objectValue), object({{"text", Json::Value()}}), object({{"text", ""}}),
          object({{"text", "   "}}), object({{"text", " \t\r\n "}}),
          object({{"subject", "only a subject"}, {"isFromShop", false}})}) {
        SCOPED_TRACE(it::to_json(body));
        EXPECT_TRUE(
            it::is_error(post(w.shop, id, body), 400, "validation_failed", "text is required"));
    }
    EXPECT_TRUE(it::is_error(it::post_raw(comments_path(id), w.shop, ""), 400, "validation_failed",
                             "text is required"));
    EXPECT_EQ(count_messages(id), 0);
}

TEST(CommentsCreate, FieldsOfTheWrongTypeAreRejected) {
    const World w = it::tickets::make_world();
    const std::string id = it::tickets::create_ticket_id(w);
    const std::vector<std::pair<std::string, Json::Value>> cases{
        {"text", Json::Value(5)},
        {"text", Json::Value(true)},
        {"text", array({"a"})},
        {"subject", Json::Value(5)},
        {"fromEmail", Json::Value(false)},
        {"Channel", Json::Value(7)},
        {"Channel", Json::Value(Json::objectValue)},
        {"time", Json::Value(1767261600)},
        {"time", Json::Value("2026-01-01T10:00:00")},
        {"time", Json::Value("tomorrow")},
        {"time", Json::Value("2026-01-01T25:00:00Z")},
    };
    for (const auto& [field, value] : cases) {
        SCOPED_TRACE(field + " " + it::to_json(value));
        Json::Value body = object({{"text", "x"}});
        body[field] = value;
        EXPECT_TRUE(it::tickets::is_validation_error_for(post(w.shop, id, body), field));
    }
    EXPECT_EQ(count_messages(id), 0);
}

TEST(CommentsCreate, LengthsAreCheckedInCharacters) {
    const World w = it::tickets::make_world();
    const std::string id = it::tickets::create_ticket_id(w);
    const std::vector<std::pair<std::string, size_t>> limits{
        {"subject", 1000}, {"Channel", 255}, {"fromEmail", 255}};
    for (const auto& [field, limit] : limits) {
        SCOPED_TRACE(field);
        const std::string fits = repeat("é", limit);
        const Json::Value c =
            it::tickets::add_comment(w.shop, id, object({{"text", "x"}, {field, fits}}));
        EXPECT_EQ(c[field], Json::Value(fits));
        EXPECT_TRUE(
            it::is_error(post(w.shop, id, object({{"text", "x"}, {field, repeat("x", limit + 1)}})),
                         400, "validation_failed", field + " is too long"));
    }
    const Json::Value c = it::tickets::add_comment(w.shop, id,
                                                   object({{"text", "x"},
                                                           {"toEmails", array({repeat("a", 255)})},
                                                           {"tags", array({repeat("ü", 255)})}}));
    EXPECT_EQ(c["toEmails"], array({repeat("a", 255)}));
    EXPECT_EQ(c["tags"], array({repeat("ü", 255)}));
    EXPECT_TRUE(it::tickets::is_validation_error_for(
        post(w.shop, id, object({{"text", "x"}, {"toEmails", array({repeat("a", 256)})}})),
        "toEmails"));
    EXPECT_TRUE(it::tickets::is_validation_error_for(
        post(w.shop, id, object({{"text", "x"}, {"tags", array({"ok", repeat("a", 256)})}})),
        "tags"));
    EXPECT_EQ(count_messages(id), 4);
}

// ---------------------------------------------------------------------------------------------
// The conversation's update (same transaction).

TEST(CommentsCreate, ACustomerCommentUpdatesTheConversationAndMarksItUnread) {
    const World w = it::tickets::make_world();
    const std::string id = it::tickets::create_ticket_id(
        w, object({{"lastMessage", "opening"}, {"lastMessageTime", "2026-01-01T00:00:00Z"}}));
    ConversationRow before = read_conversation(id);
    EXPECT_EQ(before.last_message, std::optional<std::string>("opening"));
    EXPECT_EQ(before.unread_chat_count, 0);

    it::tickets::add_comment(w.shop, id,
                             object({{"text", "Where is my parcel?"},
                                     {"time", "2026-02-03T04:05:06.789Z"},
                                     {"isFromShop", "false"}}));
    const ConversationRow after = read_conversation(id);
    EXPECT_EQ(after.last_message, std::optional<std::string>("Where is my parcel?"));
    EXPECT_EQ(after.last_message_time, "2026-02-03T04:05:06.789Z");
    EXPECT_EQ(after.unread_chat_count, 1);
}

TEST(CommentsCreate, AShopCommentUpdatesTheConversationButNotItsUnreadCount) {
    const World w = it::tickets::make_world();
    const std::string id = it::tickets::create_ticket_id(w, object({{"unReadChatCount", 5}}));
    it::tickets::add_comment(
        w.shop, id, object({{"text", "We are on it"}, {"time", "2026-02-03T04:05:06.000+01:00"}}));
    ConversationRow row = read_conversation(id);
    EXPECT_EQ(row.last_message, std::optional<std::string>("We are on it"));
    EXPECT_EQ(row.last_message_time, "2026-02-03T03:05:06.000Z");
    EXPECT_EQ(row.unread_chat_count, 5);

    it::tickets::add_comment(w.shop, id,
                             object({{"text", "from the customer"}, {"isFromShop", false}}));
    EXPECT_EQ(read_conversation(id).unread_chat_count, 1);
    it::tickets::add_comment(w.shop, id, object({{"text", "again"}, {"isFromShop", false}}));
    EXPECT_EQ(read_conversation(id).unread_chat_count, 1);
    it::tickets::add_comment(w.shop, id, object({{"text", "answer"}, {"isFromShop", true}}));
    row = read_conversation(id);
    EXPECT_EQ(row.unread_chat_count, 1);
    EXPECT_EQ(row.last_message, std::optional<std::string>("answer"));
}

TEST(CommentsCreate, LastMessageTimeIsTheCommentsDefaultTime) {
    const World w = it::tickets::make_world();
    const std::string id =
        it::tickets::create_ticket_id(w, object({{"lastMessageTime", "2026-01-01"}}));
    const Json::Value c = it::tickets::add_comment(w.shop, id, object({{"text", "now"}}));
    EXPECT_EQ(read_conversation(id).last_message_time, c["time"].asString());
}

TEST(CommentsCreate, TheLatestAddedCommentSetsLastMessageEvenWithAnEarlierTime) {
    const World w = it::tickets::make_world();
    const std::string id = it::tickets::create_ticket_id(w);
    it::tickets::add_comment(w.shop, id,
                             object({{"text", "late"}, {"time", "2026-06-01T00:00:00Z"}}));
    it::tickets::add_comment(w.shop, id,
                             object({{"text", "early"}, {"time", "2026-01-01T00:00:00Z"}}));
    const ConversationRow row = read_conversation(id);
    EXPECT_EQ(row.last_message, std::optional<std::string>("early"));
    EXPECT_EQ(row.last_message_time, "2026-01-01T00:00:00.000Z");
}

TEST(CommentsCreate, ARejectedCommentChangesNothing) {
    const World w = it::tickets::make_world();
    const std::string id = it::tickets::create_ticket_id(
        w, object({{"lastMessage", "opening"}, {"lastMessageTime", "2026-01-01T00:00:00Z"}}));
    EXPECT_TRUE(it::tickets::is_validation_error_for(
        post(w.shop, id, object({{"text", "x"}, {"isFromShop", "no"}})), "isFromShop"));
    EXPECT_TRUE(
        it::is_error(post(w.shop, id, object({{"text", "x"}, {"subject", repeat("s", 1001)}})), 400,
                     "validation_failed", "subject is too long"));
    const ConversationRow row = read_conversation(id);
    EXPECT_EQ(row.last_message, std::optional<std::string>("opening"));
    EXPECT_EQ(row.last_message_time, "2026-01-01T00:00:00.000Z");
    EXPECT_EQ(row.unread_chat_count, 0);
    EXPECT_EQ(count_messages(id), 0);
}

// ---------------------------------------------------------------------------------------------
// Ids above 2^53.

TEST(CommentsCreate, ACommentOnABigIdConversation) {
    const World w = it::tickets::make_world();
    it::tickets::PlantedConversation conv;
    conv.shop_id = w.shop.id;
    conv.customer_id = w.customer_id;
    conv.channel = "Planted";
    const std::string id = it::tickets::plant_conversation(conv);
    const HttpResponse r = post(
        w.shop, id,
        object({{"text", "big"}, {"time", "2026-07-07T07:07:07.007Z"}, {"isFromShop", false}}));
    ASSERT_TRUE(it::is_success(r, 201));
    const Json::Value& c = r.json()["comment"];
    EXPECT_TRUE(it::tickets::is_id_string(c["id"])) << r.describe();
    EXPECT_EQ(c["Channel"], Json::Value("Planted"));
    EXPECT_EQ(count_messages(id), 1);
    it::Db db;
    EXPECT_EQ(db.scalar("SELECT CAST(conversation_id AS CHAR) FROM messages WHERE id = CAST(? AS "
                        "UNSIGNED)",
                        {c["id"].asString()}),
              std::optional<std::string>(id));
    const ConversationRow row = read_conversation(id);
    EXPECT_EQ(row.last_message, std::optional<std::string>("big"));
    EXPECT_EQ(row.last_message_time, "2026-07-07T07:07:07.007Z");
    EXPECT_EQ(row.unread_chat_count, 1);
}

TEST(CommentsCreate, MessageIdsAfterABigIdKeepEveryDigit) {
    const World w = it::tickets::make_world();
    const std::string id = it::tickets::create_ticket_id(w);
    it::tickets::PlantedMessage m;
    m.conversation_id = id;
    const std::string planted = it::tickets::plant_message(m);
    const HttpResponse r = post(w.shop, id, object({{"text", "after"}}));
    ASSERT_TRUE(it::is_success(r, 201));
    const std::string added = r.json()["comment"]["id"].asString();
    EXPECT_GT(it::tickets::compare_ids(added, planted), 0) << planted << " then " << added;
    EXPECT_NE(r.body.find("\"" + added + "\""), std::string::npos) << r.describe();
    it::Db db;
    EXPECT_EQ(db.scalar("SELECT text FROM messages WHERE id = CAST(? AS UNSIGNED)", {added}),
              std::optional<std::string>("after"));
}

// ---------------------------------------------------------------------------------------------
// The path id, shop isolation and the order of checks.

TEST(CommentsCreate, AMissingIdIsRequired) {
    const World w = it::tickets::make_world();
    EXPECT_TRUE(
        it::is_error(it::post_json("/api/v1/tickets//comments", w.shop, object({{"text", "x"}})),
                     400, "validation_failed", "ticketId is required"));
    EXPECT_TRUE(it::is_error(it::post_raw("/api/v1/tickets//comments", w.shop, "{bad"), 400,
                             "validation_failed", "ticketId is required"));
}

TEST(CommentsCreate, AnUnknownIdIsNotFound) {
    const World w = it::tickets::make_world();
    for (const char* unknown : {"0", "18446744073709551615", "99999999999999999999999"}) {
        SCOPED_TRACE(unknown);
        EXPECT_TRUE(it::is_error(post(w.shop, unknown, object({{"text", "x"}})), 404,
                                 "ticket_not_found", "Ticket not found"));
    }
}

TEST(CommentsCreate, AnotherShopsTicketIsNotFoundAndUntouched) {
    const World w = it::tickets::make_world();
    const World other = it::tickets::make_world();
    const std::string id = it::tickets::create_ticket_id(
        other, object({{"lastMessage", "theirs"}, {"lastMessageTime", "2026-01-01T00:00:00Z"}}));
    EXPECT_TRUE(
        it::is_error(post(w.shop, id, object({{"text", "intrusion"}, {"isFromShop", false}})), 404,
                     "ticket_not_found", "Ticket not found"));
    EXPECT_EQ(count_messages(id), 0);
    const ConversationRow row = read_conversation(id);
    EXPECT_EQ(row.last_message, std::optional<std::string>("theirs"));
    EXPECT_EQ(row.unread_chat_count, 0);
    EXPECT_EQ(it::tickets::list_comments(other.shop, id)["totalCount"].asInt64(), 0);
}

TEST(CommentsCreate, ThePathIdIsCheckedBeforeTheBody) {
    const World w = it::tickets::make_world();
    const std::string path = comments_path("abc");
    EXPECT_TRUE(it::is_error(it::post_raw(path, w.shop, "{bad json"), 400, "invalid_id",
                             "Invalid ticketId"));
    EXPECT_TRUE(
        it::is_error(it::post_raw(path, w.shop, "[]"), 400, "invalid_id", "Invalid ticketId"));
    EXPECT_TRUE(it::is_error(it::post_raw(path, w.shop, "{}", "text/plain"), 400, "invalid_id",
                             "Invalid ticketId"));
    EXPECT_TRUE(
        it::is_error(it::post_raw(path, w.shop, "{\"text\":\"" + repeat("x", 1100000) + "\"}"), 400,
                     "invalid_id", "Invalid ticketId"));
    EXPECT_TRUE(it::is_error(it::post_json(path, w.shop, object({{"text", ""}})), 400, "invalid_id",
                             "Invalid ticketId"));
}

TEST(CommentsCreate, TheBodyIsCheckedBeforeExistence) {
    const World w = it::tickets::make_world();
    const std::string path = comments_path("99999999999999999999999");
    EXPECT_TRUE(it::is_error(it::post_raw(path, w.shop, "{bad json"), 400, "invalid_json",
                             "Invalid JSON body"));
    EXPECT_TRUE(it::is_error(it::post_raw(path, w.shop, "\"text\""), 400, "invalid_body",
                             "Request body must be a JSON object"));
    EXPECT_TRUE(it::is_error(it::post_raw(path, w.shop, "{\"text\":\"x\"}", "text/plain"), 415,
                             "unsupported_media_type", "Content-Type must be application/json"));
    EXPECT_TRUE(
        it::is_error(it::post_raw(path, w.shop, "{\"text\":\"" + repeat("x", 1100000) + "\"}"), 413,
                     "body_too_large", "Request body too large"));
}

TEST(CommentsCreate, FieldValidationComesBeforeExistence) {
    const World w = it::tickets::make_world();
    const World other = it::tickets::make_world();
    const std::string theirs = it::tickets::create_ticket_id(other);
    for (const std::string& id : {std::string("123456789012345"), theirs}) {
        SCOPED_TRACE(id);
        EXPECT_TRUE(it::is_error(post(w.shop, id, object({{"text", "  "}})), 400,
                                 "validation_failed", "text is required"));
        EXPECT_TRUE(it::is_error(post(w.shop, id, object({{"text", "x"}, {"tags", "t"}})), 400,
                                 "validation_failed", "tags must be an array of strings"));
        EXPECT_TRUE(it::tickets::is_validation_error_for(
            post(w.shop, id, object({{"text", "x"}, {"isFromShop", "maybe"}})), "isFromShop"));
    }
}

TEST(CommentsCreate, KeyAndShopComeFirst) {
    const Shop gone = it::make_shop();
    it::admin({"shop", "delete", "--domain", gone.domain});
    const std::string path = comments_path("abc");
    EXPECT_TRUE(it::is_error(it::http("POST", path, {{"Content-Type", "application/json"}}, "{bad"),
                             401, "missing_api_key", "API key is required"));
    EXPECT_TRUE(it::is_error(it::http("POST", path,
                                      {{"Authorization", "Bearer nope-" + it::unique_suffix()},
                                       {"Content-Type", "application/json"}},
                                      "{bad"),
                             401, "invalid_api_key", "Invalid API key"));
    EXPECT_TRUE(
        it::is_error(it::post_raw(path, gone, "{bad"), 404, "shop_not_found", "Shop not found"));
}

}  // namespace

// Concurrent comments on one ticket: every one is kept (no deadlock, no lost write), and the
// ticket's lastMessage describes the comment whose transaction came last. The ticket's row lock
// is taken before the comment is inserted, so that is the comment with the highest id.
TEST(CommentsCreate, ConcurrentCommentsOnOneTicketKeepLastMessageConsistent) {
    const World w = it::tickets::make_world();
    const std::string ticket = it::tickets::create_ticket_id(w);
    constexpr int kWriters = 16;
    std::vector<long> statuses(kWriters, 0);
    std::latch start(kWriters);
    std::vector<std::thread> threads;
    for (int i = 0; i < kWriters; ++i) {
        threads.emplace_back([&, i] {
            const std::string body =
                it::to_json(object({{"text", "concurrent " + std::to_string(i)}}));
            start.arrive_and_wait();
            try {
                statuses[i] =
                    it::http("POST", comments_path(ticket), it::json_headers(w.shop), body).status;
            } catch (const std::exception&) {
                statuses[i] = -1;
            }
        });
    }
    for (auto& t : threads) {
        t.join();
    }
    EXPECT_EQ(statuses, std::vector<long>(kWriters, 201));
    it::tickets::SqlDb db;
    EXPECT_EQ(db.scalar("SELECT COUNT(*) FROM messages WHERE conversation_id = ?", {ticket}),
              std::to_string(kWriters));
    EXPECT_EQ(db.scalar("SELECT last_message FROM conversations WHERE id = ?", {ticket}),
              db.scalar("SELECT text FROM messages WHERE conversation_id = ? "
                        "ORDER BY id DESC LIMIT 1",
                        {ticket}));
}
