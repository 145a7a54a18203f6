// DELETE /api/v1/customers/{id} (extensions.md §E9, erasure), through nginx to the pool and
// MariaDB: every field rule on the customer, its tickets, comments and surveys, 410 afterwards,
// CSAT statistics unchanged, the totals (the same on a repeat and after a DELETE cut short), a
// customer whose comments take several batches, one whose erasure takes several DELETEs (202
// until the last), stored Idempotency-Key answers, the erase scope (E12) and the answers for
// bad, unknown, other shops' and merged ids.
#include <signal.h>
#include <sys/types.h>

#include <cctype>
#include <future>
#include <iostream>

#include "db/erasure_plan.h"
#include "erasure_fixtures.h"
#include "harness.h"
#include "row_lock.h"
#include "tickets_fixtures.h"

namespace {

std::string customer_path(int64_t id) {
    return "/api/v1/customers/" + std::to_string(id);
}

it::HttpResponse erase(const it::Shop& shop, int64_t id) {
    it::HttpResponse r = it::http("DELETE", customer_path(id), it::key_header(shop));
    it::expect_described(r);
    return r;
}

Json::Value totals(int64_t id, int tickets, int comments, int surveys) {
    return it::object({{"customerId", Json::Value(Json::Int64(id))},
                       {"tickets", tickets},
                       {"comments", comments},
                       {"surveys", surveys}});
}

// An erasure's answer: 200, its totals, "complete": true when it finished; 202, the same totals,
// "complete": false and Retry-After: 1 when the DELETE ran out of its budget with work left.
void expect_erasure_answer(const it::HttpResponse& r, const Json::Value& expected, bool complete) {
    ASSERT_TRUE(it::is_success(r, complete ? 200 : 202)) << r.describe();
    Json::Value body = r.json();
    EXPECT_EQ(it::member_names(body), (std::vector<std::string>{"complete", "erased", "success"}));
    EXPECT_EQ(body["erased"], expected) << r.describe();
    EXPECT_EQ(body["complete"], Json::Value(complete)) << r.describe();
    EXPECT_EQ(r.header("Retry-After"), complete ? std::nullopt : std::optional<std::string>("1"))
        << r.describe();
}

void expect_erased_answer(const it::HttpResponse& r, const Json::Value& expected) {
    expect_erasure_answer(r, expected, true);
}

void expect_unfinished_answer(const it::HttpResponse& r, const Json::Value& expected) {
    expect_erasure_answer(r, expected, false);
}

// DELETEs until one answers 200 (at most `tries`; no waiting: Retry-After is a hint), each one
// before it a 202 with the same totals. How many it took (tries + 1: never finished).
int erase_until_complete(const it::Shop& eraser, int64_t id, const Json::Value& expected,
                         int tries = 50) {
    for (int n = 1; n <= tries; ++n) {
        const it::HttpResponse r = erase(eraser, id);
        if (r.status != 202) {
            expect_erased_answer(r, expected);
            return n;
        }
        expect_unfinished_answer(r, expected);
    }
    ADD_FAILURE() << "the erasure of customer " << id << " did not finish in " << tries
                  << " DELETEs";
    return tries + 1;
}

bool is_erased_410(const it::HttpResponse& r) {
    return it::is_error(r, 410, "customer_erased", "Customer was erased");
}

Json::Value survey_on(const it::Shop& shop, const std::string& ticket, int mark,
                      const Json::Value& extra = Json::Value(Json::objectValue)) {
    Json::Value body = it::object({{"conversationId", ticket}, {"mark", mark}});
    for (const std::string& name : extra.getMemberNames()) {
        body[name] = extra[name];
    }
    it::HttpResponse r = it::post_json("/api/v1/csat", shop, body);
    EXPECT_TRUE(it::is_success(r, 201)) << r.describe();
    return r.json()["survey"];
}

// The shop's CSAT list over all time: its statistics and the survey with this id.
Json::Value csat_stats(const it::Shop& shop) {
    it::HttpResponse r = it::get("/api/v1/csat?startDate=2000-01-01&endDate=2100-01-01", shop);
    EXPECT_TRUE(it::is_success(r, 200)) << r.describe();
    return r.json()["stats"];
}

Json::Value csat_survey(const it::Shop& shop, int64_t survey_id) {
    it::HttpResponse r = it::get("/api/v1/csat?startDate=2000-01-01&endDate=2100-01-01", shop);
    for (const Json::Value& s : r.json()["surveys"]) {
        if (s["id"].asInt64() == survey_id) {
            return s;
        }
    }
    ADD_FAILURE() << "survey " << survey_id << " not listed: " << r.describe();
    return Json::Value();
}

// A ticket of the customer with `n` comments planted in SQL (one a second from 2026-01-01, so
// their (time, id) order is their id order), each holding personal data.
std::string ticket_with_comments(const it::Shop& shop, int64_t customer, int n) {
    const std::string ticket =
        it::tickets::create_ticket(shop,
                                   it::object({{"customerId", Json::Value(Json::Int64(customer))},
                                               {"Channel", "Mail"}}))["id"]
            .asString();
    // Planted without words, as before the index: the queue rows of the insert's trigger
    // (sql/023) go in its transaction, so the indexer never reads these comments (their rows,
    // their locks) and the erasure runs alone. The DELETE reads the queue: on Galera another
    // host's indexer batch can abort it (a deadlock): the whole plant runs again.
    for (int attempt = 1;; ++attempt) {
        it::Db db;
        try {
            db.execute("START TRANSACTION", {});
            db.execute(
                "INSERT INTO messages (conversation_id, text, time, channel, is_from_shop, "
                "subject, from_email, to_emails, tags, created_at) SELECT ?, CONCAT('secret ', "
                "seq), '2026-01-01' + INTERVAL seq SECOND, 'Mail', 0, 'Subj', 'a@example.test', "
                "'[\"b@example.test\"]', '[]', UTC_TIMESTAMP(3) FROM seq_1_to_" +
                    std::to_string(n),
                {ticket});
            db.execute(
                "DELETE p FROM comment_words_pending p JOIN messages m ON m.id = p.comment_id "
                "WHERE m.conversation_id = ?",
                {ticket});
            db.execute("COMMIT", {});
            break;
        } catch (const std::exception& e) {
            if (attempt >= 5 || std::string(e.what()).find("Deadlock") == std::string::npos) {
                throw;
            }
        }
    }
    return ticket;
}

// Comments of the ticket still holding personal data, and comments half scrubbed (some fields
// cleared, others not: what a batch cut in the middle of a row would leave).
using it::erasure::half_scrubbed;
using it::erasure::unscrubbed;

// Rows the server's handlers read, all sessions (index lookups and steps, table-scan steps):
// InnoDB's own Innodb_rows_read leaves out the rows an UPDATE reads.
int64_t rows_read(it::Db& db) {
    return std::stoll(
        db.scalar("SELECT SUM(VARIABLE_VALUE) FROM information_schema.GLOBAL_STATUS WHERE "
                  "VARIABLE_NAME IN ('HANDLER_READ_KEY', 'HANDLER_READ_FIRST', "
                  "'HANDLER_READ_NEXT', 'HANDLER_READ_PREV', 'HANDLER_READ_RND', "
                  "'HANDLER_READ_RND_NEXT')")
            .value_or("0"));
}

}  // namespace

