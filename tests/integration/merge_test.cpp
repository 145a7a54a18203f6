// POST /api/v1/customers/{id}/merge (extensions.md §E9), through nginx to the pool and MariaDB:
// what moves and what the target takes, the source's email and phone finding the target, the
// 308 of every route naming a merged id (chains in one hop), the dry run, the bad inputs,
// opposite merges racing, the event and Idempotency-Key.
#include <signal.h>

#include <future>
#include <thread>

#include "harness.h"
#include "row_lock.h"
#include "tickets_fixtures.h"

namespace {

constexpr int kCustomerMerged = 64;

std::string customer_path(int64_t id) {
    return "/api/v1/customers/" + std::to_string(id);
}

std::string merge_path(int64_t id) {
    return customer_path(id) + "/merge";
}

it::HttpResponse merge(const it::Shop& shop, int64_t target, const std::string& body,
                       const it::Headers& extra = {}) {
    it::Headers h = it::json_headers(shop);
    h.insert(h.end(), extra.begin(), extra.end());
    return it::http("POST", merge_path(target), h, body);
}

std::string source_body(int64_t source, const std::string& more = "") {
    return R"({"sourceId":)" + std::to_string(source) + more + "}";
}

int64_t customer_with(const it::Shop& shop, const Json::Value& body) {
    return it::create_customer(shop, body)["id"].asInt64();
}

std::string ticket_of(const it::Shop& shop, int64_t customer) {
    return it::tickets::create_ticket(
               shop, it::object({{"customerId", customer}, {"Channel", "Mail"}}))["id"]
        .asString();
}

void survey_on(const it::Shop& shop, const std::string& ticket, int mark) {
    it::HttpResponse r = it::post_json("/api/v1/csat", shop,
                                       it::object({{"conversationId", ticket}, {"mark", mark}}));
    ASSERT_TRUE(it::is_success(r, 201)) << r.describe();
}

// The answer every route gives for a merged id.
::testing::AssertionResult is_merged_into(const it::HttpResponse& r, int64_t target) {
    ::testing::AssertionResult e = it::is_error(r, 308, "customer_merged", "Customer was merged");
    if (!e) {
        return e;
    }
    if (r.header("Location") != std::optional<std::string>(customer_path(target))) {
        return ::testing::AssertionFailure() << "Location: " << r.describe();
    }
    if (!it::is_json_integer(r.json()["mergedInto"]) ||
        r.json()["mergedInto"].asInt64() != target) {
        return ::testing::AssertionFailure() << "mergedInto: " << r.describe();
    }
    return ::testing::AssertionSuccess();
}

}  // namespace

