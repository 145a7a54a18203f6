// extensions.md §E10 through nginx to the pool and MariaDB: the filters of GET /api/v1/tickets
// (status with `none`, assignedTo with `none`, repeated tag, Channel, each exact), q's word
// rules (letter, mark and digit runs after NFKC_Casefold, prefixes, 3 characters, no stop
// words, each word anywhere in the name or a comment), q on GET /api/v1/customers, the filters
// with E3's and its cursors (bound to the filters), bad input (invalid values, punctuation,
// operators as text, 1,000 words, 200 tags), and the search data following the records: a
// comment found at once, a new ticket name, a merge, an erasure, the migrations' backfill and
// re-index.
#include <algorithm>
#include <cctype>
#include <functional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "harness.h"
#include "tickets_fixtures.h"

#ifndef SUPPORTCRM_SQL_DIR
#error "SUPPORTCRM_SQL_DIR must name the repository's sql/ directory"
#endif

namespace {

using it::HttpResponse;
using it::tickets::World;

// Percent-encodes every byte but unreserved ASCII (RFC 3986).
std::string encode(std::string_view s) {
    std::string out;
    for (unsigned char c : s) {
        if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~') {
            out.push_back(static_cast<char>(c));
        } else {
            out.push_back('%');
            out.push_back("0123456789ABCDEF"[c >> 4]);
            out.push_back("0123456789ABCDEF"[c & 15]);
        }
    }
    return out;
}

// The ids listed by GET `path` (200 expected), in order.
std::vector<std::string> ids(const it::Shop& shop, const std::string& path,
                             const char* member = "tickets") {
    const HttpResponse r = it::get(path, shop);
    if (!it::is_success(r, 200)) {
        ADD_FAILURE() << r.describe();
        return {};
    }
    std::vector<std::string> out;
    for (const Json::Value& row : r.json()[member]) {
        out.push_back(row["id"].isString() ? row["id"].asString()
                                           : std::to_string(row["id"].asInt64()));
    }
    return out;
}

// A comment, once its words are in the search index (and those of every comment before it): a
// comment indexed alone, as these tests read the rows it leaves.
Json::Value add_indexed_comment(const it::Shop& shop, std::string_view ticket,
                                const Json::Value& body) {
    Json::Value added = it::tickets::add_comment(shop, ticket, body);
    it::wait_for_search_index();
    return added;
}

// A ticket search, once the comments committed before it are indexed (E10 v1.3: within 1 s
// of the commit, by the pool's search indexer; bench/run's lag row measures how soon).
std::vector<std::string> tickets_q(const it::Shop& shop, std::string_view q,
                                   const std::string& more = "") {
    it::wait_for_search_index();
    return ids(shop, "/api/v1/tickets?q=" + encode(q) + more);
}

std::vector<std::string> customers_q(const it::Shop& shop, std::string_view q) {
    it::wait_for_search_index();  // a new customer's words too (sql/024)
    return ids(shop, "/api/v1/customers?q=" + encode(q), "customers");
}

::testing::AssertionResult is_invalid(const HttpResponse& r, std::string_view message) {
    return it::is_error(r, 400, "invalid_query", message);
}

using List = std::vector<std::string>;

HttpResponse patch_ticket(const it::Shop& shop, const std::string& id, const Json::Value& body) {
    return it::http("PATCH", it::tickets::ticket_path(id), it::json_headers(shop),
                    it::to_json(body));
}

TEST(Search, StatusFilterNamesEachStatusAndNoneExactly) {
    const World w = it::tickets::make_world();
    const std::string plain = it::tickets::create_ticket_id(w);
    const std::string open =
        it::tickets::create_ticket_id(w, it::object({{"isOpenedTicket", true}}));
    const std::string pending =
        it::tickets::create_ticket_id(w, it::object({{"isOpenedTicket", true}}));
    ASSERT_TRUE(it::is_success(
        patch_ticket(w.shop, pending, it::object({{"HumanTicketStatus", "PENDING"}})), 200));

    EXPECT_EQ(ids(w.shop, "/api/v1/tickets?status=OPEN"), List{open});
    EXPECT_EQ(ids(w.shop, "/api/v1/tickets?status=PENDING"), List{pending});
    EXPECT_EQ(ids(w.shop, "/api/v1/tickets?status=none"), List{plain});
    EXPECT_EQ(ids(w.shop, "/api/v1/tickets?status=none,OPEN"), (List{open, plain}));
    EXPECT_EQ(ids(w.shop, "/api/v1/tickets?status=SOLVED,CLOSED"), List{});
    for (const char* bad :
         {"open", "", "OPEN,", ",OPEN", "OPEN,,PENDING", "NONE", "OPEN PENDING"}) {
        EXPECT_TRUE(
            is_invalid(it::get("/api/v1/tickets?status=" + encode(bad), w.shop), "Invalid status"))
            << bad;
    }
}

TEST(Search, AssignedToIsAUserOrNone) {
    const World w = it::tickets::make_world();
    const int64_t agent = it::tickets::make_user(w.shop, it::unique_email("agent"));
    const std::string mine =
        it::tickets::create_ticket_id(w, it::object({{"assigned_to", Json::Int64(agent)}}));
    const std::string nobody = it::tickets::create_ticket_id(w);

    EXPECT_EQ(ids(w.shop, "/api/v1/tickets?assignedTo=" + std::to_string(agent)), List{mine});
    EXPECT_EQ(ids(w.shop, "/api/v1/tickets?assignedTo=none"), List{nobody});
    EXPECT_EQ(ids(w.shop, "/api/v1/tickets?assignedTo=0"), List{});
    EXPECT_EQ(ids(w.shop, "/api/v1/tickets?assignedTo=99999999999999999999999"), List{});
    for (const char* bad : {"", "x", "-1", "None", "1.5", "+1"}) {
        EXPECT_TRUE(is_invalid(it::get("/api/v1/tickets?assignedTo=" + encode(bad), w.shop),
                               "Invalid assignedTo"))
            << bad;
    }
}

TEST(Search, TagsRepeatAndAllMustBeThereExactly) {
    const World w = it::tickets::make_world();
    const std::string both = it::tickets::create_ticket_id(
        w, it::object({{"tags", it::tickets::array({"vip", "a\"b/é"})}}));
    const std::string vip =
        it::tickets::create_ticket_id(w, it::object({{"tags", it::tickets::array({"vip"})}}));

    EXPECT_EQ(ids(w.shop, "/api/v1/tickets?tag=vip"), (List{vip, both}));
    EXPECT_EQ(ids(w.shop, "/api/v1/tickets?tag=vip&tag=" + encode("a\"b/é")), List{both});
    EXPECT_EQ(ids(w.shop, "/api/v1/tickets?tag=VIP"), List{});
    EXPECT_EQ(ids(w.shop, "/api/v1/tickets?tag=vi"), List{});
    std::string same, distinct;
    for (int i = 0; i < 200; ++i) {
        same += "&tag=vip";
        distinct += "&tag=t" + std::to_string(i);
    }
    EXPECT_EQ(ids(w.shop, "/api/v1/tickets?limit=5" + same), (List{vip, both}));
    EXPECT_EQ(ids(w.shop, "/api/v1/tickets?limit=5" + distinct), List{});
    EXPECT_TRUE(is_invalid(it::get("/api/v1/tickets?tag=vip&tag=", w.shop), "Invalid tag"));
    EXPECT_TRUE(is_invalid(it::get("/api/v1/tickets?tag", w.shop), "Invalid tag"));
}

// A customer of `shop` with these names, once its words are in the search index (sql/024):
// its id.
std::string named_customer(const it::Shop& shop, const std::string& first,
                           const std::string& last) {
    const std::string id =
        std::to_string(it::create_customer(shop, it::object({{"email", it::unique_email("c")},
                                                             {"first_name", first},
                                                             {"last_name", last}}))["id"]
                           .asInt64());
    it::wait_for_search_index();
    return id;
}

// 3,000 rows of `word` in `table` (ticket_words keyed by conversation_id, customer_words by
// customer_id) of shop for records that do not exist, with ids above every real one: the word
// becomes common (over db/search/plan.h's Tuning::kRareRows) and none of them is ever listed.
// remove_planted_words deletes them again.
void plant_common_word(it::Db& db, const std::string& table, const std::string& id_column,
                       const std::string& word, const std::string& shop) {
    ASSERT_EQ(db.execute("INSERT INTO " + table + " (" + id_column +
                             ", word, shop_id) SELECT 18000000000000000000 + seq, ?, ? "
                             "FROM seq_1_to_3000",
                         {word, shop}),
              0);
}

void remove_planted_words(it::Db& db, const std::string& table, const std::string& id_column,
                          const std::string& shop) {
    db.execute(
        "DELETE FROM " + table + " WHERE shop_id = ? AND " + id_column + " > 18000000000000000000",
        {shop});
}

// The tags the tag filter's index (ticket_tags, sql/014) holds for a ticket, sorted.
std::set<std::string> indexed_tags(const std::string& ticket) {
    std::set<std::string> out;
    it::Db db;
    const int64_t n =
        db.count("SELECT COUNT(*) FROM ticket_tags WHERE conversation_id = ?", {ticket});
    for (int64_t i = 0; i < n; ++i) {
        out.insert(db.scalar("SELECT tag FROM ticket_tags WHERE conversation_id = ? ORDER BY tag "
                             "LIMIT 1 OFFSET " +
                                 std::to_string(i),
                             {ticket})
                       .value_or(""));
    }
    return out;
}