TEST(CustomerErase, ClearsEveryPersonalFieldKeepsWhatE9KeepsAndAnswers410Afterwards) {
    it::tickets::World w = it::tickets::make_world();
    const it::Shop eraser = it::with_erase_key(w.shop);
    const std::string email = w.customer["email"].asString();
    const std::string phone = w.customer["phone_number"].asString();
    const Json::Value ticket = it::tickets::create_ticket(
        w.shop, it::object({{"customerId", Json::Value(Json::Int64(w.customer_id))},
                            {"Channel", "Mail"},
                            {"name", "Ann's order"},
                            {"threadId", "thread-1"},
                            {"emailUsed", email},
                            {"lastMessage", "Where is my parcel?"},
                            {"contact_reason", "delivery"},
                            {"language_code", "en"},
                            {"tags", it::tickets::array({"vip"})}}));
    const std::string t = ticket["id"].asString();
    it::tickets::add_comment(w.shop, t,
                             it::object({{"text", "Where is my parcel? Ann, 1 Main St"},
                                         {"isFromShop", false},
                                         {"subject", "Parcel"},
                                         {"fromEmail", email},
                                         {"toEmails", it::tickets::array({"shop@example.test"})},
                                         {"attachments", it::object({{"name", "id.png"}})}}));
    it::tickets::add_comment(w.shop, t,
                             it::object({{"text", "Dear Ann, it ships to 1 Main St"},
                                         {"toEmails", it::tickets::array({email})}}));
    const Json::Value survey =
        survey_on(w.shop, t, 4,
                  it::object({{"comment", "Ann here: fine"},
                              {"graphNodes", it::object({{"start", it::object({{"next", "b"}})}})},
                              {"nodeIds", it::tickets::array({"start", "b"})}}));
    const Json::Value stats_before = csat_stats(w.shop);
    const Json::Value ticket_before = it::tickets::fetch_ticket(w.shop, t);

    expect_erased_answer(erase(eraser, w.customer_id), totals(w.customer_id, 1, 2, 1));

    // The customer: 410 on every route naming it; the kept fields stay in the database.
    EXPECT_TRUE(is_erased_410(it::get(customer_path(w.customer_id), w.shop)));
    EXPECT_TRUE(is_erased_410(it::http("PATCH", customer_path(w.customer_id),
                                       it::json_headers(w.shop), std::string("{}"))));
    EXPECT_TRUE(is_erased_410(it::get(customer_path(w.customer_id) + "/export", w.shop)));
    const int64_t other = it::tickets::make_customer(w.shop);
    EXPECT_TRUE(is_erased_410(it::post_json(customer_path(w.customer_id) + "/merge", w.shop,
                                            it::object({{"sourceId", other}}))));
    EXPECT_TRUE(is_erased_410(it::post_json(customer_path(other) + "/merge", w.shop,
                                            it::object({{"sourceId", w.customer_id}}))));
    it::Db db;
    EXPECT_EQ(db.count("SELECT COUNT(*) FROM customers WHERE id = ? AND email IS NULL AND "
                       "email_key IS NULL AND phone_number IS NULL AND phone_key IS NULL AND "
                       "first_name IS NULL AND last_name IS NULL AND full_name IS NULL AND "
                       "storefront_id IS NULL AND erased_at IS NOT NULL AND "
                       "erasure_done_at IS NOT NULL",
                       {std::to_string(w.customer_id)}),
              1);

    // The ticket: its personal fields null, `Customer` null, the rest as it was.
    const Json::Value after = it::tickets::fetch_ticket(w.shop, t);
    for (const char* gone : {"name", "lastMessage", "threadId", "emailUsed", "Customer"}) {
        EXPECT_TRUE(after[gone].isNull()) << gone << ": " << it::to_json(after);
    }
    for (const char* kept :
         {"id", "Channel", "date", "tags", "contact_reason", "language_code", "via", "assigned_to",
          "HumanTicket", "unReadChatCount", "customerID", "lastMessageTime", "isOpenedTicket"}) {
        EXPECT_EQ(after[kept], ticket_before[kept]) << kept;
    }

    // Its comments, the shop's reply too.
    const Json::Value comments = it::tickets::list_comments(w.shop, t)["comments"];
    ASSERT_EQ(comments.size(), 2u);
    for (const Json::Value& c : comments) {
        EXPECT_EQ(c["text"], Json::Value("")) << it::to_json(c);
        EXPECT_TRUE(c["fromEmail"].isNull()) << it::to_json(c);
        EXPECT_TRUE(c["subject"].isNull()) << it::to_json(c);
        EXPECT_EQ(c["toEmails"], Json::Value(Json::arrayValue)) << it::to_json(c);
        EXPECT_TRUE(c["attachments"].isNull()) << it::to_json(c);
        EXPECT_TRUE(c["Customer"].isNull()) << it::to_json(c);
    }

    // The survey: mark, date, conversation kept, so the statistics do not change.
    const Json::Value s = csat_survey(w.shop, survey["id"].asInt64());
    EXPECT_EQ(s["mark"], survey["mark"]);
    EXPECT_EQ(s["createdAt"], survey["createdAt"]);
    EXPECT_EQ(s["conversationId"], survey["conversationId"]);
    EXPECT_TRUE(s["comment"].isNull()) << it::to_json(s);
    EXPECT_EQ(s["graphNodes"], Json::Value(Json::objectValue));
    EXPECT_EQ(s["nodeIds"], Json::Value(Json::arrayValue));
    EXPECT_TRUE(s["customer"].isNull()) << it::to_json(s);
    EXPECT_EQ(csat_stats(w.shop), stats_before);

    // A repeat answers the same totals; the same email and phone make a new customer.
    expect_erased_answer(erase(eraser, w.customer_id), totals(w.customer_id, 1, 2, 1));
    it::HttpResponse again = it::post_json("/api/v1/customers", w.shop,
                                           it::object({{"email", email}, {"phone_number", phone}}));
    EXPECT_TRUE(it::is_success(again, 201)) << again.describe();
    EXPECT_NE(again.json()["customer"]["id"].asInt64(), w.customer_id);
}