TEST(CustomerMerge, MovesTicketsAndSurveysFillsNullFieldsAndAddsOrders) {
    it::Shop shop = it::make_shop();
    const std::string target_email = it::unique_email("target");
    const std::string source_email = it::unique_email("source");
    const std::string source_phone = "+33 6 " + it::unique_suffix();
    const int64_t target =
        customer_with(shop, it::object({{"email", target_email}, {"last_name", "Target"}}));
    const int64_t source = customer_with(shop, it::object({{"email", source_email},
                                                           {"phone_number", source_phone},
                                                           {"first_name", "Bea"},
                                                           {"last_name", "Source"},
                                                           {"storefront_id", "sf-1"}}));
    {
        it::Db db;
        db.execute("UPDATE customers SET number_of_orders = ? WHERE id = ?",
                   {"3", std::to_string(target)});
        db.execute("UPDATE customers SET number_of_orders = ? WHERE id = ?",
                   {"4", std::to_string(source)});
    }
    const std::string t1 = ticket_of(shop, source);
    const std::string t2 = ticket_of(shop, source);
    const std::string kept = ticket_of(shop, target);
    survey_on(shop, t1, 5);
    const std::string ticket_tag = it::get("/api/v1/tickets/" + t1, shop).header("ETag").value();

    it::HttpResponse r = merge(shop, target, source_body(source));
    ASSERT_TRUE(it::is_success(r, 200)) << r.describe();
    EXPECT_EQ(it::member_names(r.json()),
              (std::vector<std::string>{"customer", "moved", "success"}));
    const Json::Value& c = r.json()["customer"];
    EXPECT_EQ(c["id"].asInt64(), target);
    EXPECT_EQ(c["email"].asString(), target_email);         // the target's own value stays
    EXPECT_EQ(c["last_name"].asString(), "Target");         // the target's own value stays
    EXPECT_EQ(c["phone_number"].asString(), source_phone);  // null: the source's
    EXPECT_EQ(c["first_name"].asString(), "Bea");
    EXPECT_EQ(c["full_name"].asString(), "Target");  // derived at create: not null
    EXPECT_EQ(c["storefront_id"].asString(), "sf-1");
    EXPECT_EQ(c["numberOfOrders"].asInt64(), 7);
    EXPECT_EQ(r.json()["moved"], it::object({{"tickets", 2}, {"surveys", 1}}));
    EXPECT_EQ(it::fetch_customer(shop, target), c);
    EXPECT_EQ(r.header("ETag"), it::get(customer_path(target), shop).header("ETag"));

    for (const std::string& t : {t1, t2, kept}) {
        Json::Value ticket = it::tickets::fetch_ticket(shop, t);
        EXPECT_EQ(ticket["Customer"]["id"].asInt64(), target) << it::to_json(ticket);
    }
    // The ticket's fetch shape names another customer now: another version.
    EXPECT_NE(it::get("/api/v1/tickets/" + t1, shop).header("ETag").value(), ticket_tag);
    it::HttpResponse surveys = it::get("/api/v1/csat?customerId=" + std::to_string(target), shop);
    ASSERT_TRUE(it::is_success(surveys, 200)) << surveys.describe();
    it::Db db;
    EXPECT_EQ(
        db.count("SELECT COUNT(*) FROM surveys WHERE customer_id = ?", {std::to_string(target)}),
        1);
    EXPECT_EQ(db.count("SELECT COUNT(*) FROM conversations WHERE customer_id = ?",
                       {std::to_string(source)}),
              0);
}

TEST(CustomerMerge, TheSourcesEmailAndPhoneKeepFindingTheTarget) {
    it::Shop shop = it::make_shop();
    const std::string source_email = it::unique_email("Source");
    const std::string source_phone = "49-" + it::unique_suffix();
    const int64_t target =
        customer_with(shop, it::object({{"email", it::unique_email("t")},
                                        {"phone_number", "+1 " + it::unique_suffix()}}));
    const int64_t source =
        customer_with(shop, it::object({{"email", source_email}, {"phone_number", source_phone}}));
    ASSERT_TRUE(it::is_success(merge(shop, target, source_body(source)), 200));

    // Creates: 200 existing with the target, compared as duplicate detection compares.
    for (const Json::Value& body :
         {it::object({{"email", "  " + it::to_lower(source_email) + " "}}),
          it::object({{"phone_number", source_phone}})}) {
        it::HttpResponse r = it::post_json("/api/v1/customers", shop, body);
        ASSERT_TRUE(it::is_success(r, 200)) << r.describe();
        EXPECT_TRUE(r.json()["existing"].asBool());
        EXPECT_EQ(r.json()["customer"]["id"].asInt64(), target) << r.describe();
    }
    // E3's lookups list the target.
    for (const std::string& query : {"email=" + source_email, "phone_number=" + source_phone}) {
        it::HttpResponse r = it::get("/api/v1/customers?" + query, shop);
        ASSERT_TRUE(it::is_success(r, 200)) << r.describe();
        ASSERT_EQ(r.json()["customers"].size(), 1u) << r.describe();
        EXPECT_EQ(r.json()["customers"][0], it::fetch_customer(shop, target));
    }
    // The unfiltered list no longer shows the merged customer.
    it::HttpResponse all = it::get("/api/v1/customers", shop);
    ASSERT_TRUE(it::is_success(all, 200)) << all.describe();
    ASSERT_EQ(all.json()["customers"].size(), 1u) << all.describe();
    EXPECT_EQ(all.json()["customers"][0]["id"].asInt64(), target);
}

TEST(CustomerMerge, TheTargetTakesTheSourcesEmailWhenItHadNone) {
    it::Shop shop = it::make_shop();
    const std::string source_email = it::unique_email("s");
    const int64_t target = customer_with(shop, it::object({{"phone_number", it::unique_suffix()}}));
    const int64_t source = customer_with(shop, it::object({{"email", source_email}}));
    it::HttpResponse r = merge(shop, target, source_body(source));
    ASSERT_TRUE(it::is_success(r, 200)) << r.describe();
    EXPECT_EQ(r.json()["customer"]["email"].asString(), source_email);
    it::HttpResponse again =
        it::post_json("/api/v1/customers", shop, it::object({{"email", source_email}}));
    ASSERT_TRUE(it::is_success(again, 200)) << again.describe();
    EXPECT_EQ(again.json()["customer"]["id"].asInt64(), target);
}