// The tag filter reads its own index (ticket_tags): it follows a ticket's create, each PATCH of
// its tags (tags, addTags, removeTags), a merge of its customer (the ticket moves, its tags
// stay) and an erasure (the ticket and its tags stay, scrubbed of personal data only).
TEST(Search, TheTagIndexFollowsCreatePatchMergeAndErasure) {
    const World w = it::tickets::make_world();
    const std::string mine = it::unique_word("tg");
    const std::string odd = "a\"b/é " + mine;
    const std::string t1 = it::tickets::create_ticket_id(
        w, it::object({{"tags", it::tickets::array({mine, odd, mine})}}));
    const std::string t2 = it::tickets::create_ticket_id(w);
    EXPECT_EQ(indexed_tags(t1), (std::set<std::string>{mine, odd}));
    EXPECT_EQ(indexed_tags(t2), std::set<std::string>{});
    EXPECT_EQ(ids(w.shop, "/api/v1/tickets?tag=" + encode(mine)), List{t1});

    ASSERT_TRUE(it::is_success(
        patch_ticket(w.shop, t2, it::object({{"addTags", it::tickets::array({mine})}})), 200));
    EXPECT_EQ(ids(w.shop, "/api/v1/tickets?tag=" + encode(mine)), (List{t2, t1}));
    ASSERT_TRUE(it::is_success(
        patch_ticket(w.shop, t1, it::object({{"removeTags", it::tickets::array({mine})}})), 200));
    EXPECT_EQ(ids(w.shop, "/api/v1/tickets?tag=" + encode(mine)), List{t2});
    EXPECT_EQ(ids(w.shop, "/api/v1/tickets?tag=" + encode(odd)), List{t1});
    EXPECT_EQ(indexed_tags(t1), std::set<std::string>{odd});
    ASSERT_TRUE(it::is_success(
        patch_ticket(w.shop, t1, it::object({{"tags", it::tickets::array({"x" + mine})}})), 200));
    EXPECT_EQ(ids(w.shop, "/api/v1/tickets?tag=" + encode(odd)), List{});
    EXPECT_EQ(ids(w.shop, "/api/v1/tickets?tag=x" + encode(mine)), List{t1});
    EXPECT_EQ(indexed_tags(t1), std::set<std::string>{"x" + mine});
    ASSERT_TRUE(it::is_success(
        patch_ticket(w.shop, t1, it::object({{"tags", Json::Value(Json::arrayValue)}})), 200));
    EXPECT_EQ(indexed_tags(t1), std::set<std::string>{});
    EXPECT_EQ(ids(w.shop, "/api/v1/tickets?tag=x" + encode(mine)), List{});

    // A merge: t2 moves to the target, found by its tag with the target's customerId.
    const int64_t target = it::tickets::make_customer(w.shop);
    const HttpResponse merged =
        it::post_json("/api/v1/customers/" + std::to_string(target) + "/merge", w.shop,
                      it::object({{"sourceId", Json::Int64(w.customer_id)}}));
    ASSERT_TRUE(it::is_success(merged, 200)) << merged.describe();
    EXPECT_EQ(ids(w.shop,
                  "/api/v1/tickets?tag=" + encode(mine) + "&customerId=" + std::to_string(target)),
              List{t2});
    EXPECT_EQ(indexed_tags(t2), std::set<std::string>{mine});

    // An erasure keeps the tickets and their tags.
    const it::Shop eraser = it::with_erase_key(w.shop);
    const HttpResponse erased =
        it::http("DELETE", "/api/v1/customers/" + std::to_string(target), it::key_header(eraser));
    ASSERT_TRUE(it::is_success(erased, 200)) << erased.describe();
    EXPECT_EQ(ids(w.shop, "/api/v1/tickets?tag=" + encode(mine)), List{t2});
    EXPECT_EQ(indexed_tags(t2), std::set<std::string>{mine});
}

// status reads the HumanTicket's own index by shop (sql/014): another shop's tickets of that
// status are not this shop's, a reopened or closed ticket moves between statuses at once.
TEST(Search, StatusFollowsTheHumanTicketInItsShopOnly) {
    const World w = it::tickets::make_world();
    const World other = it::tickets::make_world();
    const std::string t = it::tickets::create_ticket_id(w, it::object({{"isOpenedTicket", true}}));
    it::tickets::create_ticket_id(other, it::object({{"isOpenedTicket", true}}));
    EXPECT_EQ(ids(w.shop, "/api/v1/tickets?status=OPEN"), List{t});
    ASSERT_TRUE(it::is_success(
        patch_ticket(w.shop, t, it::object({{"HumanTicketStatus", "SOLVED"}})), 200));
    EXPECT_EQ(ids(w.shop, "/api/v1/tickets?status=OPEN"), List{});
    EXPECT_EQ(ids(w.shop, "/api/v1/tickets?status=PENDING,SOLVED"), List{t});
    it::Db db;
    EXPECT_EQ(db.count("SELECT COUNT(*) FROM human_tickets h JOIN conversations c "
                       "ON c.id = h.conversation_id WHERE h.shop_id <> c.shop_id AND c.id = ?",
                       {t}),
              0);
}

// When every filter with an index of its own is common (over 3,000 rows: sql/014,
// db/search/plan.h), the newest 1,000 tickets are checked first and the page goes on from the
// rarest filter's rows: the same tickets, newest first, page after page. Planted: 3,000 rows of
// each word for tickets that do not exist (they count, and are never listed) and 1,100 tickets
// between the two that match.
TEST(Search, CommonWordsSeldomTogetherPageExactlyPastTheNewestThousand) {
    const World w = it::tickets::make_world();
    const std::string a = it::unique_word("qa"), b = it::unique_word("qb");
    const std::string old = it::tickets::create_ticket_id(w, it::object({{"name", a + " " + b}}));
    const std::string only_a = it::tickets::create_ticket_id(w, it::object({{"name", a}}));
    it::Db db;
    const std::string shop = std::to_string(w.shop.id);
    for (const std::string& word : {a, b}) {
        plant_common_word(db, "ticket_words", "conversation_id", word, shop);
    }
    ASSERT_EQ(db.execute("INSERT INTO conversations (shop_id, customer_id, channel, date, "
                         "last_message_time, tags, created_at) SELECT ?, ?, 'Mail', "
                         "UTC_TIMESTAMP(3), UTC_TIMESTAMP(3), '[]', UTC_TIMESTAMP(3) "
                         "FROM seq_1_to_1100",
                         {shop, std::to_string(w.customer_id)}),
              0);
    const std::string only_b = it::tickets::create_ticket_id(w, it::object({{"name", b}}));
    const std::string recent =
        it::tickets::create_ticket_id(w, it::object({{"name", b + " x " + a}}));

    const std::string q = "/api/v1/tickets?q=" + a + "+" + b;
    EXPECT_EQ(ids(w.shop, q), (List{recent, old}));
    EXPECT_EQ(ids(w.shop, q + "&Channel=Mail&status=none"), (List{recent, old}));
    EXPECT_EQ(ids(w.shop, q + "&status=OPEN"), List{});
    const HttpResponse first = it::get(q + "&limit=1", w.shop);
    ASSERT_TRUE(it::is_success(first, 200)) << first.describe();
    ASSERT_EQ(first.json()["tickets"].size(), 1u);
    EXPECT_EQ(first.json()["tickets"][0]["id"].asString(), recent);
    const std::string cursor = first.json()["nextCursor"].asString();
    const HttpResponse second = it::get(q + "&limit=1&cursor=" + cursor, w.shop);
    ASSERT_TRUE(it::is_success(second, 200)) << second.describe();
    ASSERT_EQ(second.json()["tickets"].size(), 1u);
    EXPECT_EQ(second.json()["tickets"][0]["id"].asString(), old);
    EXPECT_TRUE(second.json()["nextCursor"].isNull());
    EXPECT_EQ(ids(w.shop, "/api/v1/tickets?q=" + a), (List{recent, only_a, old}));
    EXPECT_EQ(ids(w.shop, "/api/v1/tickets?q=" + b), (List{recent, only_b, old}));
    remove_planted_words(db, "ticket_words", "conversation_id", shop);
}

// Past the scan window, common words are read one window of ticket ids at a time, from the
// window's floor down (10,000 ids, then 40,000, ...: ticket_repo.cpp), each word as the list
// of the shop's words it starts (its forms) or, with more than 16 forms, as 'word%'. Planted:
// 3,000 rows of each word for tickets that do not exist (so the words are common), `mid`
// 1,100 tickets below the newest, `old` 15,000 tickets below `mid` (a later window), and a
// word `c` with 17 forms, of which `mid` has the second and `old` the last.
TEST(Search, PastTheScanWindowCommonWordsAreReadWindowByWindowInEveryForm) {
    const World w = it::tickets::make_world();
    const std::string a = it::unique_word("wa"), b = it::unique_word("wb"),
                      c = it::unique_word("wc");
    it::Db db;
    const std::string shop = std::to_string(w.shop.id);
    const auto add_tickets = [&](int n) {
        ASSERT_EQ(db.execute("INSERT INTO conversations (shop_id, customer_id, channel, date, "
                             "last_message_time, tags, created_at) SELECT ?, ?, 'Mail', "
                             "UTC_TIMESTAMP(3), UTC_TIMESTAMP(3), '[]', UTC_TIMESTAMP(3) "
                             "FROM seq_1_to_" +
                                 std::to_string(n),
                             {shop, std::to_string(w.customer_id)}),
                  0);
    };
    const std::string old =
        it::tickets::create_ticket_id(w, it::object({{"name", a + "s " + b + " " + c + "q"}}));
    add_tickets(15000);
    const std::string mid =
        it::tickets::create_ticket_id(w, it::object({{"name", a + " " + b + " " + c + "b"}}));
    add_tickets(1100);
    for (const std::string& word : {a, b, c + "a"}) {
        plant_common_word(db, "ticket_words", "conversation_id", word, shop);
    }
    for (char form = 'c'; form < 'q'; ++form) {
        ASSERT_EQ(db.execute("INSERT INTO ticket_words (conversation_id, word, shop_id) "
                             "VALUES (18000000000000000001, ?, ?)",
                             {c + form, shop}),
                  0);
    }
    ASSERT_EQ(db.count("SELECT COUNT(DISTINCT word) FROM ticket_words WHERE shop_id = ? "
                       "AND word LIKE CONCAT(?, '%')",
                       {shop, c}),
              17);

    // a's forms are a and as: old is found by the second, two windows down.
    const std::string q = "/api/v1/tickets?q=" + a + "+" + b;
    EXPECT_EQ(ids(w.shop, q), (List{mid, old}));
    // With the ticket's own columns, each window is first checked for a ticket having them.
    EXPECT_EQ(ids(w.shop, q + "&Channel=Mail"), (List{mid, old}));
    EXPECT_EQ(ids(w.shop, q + "&Channel=Mail&assignedTo=none"), (List{mid, old}));
    EXPECT_EQ(ids(w.shop, q + "&customerId=" + std::to_string(w.customer_id)), (List{mid, old}));
    EXPECT_EQ(ids(w.shop, q + "&Channel=Chat"), List{});
    const HttpResponse first = it::get(q + "&limit=1", w.shop);
    ASSERT_TRUE(it::is_success(first, 200)) << first.describe();
    ASSERT_EQ(first.json()["tickets"].size(), 1u);
    EXPECT_EQ(first.json()["tickets"][0]["id"].asString(), mid);
    const HttpResponse second =
        it::get(q + "&limit=1&cursor=" + first.json()["nextCursor"].asString(), w.shop);
    ASSERT_TRUE(it::is_success(second, 200)) << second.describe();
    ASSERT_EQ(second.json()["tickets"].size(), 1u);
    EXPECT_EQ(second.json()["tickets"][0]["id"].asString(), old);
    EXPECT_TRUE(second.json()["nextCursor"].isNull());
    // c has 17 forms (LIKE): mid's is the second, old's the last.
    EXPECT_EQ(tickets_q(w.shop, a + " " + c), (List{mid, old}));
    EXPECT_EQ(tickets_q(w.shop, b + " " + c + " " + a), (List{mid, old}));
    // One common word alone, and with a word of the planted rows only.
    EXPECT_EQ(tickets_q(w.shop, b), (List{mid, old}));
    EXPECT_EQ(tickets_q(w.shop, b + " " + c + "a"), List{});
    remove_planted_words(db, "ticket_words", "conversation_id", shop);
}

