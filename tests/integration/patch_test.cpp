// PATCH /api/v1/tickets/{id} and PATCH /api/v1/customers/{id} (extensions.md §E8), through
// nginx to the pool and MariaDB: the members and their errors, the status machine, ETags,
// If-Match / If-None-Match, the races the version check decides, duplicate detection on
// change, Idempotency-Key, the events and the reopen by a customer's comment.
#include <future>
#include <thread>

#include "harness.h"
#include "tickets_fixtures.h"

namespace {

using it::tickets::World;

it::Headers patch_headers(const it::Shop& shop,
                          const std::vector<std::pair<std::string, std::string>>& extra = {}) {
    it::Headers h = it::json_headers(shop);
    h.insert(h.end(), extra.begin(), extra.end());
    return h;
}

it::HttpResponse patch(const std::string& path, const it::Shop& shop, const std::string& body,
                       const std::vector<std::pair<std::string, std::string>>& extra = {}) {
    return it::http("PATCH", path, patch_headers(shop, extra), body);
}

std::string ticket_path(const std::string& id) {
    return "/api/v1/tickets/" + id;
}

std::string customer_path(int64_t id) {
    return "/api/v1/customers/" + std::to_string(id);
}

std::string etag_of(const it::HttpResponse& r) {
    std::optional<std::string> tag = r.header("ETag");
    EXPECT_TRUE(tag) << "no ETag on " << r.describe();
    return tag.value_or("");
}

std::string status_of(const Json::Value& ticket) {
    return ticket["HumanTicket"].isNull() ? "none"
                                          : ticket["HumanTicket"]["HumanTicketStatus"].asString();
}

// The full ticket shape: the create shape's members, HumanTicket, updatedAt.
void expect_full_shape(const Json::Value& t) {
    for (const char* member :
         {"id", "customerID", "shopDomain", "Channel", "name", "threadId", "emailUsed", "date",
          "lastMessage", "lastMessageTime", "contact_reason", "assigned_to", "isOpenedTicket",
          "unReadChatCount", "tags", "language_code", "via", "HumanTicket", "updatedAt"}) {
        EXPECT_TRUE(t.isMember(member)) << member << " missing from " << it::to_json(t);
    }
    EXPECT_EQ(t.size(), 19u) << it::to_json(t);
    EXPECT_TRUE(it::parse_utc_millis(t["updatedAt"].asString())) << it::to_json(t);
}

int64_t count_events(int64_t shop_id, int type) {
    it::Db db;
    return db.count("SELECT COUNT(*) FROM webhook_events WHERE shop_id = ? AND type = ?",
                    {std::to_string(shop_id), std::to_string(type)});
}

constexpr int kCustomerUpdated = 16;
constexpr int kTicketUpdated = 32;

Json::Value last_event(int64_t shop_id, int type) {
    it::Db db;
    std::optional<std::string> payload = db.scalar(
        "SELECT CONCAT('{\"data\":', payload, ',\"changes\":', changes, '}') FROM webhook_events "
        "WHERE shop_id = ? AND type = ? ORDER BY id DESC LIMIT 1",
        {std::to_string(shop_id), std::to_string(type)});
    if (!payload) {
        throw std::runtime_error("no event of type " + std::to_string(type));
    }
    return it::parse_json(*payload);
}

void subscribe_to_updates(const it::Shop& shop) {
    it::admin({"webhook", "create", "--shop", shop.domain, "--url", "http://127.0.0.1:9/e8",
               "--events", "ticket.updated,customer.updated"});
}

}  // namespace

// --- Tickets ---------------------------------------------------------------------------------

TEST(TicketPatch, ChangesTheMembersAndAnswersTheFullShapeWithANewETag) {
    World w = it::tickets::make_world();
    const int64_t agent = it::tickets::make_user(w.shop, it::unique_email("agent"));
    const std::string id =
        it::tickets::create_ticket_id(w, it::object({{"tags", it::tickets::array({"a", "b"})}}));
    it::HttpResponse before = it::get(ticket_path(id), w.shop);
    const std::string tag0 = etag_of(before);

    it::HttpResponse r =
        patch(ticket_path(id), w.shop,
              R"({"name":"Renamed","contact_reason":"refund","language_code":"fr",)"
              R"("assigned_to":")" +
                  std::to_string(agent) +
                  R"(","addTags":["c","a"],"removeTags":["b"],"unReadChatCount":3})");
    ASSERT_TRUE(it::is_success(r, 200)) << r.describe();
    const Json::Value& t = r.json()["ticket"];
    expect_full_shape(t);
    EXPECT_EQ(t["id"].asString(), id);
    EXPECT_EQ(t["name"].asString(), "Renamed");
    EXPECT_EQ(t["contact_reason"].asString(), "refund");
    EXPECT_EQ(t["language_code"].asString(), "fr");
    EXPECT_EQ(t["assigned_to"].asInt64(), agent);
    EXPECT_EQ(it::to_json(t["tags"]), R"(["a","c"])");
    EXPECT_EQ(t["unReadChatCount"].asInt(), 3);
    const std::string tag1 = etag_of(r);
    EXPECT_NE(tag1, tag0);
    EXPECT_EQ(tag1.front(), '"');  // strong

    // The fetch now carries the PATCH's tag and the new values.
    it::HttpResponse after = it::get(ticket_path(id), w.shop);
    EXPECT_EQ(etag_of(after), tag1);
    EXPECT_EQ(after.json()["ticket"]["name"].asString(), "Renamed");
    EXPECT_EQ(after.json()["ticket"]["User"]["id"].asInt64(), agent);

    // null clears; the change shows in a list of the ticket too.
    r = patch(ticket_path(id), w.shop, R"({"name":null,"assigned_to":null,"tags":[]})");
    ASSERT_TRUE(it::is_success(r, 200)) << r.describe();
    EXPECT_TRUE(r.json()["ticket"]["name"].isNull());
    EXPECT_TRUE(r.json()["ticket"]["assigned_to"].isNull());
    EXPECT_EQ(it::to_json(r.json()["ticket"]["tags"]), "[]");
}