TEST(CustomerMerge, EveryRouteNamingAMergedIdAnswers308AndChainsResolveInOneHop) {
    it::Shop shop = it::make_shop();
    const int64_t a = it::tickets::make_customer(shop);
    const int64_t b = it::tickets::make_customer(shop);
    const int64_t c = it::tickets::make_customer(shop);
    ASSERT_TRUE(it::is_success(merge(shop, b, source_body(a)), 200));
    EXPECT_TRUE(is_merged_into(it::get(customer_path(a), shop), b));
    ASSERT_TRUE(it::is_success(merge(shop, c, source_body(b)), 200));

    EXPECT_TRUE(is_merged_into(it::get(customer_path(a), shop), c));
    EXPECT_TRUE(is_merged_into(it::get(customer_path(b), shop), c));
    EXPECT_TRUE(is_merged_into(
        it::http("PATCH", customer_path(a), it::json_headers(shop), R"({"first_name":"X"})"), c));
    EXPECT_TRUE(is_merged_into(merge(shop, a, source_body(it::tickets::make_customer(shop))), c));
    EXPECT_TRUE(it::is_success(it::get(customer_path(c), shop), 200));
    // A merged id as the source is 404 (the 308 is for the id in the path).
    EXPECT_TRUE(it::is_error(merge(shop, c, source_body(a)), 404, "customer_not_found",
                             "Customer not found"));
}

TEST(CustomerMerge, ADryRunAnswersTheSameAndChangesNothing) {
    it::Shop shop = it::make_shop();
    const int64_t target = customer_with(shop, it::object({{"email", it::unique_email("t")}}));
    const int64_t source =
        customer_with(shop, it::object({{"email", it::unique_email("s")}, {"first_name", "Dry"}}));
    const std::string t = ticket_of(shop, source);
    survey_on(shop, t, 4);
    const Json::Value before_target = it::fetch_customer(shop, target);

    it::HttpResponse dry = merge(shop, target, source_body(source, R"(,"dryRun":true)"));
    ASSERT_TRUE(it::is_success(dry, 200)) << dry.describe();
    EXPECT_EQ(it::member_names(dry.json()),
              (std::vector<std::string>{"customer", "dryRun", "moved", "success"}));
    EXPECT_TRUE(dry.json()["dryRun"].asBool());
    EXPECT_EQ(dry.json()["moved"], it::object({{"tickets", 1}, {"surveys", 1}}));
    EXPECT_EQ(dry.json()["customer"]["first_name"].asString(), "Dry");

    EXPECT_EQ(it::fetch_customer(shop, target), before_target);
    EXPECT_TRUE(it::is_success(it::get(customer_path(source), shop), 200));
    EXPECT_EQ(it::tickets::fetch_ticket(shop, t)["Customer"]["id"].asInt64(), source);

    it::HttpResponse real = merge(shop, target, source_body(source, R"(,"dryRun":false)"));
    ASSERT_TRUE(it::is_success(real, 200)) << real.describe();
    EXPECT_EQ(real.json()["customer"], dry.json()["customer"]);
    EXPECT_EQ(real.json()["moved"], dry.json()["moved"]);
    EXPECT_FALSE(real.json().isMember("dryRun"));
}