// The same for customers: `mid` 1,100 customers below the newest, `old` 15,000 below it, two
// common words (3,000 planted rows each), of which old has the second form of one.
TEST(Search, PastTheScanWindowCustomersAreReadWindowByWindowInEveryForm) {
    const World w = it::tickets::make_world();
    const std::string a = it::unique_word("xa"), b = it::unique_word("xb");
    it::Db db;
    const std::string shop = std::to_string(w.shop.id);
    const auto add_customers = [&](int n) {
        ASSERT_EQ(db.execute("INSERT INTO customers (shop_id, created_at) SELECT ?, "
                             "UTC_TIMESTAMP(3) FROM seq_1_to_" +
                                 std::to_string(n),
                             {shop}),
                  0);
    };
    const std::string old = named_customer(w.shop, a + "s", b);
    add_customers(15000);
    const std::string mid = named_customer(w.shop, b, a);
    add_customers(1100);
    for (const std::string& word : {a, b}) {
        plant_common_word(db, "customer_words", "customer_id", word, shop);
    }
    EXPECT_EQ(customers_q(w.shop, a + " " + b), (List{mid, old}));
    EXPECT_EQ(customers_q(w.shop, b + " " + a + " " + b), (List{mid, old}));
    EXPECT_EQ(customers_q(w.shop, a), (List{mid, old}));
    const std::string path = "/api/v1/customers?limit=1&q=" + encode(a + " " + b);
    const HttpResponse first = it::get(path, w.shop);
    ASSERT_TRUE(it::is_success(first, 200)) << first.describe();
    ASSERT_EQ(first.json()["customers"].size(), 1u);
    EXPECT_EQ(std::to_string(first.json()["customers"][0]["id"].asInt64()), mid);
    const HttpResponse second =
        it::get(path + "&cursor=" + first.json()["nextCursor"].asString(), w.shop);
    ASSERT_TRUE(it::is_success(second, 200)) << second.describe();
    ASSERT_EQ(second.json()["customers"].size(), 1u);
    EXPECT_EQ(std::to_string(second.json()["customers"][0]["id"].asInt64()), old);
    EXPECT_TRUE(second.json()["nextCursor"].isNull());
    remove_planted_words(db, "customer_words", "customer_id", shop);
}

// The same for customers: two common words (3,000 planted rows each, for customers that do not
// exist) and 1,100 customers between the two that have both.
TEST(Search, CustomersWithCommonWordsSeldomTogetherPageExactly) {
    const World w = it::tickets::make_world();
    const std::string a = it::unique_word("ca"), b = it::unique_word("cb");
    const std::string old = named_customer(w.shop, a, b);
    const std::string only_a = named_customer(w.shop, a, "x");
    it::Db db;
    const std::string shop = std::to_string(w.shop.id);
    for (const std::string& word : {a, b}) {
        plant_common_word(db, "customer_words", "customer_id", word, shop);
    }
    ASSERT_EQ(db.execute("INSERT INTO customers (shop_id, created_at) SELECT ?, UTC_TIMESTAMP(3) "
                         "FROM seq_1_to_1100",
                         {shop}),
              0);
    const std::string recent = named_customer(w.shop, b, a);
    EXPECT_EQ(customers_q(w.shop, a + " " + b), (List{recent, old}));
    EXPECT_EQ(customers_q(w.shop, a), (List{recent, only_a, old}));
    const HttpResponse first =
        it::get("/api/v1/customers?limit=1&q=" + encode(a + " " + b), w.shop);
    ASSERT_TRUE(it::is_success(first, 200)) << first.describe();
    const HttpResponse second = it::get("/api/v1/customers?limit=1&q=" + encode(a + " " + b) +
                                            "&cursor=" + first.json()["nextCursor"].asString(),
                                        w.shop);
    ASSERT_TRUE(it::is_success(second, 200)) << second.describe();
    ASSERT_EQ(second.json()["customers"].size(), 1u);
    EXPECT_EQ(std::to_string(second.json()["customers"][0]["id"].asInt64()), old);
    EXPECT_TRUE(second.json()["nextCursor"].isNull());
    remove_planted_words(db, "customer_words", "customer_id", shop);
}

TEST(Search, ChannelIsExact) {
    const World w = it::tickets::make_world();
    const std::string mail = it::tickets::create_ticket_id(w);  // Channel "Mail"
    EXPECT_EQ(ids(w.shop, "/api/v1/tickets?Channel=Mail"), List{mail});
    EXPECT_EQ(ids(w.shop, "/api/v1/tickets?Channel=mail"), List{});
    EXPECT_EQ(ids(w.shop, "/api/v1/tickets?Channel=%FF"), List{});
}

TEST(Search, QFindsWordStartsAnywhereInNameAndComments) {
    const World w = it::tickets::make_world();
    const std::string t = it::tickets::create_ticket_id(
        w, it::object({{"name", "Lieferung an Herrn MÜLLER: ΟΔΟΣ 12"}}));
    const std::string other = it::tickets::create_ticket_id(w, it::object({{"name", "Other"}}));
    add_indexed_comment(w.shop, t,
                        it::object({{"text",
                                     "The parcel will arrive about tomorrow, "
                                     "don't worry (ref_4711)"}}));

    EXPECT_EQ(tickets_q(w.shop, "müller"), List{t});
    EXPECT_EQ(tickets_q(w.shop, "Müll"), List{t});
    EXPECT_EQ(tickets_q(w.shop, "οδος"), List{t}) << "final sigma folds like sigma";
    EXPECT_EQ(tickets_q(w.shop, "the will about"), List{t}) << "no stop words";
    EXPECT_EQ(tickets_q(w.shop, "lieferung TOMORROW"), List{t}) << "name and comment";
    EXPECT_EQ(tickets_q(w.shop, "an parcel"), List{t}) << "words under 3 characters ignored";
    EXPECT_EQ(tickets_q(w.shop, "don"), List{t});
    EXPECT_EQ(tickets_q(w.shop, "dont"), List{}) << "' separates words";
    EXPECT_EQ(tickets_q(w.shop, "ref"), List{t});
    EXPECT_EQ(tickets_q(w.shop, "4711"), List{t}) << "_ separates words";
    EXPECT_EQ(tickets_q(w.shop, "arcel"), List{}) << "a word's start, not its middle";
    EXPECT_EQ(tickets_q(w.shop, "parcel nothere"), List{}) << "every word must match";
    EXPECT_EQ(tickets_q(w.shop, "other"), List{other});
    // FULLTEXT and SQL operators are text: only the words count.
    EXPECT_EQ(tickets_q(w.shop, "+parcel -tomorrow \"arrive\" worr* @3 ~the (don) <>"), List{t});
    EXPECT_EQ(tickets_q(w.shop, "'; DROP TABLE messages; -- parcel"), List{});
    EXPECT_EQ(tickets_q(w.shop, "parcel%"), List{t});
    EXPECT_EQ(tickets_q(w.shop, "p_rcel"), List{}) << "_ is no wildcard: p, rcel";
}

TEST(Search, QWithoutALongWordIs400) {
    const World w = it::tickets::make_world();
    for (const char* q : {"", "ab", "a b c", "...,;!?", "+-\"*@~()", "ab-cd ef"}) {
        EXPECT_TRUE(is_invalid(it::get("/api/v1/tickets?q=" + encode(q), w.shop),
                               "q needs a word of at least 3 characters"))
            << q;
        EXPECT_TRUE(is_invalid(it::get("/api/v1/customers?q=" + encode(q), w.shop),
                               "q needs a word of at least 3 characters"))
            << q;
    }
}

TEST(Search, LongAndManyWordedQueriesAnswer) {
    const World w = it::tickets::make_world();
    const std::string t = it::tickets::create_ticket_id(w, it::object({{"name", "alpha beta"}}));
    std::string words;
    for (int i = 0; i < 1000; ++i) {
        words += (i % 2 ? "alpha " : "beta ");
    }
    EXPECT_EQ(tickets_q(w.shop, words), List{t});
    std::string distinct = "alpha";
    for (int i = 0; i < 1000; ++i) {
        distinct += " w" + std::to_string(i) + "x";
    }
    EXPECT_EQ(tickets_q(w.shop, distinct), List{});
    // 10,000 characters, percent-encoded (the request line's 32k, nginx/supportcrm.conf, hold
    // 10,000 characters of 3 bytes each): one long word, words, punctuation, operators as text.
    EXPECT_EQ(tickets_q(w.shop, std::string(10000, 'a')), List{});
    EXPECT_EQ(tickets_q(w.shop, std::string(9995, '.') + "alpha"), List{t});
    std::string many;
    while (many.size() < 10000) {
        many += "+alpha -beta \"(alp*)\" @be ~";
    }
    many.resize(10000);
    EXPECT_EQ(tickets_q(w.shop, many), List{t});
    EXPECT_EQ(customers_q(w.shop, many), List{});
    for (const char* path : {"/api/v1/tickets?q=", "/api/v1/customers?q="}) {
        EXPECT_TRUE(is_invalid(it::get(path + encode(std::string(10000, '+')), w.shop),
                               "q needs a word of at least 3 characters"));
        EXPECT_TRUE(is_invalid(
            it::get(path + encode(std::string(5000, '(') + std::string(5000, ')')), w.shop),
            "q needs a word of at least 3 characters"));
    }
}

TEST(Search, ACommittedCommentIsFoundAtOnce) {
    const World w = it::tickets::make_world();
    const std::string t = it::tickets::create_ticket_id(w);
    for (int i = 0; i < 5; ++i) {
        const std::string word = "fresh" + it::unique_suffix() + "w" + std::to_string(i);
        add_indexed_comment(w.shop, t, it::object({{"text", "see " + word}}));
        EXPECT_EQ(tickets_q(w.shop, word), List{t}) << word;
    }
}

