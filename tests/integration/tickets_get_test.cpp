// GET /api/v1/tickets/{ticketId} (api-v1 §4, contract §3, §4, §5, §7): exactly the fetch
// fields with Customer, User and HumanTicket, the path id rules (missing, not digits, beyond
// BIGINT), shop isolation, and ids above 2^53 surviving as strings.
#include <algorithm>
#include <string>
#include <vector>

#include "harness.h"
#include "tickets_fixtures.h"

namespace {

using it::HttpResponse;
using it::object;
using it::Shop;
using it::tickets::ticket_path;
using it::tickets::World;

std::vector<std::string> sorted(std::vector<std::string> v) {
    std::sort(v.begin(), v.end());
    return v;
}

const std::vector<std::string> kFetchFields =
    sorted({"id", "shopDomain", "Channel", "name", "Customer", "User", "HumanTicket"});
const std::vector<std::string> kCustomerFields = sorted(
    {"id", "email", "first_name", "last_name", "full_name", "phone_number", "storefront_id"});
const std::vector<std::string> kUserFields =
    sorted({"id", "email", "first_name", "last_name", "full_name"});
const std::vector<std::string> kHumanTicketFields =
    sorted({"id", "HumanTicketStatus", "openedAt", "closedAt"});

// Customer of the fetch shape, from the customer as GET /api/v1/customers/{id} shows it.
void expect_customer(const Json::Value& got, const World& w) {
    ASSERT_TRUE(got.isObject()) << it::to_json(got);
    EXPECT_EQ(it::member_names(got), kCustomerFields) << it::to_json(got);
    EXPECT_TRUE(it::is_json_integer(got["id"])) << it::to_json(got);
    EXPECT_EQ(got["id"].asInt64(), w.customer_id);
    for (const char* f :
         {"email", "first_name", "last_name", "full_name", "phone_number", "storefront_id"}) {
        EXPECT_EQ(got[f], w.customer[f]) << f << " in " << it::to_json(got);
    }
}

// ---------------------------------------------------------------------------------------------
// The fetched ticket.

TEST(TicketsGet, AssignedOpenTicketHasExactlyTheFetchFields) {
    const World w = it::tickets::make_world();
    const std::string email = it::unique_email("agent");
    const int64_t agent = it::tickets::make_user(w.shop, email, "Bo", "Ng");
    const std::string id =
        it::tickets::create_ticket_id(w, object({{"name", "Broken lid"},
                                                 {"Channel", "Website"},
                                                 {"assigned_to", Json::Int64(agent)},
                                                 {"isOpenedTicket", true}}));
    const HttpResponse r = it::get(ticket_path(id), w.shop);
    ASSERT_TRUE(it::is_success(r, 200));
    const Json::Value& t = r.json()["ticket"];
    EXPECT_EQ(it::member_names(t), kFetchFields) << r.describe();
    EXPECT_EQ(t["id"], Json::Value(id));
    EXPECT_EQ(t["shopDomain"], Json::Value(w.shop.domain));
    EXPECT_EQ(t["Channel"], Json::Value("Website"));
    EXPECT_EQ(t["name"], Json::Value("Broken lid"));
    expect_customer(t["Customer"], w);

    const Json::Value& u = t["User"];
    ASSERT_TRUE(u.isObject()) << r.describe();
    EXPECT_EQ(it::member_names(u), kUserFields) << r.describe();
    EXPECT_TRUE(it::is_json_integer(u["id"])) << r.describe();
    EXPECT_EQ(u["id"].asInt64(), agent);
    EXPECT_EQ(u["email"], Json::Value(email));
    EXPECT_EQ(u["first_name"], Json::Value("Bo"));
    EXPECT_EQ(u["last_name"], Json::Value("Ng"));
    EXPECT_EQ(u["full_name"], Json::Value("Bo Ng"));

    const Json::Value& h = t["HumanTicket"];
    ASSERT_TRUE(h.isObject()) << r.describe();
    EXPECT_EQ(it::member_names(h), kHumanTicketFields) << r.describe();
    EXPECT_TRUE(it::is_json_integer(h["id"])) << r.describe();
    EXPECT_GT(h["id"].asInt64(), 0);
    EXPECT_EQ(h["HumanTicketStatus"], Json::Value("OPEN"));
    EXPECT_TRUE(it::tickets::is_recent_utc_millis(h["openedAt"]));
    EXPECT_TRUE(h["closedAt"].isNull()) << r.describe();
}

TEST(TicketsGet, UnassignedTicketWithoutHumanTicketHasNulls) {
    const World w = it::tickets::make_world();
    const std::string id = it::tickets::create_ticket_id(w);
    const HttpResponse r = it::get(ticket_path(id), w.shop);
    ASSERT_TRUE(it::is_success(r, 200));
    const Json::Value& t = r.json()["ticket"];
    EXPECT_EQ(it::member_names(t), kFetchFields) << r.describe();
    EXPECT_EQ(t["Channel"], Json::Value("Mail"));
    EXPECT_TRUE(t["name"].isNull()) << r.describe();
    EXPECT_TRUE(t["User"].isNull()) << r.describe();
    EXPECT_TRUE(t["HumanTicket"].isNull()) << r.describe();
    expect_customer(t["Customer"], w);
}

TEST(TicketsGet, CustomerWithOnlyAnEmailHasNullNames) {
    const World w = it::tickets::make_world();
    const int64_t bare = it::tickets::make_customer(w.shop);
    const std::string id =
        it::tickets::create_ticket(
            w.shop, object({{"customerId", Json::Int64(bare)}, {"Channel", "Mail"}}))["id"]
            .asString();
    const Json::Value c = it::tickets::fetch_ticket(w.shop, id)["Customer"];
    EXPECT_EQ(it::member_names(c), kCustomerFields) << it::to_json(c);
    EXPECT_EQ(c["id"].asInt64(), bare);
    for (const char* f :
         {"first_name", "last_name", "full_name", "phone_number", "storefront_id"}) {
        EXPECT_TRUE(c[f].isNull()) << f << " in " << it::to_json(c);
    }
}

TEST(TicketsGet, AgentWithoutNamesHasNullNames) {
    const World w = it::tickets::make_world();
    const int64_t agent = it::tickets::make_user(w.shop, it::unique_email("agent"));
    const std::string id =
        it::tickets::create_ticket_id(w, object({{"assigned_to", Json::Int64(agent)}}));
    const Json::Value u = it::tickets::fetch_ticket(w.shop, id)["User"];
    ASSERT_TRUE(u.isObject()) << it::to_json(u);
    EXPECT_EQ(u["id"].asInt64(), agent);
    for (const char* f : {"first_name", "last_name", "full_name"}) {
        EXPECT_TRUE(u.isMember(f) && u[f].isNull()) << f << " in " << it::to_json(u);
    }
}

// ---------------------------------------------------------------------------------------------
// Ids above 2^53 and rows written outside v1.

TEST(TicketsGet, AnIdAbove2Pow53SurvivesAsAString) {
    const World w = it::tickets::make_world();
    const int64_t agent = it::tickets::make_user(w.shop, it::unique_email("agent"), "Cy", "Do");
    it::tickets::PlantedConversation c;
    c.shop_id = w.shop.id;
    c.customer_id = w.customer_id;
    c.channel = "Chat";
    c.name = "planted";
    c.assigned_to = agent;
    const std::string id = it::tickets::plant_conversation(c);
    it::tickets::plant_human_ticket(id, "CLOSED", "2026-01-02 03:04:05.678",
                                    "2026-01-03 04:05:06.007");

    const HttpResponse r = it::get(ticket_path(id), w.shop);
    ASSERT_TRUE(it::is_success(r, 200));
    // The raw text too: a writer that went through a double would print another number.
    EXPECT_NE(r.body.find("\"" + id + "\""), std::string::npos) << r.describe();
    const Json::Value& t = r.json()["ticket"];
    EXPECT_EQ(t["id"], Json::Value(id));
    EXPECT_EQ(t["Channel"], Json::Value("Chat"));
    EXPECT_EQ(t["name"], Json::Value("planted"));
    expect_customer(t["Customer"], w);
    EXPECT_EQ(t["User"]["id"].asInt64(), agent) << r.describe();
    EXPECT_EQ(t["User"]["full_name"], Json::Value("Cy Do")) << r.describe();
    const Json::Value& h = t["HumanTicket"];
    ASSERT_TRUE(h.isObject()) << r.describe();
    EXPECT_EQ(h["HumanTicketStatus"], Json::Value("CLOSED"));
    EXPECT_EQ(h["openedAt"], Json::Value("2026-01-02T03:04:05.678Z"));
    EXPECT_EQ(h["closedAt"], Json::Value("2026-01-03T04:05:06.007Z"));
}

TEST(TicketsGet, TicketsCreatedAfterABigIdKeepEveryDigit) {
    const World w = it::tickets::make_world();
    it::tickets::PlantedConversation c;
    c.shop_id = w.shop.id;
    c.customer_id = w.customer_id;
    const std::string planted = it::tickets::plant_conversation(c);
    // AUTO_INCREMENT now continues above the planted id.
    const std::string id = it::tickets::create_ticket_id(w);
    EXPECT_GT(it::tickets::compare_ids(id, planted), 0) << planted << " then " << id;
    EXPECT_EQ(it::tickets::fetch_ticket(w.shop, id)["id"], Json::Value(id));
}

// ---------------------------------------------------------------------------------------------
// The path id.

TEST(TicketsGet, AMissingIdIsRequired) {
    const World w = it::tickets::make_world();
    EXPECT_TRUE(it::is_error(it::get("/api/v1/tickets/", w.shop), 400, "validation_failed",
                             "ticketId is required"));
}

TEST(TicketsGet, AnIdThatIsNotDigitsIsInvalid) {
    const World w = it::tickets::make_world();
    const std::string id = it::tickets::create_ticket_id(w);
    for (const std::string& bad : {std::string("abc"), id + "x", "-" + id, "+" + id, id + ".0",
                                   std::string("1e3"), std::string("0x10"), "%20" + id}) {
        SCOPED_TRACE("ticketId \"" + bad + "\"");
        EXPECT_TRUE(
            it::is_error(it::get(ticket_path(bad), w.shop), 400, "invalid_id", "Invalid ticketId"));
    }
}

TEST(TicketsGet, AnUnknownIdIsNotFound) {
    const World w = it::tickets::make_world();
    const std::string id = it::tickets::create_ticket_id(w);
    for (const std::string& unknown :
         {std::string("0"), id + "0", std::string("18446744073709551615"),
          std::string("18446744073709551616"), std::string("99999999999999999999999"),
          it::tickets::repeat("9", 200)}) {
        SCOPED_TRACE("ticketId " + unknown);
        EXPECT_TRUE(it::is_error(it::get(ticket_path(unknown), w.shop), 404, "ticket_not_found",
                                 "Ticket not found"));
    }
}

TEST(TicketsGet, AnotherShopsTicketIsNotFound) {
    const World w = it::tickets::make_world();
    const World other = it::tickets::make_world();
    const std::string id = it::tickets::create_ticket_id(other);
    EXPECT_TRUE(it::is_error(it::get(ticket_path(id), w.shop), 404, "ticket_not_found",
                             "Ticket not found"));
    EXPECT_EQ(it::tickets::fetch_ticket(other.shop, id)["id"], Json::Value(id));
}

TEST(TicketsGet, AnotherShopsBigIdTicketIsNotFound) {
    const World w = it::tickets::make_world();
    const World other = it::tickets::make_world();
    it::tickets::PlantedConversation c;
    c.shop_id = other.shop.id;
    c.customer_id = other.customer_id;
    const std::string id = it::tickets::plant_conversation(c);
    EXPECT_TRUE(it::is_error(it::get(ticket_path(id), w.shop), 404, "ticket_not_found",
                             "Ticket not found"));
}

// ---------------------------------------------------------------------------------------------
// Order of checks: route -> key -> shop -> path id.

TEST(TicketsGet, KeyAndShopComeBeforeThePathId) {
    const Shop gone = it::make_shop();
    it::admin({"shop", "delete", "--domain", gone.domain});
    EXPECT_TRUE(it::is_error(it::http("GET", ticket_path("abc")), 401, "missing_api_key",
                             "API key is required"));
    EXPECT_TRUE(it::is_error(
        it::http("GET", ticket_path("abc"), {{"x-api-key", "nope-" + it::unique_suffix()}}), 401,
        "invalid_api_key", "Invalid API key"));
    EXPECT_TRUE(
        it::is_error(it::get(ticket_path("abc"), gone), 404, "shop_not_found", "Shop not found"));
    EXPECT_TRUE(
        it::is_error(it::get("/api/v1/tickets/", gone), 404, "shop_not_found", "Shop not found"));
}

TEST(TicketsGet, TheKeyMayComeAsABearerToken) {
    const World w = it::tickets::make_world();
    const std::string id = it::tickets::create_ticket_id(w);
    const HttpResponse r =
        it::http("GET", ticket_path(id), {{"Authorization", "Bearer " + w.shop.key}});
    ASSERT_TRUE(it::is_success(r, 200));
    EXPECT_EQ(r.json()["ticket"]["id"], Json::Value(id));
}

TEST(TicketsGet, OtherMethodsAreNotAllowed) {
    const World w = it::tickets::make_world();
    const std::string id = it::tickets::create_ticket_id(w);
    for (const char* method : {"POST", "PUT", "DELETE"}) {  // PATCH: extensions.md §E8
        SCOPED_TRACE(method);
        const HttpResponse r = it::http(method, ticket_path(id), it::key_header(w.shop));
        EXPECT_TRUE(it::is_error(r, 405, "method_not_allowed", "Method not allowed"));
        EXPECT_EQ(r.header("allow").value_or(""), "GET, PATCH") << r.describe();
    }
}

}  // namespace
