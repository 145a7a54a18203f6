// POST /api/v1/tickets (api-v1 §3, contract §3, §4, §5, §7): 201 with every ticket field and
// its defaults, number-or-digits ids, isOpenedTicket opening a HumanTicket, datetimes in and
// out, validation messages and lengths, the order of checks, and shop isolation of the
// customer and the assigned agent.
#include <string>
#include <utility>
#include <vector>

#include "harness.h"
#include "tickets_fixtures.h"

namespace {

using it::HttpResponse;
using it::object;
using it::Shop;
using it::tickets::array;
using it::tickets::kTicketsPath;
using it::tickets::repeat;
using it::tickets::World;

const std::vector<std::string> kCreateFields{"id",
                                             "customerID",
                                             "shopDomain",
                                             "Channel",
                                             "name",
                                             "threadId",
                                             "emailUsed",
                                             "date",
                                             "lastMessage",
                                             "lastMessageTime",
                                             "contact_reason",
                                             "assigned_to",
                                             "isOpenedTicket",
                                             "unReadChatCount",
                                             "tags",
                                             "language_code",
                                             "via"};

// The short string fields of a ticket (255 characters at most).
const std::vector<std::string> kShortStrings{
    "Channel", "name", "threadId", "emailUsed", "contact_reason", "language_code", "via"};

// The optional string fields, null unless given.
const std::vector<std::string> kOptionalStrings{
    "name", "threadId", "emailUsed", "lastMessage", "contact_reason", "language_code", "via"};

// The minimal valid body for the world's customer, plus `extra`'s members.
Json::Value body_for(const World& w, const Json::Value& extra = Json::Value()) {
    Json::Value body = object({{"customerId", Json::Int64(w.customer_id)}, {"Channel", "Mail"}});
    if (extra.isObject()) {
        for (const std::string& name : extra.getMemberNames()) {
            body[name] = extra[name];
        }
    }
    return body;
}

HttpResponse post(const Shop& shop, const Json::Value& body) {
    return it::post_json(kTicketsPath, shop, body);
}

// ---------------------------------------------------------------------------------------------
// The created ticket.

TEST(TicketsCreate, MinimalBodyReturns201WithEveryFieldAndTheDefaults) {
    const World w = it::tickets::make_world();
    const HttpResponse r = post(w.shop, body_for(w));
    ASSERT_TRUE(it::is_success(r, 201));
    const Json::Value& t = r.json()["ticket"];
    ASSERT_TRUE(it::tickets::has_members(t, kCreateFields)) << r.describe();
    EXPECT_TRUE(it::tickets::is_id_string(t["id"])) << r.describe();
    EXPECT_TRUE(it::is_json_integer(t["customerID"])) << r.describe();
    EXPECT_EQ(t["customerID"].asInt64(), w.customer_id);
    EXPECT_EQ(t["shopDomain"], Json::Value(w.shop.domain));
    EXPECT_EQ(t["Channel"], Json::Value("Mail"));
    for (const std::string& f : kOptionalStrings) {
        EXPECT_TRUE(t[f].isNull()) << f << " in " << r.describe();
    }
    EXPECT_TRUE(t["assigned_to"].isNull()) << r.describe();
    EXPECT_EQ(t["isOpenedTicket"], Json::Value(false)) << r.describe();
    EXPECT_TRUE(it::is_json_integer(t["unReadChatCount"])) << r.describe();
    EXPECT_EQ(t["unReadChatCount"].asInt64(), 0);
    EXPECT_EQ(t["tags"], Json::Value(Json::arrayValue)) << r.describe();
    EXPECT_TRUE(it::tickets::is_recent_utc_millis(t["date"]));
    EXPECT_TRUE(it::tickets::is_recent_utc_millis(t["lastMessageTime"]));
}

TEST(TicketsCreate, EveryGivenFieldComesBack) {
    const World w = it::tickets::make_world();
    const int64_t agent = it::tickets::make_user(w.shop, it::unique_email("agent"), "Bo", "Ng");
    const HttpResponse r =
        post(w.shop, body_for(w, object({{"Channel", "Website"},
                                         {"name", "Order 42 never arrived"},
                                         {"threadId", "thread-42"},
                                         {"emailUsed", "ann@example.test"},
                                         {"date", "2026-01-01T10:00:00Z"},
                                         {"lastMessage", "Where is it?"},
                                         {"lastMessageTime", "2026-01-02T11:12:13.456Z"},
                                         {"contact_reason", "delivery"},
                                         {"assigned_to", Json::Int64(agent)},
                                         {"unReadChatCount", 3},
                                         {"tags", array({"vip", "late"})},
                                         {"language_code", "fr"},
                                         {"via", "widget"}})));
    ASSERT_TRUE(it::is_success(r, 201));
    const Json::Value& t = r.json()["ticket"];
    EXPECT_EQ(t["Channel"], Json::Value("Website"));
    EXPECT_EQ(t["name"], Json::Value("Order 42 never arrived"));
    EXPECT_EQ(t["threadId"], Json::Value("thread-42"));
    EXPECT_EQ(t["emailUsed"], Json::Value("ann@example.test"));
    EXPECT_EQ(t["date"], Json::Value("2026-01-01T10:00:00.000Z"));
    EXPECT_EQ(t["lastMessage"], Json::Value("Where is it?"));
    EXPECT_EQ(t["lastMessageTime"], Json::Value("2026-01-02T11:12:13.456Z"));
    EXPECT_EQ(t["contact_reason"], Json::Value("delivery"));
    EXPECT_TRUE(it::is_json_integer(t["assigned_to"])) << r.describe();
    EXPECT_EQ(t["assigned_to"].asInt64(), agent);
    EXPECT_TRUE(it::is_json_integer(t["unReadChatCount"])) << r.describe();
    EXPECT_EQ(t["unReadChatCount"].asInt64(), 3);
    EXPECT_EQ(t["tags"], array({"vip", "late"}));
    EXPECT_EQ(t["language_code"], Json::Value("fr"));
    EXPECT_EQ(t["via"], Json::Value("widget"));
    EXPECT_EQ(t["isOpenedTicket"], Json::Value(false));
}

TEST(TicketsCreate, CustomerIdAndAssignedToAcceptAStringOfDigits) {
    const World w = it::tickets::make_world();
    const int64_t agent = it::tickets::make_user(w.shop, it::unique_email("agent"));
    const HttpResponse r = post(w.shop, object({{"customerId", std::to_string(w.customer_id)},
                                                {"Channel", "Mail"},
                                                {"assigned_to", std::to_string(agent)}}));
    ASSERT_TRUE(it::is_success(r, 201));
    const Json::Value& t = r.json()["ticket"];
    EXPECT_TRUE(it::is_json_integer(t["customerID"])) << r.describe();
    EXPECT_EQ(t["customerID"].asInt64(), w.customer_id);
    EXPECT_TRUE(it::is_json_integer(t["assigned_to"])) << r.describe();
    EXPECT_EQ(t["assigned_to"].asInt64(), agent);
}

TEST(TicketsCreate, DatetimesWithAnOffsetComeBackInUtcMilliseconds) {
    const World w = it::tickets::make_world();
    const Json::Value t = it::tickets::create_ticket(
        w.shop, body_for(w, object({{"date", "2026-01-01T10:00:00+02:00"},
                                    {"lastMessageTime", "2026-06-30T23:30:00.5-01:00"}})));
    EXPECT_EQ(t["date"], Json::Value("2026-01-01T08:00:00.000Z"));
    EXPECT_EQ(t["lastMessageTime"], Json::Value("2026-07-01T00:30:00.500Z"));
}

TEST(TicketsCreate, ABareDateIsMidnightUtc) {
    const World w = it::tickets::make_world();
    const Json::Value t = it::tickets::create_ticket(
        w.shop, body_for(w, object({{"date", "2026-03-04"}, {"lastMessageTime", "2026-03-05"}})));
    EXPECT_EQ(t["date"], Json::Value("2026-03-04T00:00:00.000Z"));
    EXPECT_EQ(t["lastMessageTime"], Json::Value("2026-03-05T00:00:00.000Z"));
}

TEST(TicketsCreate, NullOptionalFieldsAreAbsent) {
    const World w = it::tickets::make_world();
    Json::Value extra(Json::objectValue);
    for (const char* f : {"name", "threadId", "emailUsed", "date", "lastMessage", "lastMessageTime",
                          "contact_reason", "assigned_to", "isOpenedTicket", "unReadChatCount",
                          "tags", "language_code", "via"}) {
        extra[f] = Json::Value();
    }
    const HttpResponse r = post(w.shop, body_for(w, extra));
    ASSERT_TRUE(it::is_success(r, 201));
    const Json::Value& t = r.json()["ticket"];
    for (const std::string& f : kOptionalStrings) {
        EXPECT_TRUE(t[f].isNull()) << f << " in " << r.describe();
    }
    EXPECT_TRUE(t["assigned_to"].isNull()) << r.describe();
    EXPECT_EQ(t["isOpenedTicket"], Json::Value(false)) << r.describe();
    EXPECT_EQ(t["unReadChatCount"].asInt64(), 0) << r.describe();
    EXPECT_EQ(t["tags"], Json::Value(Json::arrayValue)) << r.describe();
    EXPECT_TRUE(it::tickets::is_recent_utc_millis(t["date"]));
    EXPECT_TRUE(it::tickets::is_recent_utc_millis(t["lastMessageTime"]));
}

TEST(TicketsCreate, UnknownFieldsAreIgnored) {
    const World w = it::tickets::make_world();
    const HttpResponse r = post(w.shop, body_for(w, object({{"shopDomain", "evil.example.test"},
                                                            {"shop", "evil.example.test"},
                                                            {"somethingElse", array({1, 2})}})));
    ASSERT_TRUE(it::is_success(r, 201));
    EXPECT_EQ(r.json()["ticket"]["shopDomain"], Json::Value(w.shop.domain)) << r.describe();
}

TEST(TicketsCreate, TextRoundTripsAsUtf8) {
    const World w = it::tickets::make_world();
    const std::string name = "Zoë’s \"order\" — 注文 🚚 \\ /";
    const std::string last = std::string("line1\nline2\ttab ") + "é";
    const Json::Value t = it::tickets::create_ticket(
        w.shop,
        body_for(w, object({{"name", name}, {"lastMessage", last}, {"tags", array({"ü"})}})));
    EXPECT_EQ(t["name"], Json::Value(name));
    EXPECT_EQ(t["lastMessage"], Json::Value(last));
    EXPECT_EQ(t["tags"], array({"ü"}));
    EXPECT_EQ(it::tickets::fetch_ticket(w.shop, t["id"].asString())["name"], Json::Value(name));
}

TEST(TicketsCreate, TheTicketBelongsToTheShopOfTheKey) {
    const World w = it::tickets::make_world();
    const Shop other = it::make_shop();
    const std::string id = it::tickets::create_ticket_id(w);
    EXPECT_EQ(it::tickets::fetch_ticket(w.shop, id)["shopDomain"], Json::Value(w.shop.domain));
    EXPECT_TRUE(it::is_error(it::get(it::tickets::ticket_path(id), other), 404, "ticket_not_found",
                             "Ticket not found"));
    it::Db db;
    EXPECT_EQ(db.count("SELECT COUNT(*) FROM conversations WHERE id = CAST(? AS UNSIGNED) AND "
                       "shop_id = ?",
                       {id, std::to_string(w.shop.id)}),
              1);
}

TEST(TicketsCreate, EachCreateMakesANewTicketWithAGreaterId) {
    const World w = it::tickets::make_world();
    const std::string first = it::tickets::create_ticket_id(w);
    const std::string second = it::tickets::create_ticket_id(w);
    EXPECT_GT(it::tickets::compare_ids(second, first), 0) << first << " then " << second;
}

// ---------------------------------------------------------------------------------------------
// isOpenedTicket.

TEST(TicketsCreate, IsOpenedTicketTrueOpensAHumanTicket) {
    for (const Json::Value& value : {Json::Value(true), Json::Value("true")}) {
        SCOPED_TRACE("isOpenedTicket " + it::to_json(value));
        const World w = it::tickets::make_world();
        const HttpResponse r = post(w.shop, body_for(w, object({{"isOpenedTicket", value}})));
        ASSERT_TRUE(it::is_success(r, 201));
        EXPECT_EQ(r.json()["ticket"]["isOpenedTicket"], Json::Value(true)) << r.describe();
        const Json::Value t =
            it::tickets::fetch_ticket(w.shop, r.json()["ticket"]["id"].asString());
        const Json::Value& h = t["HumanTicket"];
        ASSERT_TRUE(h.isObject()) << it::to_json(t);
        EXPECT_EQ(h["HumanTicketStatus"], Json::Value("OPEN")) << it::to_json(t);
        EXPECT_TRUE(it::tickets::is_recent_utc_millis(h["openedAt"]));
        EXPECT_TRUE(h.isMember("closedAt") && h["closedAt"].isNull()) << it::to_json(t);
    }
}

TEST(TicketsCreate, IsOpenedTicketIsFalseForEveryOtherValue) {
    const World w = it::tickets::make_world();
    for (const Json::Value& value :
         {Json::Value(false), Json::Value("false"), Json::Value("yes"), Json::Value("TRUE"),
          Json::Value(1), Json::Value(0), Json::Value(""), Json::Value(Json::arrayValue),
          object({{"x", true}})}) {
        SCOPED_TRACE("isOpenedTicket " + it::to_json(value));
        const HttpResponse r = post(w.shop, body_for(w, object({{"isOpenedTicket", value}})));
        ASSERT_TRUE(it::is_success(r, 201));
        EXPECT_EQ(r.json()["ticket"]["isOpenedTicket"], Json::Value(false)) << r.describe();
        const Json::Value t =
            it::tickets::fetch_ticket(w.shop, r.json()["ticket"]["id"].asString());
        EXPECT_TRUE(t.isMember("HumanTicket") && t["HumanTicket"].isNull()) << it::to_json(t);
    }
}

// ---------------------------------------------------------------------------------------------
// Validation.

TEST(TicketsCreate, CustomerIdIsRequired) {
    const World w = it::tickets::make_world();
    for (const Json::Value& body : {object({{"Channel", "Mail"}}),
                                    object({{"Channel", "Mail"}, {"customerId", Json::Value()}})}) {
        EXPECT_TRUE(
            it::is_error(post(w.shop, body), 400, "validation_failed", "customerId is required"));
    }
}

TEST(TicketsCreate, ChannelIsRequired) {
    const World w = it::tickets::make_world();
    Json::Value without = body_for(w);
    without.removeMember("Channel");
    Json::Value with_null = body_for(w, object({{"Channel", Json::Value()}}));
    for (const Json::Value& body : {without, with_null}) {
        EXPECT_TRUE(
            it::is_error(post(w.shop, body), 400, "validation_failed", "Channel is required"));
    }
}

TEST(TicketsCreate, AnEmptyBodyIsAValidationFailure) {
    const World w = it::tickets::make_world();
    EXPECT_TRUE(it::is_error(it::post_raw(kTicketsPath, w.shop, ""), 400, "validation_failed"));
    EXPECT_TRUE(
        it::is_error(post(w.shop, Json::Value(Json::objectValue)), 400, "validation_failed"));
}

TEST(TicketsCreate, CustomerIdMustBeAnIntegerOrDigits) {
    const World w = it::tickets::make_world();
    for (const Json::Value& value :
         {Json::Value("abc"), Json::Value("12a"), Json::Value(""), Json::Value(" 12"),
          Json::Value(1.5), Json::Value(true), Json::Value(Json::arrayValue),
          Json::Value(Json::objectValue)}) {
        SCOPED_TRACE("customerId " + it::to_json(value));
        EXPECT_TRUE(it::tickets::is_validation_error_for(
            post(w.shop, body_for(w, object({{"customerId", value}}))), "customerId"));
    }
}

TEST(TicketsCreate, AssignedToMustBeAnIntegerOrDigits) {
    const World w = it::tickets::make_world();
    for (const Json::Value& value : {Json::Value("x"), Json::Value("7b"), Json::Value(2.5),
                                     Json::Value(false), Json::Value(Json::arrayValue)}) {
        SCOPED_TRACE("assigned_to " + it::to_json(value));
        EXPECT_TRUE(it::tickets::is_validation_error_for(
            post(w.shop, body_for(w, object({{"assigned_to", value}}))), "assigned_to"));
    }
}

TEST(TicketsCreate, StringFieldsMustBeStrings) {
    const World w = it::tickets::make_world();
    std::vector<std::string> fields = kOptionalStrings;
    fields.push_back("Channel");
    for (const std::string& f : fields) {
        for (const Json::Value& value :
             {Json::Value(5), Json::Value(true), Json::Value(Json::arrayValue),
              Json::Value(Json::objectValue)}) {
            SCOPED_TRACE(f + " " + it::to_json(value));
            EXPECT_TRUE(it::tickets::is_validation_error_for(
                post(w.shop, body_for(w, object({{f, value}}))), f));
        }
    }
    EXPECT_TRUE(it::is_error(post(w.shop, body_for(w, object({{"Channel", 5}}))), 400,
                             "validation_failed", "Channel must be a string"));
}

TEST(TicketsCreate, TagsMustBeAnArrayOfStrings) {
    const World w = it::tickets::make_world();
    for (const Json::Value& value :
         {Json::Value("vip"), Json::Value(3), Json::Value(Json::objectValue), array({"a", 1}),
          array({Json::Value()}), array({array({"a"})})}) {
        SCOPED_TRACE("tags " + it::to_json(value));
        EXPECT_TRUE(it::is_error(post(w.shop, body_for(w, object({{"tags", value}}))), 400,
                                 "validation_failed", "tags must be an array of strings"));
    }
}

TEST(TicketsCreate, UnReadChatCountMustBeAnInteger) {
    const World w = it::tickets::make_world();
    for (const Json::Value& value :
         {Json::Value("3"), Json::Value(1.5), Json::Value(true), Json::Value(Json::arrayValue)}) {
        SCOPED_TRACE("unReadChatCount " + it::to_json(value));
        EXPECT_TRUE(it::tickets::is_validation_error_for(
            post(w.shop, body_for(w, object({{"unReadChatCount", value}}))), "unReadChatCount"));
    }
}

TEST(TicketsCreate, DatetimesMustBeIso8601WithAZone) {
    const World w = it::tickets::make_world();
    for (const char* f : {"date", "lastMessageTime"}) {
        for (const Json::Value& value :
             {Json::Value("2026-01-01T10:00:00"), Json::Value("yesterday"), Json::Value(""),
              Json::Value("2026-13-01T00:00:00Z"), Json::Value("2026-02-30"),
              Json::Value(1767261600), Json::Value(true)}) {
            SCOPED_TRACE(std::string(f) + " " + it::to_json(value));
            EXPECT_TRUE(it::tickets::is_validation_error_for(
                post(w.shop, body_for(w, object({{f, value}}))), f));
        }
    }
    EXPECT_TRUE(it::is_error(post(w.shop, body_for(w, object({{"date", "2026-01-01T10:00:00"}}))),
                             400, "validation_failed", "date must be an ISO 8601 datetime"));
}

TEST(TicketsCreate, EveryFieldWrongAtOnceIsOneValidationFailure) {
    const World w = it::tickets::make_world();
    Json::Value body(Json::objectValue);
    for (const std::string& f : kCreateFields) {
        body[f] = Json::Value(Json::objectValue);
    }
    body["customerId"] = array({1});
    body["assigned_to"] = "x";
    body["tags"] = array({1});
    EXPECT_TRUE(it::is_error(post(w.shop, body), 400, "validation_failed"));
    it::Db db;
    EXPECT_EQ(db.count("SELECT COUNT(*) FROM conversations WHERE customer_id = ?",
                       {std::to_string(w.customer_id)}),
              0);
}

TEST(TicketsCreate, ShortStringsAreLimitedTo255Characters) {
    const World w = it::tickets::make_world();
    for (const std::string& f : kShortStrings) {
        SCOPED_TRACE(f);
        // Characters, not bytes: 255 two-byte characters fit.
        const std::string fits = repeat("é", 255);
        const HttpResponse ok = post(w.shop, body_for(w, object({{f, fits}})));
        ASSERT_TRUE(it::is_success(ok, 201));
        EXPECT_EQ(ok.json()["ticket"][f], Json::Value(fits));
        EXPECT_TRUE(it::is_error(post(w.shop, body_for(w, object({{f, repeat("x", 256)}}))), 400,
                                 "validation_failed", f + " is too long"));
    }
}

TEST(TicketsCreate, TagItemsAreLimitedTo255Characters) {
    const World w = it::tickets::make_world();
    const std::string fits = repeat("ß", 255);
    const Json::Value t =
        it::tickets::create_ticket(w.shop, body_for(w, object({{"tags", array({fits, "b"})}})));
    EXPECT_EQ(t["tags"], array({fits, "b"}));
    EXPECT_TRUE(it::tickets::is_validation_error_for(
        post(w.shop, body_for(w, object({{"tags", array({"a", repeat("x", 256)})}}))), "tags"));
}

TEST(TicketsCreate, LastMessageIsNotLimitedBelowTheBodyLimit) {
    const World w = it::tickets::make_world();
    const std::string text = repeat("m", 300000);
    const Json::Value t =
        it::tickets::create_ticket(w.shop, body_for(w, object({{"lastMessage", text}})));
    EXPECT_EQ(t["lastMessage"].asString().size(), text.size());
    EXPECT_TRUE(t["lastMessage"] == Json::Value(text));
}

// ---------------------------------------------------------------------------------------------
// Referenced records and shop isolation.

TEST(TicketsCreate, AnUnknownCustomerIsNotFound) {
    const World w = it::tickets::make_world();
    for (const Json::Value& id : {Json::Value(Json::Int64(w.customer_id + 1000000)),
                                  Json::Value("999999999999"), Json::Value(0)}) {
        SCOPED_TRACE("customerId " + it::to_json(id));
        EXPECT_TRUE(it::is_error(post(w.shop, body_for(w, object({{"customerId", id}}))), 404,
                                 "customer_not_found", "Customer not found"));
    }
}

TEST(TicketsCreate, AnotherShopsCustomerIsNotFoundAndNothingIsWritten) {
    const World w = it::tickets::make_world();
    const World other = it::tickets::make_world();
    EXPECT_TRUE(it::is_error(
        post(w.shop, body_for(w, object({{"customerId", Json::Int64(other.customer_id)}}))), 404,
        "customer_not_found", "Customer not found"));
    it::Db db;
    EXPECT_EQ(db.count("SELECT COUNT(*) FROM conversations WHERE customer_id = ?",
                       {std::to_string(other.customer_id)}),
              0);
}

TEST(TicketsCreate, AnUnknownAssignedUserIsNotFound) {
    const World w = it::tickets::make_world();
    const int64_t agent = it::tickets::make_user(w.shop, it::unique_email("agent"));
    EXPECT_TRUE(it::is_error(
        post(w.shop, body_for(w, object({{"assigned_to", Json::Int64(agent + 100000)}}))), 404,
        "user_not_found", "User not found"));
}

TEST(TicketsCreate, AnotherShopsUserIsNotFoundAndNothingIsWritten) {
    const World w = it::tickets::make_world();
    const Shop other = it::make_shop();
    const int64_t stranger = it::tickets::make_user(other, it::unique_email("agent"));
    EXPECT_TRUE(
        it::is_error(post(w.shop, body_for(w, object({{"assigned_to", Json::Int64(stranger)},
                                                      {"isOpenedTicket", true}}))),
                     404, "user_not_found", "User not found"));
    EXPECT_TRUE(
        it::is_error(post(w.shop, body_for(w, object({{"assigned_to", std::to_string(stranger)}}))),
                     404, "user_not_found", "User not found"));
    it::Db db;
    EXPECT_EQ(db.count("SELECT COUNT(*) FROM conversations WHERE customer_id = ?",
                       {std::to_string(w.customer_id)}),
              0);
}

// ---------------------------------------------------------------------------------------------
// Order of checks: route -> key -> shop -> body -> field validation -> existence.

TEST(TicketsCreate, FieldValidationComesBeforeExistence) {
    const World w = it::tickets::make_world();
    const Json::Value unknown_customer = Json::Int64(w.customer_id + 1000000);
    EXPECT_TRUE(it::is_error(post(w.shop, object({{"customerId", unknown_customer}})), 400,
                             "validation_failed", "Channel is required"));
    EXPECT_TRUE(it::is_error(post(w.shop, object({{"customerId", unknown_customer},
                                                  {"Channel", "Mail"},
                                                  {"name", repeat("x", 256)}})),
                             400, "validation_failed", "name is too long"));
    EXPECT_TRUE(it::is_error(
        post(w.shop,
             object({{"customerId", unknown_customer}, {"Channel", "Mail"}, {"tags", "x"}})),
        400, "validation_failed", "tags must be an array of strings"));
    EXPECT_TRUE(it::tickets::is_validation_error_for(
        post(w.shop, body_for(w, object({{"assigned_to", 999999999}, {"date", "soon"}}))), "date"));
}

TEST(TicketsCreate, BodyErrorsComeBeforeFieldValidation) {
    const World w = it::tickets::make_world();
    EXPECT_TRUE(it::is_error(it::post_raw(kTicketsPath, w.shop, "{\"customerId\":"), 400,
                             "invalid_json", "Invalid JSON body"));
    EXPECT_TRUE(it::is_error(it::post_raw(kTicketsPath, w.shop, "[1,2]"), 400, "invalid_body",
                             "Request body must be a JSON object"));
    EXPECT_TRUE(it::is_error(it::post_raw(kTicketsPath, w.shop, "{}", "text/plain"), 415,
                             "unsupported_media_type", "Content-Type must be application/json"));
    EXPECT_TRUE(
        it::is_error(it::post_raw(kTicketsPath, w.shop, "{\"x\":\"" + repeat("x", 1100000) + "\"}"),
                     413, "body_too_large", "Request body too large"));
}

TEST(TicketsCreate, KeyAndShopComeFirst) {
    const World w = it::tickets::make_world();
    const std::string bad_body = "{\"Channel\":5}";
    EXPECT_TRUE(it::is_error(
        it::http("POST", kTicketsPath, {{"Content-Type", "application/json"}}, bad_body), 401,
        "missing_api_key", "API key is required"));
    EXPECT_TRUE(it::is_error(it::http("POST", kTicketsPath,
                                      {{"x-api-key", "not-a-key-" + it::unique_suffix()},
                                       {"Content-Type", "application/json"}},
                                      bad_body),
                             401, "invalid_api_key", "Invalid API key"));
    const Shop gone = it::make_shop();
    it::admin({"shop", "delete", "--domain", gone.domain});
    EXPECT_TRUE(it::is_error(it::post_raw(kTicketsPath, gone, bad_body), 404, "shop_not_found",
                             "Shop not found"));
}

TEST(TicketsCreate, OtherMethodsAreNotAllowed) {
    const World w = it::tickets::make_world();
    // GET lists the tickets (extensions.md §E3).
    for (const char* method : {"PUT", "DELETE", "PATCH"}) {
        SCOPED_TRACE(method);
        const HttpResponse r = it::http(method, kTicketsPath, it::key_header(w.shop));
        EXPECT_TRUE(it::is_error(r, 405, "method_not_allowed", "Method not allowed"));
        EXPECT_EQ(r.header("allow").value_or(""), "GET, POST") << r.describe();
    }
}

}  // namespace