// A comment writes only the words its ticket has no comment row for (db/comment_sql.h,
// message_insert): repeated words are not written again, a name's word becomes a comment's.
TEST(Search, ACommentAddsTheWordsItsTicketLacksAndKeepsTheOthers) {
    const World w = it::tickets::make_world();
    std::string tag = it::unique_suffix();  // one word with each of them: letters and digits only
    std::erase_if(tag, [](char ch) { return !std::isalnum(static_cast<unsigned char>(ch)); });
    const std::string t =
        it::tickets::create_ticket_id(w, it::object({{"name", "Named" + tag + " only"}}));
    add_indexed_comment(w.shop, t, it::object({{"text", "alpha" + tag + " beta" + tag}}));
    add_indexed_comment(w.shop, t,
                        it::object({{"text", "BETA" + tag + " alpha" + tag + " again" + tag}}));
    add_indexed_comment(
        w.shop, t, it::object({{"text", "named" + tag + " gamma" + tag}, {"isFromShop", false}}));
    it::Db db;
    const std::string rows =
        "SELECT COUNT(*) FROM ticket_words WHERE conversation_id = ? AND word >= '0'";
    EXPECT_EQ(db.count(rows + " AND in_comments = 1", {t}), 5) << "alpha beta again named gamma";
    EXPECT_EQ(db.count(rows + " AND in_comments = 0", {t}), 1) << "only";
    for (const std::string word : {"alpha", "beta", "gamma", "again"}) {
        EXPECT_EQ(tickets_q(w.shop, word + tag), List{t}) << word;
    }
    ASSERT_TRUE(it::is_success(patch_ticket(w.shop, t, it::object({{"name", "Other"}})), 200));
    EXPECT_EQ(tickets_q(w.shop, "named" + tag), List{t}) << "the comment has it too";
    EXPECT_EQ(tickets_q(w.shop, "only"), List{});
}

// Every word starts with a letter or digit (>= '0'); sql/016's list rows of a ticket had keys
// below that ('' and "\x01<comment id>"). Nothing writes them since the indexer (sql/023).
constexpr const char* kListRows = "FROM ticket_words WHERE conversation_id = ? AND word < '0'";

int64_t list_rows(it::Db& db, const std::string& ticket) {
    return db.count(std::string("SELECT COUNT(*) ") + kListRows, {ticket});
}

// Comment n's k-th word (n, k < 26), unique to the test run: letters and digits only.
std::string nth_word(const std::string& tag, int n, int k) {
    return tag + static_cast<char>('a' + n) + static_cast<char>('a' + k);
}

// Each word of a ticket once, however many of its comments repeat it: a comment's words the
// ticket has already are found by the indexer's upsert, not written again; none is missed.
TEST(Search, EveryCommentsWordsAreWrittenOnceAndFound) {
    const World w = it::tickets::make_world();
    const std::string tag = it::unique_word("kw");
    const std::string t = it::tickets::create_ticket_id(w);
    const auto text = [&](int n) {
        std::string out = "shared" + tag;  // a word every comment repeats
        for (int k = 0; k < 12; ++k) {
            out += " " + nth_word(tag, n, k);
        }
        return out;
    };
    constexpr int kComments = 24;
    it::Db db;
    const std::string rows =
        "SELECT COUNT(*) FROM ticket_words WHERE conversation_id = ? AND word >= '0' "
        "AND in_comments = 1";
    for (int n = 0; n < kComments; ++n) {
        add_indexed_comment(w.shop, t, it::object({{"text", text(n)}, {"isFromShop", n % 2 == 1}}));
        EXPECT_EQ(db.count(rows, {t}), 1 + 12 * (n + 1)) << "each word once, after comment " << n;
    }
    EXPECT_EQ(list_rows(db, t), 0) << "no list of known words";
    for (int n : {0, 1, 7, 8, 12, kComments - 1}) {
        for (int k : {0, 11}) {
            EXPECT_EQ(tickets_q(w.shop, nth_word(tag, n, k)), List{t}) << n << " " << k;
        }
    }
    // A comment of old words, one of them in another case, and one new word.
    add_indexed_comment(
        w.shop, t,
        it::object({{"text", nth_word(tag, 0, 5) + " " + nth_word(tag, kComments - 1, 5) + " " +
                                 nth_word(tag, 25, 25) + " " + "SHARED" + tag}}));
    EXPECT_EQ(db.count(rows, {t}), 1 + 12 * kComments + 1) << "only the new word was added";
    EXPECT_EQ(tickets_q(w.shop, nth_word(tag, 25, 25) + " shared" + tag), List{t});
}

// Comments on one ticket at the same time, indexed in one batch or in several: no word is lost,
// none is doubled.
TEST(Search, ConcurrentCommentsOnOneTicketLoseNoWord) {
    const World w = it::tickets::make_world();
    const std::string tag = it::unique_word("cc");
    const std::string t = it::tickets::create_ticket_id(w);
    constexpr int kWriters = 4;
    constexpr int kCommentsEach = 6;
    std::vector<int> failed(kWriters, 0);
    std::vector<std::thread> writers;
    for (int i = 0; i < kWriters; ++i) {
        writers.emplace_back([&, i] {
            for (int k = 0; k < kCommentsEach; ++k) {
                const std::string words = "both" + tag + " " + nth_word(tag, i, k) + " " +
                                          nth_word(tag, i, k + kCommentsEach);
                const HttpResponse r = it::http(
                    "POST", it::tickets::comments_path(t), it::json_headers(w.shop),
                    it::to_json(it::object({{"text", words}, {"isFromShop", k % 2 == 1}})));
                failed[i] += r.status == 201 ? 0 : 1;
            }
        });
    }
    for (std::thread& writer : writers) {
        writer.join();
    }
    EXPECT_EQ(failed, std::vector<int>(kWriters, 0));
    it::wait_for_search_index();
    it::Db db;
    EXPECT_EQ(db.count("SELECT COUNT(*) FROM ticket_words WHERE conversation_id = ? "
                       "AND word >= '0' AND in_comments = 1",
                       {t}),
              1 + kWriters * kCommentsEach * 2);
    for (int i = 0; i < kWriters; ++i) {
        for (int k = 0; k < 2 * kCommentsEach; ++k) {
            EXPECT_EQ(tickets_q(w.shop, nth_word(tag, i, k) + " both" + tag), List{t}) << i << k;
        }
    }
}

TEST(Search, ANewNameReplacesTheNamesWordsButNotTheComments) {
    const World w = it::tickets::make_world();
    const std::string t =
        it::tickets::create_ticket_id(w, it::object({{"name", "Broken zipper shared"}}));
    add_indexed_comment(w.shop, t, it::object({{"text", "shared words stay"}}));
    ASSERT_TRUE(
        it::is_success(patch_ticket(w.shop, t, it::object({{"name", "Refund requested"}})), 200));
    EXPECT_EQ(tickets_q(w.shop, "zipper"), List{});
    EXPECT_EQ(tickets_q(w.shop, "refund"), List{t});
    EXPECT_EQ(tickets_q(w.shop, "shared"), List{t}) << "also in a comment";
    ASSERT_TRUE(
        it::is_success(patch_ticket(w.shop, t, it::object({{"name", Json::Value()}})), 200));
    EXPECT_EQ(tickets_q(w.shop, "refund"), List{});
}

TEST(Search, FiltersCombineWithEachOtherAndWithE3) {
    const World w = it::tickets::make_world();
    const int64_t other_customer = it::tickets::make_customer(w.shop);
    const int64_t agent = it::tickets::make_user(w.shop, it::unique_email("agent"));
    const Json::Value tags = it::tickets::array({"vip"});
    const std::string match =
        it::tickets::create_ticket_id(w, it::object({{"name", "combined search"},
                                                     {"tags", tags},
                                                     {"isOpenedTicket", true},
                                                     {"assigned_to", Json::Int64(agent)}}));
    it::tickets::create_ticket_id(w, it::object({{"name", "combined search"}, {"tags", tags}}));
    it::tickets::create_ticket_id(w, it::object({{"name", "combined"},
                                                 {"isOpenedTicket", true},
                                                 {"tags", tags},
                                                 {"assigned_to", Json::Int64(agent)}}));
    it::tickets::create_ticket(w.shop, it::object({{"customerId", Json::Int64(other_customer)},
                                                   {"Channel", "Mail"},
                                                   {"name", "combined search"},
                                                   {"tags", tags},
                                                   {"isOpenedTicket", true},
                                                   {"assigned_to", Json::Int64(agent)}}));
    const std::string all = "&status=OPEN&tag=vip&assignedTo=" + std::to_string(agent) +
                            "&customerId=" + std::to_string(w.customer_id) +
                            "&updatedSince=2020-01-01";
    EXPECT_EQ(tickets_q(w.shop, "search combined", all + "&Channel=Mail"), List{match});
    EXPECT_EQ(tickets_q(w.shop, "search", all + "&Channel=Chat"), List{});
}

TEST(Search, CursorsPageWithinTheirFiltersOnly) {
    const World w = it::tickets::make_world();
    std::vector<std::string> made;
    for (int i = 0; i < 5; ++i) {
        made.push_back(it::tickets::create_ticket_id(w, it::object({{"name", "paging word"}})));
    }
    it::tickets::create_ticket_id(w, it::object({{"name", "unrelated"}}));
    // Every page of q=paging, two at a time: the five, newest first, once each.
    std::vector<std::string> seen;
    std::string path = "/api/v1/tickets?q=paging&limit=2";
    std::string cursor;
    for (int page = 0; page < 10; ++page) {
        const HttpResponse r = it::get(path + (cursor.empty() ? "" : "&cursor=" + cursor), w.shop);
        ASSERT_TRUE(it::is_success(r, 200)) << r.describe();
        for (const Json::Value& t : r.json()["tickets"]) {
            seen.push_back(t["id"].asString());
        }
        if (r.json()["nextCursor"].isNull()) {
            break;
        }
        cursor = r.json()["nextCursor"].asString();
    }
    EXPECT_EQ(seen, (List{made.rbegin(), made.rend()}));

    const HttpResponse first = it::get("/api/v1/tickets?q=paging&limit=2", w.shop);
    const std::string c = first.json()["nextCursor"].asString();
    EXPECT_TRUE(
        it::is_success(it::get("/api/v1/tickets?q=PAGING+pag&limit=3&cursor=" + c, w.shop), 200))
        << "the same words, written otherwise, are the same filter";
    for (const std::string other : {"q=word", "q=paging&status=none", "q=paging&tag=x",
                                    "q=paging&Channel=Mail", "q=paging&assignedTo=none", ""}) {
        EXPECT_TRUE(is_invalid(
            it::get("/api/v1/tickets?" + other + (other.empty() ? "" : "&") + "cursor=" + c,
                    w.shop),
            "Invalid cursor"))
            << other;
    }
    const HttpResponse e3 = it::get("/api/v1/tickets?limit=1", w.shop);
    EXPECT_TRUE(is_invalid(
        it::get("/api/v1/tickets?q=paging&cursor=" + e3.json()["nextCursor"].asString(), w.shop),
        "Invalid cursor"));
}

