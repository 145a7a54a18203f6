// GET /api/v1/customers/{id}/export (extensions.md §E9), through nginx to the pool and MariaDB:
// the ndjson lines in E9's order with the shapes of the API's own answers, the merged-in
// history, chunk boundaries of comments and surveys, and the answers for merged, unknown and
// other shops' ids.
#include "harness.h"
#include "tickets_fixtures.h"

namespace {

std::string export_path(int64_t id) {
    return "/api/v1/customers/" + std::to_string(id) + "/export";
}

// Not JSON (ndjson) unless it is an error: no JSON check of a 200's body, but the OpenAPI
// proxy's verdict when it runs (scripts/openapi check).
it::HttpResponse get_export(const it::Shop& shop, int64_t id) {
    it::HttpResponse r = it::http_any_body("GET", export_path(id), it::key_header(shop));
    if (r.status != 200) {
        it::expect_json_body(r);
    }
    it::expect_described(r);
    return r;
}

struct Line {
    std::string type;
    Json::Value data;
};

// Every line parsed: {"type":…,"data":…}, each ending in \n.
std::vector<Line> lines_of(const it::HttpResponse& r) {
    std::vector<Line> out;
    EXPECT_TRUE(r.body.empty() || r.body.back() == '\n') << "last line unterminated";
    size_t from = 0;
    while (from < r.body.size()) {
        size_t end = r.body.find('\n', from);
        if (end == std::string::npos) {
            end = r.body.size();
        }
        Json::Value v = it::parse_json(std::string_view(r.body).substr(from, end - from));
        EXPECT_EQ(it::member_names(v), (std::vector<std::string>{"data", "type"}))
            << it::to_json(v);
        out.push_back({v["type"].asString(), v["data"]});
        from = end + 1;
    }
    return out;
}

std::string types_of(const std::vector<Line>& lines) {
    std::string s;
    for (const Line& l : lines) {
        s += l.type.substr(0, 1);  // c(ustomer) t(icket) c(omment) s(urvey)
    }
    return s;
}

std::string ticket_of(const it::Shop& shop, int64_t customer) {
    return it::tickets::create_ticket(
               shop, it::object({{"customerId", customer}, {"Channel", "Mail"}}))["id"]
        .asString();
}

Json::Value survey_on(const it::Shop& shop, const std::string& ticket, const std::string& at) {
    it::HttpResponse r =
        it::post_json("/api/v1/csat", shop,
                      it::object({{"conversationId", ticket}, {"mark", 4}, {"createdAt", at}}));
    EXPECT_TRUE(it::is_success(r, 201)) << r.describe();
    return r.json()["survey"];
}

// The comments of a ticket as the list route answers them, each with "ticketId".
std::vector<Json::Value> comments_with_ticket(const it::Shop& shop, const std::string& ticket) {
    std::vector<Json::Value> out;
    const Json::Value body = it::tickets::list_comments(shop, ticket);
    for (const Json::Value& c : body["comments"]) {
        Json::Value with = c;
        with["ticketId"] = ticket;
        out.push_back(with);
    }
    return out;
}

// The ticket's full shape (extensions.md §E8): what an empty PATCH answers.
Json::Value full_ticket(const it::Shop& shop, const std::string& id) {
    it::HttpResponse r =
        it::http("PATCH", "/api/v1/tickets/" + id, it::json_headers(shop), std::string("{}"));
    EXPECT_TRUE(it::is_success(r, 200)) << r.describe();
    return r.json()["ticket"];
}

}  // namespace

TEST(CustomerExport, StreamsTheCustomerItsTicketsWithCommentsAndItsSurveysInOrder) {
    it::tickets::World w = it::tickets::make_world();
    const std::string t1 = it::tickets::create_ticket_id(w);
    const std::string t2 = it::tickets::create_ticket_id(w);
    it::tickets::add_comment(w.shop, t1, it::object({{"text", "first"}, {"isFromShop", false}}));
    it::tickets::add_comment(w.shop, t1, it::object({{"text", "reply"}}));
    it::tickets::add_comment(w.shop, t2, it::object({{"text", "other"}, {"isFromShop", false}}));
    const Json::Value late = survey_on(w.shop, t2, "2026-03-02T10:00:00.000Z");
    const Json::Value early = survey_on(w.shop, t1, "2026-03-01T10:00:00.000Z");

    it::HttpResponse r = get_export(w.shop, w.customer_id);
    ASSERT_EQ(r.status, 200) << r.describe();
    EXPECT_EQ(r.header("Content-Type"), std::optional<std::string>("application/x-ndjson"));
    std::vector<Line> lines = lines_of(r);
    ASSERT_EQ(types_of(lines), "ctcctcss");
    EXPECT_EQ(lines[0].data, it::fetch_customer(w.shop, w.customer_id));
    EXPECT_EQ(lines[1].data, full_ticket(w.shop, t1));
    std::vector<Json::Value> c1 = comments_with_ticket(w.shop, t1);
    ASSERT_EQ(c1.size(), 2u);
    EXPECT_EQ(lines[2].data, c1[0]);
    EXPECT_EQ(lines[3].data, c1[1]);
    EXPECT_EQ(lines[4].data, full_ticket(w.shop, t2));
    EXPECT_EQ(lines[5].data, comments_with_ticket(w.shop, t2)[0]);
    EXPECT_EQ(lines[6].data, early);
    EXPECT_EQ(lines[7].data, late);
}