TEST(CustomerMerge, BadInputGetsTheContractsAnswer) {
    it::Shop shop = it::make_shop();
    it::Shop other = it::make_shop();
    const int64_t target = it::tickets::make_customer(shop);
    const int64_t source = it::tickets::make_customer(shop);
    const int64_t foreign = it::tickets::make_customer(other);
    const std::string missing = std::to_string(source + 1000000);

    struct Case {
        std::string body;
        long status;
        std::string code, message;
    };
    const std::vector<Case> cases = {
        {"{}", 400, "validation_failed", "sourceId is required"},
        {R"({"sourceId":null})", 400, "validation_failed", "sourceId is required"},
        {R"({"sourceId":"12a"})", 400, "validation_failed", "sourceId must be an integer"},
        {R"({"sourceId":1.5})", 400, "validation_failed", "sourceId must be an integer"},
        {R"({"sourceId":true})", 400, "validation_failed", "sourceId must be an integer"},
        {source_body(source, R"(,"dryRun":"true")"), 400, "validation_failed",
         "dryRun must be a boolean"},
        {source_body(source, R"(,"dryRun":1)"), 400, "validation_failed",
         "dryRun must be a boolean"},
        {source_body(target), 400, "validation_failed", "Cannot merge a customer into itself"},
        {R"({"sourceId":")" + std::to_string(target) + R"("})", 400, "validation_failed",
         "Cannot merge a customer into itself"},
        {"[]", 400, "invalid_body", "Request body must be a JSON object"},
        {R"({"sourceId":)" + missing + "}", 404, "customer_not_found", "Customer not found"},
        {source_body(foreign), 404, "customer_not_found", "Customer not found"},
        {R"({"sourceId":"99999999999999999999999"})", 404, "customer_not_found",
         "Customer not found"},
    };
    for (const Case& k : cases) {
        EXPECT_TRUE(it::is_error(merge(shop, target, k.body), k.status, k.code, k.message))
            << k.body;
    }
    // The path id: unknown, another shop's, not digits; the self-merge is a field check, before
    // existence.
    EXPECT_TRUE(it::is_error(merge(shop, std::stoll(missing), source_body(source)), 404,
                             "customer_not_found", "Customer not found"));
    EXPECT_TRUE(it::is_error(merge(shop, foreign, source_body(source)), 404, "customer_not_found",
                             "Customer not found"));
    EXPECT_TRUE(it::is_error(merge(shop, std::stoll(missing), source_body(std::stoll(missing))),
                             400, "validation_failed", "Cannot merge a customer into itself"));
    EXPECT_TRUE(it::is_error(
        it::http("POST", "/api/v1/customers/x1/merge", it::json_headers(shop), source_body(source)),
        400, "invalid_id", "Invalid customerId"));
    EXPECT_TRUE(it::is_error(it::http("GET", merge_path(target), it::key_header(shop)), 405,
                             "method_not_allowed", "Method not allowed"));
    // Nothing changed.
    EXPECT_TRUE(it::is_success(it::get(customer_path(source), shop), 200));
    EXPECT_TRUE(it::is_success(it::get(customer_path(foreign), other), 200));
}

TEST(CustomerMerge, OppositeMergesRacingExactlyOneSucceedsAndNoCustomerIsLost) {
    it::Shop shop = it::make_shop();
    constexpr int kPairs = 12;
    for (int i = 0; i < kPairs; ++i) {
        const int64_t a = it::tickets::make_customer(shop);
        const int64_t b = it::tickets::make_customer(shop);
        const std::string ta = ticket_of(shop, a);
        const std::string tb = ticket_of(shop, b);
        auto ab = std::async(std::launch::async, [&] { return merge(shop, b, source_body(a)); });
        auto ba = std::async(std::launch::async, [&] { return merge(shop, a, source_body(b)); });
        it::HttpResponse r1 = ab.get();
        it::HttpResponse r2 = ba.get();
        const bool first_won = r1.status == 200;
        ASSERT_NE(first_won, r2.status == 200) << r1.describe() << "\n" << r2.describe();
        const it::HttpResponse& loser = first_won ? r2 : r1;
        EXPECT_TRUE(loser.status == 308 || loser.status == 404) << loser.describe();
        const int64_t winner = first_won ? b : a;
        const int64_t merged = first_won ? a : b;
        EXPECT_TRUE(it::is_success(it::get(customer_path(winner), shop), 200));
        EXPECT_TRUE(is_merged_into(it::get(customer_path(merged), shop), winner));
        for (const std::string& t : {ta, tb}) {
            EXPECT_EQ(it::tickets::fetch_ticket(shop, t)["Customer"]["id"].asInt64(), winner);
        }
    }
}