TEST(Search, CustomersByEmailPhoneAndNames) {
    const it::Shop shop = it::make_shop();
    const std::string tag = it::unique_suffix();
    const Json::Value c =
        it::create_customer(shop, it::object({{"email", "Anna.Schmidt" + tag + "@Beispiel.example"},
                                              {"phone_number", "+49 1701234567"},
                                              {"first_name", "Änna"},
                                              {"last_name", "ŠMIDT"}}));
    const std::string id = std::to_string(c["id"].asInt64());
    it::create_customer(shop, it::object({{"email", "other" + tag + "@x.example"}}));

    EXPECT_EQ(customers_q(shop, "anna.schmidt" + tag), List{id});
    EXPECT_EQ(customers_q(shop, "BEISPIEL"), List{id});
    EXPECT_EQ(customers_q(shop, "1701"), List{id});
    EXPECT_EQ(customers_q(shop, "änna šmidt"), List{id}) << "first_name, last_name, full_name";
    EXPECT_EQ(customers_q(shop, "anna nobody"), List{});
    EXPECT_EQ(customers_q(shop, "example").size(), 2u);
    for (const char* other : {"email=a%40b.example", "phone_number=1", "storefront_id=x"}) {
        EXPECT_TRUE(is_invalid(it::get("/api/v1/customers?q=anna&" + std::string(other), shop),
                               "Use only one of email, phone_number, storefront_id, q"))
            << other;
    }
    // A PATCH changes what finds the customer.
    ASSERT_TRUE(it::is_success(
        it::http("PATCH", "/api/v1/customers/" + id, it::json_headers(shop),
                 it::to_json(it::object({{"last_name", "Weber"}, {"full_name", Json::Value()}}))),
        200));
    EXPECT_EQ(customers_q(shop, "šmidt"), List{});
    EXPECT_EQ(customers_q(shop, "weber änna"), List{id});
}

TEST(Search, AMergeMovesTheWordsToTheTarget) {
    const it::Shop shop = it::make_shop();
    const std::string tag = it::unique_suffix();
    const int64_t target =
        it::create_customer(shop, it::object({{"email", "target" + tag + "@x.example"}}))["id"]
            .asInt64();
    const int64_t source =
        it::create_customer(shop, it::object({{"email", "source" + tag + "@x.example"},
                                              {"first_name", "Quirin"}}))["id"]
            .asInt64();
    const HttpResponse r = it::post_json("/api/v1/customers/" + std::to_string(target) + "/merge",
                                         shop, it::object({{"sourceId", Json::Int64(source)}}));
    ASSERT_TRUE(it::is_success(r, 200)) << r.describe();
    EXPECT_EQ(customers_q(shop, "quirin"), List{std::to_string(target)})
        << "the target took the source's first_name";
    EXPECT_EQ(customers_q(shop, "source" + tag), List{}) << "the target kept its own email";
}

TEST(Search, AnErasureLeavesNoWordOfTheCustomer) {
    const World w = it::tickets::make_world();
    const it::Shop eraser = it::with_erase_key(w.shop);
    // One word, whatever the suffix: unique_suffix()'s "-" would split it, into a third word
    // once its counter has three digits (a whole run in one process, as the Prism check's).
    const std::string word = it::unique_word("secret");
    const std::string t =
        it::tickets::create_ticket_id(w, it::object({{"name", "About " + word + "name"}}));
    add_indexed_comment(w.shop, t, it::object({{"text", "my " + word + "comment"}}));
    ASSERT_EQ(tickets_q(w.shop, word), List{t});
    ASSERT_EQ(customers_q(w.shop, "ann lee").size(), 1u);
    it::Db db;
    ASSERT_EQ(db.count("SELECT COUNT(*) FROM ticket_words WHERE conversation_id = ? AND word = ? "
                       "AND in_comments = 1",
                       {t, word + "comment"}),
              1)
        << "the comment's word is there";

    const HttpResponse r = it::http("DELETE", "/api/v1/customers/" + std::to_string(w.customer_id),
                                    it::key_header(eraser));
    ASSERT_TRUE(it::is_success(r, 200)) << r.describe();
    EXPECT_EQ(tickets_q(w.shop, word), List{});
    EXPECT_EQ(customers_q(w.shop, "ann lee"), List{});
    EXPECT_EQ(db.count("SELECT COUNT(*) FROM ticket_words WHERE conversation_id = ?", {t}), 0)
        << "no word, and no list of them either";
    EXPECT_EQ(db.count("SELECT COUNT(*) FROM customer_words WHERE customer_id = ?",
                       {std::to_string(w.customer_id)}),
              0);
}

// What was stored before the index (a comment written behind the service's back, as by a
// release before sql/012) gets its words from the re-index walk of `supportcrm-admin migrate`
// (sql/012 has no backfill of its own: sql/018's walk, bounded batches, does it), folded as
// the service folds.
TEST(Search, TheMigratesWalkIndexesWhatWasStoredBeforeTheIndex) {
    const World w = it::tickets::make_world();
    const std::string t = it::tickets::create_ticket_id(w);
    it::tickets::PlantedMessage m;
    m.conversation_id = t;
    m.text = "Überweisung an MÜLLER-ΟΔΟΣ: don't_stop ref²x";
    it::tickets::plant_message(m);
    EXPECT_EQ(tickets_q(w.shop, "überweisung"), List{}) << "not written by the service";
    const std::string sql012 = it::read_file(std::string(SUPPORTCRM_SQL_DIR) + "/012_search.sql");
    EXPECT_EQ(sql012.find("\nINSERT"), std::string::npos)
        << "sql/012 fills the tables in one statement again (it held every comment's lock)";

    it::Db db;
    db.execute("UPDATE search_reindex SET done_through = ?, finished_at = NULL WHERE name = ?",
               {std::to_string(std::stoull(t) - 1), std::string("tickets")});
    const Json::Value done = it::admin({"migrate"});
    EXPECT_GE(done["reindexed"]["tickets"].asUInt64(), 1u) << it::to_json(done);
    db.execute("UPDATE search_reindex SET recheck = 0", {});  // not this suite's business
    for (const char* q : {"überweisung", "ÜBERW", "müller", "οδος", "don", "stop", "ref"}) {
        EXPECT_EQ(tickets_q(w.shop, q), List{t}) << q;
    }
    EXPECT_EQ(tickets_q(w.shop, "dont"), List{});
}

std::vector<std::string> sorted(std::vector<std::string> v) {
    std::sort(v.begin(), v.end());
    return v;
}

// extensions.md §E10 v1.3: the words of the text after NFKC_Casefold, stored and asked alike.
TEST(Search, NormalizedAndFullyCaseFoldedSpellingsFindEachOther) {
    const World w = it::tickets::make_world();
    const std::string nfd =
        it::tickets::create_ticket_id(w, it::object({{"name", "Cours d'e\u0301cole"}}));
    const std::string nfc = it::tickets::create_ticket_id(w, it::object({{"name", "Other"}}));
    add_indexed_comment(w.shop, nfc, it::object({{"text", "Rentrée à l'\u00e9cole"}}));
    const std::string upper = it::tickets::create_ticket_id(w, it::object({{"name", "Other"}}));
    add_indexed_comment(w.shop, upper, it::object({{"text", "HAUPTSTRASSE 5"}}));
    const std::string sharp = it::tickets::create_ticket_id(w, it::object({{"name", "Straße"}}));
    const std::string ligature =
        it::tickets::create_ticket_id(w, it::object({{"name", "\ufb01nance report"}}));

    for (const char* q : {"\u00e9cole", "e\u0301cole", "\u00c9COLE"}) {
        EXPECT_EQ(sorted(tickets_q(w.shop, q)), sorted({nfd, nfc})) << q;
    }
    EXPECT_EQ(tickets_q(w.shop, "straße"), List{sharp}) << "a word's start: not hauptstrasse";
    EXPECT_EQ(tickets_q(w.shop, "STRASSE"), List{sharp});
    EXPECT_EQ(tickets_q(w.shop, "hauptstraße"), List{upper});
    EXPECT_EQ(tickets_q(w.shop, "finance"), List{ligature});
    EXPECT_EQ(tickets_q(w.shop, "\ufb01n"), List{ligature}) << "ﬁn is fin: 3 characters";
    EXPECT_EQ(tickets_q(w.shop, "ＦＩＮＡＮＣＥ"), List{ligature}) << "full-width";

    const std::string c = named_customer(w.shop, "Straße", "E\u0301COLE");
    EXPECT_EQ(customers_q(w.shop, "STRASSE"), List{c});
    EXPECT_EQ(customers_q(w.shop, "strasse \u00e9cole"), List{c});
}