TEST(TicketPatch, AnEmptyOrUnchangingPatchChangesNothingNotEvenTheTag) {
    World w = it::tickets::make_world();
    subscribe_to_updates(w.shop);
    const std::string id = it::tickets::create_ticket_id(w, it::object({{"name", "N"}}));
    it::HttpResponse created_fetch = it::get(ticket_path(id), w.shop);
    const std::string tag = etag_of(created_fetch);
    for (const char* body : {"{}", "", R"({"name":"N"})", R"({"addTags":[],"removeTags":["x"]})"}) {
        it::HttpResponse r = patch(ticket_path(id), w.shop, body);
        ASSERT_TRUE(it::is_success(r, 200)) << body << ": " << r.describe();
        EXPECT_EQ(etag_of(r), tag) << body;
        expect_full_shape(r.json()["ticket"]);
    }
    EXPECT_EQ(count_events(w.shop.id, kTicketUpdated), 0);
}

TEST(TicketPatch, TheCreateAndFetchOfAnUnchangedTicketCarryTheSameTag) {
    World w = it::tickets::make_world();
    it::HttpResponse created =
        it::post_json("/api/v1/tickets", w.shop,
                      it::object({{"customerId", w.customer_id}, {"Channel", "Mail"}}));
    ASSERT_TRUE(it::is_success(created, 201)) << created.describe();
    const std::string id = created.json()["ticket"]["id"].asString();
    EXPECT_EQ(etag_of(created), etag_of(it::get(ticket_path(id), w.shop)));
    EXPECT_EQ(etag_of(created), etag_of(patch(ticket_path(id), w.shop, "{}")));
}

TEST(TicketPatch, BadBodiesAre400AndWriteNothing) {
    World w = it::tickets::make_world();
    const std::string id = it::tickets::create_ticket_id(w, it::object({{"name", "Kept"}}));
    const std::string tag = etag_of(it::get(ticket_path(id), w.shop));
    struct Case {
        std::string body;
        std::string message;
    };
    const std::vector<Case> cases = {
        {R"({"Channel":"Chat"})", "Unknown or read-only field: Channel"},
        {R"({"name":"x","updatedAt":"2026-01-01"})", "Unknown or read-only field: updatedAt"},
        {R"({"name":5})", "name must be a string"},
        {R"({"name":")" + std::string(256, 'n') + "\"}", "name is too long"},
        {R"({"assigned_to":"x1"})", "assigned_to must be an integer"},
        {R"({"tags":"a"})", "tags must be an array of strings"},
        {R"({"tags":["a",2]})", "tags must be an array of strings"},
        {R"({"tags":null})", "tags must be an array of strings"},
        {R"({"addTags":["a"],"tags":["b"]})", "Use either tags or addTags/removeTags"},
        {R"({"unReadChatCount":-2})", "unReadChatCount must be a non-negative integer"},
        {R"({"HumanTicketStatus":"open"})", "Invalid HumanTicketStatus"},
        {R"({"HumanTicketStatus":null})", "Invalid HumanTicketStatus"},
    };
    for (const Case& c : cases) {
        it::HttpResponse r = patch(ticket_path(id), w.shop, c.body);
        EXPECT_TRUE(it::is_error(r, 400, "validation_failed", c.message)) << c.body;
    }
    EXPECT_TRUE(it::is_error(patch(ticket_path(id), w.shop, "[1]"), 400, "invalid_body"));
    it::Headers text = {{"x-api-key", w.shop.key}, {"Content-Type", "text/plain"}};
    EXPECT_TRUE(it::is_error(it::http("PATCH", ticket_path(id), text, "{}"), 415,
                             "unsupported_media_type"));
    it::Headers merge = {{"x-api-key", w.shop.key},
                         {"Content-Type", "application/merge-patch+json"}};
    EXPECT_TRUE(
        it::is_success(it::http("PATCH", ticket_path(id), merge, R"({"name":"Kept"})"), 200));
    EXPECT_EQ(etag_of(it::get(ticket_path(id), w.shop)), tag);
    EXPECT_EQ(it::tickets::fetch_ticket(w.shop, id)["name"].asString(), "Kept");
}

TEST(TicketPatch, OrderOfChecks) {
    World w = it::tickets::make_world();
    const std::string id = it::tickets::create_ticket_id(w);
    // body before existence
    EXPECT_TRUE(it::is_error(patch(ticket_path("999999999999"), w.shop, R"({"zz":1})"), 400,
                             "validation_failed"));
    EXPECT_TRUE(it::is_error(patch(ticket_path("999999999999"), w.shop, "{}"), 404,
                             "ticket_not_found", "Ticket not found"));
    // another shop's ticket is nonexistent
    it::Shop other = it::make_shop();
    EXPECT_TRUE(it::is_error(patch(ticket_path(id), other, "{}"), 404, "ticket_not_found"));
    // existence (an unknown user) before If-Match
    EXPECT_TRUE(it::is_error(
        patch(ticket_path(id), w.shop, R"({"assigned_to":999999999})", {{"If-Match", "\"stale\""}}),
        404, "user_not_found", "User not found"));
    // If-Match before the transition
    EXPECT_TRUE(it::is_error(patch(ticket_path(id), w.shop, R"({"HumanTicketStatus":"CLOSED"})",
                                   {{"If-Match", "\"stale\""}}),
                             412, "precondition_failed"));
}

// Bodies that are not JSON (Prism, in the OpenAPI check run, answers them itself: left out there).
TEST(TicketPatch, MalformedBodiesKeyPathIdAndIfMatchComeInOrder) {
    World w = it::tickets::make_world();
    const std::string id = it::tickets::create_ticket_id(w);
    EXPECT_TRUE(it::is_error(patch(ticket_path(id), w.shop, "{\"name\":01}"), 400, "invalid_json"));
    // key before everything, path id before body, a malformed If-Match before the body
    EXPECT_TRUE(it::is_error(
        it::http("PATCH", ticket_path(id), {{"Content-Type", "application/json"}}, "{"), 401,
        "missing_api_key"));
    EXPECT_TRUE(it::is_error(patch("/api/v1/tickets/x1", w.shop, "{"), 400, "invalid_id"));
    EXPECT_TRUE(it::is_error(patch(ticket_path(id), w.shop, "{", {{"If-Match", "stale"}}), 400,
                             "invalid_if_match", "Invalid If-Match"));
    EXPECT_TRUE(it::is_error(patch(ticket_path(id), w.shop, "{}", {{"If-Match", "W/"}}), 400,
                             "invalid_if_match", "Invalid If-Match"));
}