TEST(CustomerErase, TheCustomersMergedIntoItLoseTheirDataAndKeysToo) {
    it::Shop shop = it::make_shop();
    const it::Shop eraser = it::with_erase_key(shop);
    const std::string source_email = it::unique_email("merged");
    const int64_t target = it::tickets::make_customer(shop);
    const int64_t source =
        it::create_customer(shop, it::object({{"email", source_email}, {"first_name", "Bo"}}))["id"]
            .asInt64();
    const std::string moved =
        it::tickets::create_ticket(shop,
                                   it::object({{"customerId", Json::Value(Json::Int64(source))},
                                               {"Channel", "Mail"}}))["id"]
            .asString();
    it::tickets::add_comment(shop, moved, it::object({{"text", "from Bo"}}));
    ASSERT_TRUE(it::is_success(
        it::post_json(customer_path(target) + "/merge", shop, it::object({{"sourceId", source}})),
        200));

    expect_erased_answer(erase(eraser, target), totals(target, 1, 1, 0));
    // The merged row's data is gone too (its id answers 308: AMergedIdAnswers308).
    it::Db db;
    EXPECT_EQ(db.count("SELECT COUNT(*) FROM customers WHERE id = ? AND email IS NULL AND "
                       "email_key IS NULL AND first_name IS NULL",
                       {std::to_string(source)}),
              1);
    EXPECT_EQ(it::tickets::list_comments(shop, moved)["comments"][0]["text"], Json::Value(""));
    it::HttpResponse fresh =
        it::post_json("/api/v1/customers", shop, it::object({{"email", source_email}}));
    EXPECT_TRUE(it::is_success(fresh, 201)) << fresh.describe();
}

TEST(CustomerErase, ThousandsOfCommentsGoInSeveralBatchesAndACutShortErasureFinishes) {
    it::Shop shop = it::make_shop();
    const it::Shop eraser = it::with_erase_key(shop);
    const int64_t id = it::tickets::make_customer(shop);
    const std::string t1 =
        it::tickets::create_ticket(shop, it::object({{"customerId", Json::Value(Json::Int64(id))},
                                                     {"Channel", "Mail"}}))["id"]
            .asString();
    const std::string t2 =
        it::tickets::create_ticket(shop, it::object({{"customerId", Json::Value(Json::Int64(id))},
                                                     {"Channel", "Chat"}}))["id"]
            .asString();
    it::Db db;
    // 3,000 comments (the erasure takes 1,000 a batch), split over the two tickets.
    db.execute(
        "INSERT INTO messages (conversation_id, text, time, channel, is_from_shop, subject, "
        "from_email, to_emails, tags, created_at) SELECT IF(seq % 2, ?, ?), CONCAT('secret ', "
        "seq), "
        "'2026-01-01' + INTERVAL seq SECOND, 'Mail', seq % 3 = 0, 'Subj', 'a@example.test', "
        "'[\"b@example.test\"]', '[]', UTC_TIMESTAMP(3) FROM seq_1_to_3000",
        {t1, t2});

    expect_erased_answer(erase(eraser, id), totals(id, 2, 3000, 0));
    const std::string in_tickets = "SELECT COUNT(*) FROM messages WHERE conversation_id IN (?, ?)";
    EXPECT_EQ(db.count(in_tickets + " AND (text <> '' OR subject IS NOT NULL OR from_email IS "
                                    "NOT NULL OR to_emails <> '[]')",
                       {t1, t2}),
              0);
    EXPECT_EQ(db.count(in_tickets, {t1, t2}), 3000);

    // A DELETE cut short: erased_at set, the batches not all run (planted: data left over, and
    // the progress before the first ticket, where such a DELETE leaves it).
    db.execute(
        "UPDATE customers SET erasure_done_at = NULL, erasure_through = 0, erasure_comment = NULL "
        "WHERE id = ?",
        {std::to_string(id)});
    db.execute("UPDATE messages SET text = 'left over' WHERE conversation_id = ? LIMIT 5", {t1});
    db.execute("UPDATE conversations SET name = 'left over' WHERE id = ?", {t2});
    expect_erased_answer(erase(eraser, id), totals(id, 2, 3000, 0));
    EXPECT_EQ(db.count(in_tickets + " AND text <> ''", {t1, t2}), 0);
    EXPECT_TRUE(it::tickets::fetch_ticket(shop, t2)["name"].isNull());
    EXPECT_EQ(
        db.count("SELECT COUNT(*) FROM customers WHERE id = ? AND erasure_done_at IS NOT NULL",
                 {std::to_string(id)}),
        1);
}

