// POST /api/v1/csat (contract §6, §4, §7): recording a survey response on a conversation of the
// key's shop: the list shape of the answer, defaults, the accepted forms of conversationId and
// createdAt, the exact validation messages, the survey's customer being the conversation's
// customer, and 404 for a conversation outside the shop (with nothing written).
#include <string>
#include <vector>

#include "csat_fixtures.h"
#include "harness.h"
#include "tickets_fixtures.h"

namespace {

using it::HttpResponse;
using it::object;
using it::csat::CsatShop;
using it::csat::kCsatPath;
using it::csat::post_survey;
using it::tickets::array;

constexpr char kMarkMessage[] = "mark must be an integer between 1 and 5";

// A body for the shop's conversation with the given mark.
Json::Value body_with(const CsatShop& s, const Json::Value& mark) {
    return object({{"conversationId", s.conversation_id}, {"mark", mark}});
}

// Rows of the surveys table for a conversation (through the read-only DB helper).
int64_t survey_rows_of(const std::string& conversation_id) {
    it::Db db;
    return db.count("SELECT COUNT(*) FROM surveys WHERE conversation_id = CAST(? AS UNSIGNED)",
                    {conversation_id});
}

// ---------------------------------------------------------------------------------------------
// The answer.

TEST(CsatCreate, AnswersTheSurveyInTheListShape) {
    const CsatShop s = it::csat::make_csat_shop();
    const HttpResponse r =
        post_survey(s.shop, object({{"conversationId", s.conversation_id},
                                    {"mark", 4},
                                    {"comment", "Quick and kind"},
                                    {"messageId", 123456},
                                    {"graphNodes", object({{"start", object({{"next", "b"}})}})},
                                    {"nodeIds", array({"start", "b"})},
                                    {"createdAt", "2025-03-10T11:22:33.444Z"}}));
    ASSERT_TRUE(it::is_success(r, 201));
    EXPECT_EQ(it::member_names(r.json()), (std::vector<std::string>{"success", "survey"}))
        << r.describe();
    const Json::Value& v = r.json()["survey"];
    ASSERT_TRUE(it::csat::is_survey_shape(v)) << r.describe();
    EXPECT_EQ(v["mark"], Json::Value(4));
    EXPECT_EQ(v["comment"], Json::Value("Quick and kind"));
    EXPECT_EQ(v["messageId"].asInt64(), 123456);
    EXPECT_EQ(v["graphNodes"], object({{"start", object({{"next", "b"}})}}));
    EXPECT_EQ(v["nodeIds"], array({"start", "b"}));
    EXPECT_EQ(v["createdAt"], Json::Value("2025-03-10T11:22:33.444Z"));
    EXPECT_EQ(v["shopDomain"], Json::Value(s.shop.domain));
    EXPECT_EQ(v["conversationId"], Json::Value(s.conversation_id));

    const Json::Value& c = v["customer"];
    EXPECT_EQ(c["id"].asInt64(), s.customer_id);
    EXPECT_EQ(c["email"], s.customer["email"]);
    EXPECT_EQ(c["name"], Json::Value("Ann Lee"));
    EXPECT_EQ(c["name"], s.customer["full_name"]);
    EXPECT_EQ(c["phone"], s.customer["phone_number"]);

    // The list shows exactly the same object.
    const Json::Value listed =
        it::csat::list(s.shop, {{"startDate", "2025-03-10"}, {"endDate", "2025-03-10"}});
    ASSERT_EQ(listed["surveys"].size(), 1u) << it::to_json(listed);
    EXPECT_EQ(listed["surveys"][0], v) << it::to_json(listed);
    EXPECT_EQ(survey_rows_of(s.conversation_id), 1);
}

TEST(CsatCreate, DefaultsOfAMinimalSurvey) {
    const CsatShop s = it::csat::make_csat_shop();
    const HttpResponse r = post_survey(s.shop, body_with(s, 5));
    ASSERT_TRUE(it::is_success(r, 201));
    const Json::Value& v = r.json()["survey"];
    ASSERT_TRUE(it::csat::is_survey_shape(v)) << r.describe();
    EXPECT_EQ(v["mark"], Json::Value(5));
    EXPECT_TRUE(v["comment"].isNull()) << r.describe();
    EXPECT_TRUE(v["messageId"].isNull()) << r.describe();
    EXPECT_EQ(v["graphNodes"], Json::Value(Json::objectValue)) << r.describe();
    EXPECT_EQ(v["nodeIds"], Json::Value(Json::arrayValue)) << r.describe();
    EXPECT_TRUE(it::tickets::is_recent_utc_millis(v["createdAt"])) << r.describe();
}

TEST(CsatCreate, NullOptionalFieldsTakeTheirDefaults) {
    const CsatShop s = it::csat::make_csat_shop();
    Json::Value body = body_with(s, 3);
    for (const char* f : {"comment", "messageId", "graphNodes", "nodeIds", "createdAt"}) {
        body[f] = Json::Value();
    }
    const HttpResponse r = post_survey(s.shop, body);
    ASSERT_TRUE(it::is_success(r, 201));
    const Json::Value& v = r.json()["survey"];
    EXPECT_TRUE(v["comment"].isNull()) << r.describe();
    EXPECT_TRUE(v["messageId"].isNull()) << r.describe();
    EXPECT_EQ(v["graphNodes"], Json::Value(Json::objectValue)) << r.describe();
    EXPECT_EQ(v["nodeIds"], Json::Value(Json::arrayValue)) << r.describe();
    EXPECT_TRUE(it::tickets::is_recent_utc_millis(v["createdAt"])) << r.describe();
}

TEST(CsatCreate, EveryMarkFromOneToFiveIsAccepted) {
    const CsatShop s = it::csat::make_csat_shop();
    for (int mark = 1; mark <= 5; ++mark) {
        const HttpResponse r = post_survey(s.shop, body_with(s, mark));
        ASSERT_TRUE(it::is_success(r, 201)) << "mark " << mark;
        EXPECT_EQ(r.json()["survey"]["mark"], Json::Value(mark)) << r.describe();
    }
    EXPECT_EQ(survey_rows_of(s.conversation_id), 5);
}

TEST(CsatCreate, ConversationIdAsDigitsStringOrInteger) {
    const CsatShop s = it::csat::make_csat_shop();
    const HttpResponse as_string = post_survey(s.shop, body_with(s, 2));
    ASSERT_TRUE(it::is_success(as_string, 201));
    EXPECT_EQ(as_string.json()["survey"]["conversationId"], Json::Value(s.conversation_id));

    Json::Value body = body_with(s, 2);
    body["conversationId"] = Json::UInt64(std::stoull(s.conversation_id));
    const HttpResponse as_integer = post_survey(s.shop, body);
    ASSERT_TRUE(it::is_success(as_integer, 201));
    EXPECT_EQ(as_integer.json()["survey"]["conversationId"], Json::Value(s.conversation_id))
        << as_integer.describe();
    EXPECT_NE(as_integer.json()["survey"]["id"], as_string.json()["survey"]["id"]);
}

TEST(CsatCreate, ConversationIdAbove2Pow53StaysExact) {
    const CsatShop s = it::csat::make_csat_shop();
    it::tickets::PlantedConversation pc;
    pc.shop_id = s.shop.id;
    pc.customer_id = s.customer_id;
    const std::string big = it::tickets::plant_conversation(pc);
    ASSERT_GT(std::stoull(big), it::tickets::kTwoPow53);

    const HttpResponse r = post_survey(
        s.shop,
        object({{"conversationId", big}, {"mark", 5}, {"createdAt", "2025-03-10T08:00:00.000Z"}}));
    ASSERT_TRUE(it::is_success(r, 201));
    EXPECT_EQ(r.json()["survey"]["conversationId"], Json::Value(big)) << r.describe();

    // The same id as a JSON integer (exact in the request text, not through a double).
    const HttpResponse as_integer = it::post_raw(
        kCsatPath, s.shop,
        R"({"conversationId":)" + big + R"(,"mark":4,"createdAt":"2025-03-10T09:00:00Z"})");
    ASSERT_TRUE(it::is_success(as_integer, 201));
    EXPECT_EQ(as_integer.json()["survey"]["conversationId"], Json::Value(big))
        << as_integer.describe();

    const Json::Value listed =
        it::csat::list(s.shop, {{"startDate", "2025-03-10"}, {"endDate", "2025-03-10"}});
    ASSERT_EQ(listed["surveys"].size(), 2u) << it::to_json(listed);
    for (const Json::Value& v : listed["surveys"]) {
        EXPECT_EQ(v["conversationId"], Json::Value(big)) << it::to_json(listed);
    }
}

TEST(CsatCreate, CreatedAtFormsAreNormalizedToUtcMillis) {
    const CsatShop s = it::csat::make_csat_shop();
    const std::vector<std::pair<std::string, std::string>> cases{
        {"2025-03-04", "2025-03-04T00:00:00.000Z"},
        {"2025-03-04T10:00:00Z", "2025-03-04T10:00:00.000Z"},
        {"2025-03-04T10:00:00.5Z", "2025-03-04T10:00:00.500Z"},
        {"2025-03-04T10:00:00.123Z", "2025-03-04T10:00:00.123Z"},
        {"2025-03-04T10:00:00+02:00", "2025-03-04T08:00:00.000Z"},
        {"2025-03-04T20:30:00-05:30", "2025-03-05T02:00:00.000Z"},
        {"2025-03-05T01:00:00.250+03:00", "2025-03-04T22:00:00.250Z"},
    };
    for (const auto& [given, want] : cases) {
        Json::Value body = body_with(s, 3);
        body["createdAt"] = given;
        const HttpResponse r = post_survey(s.shop, body);
        ASSERT_TRUE(it::is_success(r, 201)) << given;
        EXPECT_EQ(r.json()["survey"]["createdAt"], Json::Value(want)) << given;
    }
}

TEST(CsatCreate, CommentGraphNodesAndNodeIdsComeBackAsGiven) {
    const CsatShop s = it::csat::make_csat_shop();
    Json::Value graph(Json::objectValue);
    graph["a"]["next"] = array({"b", "c"});
    graph["a"]["weight"] = 2.5;
    graph["b"] = Json::Value(Json::objectValue);
    graph["empty"] = Json::Value();
    const Json::Value nodes = array({"a", 2, object({{"id", "c"}}), Json::Value()});
    const std::string comment = "Très bien — merci! \"quoted\"\n2nd line 🎉";
    Json::Value body = body_with(s, 5);
    body["graphNodes"] = graph;
    body["nodeIds"] = nodes;
    body["comment"] = comment;
    body["messageId"] = Json::Int64(9007199254740993LL);
    body["createdAt"] = "2025-03-10T10:00:00Z";
    const HttpResponse r = post_survey(s.shop, body);
    ASSERT_TRUE(it::is_success(r, 201));
    const Json::Value& v = r.json()["survey"];
    EXPECT_EQ(v["graphNodes"], graph) << r.describe();
    EXPECT_EQ(v["nodeIds"], nodes) << r.describe();
    EXPECT_EQ(v["comment"], Json::Value(comment)) << r.describe();
    EXPECT_TRUE(it::is_json_integer(v["messageId"])) << r.describe();
    EXPECT_EQ(v["messageId"].asInt64(), 9007199254740993LL) << r.describe();

    const Json::Value listed =
        it::csat::list(s.shop, {{"startDate", "2025-03-10"}, {"endDate", "2025-03-10"}});
    ASSERT_EQ(listed["surveys"].size(), 1u) << it::to_json(listed);
    EXPECT_EQ(listed["surveys"][0], v);
}

TEST(CsatCreate, TheCustomerIsTheConversationsCustomer) {
    const CsatShop s = it::csat::make_csat_shop();
    // A second customer of the same shop with only a first name and no phone.
    const std::string email = it::unique_email("cs2");
    const int64_t other =
        it::create_customer(s.shop, object({{"email", email}, {"first_name", "Bo"}}))["id"]
            .asInt64();
    it::tickets::World w;
    w.shop = s.shop;
    w.customer_id = other;
    const std::string conversation = it::tickets::create_ticket_id(w);

    const HttpResponse r =
        post_survey(s.shop, object({{"conversationId", conversation}, {"mark", 1}}));
    ASSERT_TRUE(it::is_success(r, 201));
    const Json::Value& c = r.json()["survey"]["customer"];
    EXPECT_EQ(c["id"].asInt64(), other) << r.describe();
    EXPECT_EQ(c["email"], Json::Value(email)) << r.describe();
    EXPECT_EQ(c["name"], Json::Value("Bo")) << r.describe();
    EXPECT_TRUE(c.isMember("phone") && c["phone"].isNull()) << r.describe();

    // And the survey of the first conversation still carries the first customer.
    const HttpResponse first = post_survey(s.shop, body_with(s, 2));
    ASSERT_TRUE(it::is_success(first, 201));
    EXPECT_EQ(first.json()["survey"]["customer"]["id"].asInt64(), s.customer_id);
}

// ---------------------------------------------------------------------------------------------
// Validation (contract §4, §7).

TEST(CsatCreate, ConversationIdIsRequired) {
    const CsatShop s = it::csat::make_csat_shop();
    EXPECT_TRUE(it::is_error(post_survey(s.shop, object({{"mark", 5}})), 400, "validation_failed",
                             "conversationId is required"));
    EXPECT_TRUE(
        it::is_error(post_survey(s.shop, object({{"conversationId", Json::Value()}, {"mark", 5}})),
                     400, "validation_failed", "conversationId is required"));
    EXPECT_EQ(survey_rows_of(s.conversation_id), 0);
}

TEST(CsatCreate, MarkIsRequired) {
    const CsatShop s = it::csat::make_csat_shop();
    EXPECT_TRUE(it::is_error(post_survey(s.shop, object({{"conversationId", s.conversation_id}})),
                             400, "validation_failed", "mark is required"));
    EXPECT_TRUE(it::is_error(post_survey(s.shop, body_with(s, Json::Value())), 400,
                             "validation_failed", "mark is required"));
    EXPECT_EQ(survey_rows_of(s.conversation_id), 0);
}

TEST(CsatCreate, MarkOutsideOneToFiveOrNotAJsonIntegerIs400) {
    const CsatShop s = it::csat::make_csat_shop();
    const std::vector<Json::Value> bad{0,
                                       6,
                                       -1,
                                       100,
                                       4.5,
                                       0.5,
                                       "5",
                                       "4",
                                       true,
                                       false,
                                       "",
                                       array({5}),
                                       object({{"value", 5}}),
                                       Json::Int64(9007199254740993LL)};
    for (const Json::Value& mark : bad) {
        EXPECT_TRUE(it::is_error(post_survey(s.shop, body_with(s, mark)), 400, "validation_failed",
                                 kMarkMessage))
            << "mark " << it::to_json(mark);
    }
    EXPECT_EQ(survey_rows_of(s.conversation_id), 0);
}

TEST(CsatCreate, ConversationIdOfAWrongTypeIs400) {
    const CsatShop s = it::csat::make_csat_shop();
    const std::vector<Json::Value> bad{"abc",     "12a", "-5", " 12", "1.5",
                                       -5,        1.5,   true, false, array({s.conversation_id}),
                                       object({})};
    for (const Json::Value& id : bad) {
        EXPECT_TRUE(it::tickets::is_validation_error_for(
            post_survey(s.shop, object({{"conversationId", id}, {"mark", 5}})), "conversationId"))
            << "conversationId " << it::to_json(id);
    }
    EXPECT_EQ(survey_rows_of(s.conversation_id), 0);
}

TEST(CsatCreate, OptionalFieldsOfAWrongTypeAre400) {
    const CsatShop s = it::csat::make_csat_shop();
    struct Case {
        const char* field;
        Json::Value value;
    };
    const std::vector<Case> cases{
        {"comment", 5},
        {"comment", true},
        {"comment", array({"a"})},
        {"comment", object({})},
        {"messageId", "12"},
        {"messageId", 1.5},
        {"messageId", true},
        {"messageId", array({1})},
        {"graphNodes", array({})},
        {"graphNodes", "{}"},
        {"graphNodes", 1},
        {"graphNodes", true},
        {"nodeIds", object({})},
        {"nodeIds", "[]"},
        {"nodeIds", 1},
        {"createdAt", "2025-03-10T10:00:00"},  // no zone (contract §7)
        {"createdAt", "yesterday"},
        {"createdAt", "2025-02-30"},
        {"createdAt", "2025-13-01T00:00:00Z"},
        {"createdAt", "2025-03-10T24:00:00Z"},
        {"createdAt", ""},
        {"createdAt", Json::Int64(1741600800000LL)},
        {"createdAt", true},
    };
    for (const Case& c : cases) {
        Json::Value body = body_with(s, 5);
        body[c.field] = c.value;
        EXPECT_TRUE(it::tickets::is_validation_error_for(post_survey(s.shop, body), c.field))
            << c.field << " = " << it::to_json(c.value);
    }
    EXPECT_EQ(survey_rows_of(s.conversation_id), 0);
}

TEST(CsatCreate, BodyErrors) {
    const CsatShop s = it::csat::make_csat_shop();
    EXPECT_TRUE(it::is_error(it::post_raw(kCsatPath, s.shop, "{\"mark\":"), 400, "invalid_json",
                             "Invalid JSON body"));
    EXPECT_TRUE(it::is_error(it::post_raw(kCsatPath, s.shop, "[1,2]"), 400, "invalid_body",
                             "Request body must be a JSON object"));
    EXPECT_TRUE(
        it::is_error(it::post_raw(kCsatPath, s.shop, it::to_json(body_with(s, 5)), "text/plain"),
                     415, "unsupported_media_type", "Content-Type must be application/json"));
    // An empty body is {} (contract §7): the first required field is missing.
    EXPECT_TRUE(it::is_error(it::post_raw(kCsatPath, s.shop, ""), 400, "validation_failed",
                             "conversationId is required"));
    EXPECT_EQ(survey_rows_of(s.conversation_id), 0);
}

// ---------------------------------------------------------------------------------------------
// The conversation must be in the key's shop.

TEST(CsatCreate, AConversationOfAnotherShopIs404AndNothingIsWritten) {
    const CsatShop mine = it::csat::make_csat_shop();
    const CsatShop other = it::csat::make_csat_shop();
    for (const Json::Value& id : {Json::Value(other.conversation_id),
                                  Json::Value(Json::UInt64(std::stoull(other.conversation_id)))}) {
        const HttpResponse r = post_survey(
            mine.shop,
            object({{"conversationId", id}, {"mark", 5}, {"createdAt", "2025-03-10T10:00:00Z"}}));
        EXPECT_TRUE(it::is_error(r, 404, "ticket_not_found", "Ticket not found"));
    }
    EXPECT_EQ(survey_rows_of(other.conversation_id), 0);
    // Neither shop sees a survey that day, and the stats of both are empty.
    for (const CsatShop* s : {&mine, &other}) {
        const Json::Value listed =
            it::csat::list(s->shop, {{"startDate", "2025-03-10"}, {"endDate", "2025-03-10"}});
        EXPECT_EQ(listed["total"].asInt64(), 0) << it::to_json(listed);
        EXPECT_TRUE(it::csat::stats_are(listed["stats"], std::vector<int>{}));
    }
    // The owner can record on it.
    EXPECT_TRUE(it::is_success(post_survey(other.shop, body_with(other, 5)), 201));
}

TEST(CsatCreate, UnknownConversationIdsAre404) {
    const CsatShop s = it::csat::make_csat_shop();
    const std::vector<Json::Value> ids{"0", 0, "18446744073709551615",
                                       "99999999999999999999999",  // beyond BIGINT too
                                       Json::UInt64(18446744073709551615ULL)};
    for (const Json::Value& id : ids) {
        EXPECT_TRUE(it::is_error(post_survey(s.shop, object({{"conversationId", id}, {"mark", 3}})),
                                 404, "ticket_not_found", "Ticket not found"))
            << "conversationId " << it::to_json(id);
    }
    // An integer literal beyond 64 bits, written as such in the body.
    EXPECT_TRUE(it::is_error(
        it::post_raw(kCsatPath, s.shop, R"({"conversationId":99999999999999999999999,"mark":3})"),
        404, "ticket_not_found", "Ticket not found"));
}

TEST(CsatCreate, ValidationComesBeforeTheConversationLookup) {
    const CsatShop mine = it::csat::make_csat_shop();
    const CsatShop other = it::csat::make_csat_shop();
    EXPECT_TRUE(it::is_error(
        post_survey(mine.shop, object({{"conversationId", other.conversation_id}, {"mark", 9}})),
        400, "validation_failed", kMarkMessage));
    EXPECT_TRUE(it::is_error(post_survey(mine.shop, object({{"conversationId", "404404404"}})), 400,
                             "validation_failed", "mark is required"));
}

}  // namespace