TEST(TicketPatch, StatusMachineWithClosedAtAndInvalidTransitions) {
    World w = it::tickets::make_world();
    const std::string id = it::tickets::create_ticket_id(w);
    // none -> PENDING is refused, naming none
    it::HttpResponse r = patch(ticket_path(id), w.shop, R"({"HumanTicketStatus":"PENDING"})");
    ASSERT_TRUE(it::is_error(r, 422, "invalid_transition",
                             "Cannot change HumanTicketStatus from none to PENDING"));
    EXPECT_EQ(it::to_json(r.json()["allowed"]), R"(["OPEN"])");

    r = patch(ticket_path(id), w.shop, R"({"HumanTicketStatus":"OPEN"})");
    ASSERT_TRUE(it::is_success(r, 200)) << r.describe();
    const Json::Value& opened = r.json()["ticket"];
    EXPECT_EQ(status_of(opened), "OPEN");
    EXPECT_TRUE(opened["isOpenedTicket"].asBool());
    EXPECT_TRUE(opened["HumanTicket"]["closedAt"].isNull());
    EXPECT_TRUE(it::is_json_integer(opened["HumanTicket"]["id"]));
    EXPECT_EQ(opened["HumanTicket"]["openedAt"], opened["updatedAt"]);

    r = patch(ticket_path(id), w.shop, R"({"HumanTicketStatus":"PENDING"})");
    EXPECT_EQ(status_of(r.json()["ticket"]), "PENDING");
    EXPECT_TRUE(r.json()["ticket"]["HumanTicket"]["closedAt"].isNull());

    r = patch(ticket_path(id), w.shop, R"({"HumanTicketStatus":"SOLVED"})");
    const std::string closed_at = r.json()["ticket"]["HumanTicket"]["closedAt"].asString();
    EXPECT_TRUE(it::parse_utc_millis(closed_at)) << r.describe();

    r = patch(ticket_path(id), w.shop, R"({"HumanTicketStatus":"PENDING"})");
    ASSERT_TRUE(it::is_error(r, 422, "invalid_transition",
                             "Cannot change HumanTicketStatus from SOLVED to PENDING"));
    EXPECT_EQ(it::to_json(r.json()["allowed"]), R"(["OPEN","CLOSED"])");

    r = patch(ticket_path(id), w.shop, R"({"HumanTicketStatus":"CLOSED"})");
    EXPECT_EQ(status_of(r.json()["ticket"]), "CLOSED");
    EXPECT_EQ(r.json()["ticket"]["HumanTicket"]["closedAt"].asString(), closed_at);  // kept
    const std::string closed_tag = etag_of(r);

    r = patch(ticket_path(id), w.shop, R"({"HumanTicketStatus":"CLOSED"})");
    EXPECT_TRUE(it::is_success(r, 200));
    EXPECT_EQ(etag_of(r), closed_tag);
    r = patch(ticket_path(id), w.shop, R"({"HumanTicketStatus":"OPEN","name":"not written"})");
    ASSERT_TRUE(it::is_error(r, 422, "invalid_transition",
                             "Cannot change HumanTicketStatus from CLOSED to OPEN"));
    EXPECT_EQ(it::to_json(r.json()["allowed"]), "[]");
    EXPECT_TRUE(it::tickets::fetch_ticket(w.shop, id)["name"].isNull());

    // back to OPEN clears closedAt
    const std::string id2 =
        it::tickets::create_ticket_id(w, it::object({{"isOpenedTicket", true}}));
    patch(ticket_path(id2), w.shop, R"({"HumanTicketStatus":"SOLVED"})");
    r = patch(ticket_path(id2), w.shop, R"({"HumanTicketStatus":"OPEN"})");
    EXPECT_EQ(status_of(r.json()["ticket"]), "OPEN");
    EXPECT_TRUE(r.json()["ticket"]["HumanTicket"]["closedAt"].isNull());
}

TEST(TicketPatch, IfMatchListsStarAndWeakTags) {
    World w = it::tickets::make_world();
    const std::string id = it::tickets::create_ticket_id(w);
    const std::string tag = etag_of(it::get(ticket_path(id), w.shop));

    it::HttpResponse weak =
        patch(ticket_path(id), w.shop, R"({"name":"a"})", {{"If-Match", "W/" + tag}});
    ASSERT_TRUE(it::is_error(weak, 412, "precondition_failed", "The ticket has changed"));
    EXPECT_EQ(etag_of(weak), tag);
    expect_full_shape(weak.json()["ticket"]);
    EXPECT_TRUE(weak.json()["ticket"]["name"].isNull());

    it::HttpResponse listed =
        patch(ticket_path(id), w.shop, R"({"name":"b"})", {{"If-Match", "\"nope\", " + tag}});
    ASSERT_TRUE(it::is_success(listed, 200)) << listed.describe();
    const std::string tag2 = etag_of(listed);

    it::HttpResponse stale = patch(ticket_path(id), w.shop, R"({"name":"c"})", {{"If-Match", tag}});
    ASSERT_TRUE(it::is_error(stale, 412, "precondition_failed", "The ticket has changed"));
    EXPECT_EQ(etag_of(stale), tag2);
    EXPECT_EQ(stale.json()["ticket"]["name"].asString(), "b");

    EXPECT_TRUE(it::is_success(
        patch(ticket_path(id), w.shop, R"({"name":"d"})", {{"If-Match", "*"}}), 200));
}

TEST(TicketPatch, IfNoneMatchAnswers304) {
    World w = it::tickets::make_world();
    const std::string id = it::tickets::create_ticket_id(w);
    const std::string tag = etag_of(it::get(ticket_path(id), w.shop));
    it::Headers h = it::key_header(w.shop);
    h.emplace_back("If-None-Match", "\"other\", " + tag);
    it::HttpResponse r = it::http_any_body("GET", ticket_path(id), h);
    EXPECT_EQ(r.status, 304);
    EXPECT_EQ(r.header("ETag").value_or(""), tag);
    EXPECT_EQ(r.body, "");
    it::Headers stale = it::key_header(w.shop);
    stale.emplace_back("If-None-Match", "\"other\"");
    EXPECT_TRUE(it::is_success(it::http("GET", ticket_path(id), stale), 200));
}