TEST(CustomerErase, StoredIdempotencyAnswersWithTheCustomerAreDeleted) {
    it::Shop shop = it::make_shop();
    const it::Shop eraser = it::with_erase_key(shop);
    const std::string key = "erase-" + it::unique_suffix();
    const std::string body = R"({"email":")" + it::unique_email("idem") + R"("})";
    it::Headers h = it::json_headers(shop);
    h.emplace_back("Idempotency-Key", key);
    it::HttpResponse first = it::http("POST", "/api/v1/customers", h, body);
    ASSERT_TRUE(it::is_success(first, 201)) << first.describe();
    const int64_t id = first.json()["customer"]["id"].asInt64();
    it::HttpResponse replay = it::http("POST", "/api/v1/customers", h, body);
    EXPECT_EQ(replay.header("Idempotency-Replayed"), std::optional<std::string>("true"));

    expect_erased_answer(erase(eraser, id), totals(id, 0, 0, 0));
    it::Db db;
    EXPECT_EQ(db.count("SELECT COUNT(*) FROM idempotency_keys WHERE shop_id = ? AND idem_key = ?",
                       {std::to_string(shop.id), key}),
              0);
    // The retry is processed afresh: the email is free again, a new customer.
    it::HttpResponse retry = it::http("POST", "/api/v1/customers", h, body);
    EXPECT_TRUE(it::is_success(retry, 201)) << retry.describe();
    EXPECT_FALSE(retry.header("Idempotency-Replayed").has_value());
    EXPECT_NE(retry.json()["customer"]["id"].asInt64(), id);
}

// Issue 42: every keyed write's stored answer about the customer goes, a comment create's
// too (its answer names the comment, not the customer: matching "$.comment.Customer.id" never
// found it, and replaying the POST gave back the erased text, fromEmail and subject). Another
// customer's answers stay.
TEST(CustomerErase, EveryKeyedWritesStoredAnswerAboutTheCustomerIsDeleted) {
    it::Shop shop = it::make_shop();
    const it::Shop eraser = it::with_erase_key(shop);
    const std::string run = it::unique_suffix();
    std::vector<std::string> keys;
    auto keyed = [&](const std::string& method, const std::string& path, const Json::Value& body,
                     const std::string& name) {
        it::Headers h = it::json_headers(shop);
        keys.push_back(name + "-" + run);
        h.emplace_back("Idempotency-Key", keys.back());
        it::HttpResponse r = it::http(method, path, h, it::to_json(body));
        EXPECT_LT(r.status, 300) << r.describe();
        return r.json();
    };
    const int64_t id =
        keyed("POST", "/api/v1/customers", it::object({{"email", it::unique_email("idem")}}),
              "customer")["customer"]["id"]
            .asInt64();
    const std::string ticket =
        keyed("POST", "/api/v1/tickets",
              it::object({{"customerId", Json::Int64(id)}, {"Channel", "Mail"}}),
              "ticket")["ticket"]["id"]
            .asString();
    const Json::Value comment = it::object({{"text", "my secret address"},
                                            {"subject", "private"},
                                            {"fromEmail", "me@private.test"},
                                            {"isFromShop", false}});
    keyed("POST", "/api/v1/tickets/" + ticket + "/comments", comment, "comment");
    keyed("PATCH", "/api/v1/tickets/" + ticket, it::object({{"name", "mine"}}), "ticket-patch");
    keyed("PATCH", customer_path(id), it::object({{"first_name", "Ann"}}), "customer-patch");
    keyed("POST", "/api/v1/csat",
          it::object({{"conversationId", ticket}, {"mark", 4}, {"comment", "fine"}}), "survey");
    // Another customer's comment answer, which must stay.
    const std::string other_ticket = it::tickets::create_ticket_id(
        it::tickets::World{shop, Json::Value(), it::tickets::make_customer(shop)});
    keyed("POST", "/api/v1/tickets/" + other_ticket + "/comments", comment, "other-comment");
    const std::string kept = keys.back();
    keys.pop_back();

    ASSERT_TRUE(it::is_success(erase(eraser, id), 200));
    it::Db db;
    for (const std::string& key : keys) {
        EXPECT_EQ(db.count("SELECT COUNT(*) FROM idempotency_keys WHERE shop_id = ? AND "
                           "idem_key = ?",
                           {std::to_string(shop.id), key}),
                  0)
            << key;
    }
    EXPECT_EQ(db.count("SELECT COUNT(*) FROM idempotency_keys WHERE shop_id = ? AND idem_key = ?",
                       {std::to_string(shop.id), kept}),
              1);
    // The comment POST again with its key runs afresh (a 410: the ticket's customer is erased):
    // nothing of the erased answer comes back.
    it::Headers h = it::json_headers(shop);
    h.emplace_back("Idempotency-Key", "comment-" + run);
    it::HttpResponse replay =
        it::http("POST", "/api/v1/tickets/" + ticket + "/comments", h, it::to_json(comment));
    EXPECT_FALSE(replay.header("Idempotency-Replayed").has_value()) << replay.describe();
    EXPECT_EQ(replay.body.find("secret"), std::string::npos) << replay.describe();
}