TEST(CustomerMerge, WritesTheMergedEventWithTheMergedIdBesideTheData) {
    it::Shop shop = it::make_shop();
    it::admin({"webhook", "create", "--shop", shop.domain, "--url", "http://127.0.0.1:9/e9",
               "--events", "customer.merged"});
    const int64_t target = it::tickets::make_customer(shop);
    const int64_t source = it::tickets::make_customer(shop);
    it::HttpResponse dry = merge(shop, target, source_body(source, R"(,"dryRun":true)"));
    ASSERT_TRUE(it::is_success(dry, 200)) << dry.describe();
    it::Db db;
    const std::string shop_id = std::to_string(shop.id);
    const std::string type = std::to_string(kCustomerMerged);
    EXPECT_EQ(db.count("SELECT COUNT(*) FROM webhook_events WHERE shop_id = ? AND type = ?",
                       {shop_id, type}),
              0);  // a dry run writes nothing

    it::HttpResponse r = merge(shop, target, source_body(source));
    ASSERT_TRUE(it::is_success(r, 200)) << r.describe();
    std::optional<std::string> event = db.scalar(
        "SELECT CONCAT('{\"data\":', payload, ',\"mergedId\":', changes, '}') FROM "
        "webhook_events WHERE shop_id = ? AND type = ?",
        {shop_id, type});
    ASSERT_TRUE(event);
    Json::Value e = it::parse_json(*event);
    EXPECT_EQ(e["data"], r.json()["customer"]);
    EXPECT_EQ(e["mergedId"].asInt64(), source);
}

TEST(CustomerMerge, AnIdempotencyKeyReplaysTheAnswer) {
    it::Shop shop = it::make_shop();
    const int64_t target = it::tickets::make_customer(shop);
    const int64_t source = it::tickets::make_customer(shop);
    const it::Headers key = {{"Idempotency-Key", "merge-" + it::unique_suffix()}};
    it::HttpResponse first = merge(shop, target, source_body(source), key);
    ASSERT_TRUE(it::is_success(first, 200)) << first.describe();
    it::HttpResponse again = merge(shop, target, source_body(source), key);
    ASSERT_TRUE(it::is_success(again, 200)) << again.describe();
    EXPECT_EQ(again.header("Idempotency-Replayed"), std::optional<std::string>("true"));
    EXPECT_EQ(again.body, first.body);
    // Without the key the same request is processed afresh: the source is merged now.
    EXPECT_TRUE(it::is_error(merge(shop, target, source_body(source)), 404, "customer_not_found",
                             "Customer not found"));
}

TEST(CustomerMerge, TheTargetMayTakeAMergedCustomersEmailAsItsOwn) {
    it::Shop shop = it::make_shop();
    const std::string source_email = it::unique_email("s");
    const int64_t target = customer_with(shop, it::object({{"email", it::unique_email("t")}}));
    const int64_t source = customer_with(shop, it::object({{"email", source_email}}));
    ASSERT_TRUE(it::is_success(merge(shop, target, source_body(source)), 200));
    it::HttpResponse r = it::http("PATCH", customer_path(target), it::json_headers(shop),
                                  it::to_json(it::object({{"email", source_email}})));
    ASSERT_TRUE(it::is_success(r, 200)) << r.describe();
    EXPECT_EQ(r.json()["customer"]["email"].asString(), source_email);
    it::HttpResponse again =
        it::post_json("/api/v1/customers", shop, it::object({{"email", source_email}}));
    ASSERT_TRUE(it::is_success(again, 200)) << again.describe();
    EXPECT_EQ(again.json()["customer"]["id"].asInt64(), target);
    // Another customer still cannot take it.
    const int64_t other = it::tickets::make_customer(shop);
    EXPECT_TRUE(it::is_error(it::http("PATCH", customer_path(other), it::json_headers(shop),
                                      it::to_json(it::object({{"email", source_email}}))),
                             409, "customer_exists", "Another customer has this email"));
}