// Issue 42 (E8, v1.3): the ticket's tag changes with its fetch shape's Customer, so a cache
// that revalidates never keeps the customer's old name or, after an erasure, its personal data.
TEST(TicketPatch, TheTicketsTagChangesWhenItsCustomerChangesOrIsErased) {
    World w = it::tickets::make_world();
    it::HttpResponse created = it::post_json(
        it::tickets::kTicketsPath, w.shop,
        it::object({{"customerId", Json::Int64(w.customer_id)}, {"Channel", "Mail"}}));
    ASSERT_TRUE(it::is_success(created, 201)) << created.describe();
    const std::string id = created.json()["ticket"]["id"].asString();
    auto still_fresh = [&](const std::string& tag) {
        it::Headers h = it::key_header(w.shop);
        h.emplace_back("If-None-Match", tag);
        return it::http_any_body("GET", ticket_path(id), h).status == 304;
    };
    const std::string tag = etag_of(it::get(ticket_path(id), w.shop));
    EXPECT_EQ(etag_of(created), tag);
    ASSERT_TRUE(still_fresh(tag));
    // The create, fetch and PATCH answers of one unchanged ticket keep carrying one tag.
    EXPECT_EQ(etag_of(patch(ticket_path(id), w.shop, "{}")), tag);

    ASSERT_TRUE(it::is_success(
        patch(customer_path(w.customer_id), w.shop, R"({"first_name":"Zoe"})"), 200));
    EXPECT_FALSE(still_fresh(tag));
    it::HttpResponse renamed = it::get(ticket_path(id), w.shop);
    EXPECT_EQ(renamed.json()["ticket"]["Customer"]["first_name"].asString(), "Zoe");
    const std::string after_rename = etag_of(renamed);
    EXPECT_NE(after_rename, tag);
    EXPECT_TRUE(still_fresh(after_rename));
    EXPECT_EQ(etag_of(patch(ticket_path(id), w.shop, "{}")), after_rename);

    const it::Shop eraser = it::with_erase_key(w.shop);
    ASSERT_EQ(it::http("DELETE", customer_path(w.customer_id), it::key_header(eraser)).status, 200);
    EXPECT_FALSE(still_fresh(after_rename));
    it::HttpResponse erased = it::get(ticket_path(id), w.shop);
    EXPECT_TRUE(erased.json()["ticket"]["Customer"]["first_name"].isNull()) << erased.describe();
    EXPECT_NE(etag_of(erased), after_rename);
}

// Issue 42: tags are bounded (100 a ticket, and in any tags member of a body), `tags` is
// deduplicated like addTags, blank tags are refused (no `tag=` could find them) and add/remove
// of long lists is linear.
TEST(TicketPatch, TagsAreBoundedDeduplicatedAndNeverBlank) {
    World w = it::tickets::make_world();
    const std::string id = it::tickets::create_ticket_id(w);
    auto tags_json = [](int from, int to) {
        Json::Value tags(Json::arrayValue);
        for (int i = from; i < to; ++i) {
            tags.append("t" + std::to_string(i));
        }
        return tags;
    };
    for (const char* member : {"tags", "addTags", "removeTags"}) {
        it::HttpResponse r =
            patch(ticket_path(id), w.shop, it::to_json(it::object({{member, tags_json(0, 101)}})));
        EXPECT_TRUE(
            it::is_error(r, 400, "validation_failed", std::string(member) + ": at most 100"))
            << r.describe();
    }
    it::HttpResponse full =
        patch(ticket_path(id), w.shop, it::to_json(it::object({{"tags", tags_json(0, 100)}})));
    ASSERT_TRUE(it::is_success(full, 200)) << full.describe();
    EXPECT_EQ(full.json()["ticket"]["tags"].size(), 100u);
    it::HttpResponse over =
        patch(ticket_path(id), w.shop, it::to_json(it::object({{"addTags", tags_json(99, 101)}})));
    EXPECT_TRUE(it::is_error(over, 422, "too_many_tags", "tags: at most 100")) << over.describe();
    EXPECT_EQ(patch(ticket_path(id), w.shop, "{}").json()["ticket"]["tags"].size(), 100u);
    // Adding one already there, and removing 100 absent ones, changes nothing.
    Json::Value mixed =
        it::object({{"addTags", tags_json(99, 100)}, {"removeTags", tags_json(200, 300)}});
    EXPECT_EQ(patch(ticket_path(id), w.shop, it::to_json(mixed)).json()["ticket"]["tags"].size(),
              100u);

    it::HttpResponse dup = patch(ticket_path(id), w.shop, R"({"tags":["b","a","b","a ","a"]})");
    ASSERT_TRUE(it::is_success(dup, 200)) << dup.describe();
    EXPECT_EQ(it::to_json(dup.json()["ticket"]["tags"]), R"(["b","a","a "])");
    for (const char* body : {R"({"tags":["x",""]})", R"({"addTags":["  "]})"}) {
        it::HttpResponse r = patch(ticket_path(id), w.shop, body);
        EXPECT_TRUE(it::is_error(r, 400, "validation_failed")) << r.describe();
        EXPECT_NE(r.json()["message"].asString().find("must not contain a blank tag"),
                  std::string::npos)
            << r.describe();
    }
    EXPECT_TRUE(it::is_success(patch(ticket_path(id), w.shop, R"({"removeTags":[""]})"), 200));

    // Creates: at most 100 tags (a v1 create keeps its duplicates, as v1 answers them).
    Json::Value create = it::object({{"customerId", Json::Int64(w.customer_id)},
                                     {"Channel", "Mail"},
                                     {"tags", tags_json(0, 101)}});
    it::HttpResponse too_many = it::post_json(it::tickets::kTicketsPath, w.shop, create);
    EXPECT_TRUE(it::is_error(too_many, 400, "validation_failed", "tags: at most 100"));
    create["tags"] = Json::Value(Json::arrayValue);
    create["tags"].append("v");
    create["tags"].append("v");
    EXPECT_EQ(it::to_json(it::tickets::create_ticket(w.shop, create)["tags"]), R"(["v","v"])");
    it::HttpResponse comment =
        it::post_json(it::tickets::comments_path(id), w.shop,
                      it::object({{"text", "hi"}, {"tags", tags_json(0, 101)}}));
    EXPECT_TRUE(it::is_error(comment, 400, "validation_failed", "tags: at most 100"));
}