TEST(CustomerErase, NeedsTheEraseScopeAndAnswersBadUnknownOtherShopsAndMergedIds) {
    it::Shop shop = it::make_shop();
    it::Shop other = it::make_shop();
    const it::Shop eraser = it::with_erase_key(shop);
    const int64_t id = it::tickets::make_customer(shop);
    const int64_t foreign = it::tickets::make_customer(other);

    // make_shop's key has read,write,export: not erase.
    EXPECT_TRUE(
        it::is_error(erase(shop, id), 403, "insufficient_scope", "API key lacks the erase scope"));
    EXPECT_TRUE(it::is_success(it::get(customer_path(id), shop), 200));

    EXPECT_TRUE(it::is_error(it::http("DELETE", "/api/v1/customers/x", it::key_header(eraser)), 400,
                             "invalid_id", "Invalid customerId"));
    EXPECT_TRUE(
        it::is_error(erase(eraser, foreign), 404, "customer_not_found", "Customer not found"));
    EXPECT_TRUE(it::is_error(erase(eraser, foreign + 1000000), 404, "customer_not_found",
                             "Customer not found"));
    EXPECT_TRUE(it::is_error(it::http("DELETE", customer_path(id)), 401, "missing_api_key",
                             "API key is required"));
    EXPECT_EQ(it::fetch_customer(other, foreign)["id"].asInt64(), foreign);
}

// Not through Prism (scripts/openapi: it follows a 308 itself).
TEST(CustomerErase, AMergedIdAnswers308AndErasesNothing) {
    it::Shop shop = it::make_shop();
    const it::Shop eraser = it::with_erase_key(shop);
    const int64_t id = it::tickets::make_customer(shop);
    const int64_t source = it::tickets::make_customer(shop);
    ASSERT_TRUE(it::is_success(
        it::post_json(customer_path(id) + "/merge", shop, it::object({{"sourceId", source}})),
        200));
    it::HttpResponse merged = erase(eraser, source);
    EXPECT_TRUE(it::is_error(merged, 308, "customer_merged", "Customer was merged"))
        << merged.describe();
    EXPECT_EQ(merged.header("Location"), std::optional<std::string>(customer_path(id)));
    EXPECT_EQ(it::fetch_customer(shop, id)["id"].asInt64(), id);  // not erased
}

// Nothing attaches new personal data to an erased customer: a ticket naming it (its name,
// lastMessage, threadId would be stored again), a comment on one of its tickets and a survey of
// one (its comment) are 410, as GET and PATCH of the id are; nothing is written.
TEST(CustomerErase, ATicketOrACommentThatWouldGiveAnErasedCustomerNewDataIs410) {
    it::Shop shop = it::make_shop();
    const it::Shop eraser = it::with_erase_key(shop);
    const int64_t id = it::tickets::make_customer(shop);
    const std::string ticket =
        it::tickets::create_ticket(shop, it::object({{"customerId", Json::Value(Json::Int64(id))},
                                                     {"Channel", "Mail"}}))["id"]
            .asString();
    expect_erased_answer(erase(eraser, id), totals(id, 1, 0, 0));

    EXPECT_TRUE(
        is_erased_410(it::post_json("/api/v1/tickets", shop,
                                    it::object({{"customerId", Json::Value(Json::Int64(id))},
                                                {"Channel", "Mail"},
                                                {"name", "Ann again"}}))));
    EXPECT_TRUE(is_erased_410(it::post_json(it::tickets::comments_path(ticket), shop,
                                            it::object({{"text", "It's Ann, my address is"}}))));
    EXPECT_TRUE(
        is_erased_410(it::post_json(it::tickets::comments_path(ticket), shop,
                                    it::object({{"text", "We reply"}, {"isFromShop", true}}))));
    it::Db db;
    EXPECT_EQ(
        db.count("SELECT COUNT(*) FROM conversations WHERE customer_id = ?", {std::to_string(id)}),
        1);
    EXPECT_EQ(db.count("SELECT COUNT(*) FROM messages WHERE conversation_id = ?", {ticket}), 0);
    EXPECT_TRUE(is_erased_410(it::post_json(
        "/api/v1/csat", shop,
        it::object({{"conversationId", ticket}, {"mark", 2}, {"comment", "Ann was unhappy"}}))));
    EXPECT_EQ(db.count("SELECT COUNT(*) FROM surveys WHERE customer_id = ?", {std::to_string(id)}),
              0);
    // Another shop's key still gets 404 for the ticket, not 410.
    it::Shop other = it::make_shop();
    EXPECT_TRUE(it::is_error(
        it::post_json(it::tickets::comments_path(ticket), other, it::object({{"text", "x"}})), 404,
        "ticket_not_found", "Ticket not found"));
    // The totals are unchanged.
    expect_erased_answer(erase(eraser, id), totals(id, 1, 0, 0));
}