TEST(CustomerMerge, AMergeCutShortByAKilledWorkerLeavesBothCustomersWhole) {
    it::OneHostOnly one_host;  // the worker to kill is on the first host
    it::Shop shop = it::make_shop();
    const int64_t target = customer_with(shop, it::object({{"email", it::unique_email("t")}}));
    const int64_t source =
        customer_with(shop, it::object({{"email", it::unique_email("s")}, {"first_name", "Kill"}}));
    const std::string ticket = ticket_of(shop, source);
    survey_on(shop, ticket, 3);
    const Json::Value target_before = it::fetch_customer(shop, target);
    {
        // The merge's last statement (the surveys) waits for this lock, after the customers
        // and the tickets were written in its transaction.
        it::RowLock lock("SELECT id FROM surveys WHERE customer_id = " + std::to_string(source) +
                         " FOR UPDATE");
        auto answer = std::async(std::launch::async, [&] {
            return it::http_any_body("POST", merge_path(target), it::json_headers(shop),
                                     source_body(source));
        });
        ASSERT_TRUE(lock.someone_waits(std::chrono::seconds(10)));
        const long pid =
            it::busy_worker("/api/v1/customers/{customerId}/merge", std::chrono::seconds(10));
        ASSERT_GT(pid, 0);
        ASSERT_EQ(::kill(static_cast<pid_t>(pid), SIGKILL), 0);
        it::HttpResponse cut = answer.get();
        EXPECT_GE(cut.status, 500) << cut.describe();
    }
    // Nothing of the merge happened.
    EXPECT_EQ(it::fetch_customer(shop, target), target_before);
    EXPECT_TRUE(it::is_success(it::get(customer_path(source), shop), 200));
    EXPECT_EQ(it::tickets::fetch_ticket(shop, ticket)["Customer"]["id"].asInt64(), source);
    // Done again, it happens once, whole.
    it::HttpResponse r = merge(shop, target, source_body(source));
    ASSERT_TRUE(it::is_success(r, 200)) << r.describe();
    EXPECT_EQ(r.json()["moved"], it::object({{"tickets", 1}, {"surveys", 1}}));
    EXPECT_EQ(r.json()["customer"]["first_name"].asString(), "Kill");
}

// Apart from the table above: Prism answers an unparsable body itself and re-serializes a bare
// JSON string (scripts/openapi).
TEST(CustomerMerge, ABodyThatDoesNotParseOrIsAStringIs400) {
    it::Shop shop = it::make_shop();
    const int64_t target = it::tickets::make_customer(shop);
    EXPECT_TRUE(it::is_error(merge(shop, target, "{"), 400, "invalid_json", "Invalid JSON body"));
    EXPECT_TRUE(it::is_error(merge(shop, target, R"("x")"), 400, "invalid_body",
                             "Request body must be a JSON object"));
}

TEST(CustomerMerge, AMergedCustomerTakesNoNewTicketEvenWhenTheyRace) {
    it::Shop shop = it::make_shop();
    const int64_t target = it::tickets::make_customer(shop);
    const int64_t source = it::tickets::make_customer(shop);
    ASSERT_TRUE(it::is_success(merge(shop, target, source_body(source)), 200));
    EXPECT_TRUE(
        it::is_error(it::post_json("/api/v1/tickets", shop,
                                   it::object({{"customerId", source}, {"Channel", "Mail"}})),
                     404, "customer_not_found", "Customer not found"));

    // A ticket created while its customer is merged lands on the target (created first, then
    // moved) or is refused (404): never on the merged customer. Both on one host: the ticket's
    // shared lock on the customer's row orders it against the merge on one server, but a Galera
    // cluster does not certify that read, so across two nodes the race is still open (issue 28's
    // note; docs/scale-out.md).
    for (int i = 0; i < 10; ++i) {
        const int64_t into = it::tickets::make_customer(shop);
        const int64_t from = it::tickets::make_customer(shop);
        auto ticket = std::async(std::launch::async, [&] {
            return it::http_on(
                0, "POST", "/api/v1/tickets", it::json_headers(shop),
                it::to_json(it::object({{"customerId", from}, {"Channel", "Mail"}})));
        });
        auto merged = std::async(std::launch::async, [&] {
            return it::http_on(0, "POST", merge_path(into), it::json_headers(shop),
                               source_body(from));
        });
        it::HttpResponse t = ticket.get();
        ASSERT_TRUE(it::is_success(merged.get(), 200));
        if (t.status == 201) {
            EXPECT_EQ(it::tickets::fetch_ticket(
                          shop, t.json()["ticket"]["id"].asString())["Customer"]["id"]
                          .asInt64(),
                      into);
        } else {
            EXPECT_TRUE(it::is_error(t, 404, "customer_not_found", "Customer not found"));
        }
        it::Db db;
        EXPECT_EQ(db.count("SELECT COUNT(*) FROM conversations WHERE customer_id = ?",
                           {std::to_string(from)}),
                  0);
    }
}