// sql/018's re-index (db/search/reindex.cpp, run by `supportcrm-admin migrate`): words stored
// by the old rule (no normalization, simple folding: "straße", NFD "e\u0301cole" as "cole",
// "ﬁnance") are rewritten by the new one. The progress is set back to just before this test's
// records, as a migrate cut short there would leave it: the next migrate goes on from there.
TEST(Search, TheReindexRewritesWordsStoredByTheOldRule) {
    const World w = it::tickets::make_world();
    const std::string word = it::unique_word("reidx");
    const std::string t =
        it::tickets::create_ticket_id(w, it::object({{"name", "Straße " + word}}));
    add_indexed_comment(w.shop, t, it::object({{"text", "e\u0301cole \ufb01nance"}}));
    const std::string c = named_customer(w.shop, "Straße", word);
    it::Db db;
    db.execute("DELETE FROM ticket_words WHERE conversation_id = ?", {t});
    ASSERT_EQ(db.execute("INSERT INTO ticket_words (conversation_id, word, shop_id, in_comments) "
                         "VALUES (?, 'straße', ?, 0), (?, ?, ?, 0), (?, 'cole', ?, 1), "
                         "(?, '\ufb01nance', ?, 1)",
                         {t, std::to_string(w.shop.id), t, word, std::to_string(w.shop.id), t,
                          std::to_string(w.shop.id), t, std::to_string(w.shop.id)}),
              0);
    // sql/016's list rows, as a ticket from before the indexer has them.
    ASSERT_EQ(db.execute("INSERT INTO ticket_words (conversation_id, word, shop_id, in_comments, "
                         "known_words) VALUES (?, '', ?, 1, 'cole'), "
                         "(?, CONCAT(CHAR(1 USING utf8mb4), '7'), ?, 1, '\ufb01nance')",
                         {t, std::to_string(w.shop.id), t, std::to_string(w.shop.id)}),
              0);
    ASSERT_EQ(db.execute("UPDATE customer_words SET word = 'straße' WHERE customer_id = ? "
                         "AND word = 'strasse'",
                         {c}),
              0);
    ASSERT_EQ(tickets_q(w.shop, "strasse"), List{}) << "stored by the old rule";
    ASSERT_EQ(tickets_q(w.shop, "\u00e9cole finance"), List{});
    ASSERT_EQ(customers_q(w.shop, "strasse"), List{});

    const std::string before_t = std::to_string(std::stoull(t) - 1);
    const std::string before_c = std::to_string(std::stoull(c) - 1);
    db.execute("UPDATE search_reindex SET done_through = ?, finished_at = NULL WHERE name = ?",
               {before_t, std::string("tickets")});
    db.execute("UPDATE search_reindex SET done_through = ?, finished_at = NULL WHERE name = ?",
               {before_c, std::string("customers")});
    const Json::Value done = it::admin({"migrate"});
    EXPECT_GE(done["reindexed"]["tickets"].asUInt64(), 1u) << it::to_json(done);
    EXPECT_GE(done["reindexed"]["customers"].asUInt64(), 1u) << it::to_json(done);

    EXPECT_EQ(tickets_q(w.shop, "STRASSE " + word), List{t});
    EXPECT_EQ(tickets_q(w.shop, "\u00e9cole finance"), List{t});
    EXPECT_EQ(customers_q(w.shop, "strasse " + word), List{c});
    EXPECT_EQ(db.count("SELECT COUNT(*) FROM ticket_words WHERE conversation_id = ? "
                       "AND word IN ('straße', 'cole', '\ufb01nance')",
                       {t}),
              0)
        << "the old rule's words are gone";
    EXPECT_EQ(list_rows(db, t), 0) << "sql/016's list rows of the old rule are gone";
    EXPECT_EQ(db.count("SELECT COUNT(*) FROM search_reindex WHERE finished_at IS NULL"), 0);
    const Json::Value again = it::admin({"migrate"});
    EXPECT_EQ(again["reindexed"]["tickets"].asUInt64(), 0u) << "finished: nothing to do";
    // The walk rewrote rows while a pool was serving: the next pool walks again once its own
    // workers are the only ones (sql/020). Not this suite's business: put back.
    EXPECT_EQ(db.count("SELECT COUNT(*) FROM search_reindex WHERE recheck = 1"), 2);
    db.execute("UPDATE search_reindex SET recheck = 0", {});
}

// sql/014's backfill of the tag filter's index (its INSERT, run again here over tags and a
// HumanTicket written behind the service's back, as the migration finds what was stored).
TEST(Search, TheTagAndStatusBackfillAgreesWithTheFilters) {
    const World w = it::tickets::make_world();
    const std::string t = it::tickets::create_ticket_id(w);
    const std::string tag = it::unique_word("bf");
    it::Db db;
    ASSERT_EQ(db.execute("UPDATE conversations SET tags = JSON_ARRAY(?, ?, 'é\\\"') WHERE id = ?",
                         {tag, tag, t}),
              0);
    ASSERT_EQ(db.execute("INSERT INTO human_tickets (conversation_id, status, opened_at) "
                         "VALUES (?, 'CLOSED', UTC_TIMESTAMP(3))",
                         {t}),
              0);
    EXPECT_EQ(ids(w.shop, "/api/v1/tickets?tag=" + tag), List{}) << "not written by the service";
    EXPECT_EQ(ids(w.shop, "/api/v1/tickets?status=CLOSED"), List{}) << "shop_id 0, the default";

    const std::string text =
        it::read_file(std::string(SUPPORTCRM_SQL_DIR) + "/014_search_tags_status.sql");
    // The SET before the INSERT gives it the whole range of ids, as a run by hand has it.
    for (const char* start : {"\nSET @batch_table", "\nINSERT IGNORE", "\nUPDATE human_tickets"}) {
        const size_t at = text.find(start);
        ASSERT_NE(at, std::string::npos) << "the migration changed: update this test";
        const size_t end = text.find(";\n", at);
        ASSERT_NE(end, std::string::npos);
        ASSERT_EQ(db.execute(text.substr(at + 1, end - at - 1), {}), 0);
    }
    EXPECT_EQ(ids(w.shop, "/api/v1/tickets?tag=" + tag), List{t});
    EXPECT_EQ(ids(w.shop, "/api/v1/tickets?tag=" + encode("é\"")), List{t});
    EXPECT_EQ(ids(w.shop, "/api/v1/tickets?status=CLOSED"), List{t});
}

}  // namespace

// q of more words than the page statements intersect by index ranges (three): E10 sets no
// limit on their number. Ten words over a name and several comments; for each word a ticket
// that has every other one: whichever words the service intersects and whichever it checks
// ticket by ticket (db/search/reads.h, having_every_word), each one excludes its ticket.
TEST(Search, EveryWordOfAManyWordedQCountsBeyondTheThird) {
    const World w = it::tickets::make_world();
    const std::string tag = it::unique_word("m");
    std::vector<std::string> words;
    for (const char* stem : {"apple", "birch", "cedar", "dahlia", "elm", "fern", "ginkgo", "hazel",
                             "iris", "juniper"}) {
        words.push_back(stem + tag);
    }
    // A ticket with the words except `skip`, the first two in its name, the others in comments
    // of three words each (each word may match in a different place).
    const auto make = [&](std::size_t skip) {
        std::vector<std::string> have;
        for (std::size_t i = 0; i < words.size(); ++i) {
            if (i != skip) {
                have.push_back(words[i]);
            }
        }
        const std::string t = it::tickets::create_ticket_id(
            w, it::object({{"name", "Re: " + have[0] + ", " + have[1]}}));
        for (std::size_t i = 2; i < have.size(); i += 3) {
            std::string text = "about";
            for (std::size_t k = i; k < have.size() && k < i + 3; ++k) {
                text += " " + have[k] + (k % 2 ? "s" : "") + ".";  // a word's start matches
            }
            add_indexed_comment(w.shop, t, it::object({{"text", text}}));
        }
        return t;
    };
    const std::string old_full = make(words.size());
    std::vector<std::string> partial;
    for (std::size_t skip = 0; skip < words.size(); ++skip) {
        partial.push_back(make(skip));
    }
    const std::string new_full = make(words.size());

    std::string q;
    for (const std::string& word : words) {
        q += word + " ";
    }
    EXPECT_EQ(tickets_q(w.shop, q), (List{new_full, old_full}));
    EXPECT_EQ(tickets_q(w.shop, q, "&limit=100"), (List{new_full, old_full}));
    EXPECT_EQ(tickets_q(w.shop, q + " kumquat" + tag), List{}) << "an eleventh word nobody has";
    // Four and five words (the fourth and the fifth are checked ticket by ticket), upper case.
    EXPECT_EQ(tickets_q(w.shop, "APPLE" + tag + " birch" + tag + " CEDAR" + tag + " dahl"),
              (List{new_full, partial[9], partial[8], partial[7], partial[6], partial[5],
                    partial[4], old_full}));
    EXPECT_EQ(
        tickets_q(w.shop,
                  words[5] + " " + words[6] + " " + words[7] + " " + words[8] + " " + words[9]),
        (List{new_full, partial[4], partial[3], partial[2], partial[1], partial[0], old_full}));
    // Filters and cursors still apply, one ticket a page.
    EXPECT_EQ(tickets_q(w.shop, q, "&Channel=Mail&status=none"), (List{new_full, old_full}));
    EXPECT_EQ(tickets_q(w.shop, q, "&Channel=Chat"), List{});
    const HttpResponse first = it::get("/api/v1/tickets?limit=1&q=" + encode(q), w.shop);
    ASSERT_TRUE(it::is_success(first, 200)) << first.describe();
    ASSERT_EQ(first.json()["tickets"].size(), 1u);
    EXPECT_EQ(first.json()["tickets"][0]["id"].asString(), new_full);
    const HttpResponse second = it::get("/api/v1/tickets?limit=1&q=" + encode(q) +
                                            "&cursor=" + first.json()["nextCursor"].asString(),
                                        w.shop);
    ASSERT_TRUE(it::is_success(second, 200)) << second.describe();
    ASSERT_EQ(second.json()["tickets"].size(), 1u);
    EXPECT_EQ(second.json()["tickets"][0]["id"].asString(), old_full);
    EXPECT_TRUE(second.json()["nextCursor"].isNull());
    EXPECT_TRUE(is_invalid(
        it::get("/api/v1/tickets?limit=1&q=" + encode(words[0] + " " + words[1] + " " + words[2]) +
                    "&cursor=" + first.json()["nextCursor"].asString(),
                w.shop),
        "Invalid cursor"))
        << "fewer words are another filter";
}

// 1,000 distinct words, every one in a ticket (ten comments of 100): the ticket is found, and
// one that lacks only one of them (the shortest, checked last) is not.
TEST(Search, AThousandWordQFindsExactlyTheTicketsHavingEveryWord) {
    const World w = it::tickets::make_world();  // a shop of its own: short words will do
    std::vector<std::string> words;
    for (int i = 0; i < 999; ++i) {
        words.push_back("kw" + std::to_string(1000 + i));
    }
    const std::string last = "zq" + std::to_string(words.size() % 10);  // 3 characters
    const auto make = [&](bool with_last) {
        const std::string t =
            it::tickets::create_ticket_id(w, it::object({{"name", with_last ? last : "none"}}));
        for (std::size_t i = 0; i < words.size(); i += 100) {
            std::string text;
            for (std::size_t k = i; k < words.size() && k < i + 100; ++k) {
                text += words[k] + " ";
            }
            add_indexed_comment(w.shop, t, it::object({{"text", text}}));
        }
        return t;
    };
    const std::string all = make(true);
    make(false);
    std::string q = last;
    for (const std::string& word : words) {
        q += " " + word;
    }
    EXPECT_EQ(tickets_q(w.shop, q), List{all});
    EXPECT_EQ(tickets_q(w.shop, q + " zqx"), List{}) << "a thousand and first word nobody has";
    EXPECT_EQ(customers_q(w.shop, q), List{});
}