// A comment sent while the erasure's batches run (held here on a comment's row lock, after
// its first transaction) is refused: it would come after the batch that scrubs its place.
// With `file`, one more comment names an uploaded file, so the erasure's file batches find
// work before the scrub: they lock only the files they delete (a batch that locked the tickets
// and comments it passed held the ticket, and the refused comment waited for it until both
// requests were killed).
namespace {
void comment_during_erasure_is_refused(bool file) {
    it::OneHostOnly one_host;
    it::Shop shop = it::make_shop();
    const it::Shop eraser = it::with_erase_key(shop);
    const int64_t id = it::tickets::make_customer(shop);
    const std::string ticket = ticket_with_comments(shop, id, 10);
    if (file) {
        it::Headers h = it::key_header(shop);
        h.emplace_back("Content-Type", "text/plain");
        it::HttpResponse up = it::http("POST", "/api/v1/files?filename=a.txt", h,
                                       "erasure test file " + it::unique_suffix());
        ASSERT_TRUE(it::is_success(up, 201)) << up.describe();
        Json::Value files(Json::arrayValue);
        files.append(up.json()["file"]["id"]);
        ASSERT_TRUE(
            it::is_success(it::post_json(it::tickets::comments_path(ticket), shop,
                                         it::object({{"text", "see file"}, {"files", files}})),
                           201));
    }
    std::future<it::HttpResponse> erasure;
    {
        it::RowLock lock("SELECT id FROM messages WHERE conversation_id = " + ticket +
                         " ORDER BY id LIMIT 1 FOR UPDATE");
        erasure = std::async(std::launch::async, [&] { return erase(eraser, id); });
        ASSERT_TRUE(lock.someone_waits(std::chrono::seconds(20)));
        EXPECT_TRUE(is_erased_410(it::get(customer_path(id), shop)));
        EXPECT_TRUE(is_erased_410(it::post_json(it::tickets::comments_path(ticket), shop,
                                                it::object({{"text", "Ann, 12 Main St"}}))));
    }
    const int comments = file ? 11 : 10;
    expect_erased_answer(erasure.get(), totals(id, 1, comments, 0));
    it::Db db;
    EXPECT_EQ(unscrubbed(db, ticket), 0);
    EXPECT_EQ(db.count("SELECT COUNT(*) FROM messages WHERE conversation_id = ?", {ticket}),
              comments);
    EXPECT_EQ(db.count("SELECT COUNT(*) FROM files WHERE shop_id = ?", {std::to_string(shop.id)}),
              0);
}
}  // namespace

TEST(CustomerErase, ACommentSentWhileTheErasureRunsIsRefusedNotLeftUnscrubbed) {
    comment_during_erasure_is_refused(false);
}

TEST(CustomerErase, ACommentSentWhileTheErasureDeletesFilesIsRefusedNotHeldUp) {
    comment_during_erasure_is_refused(true);
}

// A comment and an erasure racing: the comment is 201 (committed before the erasure's first
// transaction, so its batches scrub it) or 410; no comment survives unscrubbed.
TEST(CustomerErase, CommentsRacingTheErasureAreScrubbedOrRefused) {
    it::Shop shop = it::make_shop();
    const it::Shop eraser = it::with_erase_key(shop);
    for (int round = 0; round < 5; ++round) {
        const int64_t id = it::tickets::make_customer(shop);
        const std::string ticket = ticket_with_comments(shop, id, 200);
        std::vector<std::future<it::HttpResponse>> comments;
        auto erasure = std::async(std::launch::async, [&] { return erase(eraser, id); });
        for (int i = 0; i < 4; ++i) {
            comments.push_back(std::async(std::launch::async, [&, i] {
                return it::post_json(it::tickets::comments_path(ticket), shop,
                                     it::object({{"text", "race " + std::to_string(i)}}));
            }));
        }
        int added = 0;
        for (auto& c : comments) {
            it::HttpResponse r = c.get();
            EXPECT_TRUE(r.status == 201 || is_erased_410(r)) << r.describe();
            added += r.status == 201 ? 1 : 0;
        }
        it::HttpResponse first = erasure.get();
        ASSERT_TRUE(it::is_success(first, 200)) << first.describe();
        it::Db db;
        EXPECT_EQ(unscrubbed(db, ticket), 0) << "round " << round;
        EXPECT_EQ(first.json()["erased"]["comments"].asInt(), 200 + added);
    }
}