TEST(TicketPatch, UnReadChatCountPastItsColumnSaysTheRange) {
    World w = it::tickets::make_world();
    const std::string id = it::tickets::create_ticket_id(w);
    it::HttpResponse r = patch(ticket_path(id), w.shop, R"({"unReadChatCount":2147483648})");
    EXPECT_TRUE(
        it::is_error(r, 400, "validation_failed", "unReadChatCount must be at most 2147483647"));
    r = patch(ticket_path(id), w.shop, R"({"unReadChatCount":-1})");
    EXPECT_TRUE(it::is_error(r, 400, "validation_failed",
                             "unReadChatCount must be a non-negative integer"));
    EXPECT_TRUE(
        it::is_success(patch(ticket_path(id), w.shop, R"({"unReadChatCount":2147483647})"), 200));
}

TEST(TicketPatch, TwoPatchesWithTheSameIfMatchExactlyOneWins) {
    World w = it::tickets::make_world();
    for (int round = 0; round < 5; ++round) {
        const std::string id = it::tickets::create_ticket_id(w);
        const std::string tag = etag_of(it::get(ticket_path(id), w.shop));
        auto send = [&](std::size_t host, const std::string& name) {
            it::Headers h = patch_headers(w.shop, {{"If-Match", tag}});
            return it::http_on(host % it::hosts().size(), "PATCH", ticket_path(id), h,
                               R"({"name":")" + name + "\"}");
        };
        auto a = std::async(std::launch::async, send, 0, "A");
        auto b = std::async(std::launch::async, send, 1, "B");
        it::HttpResponse ra = a.get();
        it::HttpResponse rb = b.get();
        const bool a_won = ra.status == 200;
        ASSERT_EQ(ra.status + rb.status, 200 + 412) << ra.describe() << "\n" << rb.describe();
        const it::HttpResponse& lost = a_won ? rb : ra;
        EXPECT_TRUE(it::is_error(lost, 412, "precondition_failed"));
        EXPECT_EQ(lost.json()["ticket"]["name"].asString(), a_won ? "A" : "B");
        EXPECT_EQ(it::tickets::fetch_ticket(w.shop, id)["name"].asString(), a_won ? "A" : "B");
    }
}

TEST(TicketPatch, ConcurrentPatchesWithoutIfMatchAllApplyInTurn) {
    World w = it::tickets::make_world();
    const std::string id = it::tickets::create_ticket_id(w);
    std::vector<std::future<it::HttpResponse>> sent;
    for (int i = 0; i < 6; ++i) {
        sent.push_back(std::async(std::launch::async, [&, i] {
            return patch(ticket_path(id), w.shop, R"({"addTags":["t)" + std::to_string(i) + "\"]}");
        }));
    }
    for (auto& f : sent) {
        EXPECT_TRUE(it::is_success(f.get(), 200));
    }
    // every addTags applied on the state the one before left: none lost
    EXPECT_EQ(it::get(ticket_path(id), w.shop).status, 200);
    it::HttpResponse r = patch(ticket_path(id), w.shop, "{}");
    EXPECT_EQ(r.json()["ticket"]["tags"].size(), 6u) << r.describe();
}

// Issue 42: 8 clients, each with its own customer, ticket and comment, then five PATCHes opening
// the HumanTicket, all at once. Opening one was an INSERT ... SELECT, which under MariaDB's
// default innodb_autoinc_lock_mode (1) takes the table's AUTO-INC lock; two of them deadlocked
// on it against each other's gap locks and InnoDB reported ER_AUTOINC_READ_FAILED (1467),
// answered 500 in 2 of 40 PATCHes. Every answer is 200 (it::http fails any 5xx), and each
// ticket ends OPEN with exactly one event for its opening: nothing lost, nothing twice.
TEST(TicketPatch, ConcurrentPatchesOpeningHumanTicketsAllSucceed) {
    constexpr int kClients = 8;
    constexpr int kRounds = 3;
    for (int round = 0; round < kRounds; ++round) {
        it::Shop shop = it::make_shop();
        std::vector<std::future<std::string>> clients;
        std::promise<void> go;
        std::shared_future<void> start = go.get_future().share();
        for (int c = 0; c < kClients; ++c) {
            clients.push_back(std::async(std::launch::async, [&shop, start] {
                it::tickets::World w{shop, Json::Value(), it::tickets::make_customer(shop)};
                const std::string id =
                    it::tickets::create_ticket_id(w, it::object({{"isOpenedTicket", false}}));
                it::tickets::add_comment(shop, id, it::object({{"text", "hello"}}));
                start.wait();
                for (int i = 0; i < 5; ++i) {
                    it::HttpResponse r =
                        patch(ticket_path(id), shop, R"({"HumanTicketStatus":"OPEN"})");
                    EXPECT_TRUE(it::is_success(r, 200)) << r.describe();
                }
                return id;
            }));
        }
        go.set_value();
        for (auto& client : clients) {
            const std::string id = client.get();
            EXPECT_EQ(status_of(it::tickets::fetch_ticket(shop, id)), "OPEN") << id;
        }
        it::Db db;
        EXPECT_EQ(db.count("SELECT COUNT(*) FROM human_tickets WHERE shop_id = ?",
                           {std::to_string(shop.id)}),
                  kClients);
        EXPECT_EQ(count_events(shop.id, kTicketUpdated), kClients);
    }
}

TEST(TicketPatch, EventsCarryTheChangesAndComeOnlyWithAChange) {
    World w = it::tickets::make_world();
    subscribe_to_updates(w.shop);
    const std::string id =
        it::tickets::create_ticket_id(w, it::object({{"tags", it::tickets::array({"a"})}}));
    it::HttpResponse r = patch(ticket_path(id), w.shop,
                               R"({"addTags":["b"],"HumanTicketStatus":"OPEN","name":"X"})");
    ASSERT_TRUE(it::is_success(r, 200)) << r.describe();
    EXPECT_EQ(count_events(w.shop.id, kTicketUpdated), 1);
    Json::Value event = last_event(w.shop.id, kTicketUpdated);
    EXPECT_EQ(event["data"], r.json()["ticket"]);
    EXPECT_EQ(
        event["changes"],
        it::parse_json(R"({"name":{"from":null,"to":"X"},"tags":{"from":["a"],"to":["a","b"]},)"
                       R"("HumanTicketStatus":{"from":null,"to":"OPEN"}})"))
        << it::to_json(event["changes"]);
    patch(ticket_path(id), w.shop, R"({"name":"X"})");
    patch(ticket_path(id), w.shop, R"({"HumanTicketStatus":"PENDING","name":5})");  // 400
    EXPECT_EQ(count_events(w.shop.id, kTicketUpdated), 1);
}