TEST(CustomerExport, ACustomerWithoutHistoryIsOneLine) {
    it::Shop shop = it::make_shop();
    const int64_t id = it::tickets::make_customer(shop);
    it::HttpResponse r = get_export(shop, id);
    ASSERT_EQ(r.status, 200) << r.describe();
    std::vector<Line> lines = lines_of(r);
    ASSERT_EQ(types_of(lines), "c");
    EXPECT_EQ(lines[0].data, it::fetch_customer(shop, id));
}

TEST(CustomerExport, IncludesTheMergedInHistoryAndAnswers308ForTheMergedId) {
    it::Shop shop = it::make_shop();
    const int64_t target = it::tickets::make_customer(shop);
    const int64_t source = it::tickets::make_customer(shop);
    const std::string own = ticket_of(shop, target);
    const std::string moved = ticket_of(shop, source);
    it::tickets::add_comment(shop, moved, it::object({{"text", "from the duplicate"}}));
    it::HttpResponse m = it::post_json("/api/v1/customers/" + std::to_string(target) + "/merge",
                                       shop, it::object({{"sourceId", source}}));
    ASSERT_TRUE(it::is_success(m, 200)) << m.describe();

    std::vector<Line> lines = lines_of(get_export(shop, target));
    ASSERT_EQ(types_of(lines), "cttc");
    EXPECT_EQ(lines[1].data["id"].asString(), own);
    EXPECT_EQ(lines[2].data["id"].asString(), moved);
    EXPECT_EQ(lines[3].data["text"].asString(), "from the duplicate");

    it::HttpResponse r = get_export(shop, source);
    EXPECT_TRUE(it::is_error(r, 308, "customer_merged", "Customer was merged")) << r.describe();
    EXPECT_EQ(r.header("Location"),
              std::optional<std::string>("/api/v1/customers/" + std::to_string(target)));
}

TEST(CustomerExport, CommentsAndSurveysAcrossChunkBoundariesComeOnceEachInOrder) {
    it::Shop shop = it::make_shop();
    const int64_t id = it::tickets::make_customer(shop);
    const std::string ticket = ticket_of(shop, id);
    constexpr int kComments = 205;  // the export reads 200 at a time
    constexpr int kSurveys = 203;
    it::Db db;
    // Planted rows: one second apart, so v1's order (time, then id) is the insertion order.
    db.execute(
        "INSERT INTO messages (conversation_id, text, time, channel, is_from_shop, to_emails, "
        "tags, created_at) SELECT ?, CONCAT('c', seq), '2026-01-01' + INTERVAL seq SECOND, "
        "'Mail', 0, '[]', '[]', UTC_TIMESTAMP(3) FROM seq_1_to_205",
        {ticket});
    db.execute(
        "INSERT INTO surveys (shop_id, conversation_id, customer_id, mark, graph_nodes, node_ids, "
        "channel, created_at) SELECT ?, ?, ?, 1 + seq % 5, '{}', '[]', 'Mail', "
        "'2026-02-01' + INTERVAL (seq DIV 2) SECOND FROM seq_1_to_203",
        {std::to_string(shop.id), ticket, std::to_string(id)});

    std::vector<Line> lines = lines_of(get_export(shop, id));
    ASSERT_EQ(lines.size(), 2u + kComments + kSurveys);
    EXPECT_EQ(types_of(lines), "ct" + std::string(kComments, 'c') + std::string(kSurveys, 's'));
    for (int i = 0; i < kComments; ++i) {
        EXPECT_EQ(lines[2 + i].data["text"].asString(), "c" + std::to_string(i + 1));
        EXPECT_EQ(lines[2 + i].data["ticketId"].asString(), ticket);
    }
    // createdAt ascending, then id (two surveys share each second).
    for (int i = 1; i < kSurveys; ++i) {
        const Json::Value& a = lines[2 + kComments + i - 1].data;
        const Json::Value& b = lines[2 + kComments + i].data;
        EXPECT_TRUE(a["createdAt"].asString() < b["createdAt"].asString() ||
                    (a["createdAt"] == b["createdAt"] && a["id"].asInt64() < b["id"].asInt64()))
            << it::to_json(a) << " then " << it::to_json(b);
    }
}

TEST(CustomerExport, UnknownAndOtherShopsIdsAre404AndABadIdIs400) {
    it::Shop shop = it::make_shop();
    it::Shop other = it::make_shop();
    const int64_t foreign = it::tickets::make_customer(other);
    EXPECT_TRUE(
        it::is_error(get_export(shop, foreign), 404, "customer_not_found", "Customer not found"));
    EXPECT_TRUE(it::is_error(get_export(shop, foreign + 1000000), 404, "customer_not_found",
                             "Customer not found"));
    EXPECT_TRUE(it::is_error(it::http("GET", "/api/v1/customers/x/export", it::key_header(shop)),
                             400, "invalid_id", "Invalid customerId"));
    EXPECT_TRUE(it::is_error(it::http("GET", export_path(foreign)), 401, "missing_api_key",
                             "API key is required"));
    EXPECT_TRUE(it::is_error(it::http("POST", export_path(foreign), it::json_headers(other), "{}"),
                             405, "method_not_allowed", "Method not allowed"));
}