// An erasure cut short by a killed worker in the middle of its comment batches: the customer
// answers 410, every comment is either scrubbed or untouched (each batch is its own
// transaction), and a repeated DELETE finishes the work with the totals a whole one gives.
TEST(CustomerErase, AnErasureCutShortByAKilledWorkerLeavesWholeRowsAndARepeatFinishes) {
    it::OneHostOnly one_host;  // the worker to kill is on the first host
    it::Shop shop = it::make_shop();
    const it::Shop eraser = it::with_erase_key(shop);
    const int64_t id = it::tickets::make_customer(shop);
    const std::string ticket = ticket_with_comments(shop, id, 2500);
    it::Db db;
    const std::string in_second_batch =
        db.scalar(
              "SELECT id FROM messages WHERE conversation_id = ? ORDER BY time, id "
              "LIMIT 1 OFFSET 1500",
              {ticket})
            .value_or("0");
    {
        it::RowLock lock("SELECT id FROM messages WHERE id = " + in_second_batch + " FOR UPDATE");
        auto answer = std::async(std::launch::async, [&] {
            return it::http_any_body("DELETE", customer_path(id), it::key_header(eraser));
        });
        ASSERT_TRUE(lock.someone_waits(std::chrono::seconds(20)));
        const long pid =
            it::busy_worker("/api/v1/customers/{customerId}", std::chrono::seconds(10));
        ASSERT_GT(pid, 0);
        ASSERT_EQ(::kill(static_cast<pid_t>(pid), SIGKILL), 0);
        it::HttpResponse cut = answer.get();
        EXPECT_GE(cut.status, 500) << cut.describe();
    }
    EXPECT_TRUE(is_erased_410(it::get(customer_path(id), shop)));
    EXPECT_EQ(half_scrubbed(db, ticket), 0);
    // Whole batches only: the first committed; the second, waiting for the lock when its worker
    // died, is either rolled back or (the server finds the client gone only after the statement)
    // committed whole once the lock goes; the third never started.
    const int64_t left = unscrubbed(db, ticket);
    EXPECT_TRUE(left == 1500 || left == 500) << left << " comments still hold data";
    expect_erased_answer(erase(eraser, id), totals(id, 1, 2500, 0));
    EXPECT_EQ(unscrubbed(db, ticket), 0);
    EXPECT_TRUE(it::tickets::fetch_ticket(shop, ticket)["Customer"].isNull());
    expect_erased_answer(erase(eraser, id), totals(id, 1, 2500, 0));
}

// Each batch starts where the one before stopped (keyset over the comments' (time, id)), also
// when it is the next DELETE's (erasure_comment, sql/021): the rows the server reads grow with
// the comments, not with their square. Before, every batch read the scrubbed rows of all
// batches before it again (20,000 comments: 754,566 rows read). The counters are the server's,
// so the bound leaves room for what runs beside the erasure (the deliverer, other tests'
// stacks: 133,350 rows were counted once, through the Prism proxy).
TEST(CustomerErase, BatchesNeverReadTheCommentsAlreadyScrubbedAgain) {
    it::Shop shop = it::make_shop();
    const it::Shop eraser = it::with_erase_key(shop);
    const int64_t id = it::tickets::make_customer(shop);
    constexpr int kComments = 20000;
    const std::string ticket = ticket_with_comments(shop, id, kComments);
    it::Db db;
    const int64_t before = rows_read(db);
    // The comments take more batches than one DELETE runs and fewer than two do: two DELETEs,
    // the second going on after the last comment the first did (one that walked the ticket from
    // its first comment again would spend its batches on those and never finish).
    using supportcrm::kErasureBatch, supportcrm::kErasureBatchesPerRequest;
    static_assert(kComments / kErasureBatch > kErasureBatchesPerRequest);
    static_assert(kComments / kErasureBatch + 5 <= 2 * kErasureBatchesPerRequest);
    EXPECT_EQ(erase_until_complete(eraser, id, totals(id, 1, kComments, 0)), 2);
    const int64_t read = rows_read(db) - before;
    EXPECT_LT(read, 10 * kComments) << "rows read by the erasure (and anything beside it)";
    EXPECT_EQ(unscrubbed(db, ticket), 0);
}