TEST(TicketPatch, ACustomersCommentReopensAPendingOrSolvedTicket) {
    World w = it::tickets::make_world();
    subscribe_to_updates(w.shop);
    for (const char* waiting : {"PENDING", "SOLVED"}) {
        const std::string id =
            it::tickets::create_ticket_id(w, it::object({{"isOpenedTicket", true}}));
        patch(ticket_path(id), w.shop, std::string(R"({"HumanTicketStatus":")") + waiting + "\"}");
        const std::string tag = etag_of(it::get(ticket_path(id), w.shop));
        const int64_t events = count_events(w.shop.id, kTicketUpdated);

        // the shop's own comment changes the ticket (lastMessage) but does not reopen it
        it::tickets::add_comment(w.shop, id, it::object({{"text", "We are on it"}}));
        it::HttpResponse after_shop = it::get(ticket_path(id), w.shop);
        EXPECT_EQ(status_of(after_shop.json()["ticket"]), waiting);
        EXPECT_NE(etag_of(after_shop), tag);

        it::HttpResponse c =
            it::post_json("/api/v1/tickets/" + id + "/comments", w.shop,
                          it::object({{"text", "Still broken"}, {"isFromShop", false}}));
        ASSERT_TRUE(it::is_success(c, 201)) << c.describe();
        // v1's comment answer, unchanged
        EXPECT_EQ(it::member_names(c.json()["comment"]),
                  (std::vector<std::string>{"Channel", "fromEmail", "id", "isFromShop", "subject",
                                            "tags", "text", "time", "toEmails"}));
        it::HttpResponse t = patch(ticket_path(id), w.shop, "{}");
        EXPECT_EQ(status_of(t.json()["ticket"]), "OPEN") << waiting;
        EXPECT_TRUE(t.json()["ticket"]["HumanTicket"]["closedAt"].isNull());
        EXPECT_EQ(t.json()["ticket"]["lastMessage"].asString(), "Still broken");
        EXPECT_EQ(count_events(w.shop.id, kTicketUpdated), events + 1) << waiting;
        Json::Value event = last_event(w.shop.id, kTicketUpdated);
        EXPECT_EQ(it::to_json(event["changes"]), std::string(R"({"HumanTicketStatus":{"from":")") +
                                                     waiting + R"(","to":"OPEN"}})");
        EXPECT_EQ(event["data"], t.json()["ticket"]);
    }
    // a CLOSED ticket stays closed, an OPEN one writes no event
    const std::string closed =
        it::tickets::create_ticket_id(w, it::object({{"isOpenedTicket", true}}));
    patch(ticket_path(closed), w.shop, R"({"HumanTicketStatus":"CLOSED"})");
    const int64_t events = count_events(w.shop.id, kTicketUpdated);
    it::tickets::add_comment(w.shop, closed,
                             it::object({{"text", "hello?"}, {"isFromShop", "false"}}));
    EXPECT_EQ(status_of(it::tickets::fetch_ticket(w.shop, closed)), "CLOSED");
    EXPECT_EQ(count_events(w.shop.id, kTicketUpdated), events);
}

// The reopened ticket's event is built from what the comment's own statements return (no read
// of the ticket of its own: db/comment_sql.h, SUPPORTCRM_REOPENED_TICKET_COLUMNS): every field
// of the full shape, set and unset, text that JSON escapes, as the ticket reads afterwards.
TEST(TicketPatch, AReopenedTicketsEventCarriesEveryFieldAsTheTicketReadsAfterwards) {
    World w = it::tickets::make_world();
    const int64_t agent = it::tickets::make_user(w.shop, it::unique_email("agent"));
    const std::string id = it::tickets::create_ticket_id(
        w, it::object({{"isOpenedTicket", true},
                       {"name", "Caf\u00e9 \"quoted\" \\ back\tslash \u2603 \U0001F600"},
                       {"threadId", "thread-\u00fc"},
                       {"emailUsed", "support@example.com"},
                       {"contact_reason", "refund\nsecond line"},
                       {"assigned_to", Json::Value(Json::Int64(agent))},
                       {"tags", it::parse_json(R"(["vip","\u00e4\"x"])")},
                       {"language_code", "de"},
                       {"via", "web"},
                       {"date", "2026-01-02T03:04:05.678Z"}}));
    patch(ticket_path(id), w.shop, R"({"HumanTicketStatus":"SOLVED"})");
    const int64_t events = count_events(w.shop.id, kTicketUpdated);
    it::tickets::add_comment(w.shop, id,
                             it::object({{"text", "back \"again\" \u00e9"},
                                         {"isFromShop", false},
                                         {"time", "2026-03-04T05:06:07.089Z"}}));
    ASSERT_EQ(count_events(w.shop.id, kTicketUpdated), events + 1);
    // The full shape, as an empty PATCH answers it (it changes nothing).
    const Json::Value after = patch(ticket_path(id), w.shop, "{}").json()["ticket"];
    EXPECT_EQ(status_of(after), "OPEN");
    EXPECT_EQ(after["lastMessageTime"].asString(), "2026-03-04T05:06:07.089Z");
    EXPECT_EQ(after["unReadChatCount"].asInt(), 1);
    Json::Value event = last_event(w.shop.id, kTicketUpdated);
    EXPECT_EQ(event["data"], after) << it::to_json(event["data"]) << "\n" << it::to_json(after);
    // An unset field stays null in both (a ticket with none of them set).
    const std::string bare =
        it::tickets::create_ticket_id(w, it::object({{"isOpenedTicket", true}}));
    patch(ticket_path(bare), w.shop, R"({"HumanTicketStatus":"PENDING"})");
    it::tickets::add_comment(w.shop, bare, it::object({{"text", "x"}, {"isFromShop", false}}));
    event = last_event(w.shop.id, kTicketUpdated);
    EXPECT_EQ(event["data"], patch(ticket_path(bare), w.shop, "{}").json()["ticket"]);
}