// The same for customers: five words over email, phone and names; for each word a customer
// with the other four.
TEST(Search, EveryWordOfAManyWordedQCountsForCustomersToo) {
    const it::Shop shop = it::make_shop();  // a shop of its own: plain words will do
    const std::vector<std::string> words = {"mailbox", "4917012345", "firstname", "lastname",
                                            "fullname"};
    const std::vector<std::string> others = {"postbox", "15550000", "given", "family", "whole"};
    const auto make = [&](std::size_t skip) {
        const auto pick = [&](std::size_t i) { return i == skip ? others[i] : words[i]; };
        return std::to_string(
            // Each its own email and phone (the same would find the existing customer): the
            // skip's digit, under 3 characters, is no word.
            it::create_customer(
                shop, it::object({{"email", pick(0) + "." + std::to_string(skip) + "@x.example"},
                                  {"phone_number", "+" + pick(1) + std::to_string(skip)},
                                  {"first_name", pick(2)},
                                  {"last_name", pick(3)},
                                  {"full_name", pick(4) + " Mr"}}))["id"]
                .asInt64());
    };
    const std::string full = make(words.size());
    std::vector<std::string> partial;
    for (std::size_t skip = 0; skip < words.size(); ++skip) {
        partial.push_back(make(skip));
    }
    std::string q = "example";
    for (const std::string& word : words) {
        q += " " + word.substr(0, 5);  // word starts
    }
    EXPECT_EQ(customers_q(shop, q), List{full});
    EXPECT_EQ(customers_q(shop, q + " nobody"), List{});
    EXPECT_EQ(customers_q(shop, "example mailbox 49170 first last"), (List{partial[4], full}));
    EXPECT_EQ(customers_q(shop, "EXAMPLE FULLNAME 49170 first last"), (List{partial[0], full}));
}

// The further words of a many-worded q are checked in two ways (db/search/reads.h,
// having_every_word): a word with few rows among the candidates' ids by reading those rows, one
// with many (over 32 per candidate) by a seek per candidate. Three words in three records leave
// three candidates; `dogwood` (4 rows, 2 of them the oldest and the newest candidate) takes the
// rows, `common` (101 rows, among the candidates' ids) the seeks, `elm` (101 rows, all but one
// newer than the candidates, so outside their ids) the rows again, and each must exclude the
// candidates that lack it. For tickets and for customers.
TEST(Search, AFurtherWordIsCheckedByItsRowsOrBySeeksWithTheSameAnswer) {
    const World w = it::tickets::make_world();
    const std::string tag = it::unique_word("k");
    const std::string alder = "alder" + tag, beech = "beech" + tag, cherry = "cherry" + tag,
                      common = "common" + tag, dogwood = "dogwood" + tag, elm = "elm" + tag;
    const std::string three = alder + " " + beech + " " + cherry;
    constexpr int kMany = 100;  // and one: more than 32 rows for each of three candidates

    const std::string full = it::tickets::create_ticket_id(w, it::object({{"name", three}}));
    add_indexed_comment(w.shop, full,
                        it::object({{"text", "the " + common + "s and " + dogwood + ", " + elm}}));
    for (int i = 0; i < kMany; ++i) {
        it::tickets::create_ticket_id(w, it::object({{"name", "Re: " + common}}));
    }
    const std::string bare = it::tickets::create_ticket_id(w, it::object({{"name", three}}));
    const std::string dog =
        it::tickets::create_ticket_id(w, it::object({{"name", three + " " + dogwood}}));
    for (int i = 0; i < 2; ++i) {
        it::tickets::create_ticket_id(w, it::object({{"name", dogwood}}));
    }
    for (int i = 0; i < kMany; ++i) {
        it::tickets::create_ticket_id(w, it::object({{"name", "Re: " + elm}}));
    }
    EXPECT_EQ(tickets_q(w.shop, three), (List{dog, bare, full}));
    EXPECT_EQ(tickets_q(w.shop, three + " " + dogwood), (List{dog, full})) << "by its rows";
    EXPECT_EQ(tickets_q(w.shop, three + " " + common), List{full}) << "by seeks";
    EXPECT_EQ(tickets_q(w.shop, three + " COMMON" + tag.substr(0, 1)), List{full});
    EXPECT_EQ(tickets_q(w.shop, three + " " + elm), List{full}) << "by its rows among the ids";
    EXPECT_EQ(tickets_q(w.shop, three + " " + common + " " + dogwood), List{full});

    const it::Shop shop = it::make_shop();
    int n = 0;
    const auto customer = [&](const std::string& first, const std::string& last,
                              const std::string& full_name) {
        const std::string email = (first == beech ? alder : "filler") + std::to_string(++n);
        return std::to_string(
            it::create_customer(shop, it::object({{"email", email + "@x.example"},
                                                  {"first_name", first},
                                                  {"last_name", last},
                                                  {"full_name", full_name}}))["id"]
                .asInt64());
    };
    const std::string has = customer(beech, cherry, common + "s " + dogwood + " " + elm);
    for (int i = 0; i < kMany; ++i) {
        customer("Filler", "Person", common);
    }
    const std::string lacks = customer(beech, cherry, "Mr");
    const std::string half = customer(beech, cherry, dogwood);
    for (int i = 0; i < 2; ++i) {
        customer("Filler", "Person", dogwood);
    }
    for (int i = 0; i < kMany; ++i) {
        customer("Filler", "Person", elm);
    }
    EXPECT_EQ(customers_q(shop, three), (List{half, lacks, has}));
    EXPECT_EQ(customers_q(shop, three + " " + dogwood), (List{half, has})) << "by its rows";
    EXPECT_EQ(customers_q(shop, three + " " + common), List{has}) << "by seeks";
    EXPECT_EQ(customers_q(shop, three + " " + elm), List{has}) << "by its rows among the ids";
    EXPECT_EQ(customers_q(shop, three + " " + common + " " + dogwood), List{has});
}

// customerId, assignedTo and Channel start the page when they list fewer tickets than the tag,
// status or q beside them (ticket_repo.cpp, add_column_sources): the customer's 3 tickets, the
// agent's 1 and the channel's 1 against the tag's 8 and the word's 9; the answers and the pages
// are those of the filters together, whichever filter the page starts from.
TEST(Search, ACustomerAgentOrChannelWithFewTicketsStartsThePage) {
    const World w = it::tickets::make_world();
    const std::string word = it::unique_word("few");
    const int64_t agent = it::tickets::make_user(w.shop, it::unique_email("agent"));
    const std::string other = std::to_string(it::tickets::make_customer(w.shop));
    const auto make = [&](const std::vector<std::pair<std::string, Json::Value>>& fields,
                          bool tagged = true) {
        Json::Value body = it::object({{"name", "Order " + word}});
        if (tagged) {
            body["tags"] = it::tickets::array({word});
        }
        for (const auto& [name, value] : fields) {
            body[name] = value;
        }
        return it::tickets::create_ticket_id(w, body);
    };
    const Json::Value theirs = Json::Int64(std::stoll(other));
    const std::string old_own = make({{"customerId", theirs}, {"assigned_to", Json::Int64(agent)}});
    List crowd;  // the tag's and the word's other tickets: the shop's customer, Mail, nobody's
    for (int i = 0; i < 6; ++i) {
        crowd.insert(crowd.begin(), make({}));
    }
    const std::string new_own = make({{"customerId", theirs}, {"Channel", "Instagram"}});
    const std::string untagged = make({{"customerId", theirs}}, /*tagged=*/false);

    const std::string tagged = "/api/v1/tickets?tag=" + word;
    EXPECT_EQ(ids(w.shop, tagged + "&customerId=" + other), (List{new_own, old_own}));
    EXPECT_EQ(tickets_q(w.shop, word, "&customerId=" + other), (List{untagged, new_own, old_own}));
    EXPECT_EQ(tickets_q(w.shop, word, "&customerId=" + other + "&Channel=Mail"),
              (List{untagged, old_own}));
    EXPECT_EQ(ids(w.shop, tagged + "&assignedTo=" + std::to_string(agent)), List{old_own});
    EXPECT_EQ(tickets_q(w.shop, word, "&assignedTo=" + std::to_string(agent)), List{old_own});
    List nobodys = {new_own};
    nobodys.insert(nobodys.end(), crowd.begin(), crowd.end());
    EXPECT_EQ(ids(w.shop, tagged + "&assignedTo=none"), nobodys);
    EXPECT_EQ(ids(w.shop, tagged + "&Channel=Instagram"), List{new_own});
    EXPECT_EQ(tickets_q(w.shop, word, "&Channel=Instagram&customerId=" + other), List{new_own});
    EXPECT_EQ(ids(w.shop, tagged + "&Channel=Instagram&assignedTo=" + std::to_string(agent)),
              List{});

    const HttpResponse first = it::get(tagged + "&customerId=" + other + "&limit=1", w.shop);
    ASSERT_TRUE(it::is_success(first, 200)) << first.describe();
    ASSERT_EQ(first.json()["tickets"].size(), 1u);
    EXPECT_EQ(first.json()["tickets"][0]["id"].asString(), new_own);
    EXPECT_EQ(ids(w.shop, tagged + "&customerId=" + other +
                              "&limit=1&cursor=" + first.json()["nextCursor"].asString()),
              List{old_own});
}

// status=none alone is read from its own index (sql/017, conversations.has_human_ticket): a
// ticket created without HumanTicket is in it, one created with it is not, and one whose PATCH
// opens a HumanTicket leaves it; pages and cursors as with every filter. 3,100 planted tickets
// with a HumanTicket around them make the source common and rare in turn (3,000 is the bound).
TEST(Search, StatusNoneFollowsTheHumanTicketsOfItsOwnIndex) {
    const World w = it::tickets::make_world();
    const std::string none_old = it::tickets::create_ticket_id(w);
    const std::string opened =
        it::tickets::create_ticket_id(w, it::object({{"isOpenedTicket", true}}));
    const std::string later = it::tickets::create_ticket_id(w);
    const std::string none_new = it::tickets::create_ticket_id(w);
    it::Db db;
    const auto has_human_ticket = [&](const std::string& id) {
        return db.scalar("SELECT has_human_ticket FROM conversations WHERE id = ?", {id})
            .value_or("missing");
    };
    EXPECT_EQ(has_human_ticket(none_old), "0");
    EXPECT_EQ(has_human_ticket(opened), "1");
    EXPECT_EQ(ids(w.shop, "/api/v1/tickets?status=none"), (List{none_new, later, none_old}));

    ASSERT_TRUE(it::is_success(
        patch_ticket(w.shop, later, it::object({{"HumanTicketStatus", "OPEN"}})), 200));
    EXPECT_EQ(has_human_ticket(later), "1");
    EXPECT_EQ(ids(w.shop, "/api/v1/tickets?status=none"), (List{none_new, none_old}));
    EXPECT_EQ(ids(w.shop, "/api/v1/tickets?status=OPEN"), (List{later, opened}));
    EXPECT_EQ(ids(w.shop, "/api/v1/tickets?status=none&Channel=Chat"), List{});

    const HttpResponse first = it::get("/api/v1/tickets?status=none&limit=1", w.shop);
    ASSERT_TRUE(it::is_success(first, 200)) << first.describe();
    ASSERT_EQ(first.json()["tickets"].size(), 1u);
    EXPECT_EQ(first.json()["tickets"][0]["id"].asString(), none_new);
    const std::string cursor = first.json()["nextCursor"].asString();
    const HttpResponse second =
        it::get("/api/v1/tickets?status=none&limit=1&cursor=" + cursor, w.shop);
    ASSERT_TRUE(it::is_success(second, 200)) << second.describe();
    ASSERT_EQ(second.json()["tickets"].size(), 1u);
    EXPECT_EQ(second.json()["tickets"][0]["id"].asString(), none_old);
    EXPECT_TRUE(second.json()["nextCursor"].isNull());
    EXPECT_TRUE(is_invalid(it::get("/api/v1/tickets?status=OPEN&cursor=" + cursor, w.shop),
                           "Invalid cursor"));

    // 3,100 more tickets without HumanTicket, newer than all: the source is common now (the
    // newest 1,000 are checked first), and the old ones are still found past them.
    const std::string shop = std::to_string(w.shop.id);
    ASSERT_EQ(db.execute("INSERT INTO conversations (shop_id, customer_id, channel, date, "
                         "last_message_time, tags, created_at, updated_at) SELECT ?, ?, 'Chat', "
                         "UTC_TIMESTAMP(3), UTC_TIMESTAMP(3), '[]', UTC_TIMESTAMP(3), "
                         "UTC_TIMESTAMP(3) FROM seq_1_to_3100",
                         {shop, std::to_string(w.customer_id)}),
              0);
    EXPECT_EQ(ids(w.shop, "/api/v1/tickets?status=none&Channel=Mail"), (List{none_new, none_old}));
    EXPECT_EQ(ids(w.shop, "/api/v1/tickets?status=none&limit=100").size(), 100u);
}