// Issue 43: one DELETE erased everything, 12.6 s for 1,043 tickets and 10,073 comments, near
// the request's timeout. Now each DELETE runs a bounded number of batches (db/erasure_plan.h)
// and answers 202 "complete": false while work is left; the id answers 410 from the first one
// on, and repeating the DELETE goes on from where the last one stopped (sql/021) until a 200
// with the same totals. 5,000 tickets of 10 comments (planted in SQL, with a word each in
// ticket_words as the service would write it; three of them and a survey through the API).
TEST(CustomerErase, FiveThousandTicketsTakeSeveralBoundedDeletesThatFinishWithTheSameTotals) {
    it::Shop shop = it::make_shop();
    const it::Shop eraser = it::with_erase_key(shop);
    const int64_t id = it::tickets::make_customer(shop);
    std::string word = "erasew";
    for (char c : it::unique_suffix()) {
        if (std::isalnum(static_cast<unsigned char>(c))) {
            word.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
        }
    }
    constexpr int kTickets = 5000, kComments = 10;
    std::vector<std::string> sample;  // the tickets made through the API
    for (int i = 0; i < 3; ++i) {
        sample.push_back(it::tickets::create_ticket(
                             shop, it::object({{"customerId", Json::Value(Json::Int64(id))},
                                               {"Channel", "Mail"},
                                               {"name", "Order " + word}}))["id"]
                             .asString());
        for (int c = 0; c < kComments; ++c) {
            it::tickets::add_comment(shop, sample.back(),
                                     it::object({{"text", "Ann at 1 Main St " + word},
                                                 {"isFromShop", c % 2 == 1},
                                                 {"subject", "Parcel"}}));
        }
    }
    const int64_t survey =
        survey_on(shop, sample[0], 4, it::object({{"comment", "Ann: fine"}}))["id"].asInt64();
    it::Db db;
    const std::string cid = std::to_string(id);
    db.execute(
        "INSERT INTO conversations (shop_id, customer_id, channel, date, last_message_time, "
        "tags, created_at, name, last_message, thread_id) SELECT ?, ?, 'Mail', "
        "UTC_TIMESTAMP(3), UTC_TIMESTAMP(3), '[]', UTC_TIMESTAMP(3), CONCAT('Order ', seq), "
        "'my address', CONCAT('thread-', seq) FROM seq_1_to_" +
            std::to_string(kTickets - 3),
        {std::to_string(shop.id), cid});
    const std::string planted =
        "(SELECT t.id FROM conversations t WHERE t.customer_id = ? AND t.name LIKE 'Order %' "
        "AND t.thread_id IS NOT NULL)";
    db.execute(
        "INSERT INTO messages (conversation_id, text, time, channel, is_from_shop, subject, "
        "from_email, to_emails, tags, created_at) SELECT p.id, CONCAT('secret ', s.seq), "
        "'2026-01-01' + INTERVAL s.seq SECOND, 'Mail', s.seq % 2, 'Subj', 'a@example.test', "
        "'[\"b@example.test\"]', '[]', UTC_TIMESTAMP(3) FROM " +
            planted + " p JOIN seq_1_to_" + std::to_string(kComments) + " s",
        {cid});
    it::wait_for_search_index();  // the planted comments' own words ("secret", numbers)
    db.execute(
        "INSERT INTO ticket_words (conversation_id, word, shop_id, in_comments) "
        "SELECT p.id, ?, ?, 1 FROM " +
            planted + " p ON DUPLICATE KEY UPDATE in_comments = 1",
        {word, std::to_string(shop.id), cid});
    const std::string tickets_of = "SELECT id FROM conversations WHERE customer_id = " + cid;
    ASSERT_EQ(
        db.count("SELECT COUNT(*) FROM messages WHERE conversation_id IN (" + tickets_of + ")", {}),
        kTickets * kComments);
    const std::string search = "/api/v1/tickets?limit=5&q=" + word;
    ASSERT_EQ(it::get(search, shop).json()["tickets"].size(), 5u);
    sample.push_back(db.scalar("SELECT MIN(id) FROM " + planted + " p", {cid}).value_or(""));
    sample.push_back(db.scalar("SELECT MAX(id) FROM " + planted + " p", {cid}).value_or(""));
    const Json::Value expected = totals(id, kTickets, kTickets * kComments, 1);

    // The first DELETE: more than its batches' worth (the tickets alone take 50 groups of
    // 1,000 comments): 202, and the id answers 410 already.
    const auto started = std::chrono::steady_clock::now();
    const it::HttpResponse first = erase(eraser, id);
    const auto first_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                              std::chrono::steady_clock::now() - started)
                              .count();
    expect_unfinished_answer(first, expected);
    EXPECT_TRUE(is_erased_410(it::get(customer_path(id), shop)));
    EXPECT_GT(
        db.count("SELECT COUNT(*) FROM customers WHERE id = ? AND erasure_through > 0", {cid}), 0)
        << "the first DELETE recorded how far it came";

    // The repeats go on from there: no statement per ticket already done (Com_stmt_execute, the
    // server's count of prepared statements run, over all of them: a walk of every ticket again
    // at each DELETE takes 3 a ticket).
    const auto executed = [&db] {
        return std::stoll(db.scalar("SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS "
                                    "WHERE VARIABLE_NAME = 'COM_STMT_EXECUTE'")
                              .value_or("0"));
    };
    const int64_t executed_before = executed();
    const int deletes = 1 + erase_until_complete(eraser, id, expected);
    const int64_t statements = executed() - executed_before;
    const auto all_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                            std::chrono::steady_clock::now() - started)
                            .count();
    EXPECT_LT(statements, kTickets) << "statements run by " << deletes - 1 << " repeats";
    // Each DELETE spends its whole budget on new work: 50 groups of tickets, then a batch each
    // of surveys, stored answers and events.
    using supportcrm::kErasureBatch, supportcrm::kErasureBatchesPerRequest;
    constexpr unsigned kBatches = kTickets * kComments / kErasureBatch + 3;
    EXPECT_EQ(deletes, static_cast<int>((kBatches + kErasureBatchesPerRequest - 1) /
                                        kErasureBatchesPerRequest));
    std::cout << "[ erasure  ] " << kTickets << " tickets, " << kTickets * kComments
              << " comments: " << deletes << " DELETEs, the first " << first_ms << " ms, all "
              << all_ms << " ms, " << statements << " statements after the first\n";

    // Nothing of the data is left: in the database, through the API, in search.
    EXPECT_EQ(db.count("SELECT COUNT(*) FROM messages WHERE conversation_id IN (" + tickets_of +
                           ") AND (text <> '' OR subject IS NOT NULL OR from_email IS NOT NULL OR "
                           "to_emails <> '[]' OR attachments IS NOT NULL)",
                       {}),
              0);
    EXPECT_EQ(db.count("SELECT COUNT(*) FROM conversations WHERE customer_id = ? AND (name IS NOT "
                       "NULL OR last_message IS NOT NULL OR thread_id IS NOT NULL)",
                       {cid}),
              0);
    EXPECT_EQ(
        db.count("SELECT COUNT(*) FROM ticket_words WHERE conversation_id IN (" + tickets_of + ")",
                 {}),
        0);
    for (const std::string& t : sample) {
        const Json::Value comments = it::tickets::list_comments(shop, t)["comments"];
        ASSERT_EQ(comments.size(), static_cast<unsigned>(kComments)) << t;
        for (const Json::Value& c : comments) {
            EXPECT_EQ(c["text"], Json::Value("")) << t << ": " << it::to_json(c);
            EXPECT_TRUE(c["subject"].isNull()) << t << ": " << it::to_json(c);
        }
        EXPECT_TRUE(it::tickets::fetch_ticket(shop, t)["name"].isNull()) << t;
    }
    EXPECT_EQ(it::get(search, shop).json()["tickets"], Json::Value(Json::arrayValue));
    EXPECT_TRUE(csat_survey(shop, survey)["comment"].isNull());
    // Finished: the next DELETE answers 200 at once with the same totals.
    expect_erased_answer(erase(eraser, id), expected);
}