TEST(TicketPatch, ACustomersCommentReopensWithoutAnyWebhookToo) {
    World w = it::tickets::make_world();
    const std::string id = it::tickets::create_ticket_id(w, it::object({{"isOpenedTicket", true}}));
    patch(ticket_path(id), w.shop, R"({"HumanTicketStatus":"SOLVED"})");
    it::tickets::add_comment(w.shop, id, it::object({{"text", "again"}, {"isFromShop", false}}));
    Json::Value t = it::tickets::fetch_ticket(w.shop, id);
    EXPECT_EQ(status_of(t), "OPEN");
    EXPECT_TRUE(t["HumanTicket"]["closedAt"].isNull());
}

TEST(TicketPatch, IdempotencyKeyReplaysThePatchWithItsETag) {
    World w = it::tickets::make_world();
    const std::string id = it::tickets::create_ticket_id(w);
    const std::string key = "patch-" + it::unique_suffix();
    it::HttpResponse first =
        patch(ticket_path(id), w.shop, R"({"addTags":["once"]})", {{"Idempotency-Key", key}});
    ASSERT_TRUE(it::is_success(first, 200)) << first.describe();
    patch(ticket_path(id), w.shop, R"({"removeTags":["once"]})");
    it::HttpResponse again =
        patch(ticket_path(id), w.shop, R"({"addTags":["once"]})", {{"Idempotency-Key", key}});
    EXPECT_EQ(again.status, 200);
    EXPECT_EQ(again.body, first.body);
    EXPECT_EQ(again.header("Idempotency-Replayed").value_or(""), "true");
    EXPECT_EQ(again.header("ETag"), first.header("ETag"));
    EXPECT_EQ(it::to_json(patch(ticket_path(id), w.shop, "{}").json()["ticket"]["tags"]), "[]");
    EXPECT_TRUE(it::is_error(
        patch(ticket_path(id), w.shop, R"({"addTags":["x"]})", {{"Idempotency-Key", key}}), 422,
        "idempotency_key_reused"));
}

TEST(TicketPatch, AllowIsGetPatch) {
    World w = it::tickets::make_world();
    const std::string id = it::tickets::create_ticket_id(w);
    it::HttpResponse r = it::http("DELETE", ticket_path(id), it::key_header(w.shop));
    ASSERT_TRUE(it::is_error(r, 405, "method_not_allowed"));
    EXPECT_EQ(r.header("Allow").value_or(""), "GET, PATCH");
    r = it::http("PUT", customer_path(w.customer_id), it::key_header(w.shop));
    ASSERT_TRUE(it::is_error(r, 405, "method_not_allowed"));
    EXPECT_EQ(r.header("Allow").value_or(""), "GET, PATCH, DELETE");  // extensions.md §E9
}

// --- Customers -------------------------------------------------------------------------------

TEST(CustomerPatch, ChangesFieldsDerivesFullNameAndKeepsDuplicateDetectionExact) {
    World w = it::tickets::make_world();
    const std::string new_email = it::unique_email("moved");
    it::HttpResponse r = patch(customer_path(w.customer_id), w.shop,
                               R"({"email":"  )" + it::to_lower(new_email) +
                                   R"(  ","last_name":"Ray","storefront_id":77})");
    ASSERT_TRUE(it::is_success(r, 200)) << r.describe();
    const Json::Value& c = r.json()["customer"];
    EXPECT_EQ(c["last_name"].asString(), "Ray");
    EXPECT_EQ(c["full_name"].asString(), "Ann Ray");
    EXPECT_EQ(c["storefront_id"].asString(), "77");
    EXPECT_EQ(it::member_names(c), it::member_names(w.customer));  // the fetch shape
    const std::string tag = etag_of(r);
    EXPECT_EQ(etag_of(it::get(customer_path(w.customer_id), w.shop)), tag);

    // the new email finds this customer on create (any case); the old one no longer does
    it::HttpResponse dup = it::post_json("/api/v1/customers", w.shop,
                                         it::object({{"email", it::to_lower(new_email)}}));
    ASSERT_TRUE(it::is_success(dup, 200)) << dup.describe();
    EXPECT_EQ(dup.json()["customer"]["id"].asInt64(), w.customer_id);
    EXPECT_EQ(etag_of(dup), tag);
    it::HttpResponse fresh =
        it::post_json("/api/v1/customers", w.shop, it::object({{"email", w.customer["email"]}}));
    EXPECT_TRUE(it::is_success(fresh, 201)) << fresh.describe();
}

TEST(CustomerPatch, ErrorsAndOrder) {
    World w = it::tickets::make_world();
    const std::string path = customer_path(w.customer_id);
    EXPECT_TRUE(it::is_error(patch(path, w.shop, R"({"numberOfOrders":3})"), 400,
                             "validation_failed", "Unknown or read-only field: numberOfOrders"));
    EXPECT_TRUE(it::is_error(patch(path, w.shop, R"({"email":5})"), 400, "validation_failed",
                             "email must be a string"));
    EXPECT_TRUE(
        it::is_error(patch(path, w.shop, R"({"first_name":")" + std::string(256, 'f') + "\"}"), 400,
                     "validation_failed", "first_name is too long"));
    EXPECT_TRUE(it::is_error(patch(path, w.shop, R"({"email":null,"phone_number":""})"), 400,
                             "validation_failed", "email or phone_number is required"));
    EXPECT_TRUE(it::is_error(patch(customer_path(999999999999), w.shop, "{}"), 404,
                             "customer_not_found", "Customer not found"));
    EXPECT_TRUE(it::is_error(patch("/api/v1/customers/", w.shop, "{}"), 400, "validation_failed",
                             "customerId is required"));
    // a customer with only an email cannot lose it
    const int64_t only_email =
        it::create_customer(w.shop, it::object({{"email", it::unique_email()}}))["id"].asInt64();
    EXPECT_TRUE(it::is_error(patch(customer_path(only_email), w.shop, R"({"email":null})"), 400,
                             "validation_failed", "email or phone_number is required"));
    EXPECT_TRUE(it::is_error(patch(path, w.shop, "{}", {{"If-Match", "\"c0.0\""}}), 412,
                             "precondition_failed", "The customer has changed"));
}