namespace {

// Issue 43: a dump restored into the existing database leaves the search data's rows of the
// records the dump does not have (ticket_words, ticket_tags, customer_words are tables of later
// migrations: its DROP TABLE misses them), under ids that AUTO_INCREMENT hands out again.
// kReusedIds ids after `last` (a record just created) stand for them: the next record lands
// among them (on Galera, auto_increment_increment may skip a few).
constexpr int kReusedIds = 20;

// Runs `insert`, an INSERT ... SELECT whose first placeholder is `last` and whose rows are
// numbered by `seq` (seq_1_to_20), then the other binds.
void plant_under_next_ids(it::Db& db, const std::string& insert, const std::string& last,
                          const std::vector<std::optional<std::string>>& more) {
    std::vector<std::optional<std::string>> binds{last};
    binds.insert(binds.end(), more.begin(), more.end());
    ASSERT_EQ(db.execute(insert, binds), 0) << insert;
}

::testing::AssertionResult among_next_ids(const std::string& id, const std::string& last) {
    const std::uint64_t i = std::stoull(id), l = std::stoull(last);
    if (i > l && i <= l + kReusedIds) {
        return ::testing::AssertionSuccess();
    }
    return ::testing::AssertionFailure()
           << id << " is not among the " << kReusedIds << " ids after " << last;
}

// Runs `clean` however the test ends: rows planted under the next ids would describe the next
// tests' records (on a build without the fix).
struct Cleanup {
    std::function<void()> clean;
    ~Cleanup() {
        try {
            clean();
        } catch (const std::exception& e) {
            ADD_FAILURE() << "cleaning up: " << e.what();
        }
    }
};

// Binds the last id, shop, two words; and the last id, tag, shop.
const char* const kPlantTicketWords =
    "INSERT INTO ticket_words (conversation_id, word, shop_id, in_comments) "
    "SELECT CAST(? AS UNSIGNED) + seq, w, ?, 1 FROM seq_1_to_20, "
    "(SELECT ? AS w UNION ALL SELECT ?) words";
const char* const kPlantTicketTag =
    "INSERT INTO ticket_tags (conversation_id, tag, shop_id) "
    "SELECT CAST(? AS UNSIGNED) + seq, ?, ? FROM seq_1_to_20";

}  // namespace

// Within one shop: the words and tag of a ticket the restored dump does not have, under the id
// the next ticket gets, do not describe it ("zebra restored" is not found by q=trickle), nor
// the words of a customer the next customer.
TEST(Search, RowsARestoreLeftUnderAReusedIdDoNotDescribeTheNewRecord) {
    const World w = it::tickets::make_world();
    const std::string shop = std::to_string(w.shop.id);
    const std::string trickle = it::unique_word("trickle"), drip = it::unique_word("drip"),
                      tag = it::unique_word("stale"), zebra = it::unique_word("zebra");
    it::Db db;
    const Cleanup cleanup{[&] {
        db.execute("DELETE FROM ticket_words WHERE shop_id = ? AND word IN (?, ?)",
                   {shop, trickle, drip});
        db.execute("DELETE FROM ticket_tags WHERE shop_id = ? AND tag = ?", {shop, tag});
        db.execute("DELETE FROM customer_words WHERE shop_id = ? AND word = ?", {shop, trickle});
    }};
    const std::string last = it::tickets::create_ticket_id(w);
    plant_under_next_ids(db, kPlantTicketWords, last, {shop, trickle, drip});
    plant_under_next_ids(db, kPlantTicketTag, last, {tag, shop});
    const std::string t =
        it::tickets::create_ticket_id(w, it::object({{"name", zebra + " restored"}}));
    ASSERT_TRUE(among_next_ids(t, last));

    EXPECT_EQ(tickets_q(w.shop, trickle), List{}) << "a word of the ticket the dump lost";
    EXPECT_EQ(tickets_q(w.shop, drip + " " + zebra), List{});
    EXPECT_EQ(tickets_q(w.shop, zebra + " restored"), List{t});
    EXPECT_EQ(ids(w.shop, "/api/v1/tickets?tag=" + tag), List{});
    EXPECT_EQ(indexed_tags(t), std::set<std::string>{}) << "the tag filter's index holds none";

    const std::string last_customer = named_customer(w.shop, "Ann", it::unique_word("lee"));
    ASSERT_EQ(db.execute("INSERT INTO customer_words (customer_id, word, shop_id) "
                         "SELECT CAST(? AS UNSIGNED) + seq, ?, ? FROM seq_1_to_20",
                         {last_customer, trickle, shop}),
              0);
    const std::string c = named_customer(w.shop, "Zebra", zebra);
    ASSERT_TRUE(among_next_ids(c, last_customer));
    EXPECT_EQ(customers_q(w.shop, trickle), List{});
    EXPECT_EQ(customers_q(w.shop, zebra), List{c});
}

// Across shops: the rows left are shop A's, the ticket that gets their id is shop B's. B finds
// it by its own name and tag (A's rows under its id do not keep it out of B's index), never by
// A's words, and A never finds it. Rows of A still under B's ticket (as a ticket that took its
// id before this release has them) answer no query of B's, and B's comment of a word they hold
// makes the word B's.
TEST(Search, AReusedIdOfAnotherShopsRowsAnswersOnlyForItsOwnShop) {
    const World a = it::tickets::make_world();
    const World b = it::tickets::make_world();
    const std::string shop_a = std::to_string(a.shop.id);
    const std::string trickle = it::unique_word("trickle"), zebra = it::unique_word("zebra"),
                      tag = it::unique_word("tg"), said = it::unique_word("said");
    // B's own tickets having A's word, so that it starts rows of B's too (a word without any
    // is answered at once: no ticket of the shop has it).
    const std::string b1 = it::tickets::create_ticket_id(b, it::object({{"name", trickle}}));
    const std::string b2 =
        it::tickets::create_ticket_id(b, it::object({{"name", trickle + " again"}}));
    it::Db db;
    const Cleanup cleanup{[&] {  // shop A has no ticket: its rows are all planted
        db.execute("DELETE FROM ticket_words WHERE shop_id = ?", {shop_a});
        db.execute("DELETE FROM ticket_tags WHERE shop_id = ?", {shop_a});
        db.execute("DELETE FROM customer_words WHERE shop_id = ?", {shop_a});
    }};
    plant_under_next_ids(db, kPlantTicketWords, b2, {shop_a, trickle, zebra});
    plant_under_next_ids(db, kPlantTicketTag, b2, {tag, shop_a});
    Json::Value tags(Json::arrayValue);
    tags.append(tag);
    const std::string x = it::tickets::create_ticket_id(
        b, it::object({{"name", zebra + " restored"}, {"tags", tags}}));
    ASSERT_TRUE(among_next_ids(x, b2));

    EXPECT_EQ(tickets_q(b.shop, zebra), List{x}) << "B's name word, though A's row had it";
    EXPECT_EQ(ids(b.shop, "/api/v1/tickets?tag=" + tag), List{x});
    EXPECT_EQ(tickets_q(b.shop, trickle), (List{b2, b1}));
    EXPECT_EQ(tickets_q(b.shop, trickle, "&tag=" + tag), List{});
    EXPECT_EQ(tickets_q(a.shop, zebra), List{});
    EXPECT_EQ(tickets_q(a.shop, trickle), List{});
    EXPECT_EQ(ids(a.shop, "/api/v1/tickets?tag=" + tag), List{});

    ASSERT_EQ(
        db.execute(
            "INSERT INTO ticket_words (conversation_id, word, shop_id, in_comments) "
            "VALUES (?, ?, ?, 1), (?, ?, ?, 1) ON DUPLICATE KEY UPDATE shop_id = VALUES(shop_id)",
            {x, trickle, shop_a, x, said, shop_a}),
        0);
    // From the tag's rows (the rarest filter) each ticket's words are checked: not A's.
    EXPECT_EQ(tickets_q(b.shop, trickle, "&tag=" + tag), List{});
    EXPECT_EQ(tickets_q(b.shop, said), List{});
    add_indexed_comment(b.shop, x, it::object({{"text", said + " " + zebra}}));
    EXPECT_EQ(tickets_q(b.shop, said), List{x}) << "the comment's word is B's";
    EXPECT_EQ(tickets_q(a.shop, said), List{});

    // Customers alike: from the rarest word's rows, each customer's other words are checked.
    named_customer(b.shop, trickle, "One");
    named_customer(b.shop, trickle, "Two");
    const std::string c = named_customer(b.shop, "Zebra", zebra);
    ASSERT_EQ(db.execute("INSERT INTO customer_words (customer_id, word, shop_id) VALUES (?, ?, ?)",
                         {c, trickle, shop_a}),
              0);
    EXPECT_EQ(customers_q(b.shop, zebra), List{c});
    EXPECT_EQ(customers_q(b.shop, zebra + " " + trickle), List{});
}