TEST(CustomerPatch, AnotherCustomersEmailOrPhoneIs409WithItsId) {
    World w = it::tickets::make_world();
    const std::string email = it::unique_email("taken");
    const std::string phone = "+33 6 " + it::unique_suffix();
    const int64_t other =
        it::create_customer(w.shop, it::object({{"email", email}, {"phone_number", phone}}))["id"]
            .asInt64();
    const std::string tag = etag_of(it::get(customer_path(w.customer_id), w.shop));
    it::HttpResponse r = patch(customer_path(w.customer_id), w.shop,
                               R"({"email":")" + email + R"(","first_name":"Not written"})");
    ASSERT_TRUE(it::is_error(r, 409, "customer_exists", "Another customer has this email"));
    EXPECT_EQ(r.json()["customerId"].asInt64(), other);
    r = patch(customer_path(w.customer_id), w.shop, R"({"phone_number":" )" + phone + " \"}");
    ASSERT_TRUE(it::is_error(r, 409, "customer_exists", "Another customer has this phone_number"));
    EXPECT_EQ(r.json()["customerId"].asInt64(), other);
    EXPECT_EQ(etag_of(it::get(customer_path(w.customer_id), w.shop)), tag);
    // its own email in another case is no conflict
    r = patch(customer_path(other), w.shop, R"({"email":")" + email + "\"}");
    EXPECT_TRUE(it::is_success(r, 200)) << r.describe();
}

TEST(CustomerPatch, TwoPatchesRacingToTheSameEmailOneWinsOneIs409) {
    World w = it::tickets::make_world();
    for (int round = 0; round < 5; ++round) {
        const int64_t a = it::tickets::make_customer(w.shop);
        const int64_t b = it::tickets::make_customer(w.shop);
        const std::string email = it::unique_email("race");
        auto send = [&](std::size_t host, int64_t id) {
            return it::http_on(host % it::hosts().size(), "PATCH", customer_path(id),
                               patch_headers(w.shop), R"({"email":")" + email + "\"}");
        };
        auto fa = std::async(std::launch::async, send, 0, a);
        auto fb = std::async(std::launch::async, send, 1, b);
        it::HttpResponse ra = fa.get();
        it::HttpResponse rb = fb.get();
        ASSERT_EQ(ra.status + rb.status, 200 + 409) << ra.describe() << "\n" << rb.describe();
        const bool a_won = ra.status == 200;
        const it::HttpResponse& lost = a_won ? rb : ra;
        EXPECT_TRUE(it::is_error(lost, 409, "customer_exists", "Another customer has this email"));
        EXPECT_EQ(lost.json()["customerId"].asInt64(), a_won ? a : b);
        it::Db db;
        EXPECT_EQ(db.count("SELECT COUNT(*) FROM customers WHERE shop_id = ? AND email_key = ?",
                           {std::to_string(w.shop.id), email}),
                  1);
    }
}

TEST(CustomerPatch, TwoPatchesWithTheSameIfMatchExactlyOneWins) {
    World w = it::tickets::make_world();
    for (int round = 0; round < 5; ++round) {
        const int64_t id = it::tickets::make_customer(w.shop);
        const std::string tag = etag_of(it::get(customer_path(id), w.shop));
        auto send = [&](std::size_t host, const std::string& name) {
            return it::http_on(host % it::hosts().size(), "PATCH", customer_path(id),
                               patch_headers(w.shop, {{"If-Match", tag}}),
                               R"({"first_name":")" + name + "\"}");
        };
        auto fa = std::async(std::launch::async, send, 0, "A");
        auto fb = std::async(std::launch::async, send, 1, "B");
        it::HttpResponse ra = fa.get();
        it::HttpResponse rb = fb.get();
        ASSERT_EQ(ra.status + rb.status, 200 + 412) << ra.describe() << "\n" << rb.describe();
        const bool a_won = ra.status == 200;
        EXPECT_EQ((a_won ? rb : ra).json()["customer"]["first_name"].asString(), a_won ? "A" : "B");
    }
}

TEST(CustomerPatch, TheEventCarriesTheChangesAndComesOnlyWithAChange) {
    World w = it::tickets::make_world();
    subscribe_to_updates(w.shop);
    const std::string path = customer_path(w.customer_id);
    const std::string tag = etag_of(it::get(path, w.shop));
    patch(path, w.shop, R"({"first_name":"Ann"})");  // unchanged: no event
    EXPECT_EQ(count_events(w.shop.id, kCustomerUpdated), 0);
    it::HttpResponse r = patch(path, w.shop, R"({"first_name":"Bea"})");
    ASSERT_TRUE(it::is_success(r, 200));
    EXPECT_EQ(count_events(w.shop.id, kCustomerUpdated), 1);
    Json::Value event = last_event(w.shop.id, kCustomerUpdated);
    EXPECT_EQ(event["data"], r.json()["customer"]);
    EXPECT_EQ(
        it::to_json(event["changes"]),
        R"({"first_name":{"from":"Ann","to":"Bea"},"full_name":{"from":"Ann Lee","to":"Bea Lee"}})");
    EXPECT_EQ(etag_of(it::get(path, w.shop)), etag_of(r));
}

// 304 (Prism, in the OpenAPI check run, cannot relay an answer without a body: left out there).
TEST(CustomerPatch, IfNoneMatchAnswers304UntilTheTagChanges) {
    World w = it::tickets::make_world();
    const std::string path = customer_path(w.customer_id);
    const std::string tag = etag_of(it::get(path, w.shop));
    it::Headers h = it::key_header(w.shop);
    h.emplace_back("If-None-Match", "W/" + tag);
    it::HttpResponse not_modified = it::http_any_body("GET", path, h);
    EXPECT_EQ(not_modified.status, 304);
    EXPECT_EQ(not_modified.header("ETag").value_or(""), tag);
    EXPECT_EQ(not_modified.body, "");
    EXPECT_FALSE(not_modified.header("Content-Type"));
    ASSERT_TRUE(it::is_success(patch(path, w.shop, R"({"last_name":"Moved"})"), 200));
    EXPECT_TRUE(it::is_success(it::http("GET", path, h), 200));  // the tag changed
}
