// extensions.md §E3 through nginx: GET /api/v1/customers (fetch shape, one filter at most),
// GET /api/v1/tickets (create shape, customerId and updatedSince) and paged comment lists; the
// limits, the cursors (keyset, tamper-evident, valid only in their scope), nextCursor null on an
// exactly full last page, and paging while rows are added (no repeat, no skip).
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "harness.h"
#include "tickets_fixtures.h"

namespace {

using it::HttpResponse;
using it::object;
using it::Shop;
using it::tickets::comments_path;
using it::tickets::World;

constexpr char kCustomers[] = "/api/v1/customers";
constexpr char kTickets[] = "/api/v1/tickets";

// path + "?" or "&" + query.
std::string with(const std::string& path, const std::string& query) {
    return path + (path.find('?') == std::string::npos ? "?" : "&") + query;
}

// GET expecting 200 with a list; returns the body.
Json::Value list(const std::string& path, const Shop& shop) {
    const HttpResponse r = it::get(path, shop);
    if (!it::is_success(r, 200)) {
        throw std::runtime_error("expected 200: " + r.describe());
    }
    return r.json();
}

// Every page of `path` with `limit`, following nextCursor; `between` runs after each page.
// Returns the ids of `member` in the order listed; counts the pages in *pages.
std::vector<std::string> walk(const std::string& path, const Shop& shop, int limit,
                              const char* member, int* pages = nullptr,
                              const std::function<void()>& between = {}) {
    std::vector<std::string> ids;
    std::string next_path = with(path, "limit=" + std::to_string(limit));
    for (int n = 1; n < 1000; ++n) {
        const Json::Value body = list(next_path, shop);
        EXPECT_LE(body[member].size(), static_cast<unsigned>(limit));
        for (const Json::Value& row : body[member]) {
            ids.push_back(row["id"].isString() ? row["id"].asString()
                                               : std::to_string(row["id"].asInt64()));
        }
        if (between) {
            between();
        }
        if (body["nextCursor"].isNull()) {
            if (pages) {
                *pages = n;
            }
            return ids;
        }
        EXPECT_TRUE(body["nextCursor"].isString());
        next_path = with(
            path, "limit=" + std::to_string(limit) + "&cursor=" + body["nextCursor"].asString());
    }
    throw std::runtime_error("paging did not end: " + path);
}

// The nextCursor of the first page of `path` (which must have one).
std::string first_cursor(const std::string& path, const Shop& shop) {
    const Json::Value body = list(path, shop);
    if (!body["nextCursor"].isString()) {
        throw std::runtime_error("no nextCursor for " + path);
    }
    return body["nextCursor"].asString();
}

std::vector<std::string> ids_of(const Json::Value& body, const char* member) {
    std::vector<std::string> ids;
    for (const Json::Value& row : body[member]) {
        ids.push_back(row["id"].isString() ? row["id"].asString()
                                           : std::to_string(row["id"].asInt64()));
    }
    return ids;
}

::testing::AssertionResult is_invalid_query(const HttpResponse& r, std::string_view message) {
    return it::is_error(r, 400, "invalid_query", message);
}

int64_t add_customer(const Shop& shop, Json::Value body = Json::Value(Json::objectValue)) {
    if (!body.isMember("email")) {
        body["email"] = it::unique_email("lk");
    }
    return it::create_customer(shop, body)["id"].asInt64();
}

// n new customers of the shop (with `body`); their ids newest first, as the list shows them.
std::vector<std::string> newest_first(const Shop& shop, int n,
                                      const Json::Value& body = Json::Value(Json::objectValue)) {
    std::vector<std::string> made;
    for (int i = 0; i < n; ++i) {
        made.insert(made.begin(), std::to_string(add_customer(shop, body)));
    }
    return made;
}

// The cursor's text with one character changed, and cut short.
std::string edited(std::string cursor) {
    cursor[cursor.size() / 2] = cursor[cursor.size() / 2] == 'A' ? 'B' : 'A';
    return cursor;
}

// A valid cursor of the first page of GET /api/v1/tickets?limit=1 in a new shop.
std::string tickets_cursor_of_another_shop() {
    const World o = it::tickets::make_world();
    it::tickets::create_ticket_id(o);
    it::tickets::create_ticket_id(o);
    return first_cursor(with(kTickets, "limit=1"), o.shop);
}

// ---------------------------------------------------------------------------------------------
// GET /api/v1/customers

TEST(CustomersList, NewestFirstInTheFetchShapeOnlyTheShopsOwn) {
    const Shop shop = it::make_shop();
    const Shop other = it::make_shop();
    add_customer(other);
    std::vector<int64_t> made;
    for (int i = 0; i < 3; ++i) {
        made.push_back(add_customer(shop, object({{"first_name", "Ann"}, {"storefront_id", "s"}})));
    }
    const Json::Value body = list(kCustomers, shop);
    EXPECT_EQ(it::member_names(body),
              (std::vector<std::string>{"customers", "nextCursor", "success"}));
    ASSERT_EQ(body["customers"].size(), 3u);
    for (unsigned i = 0; i < 3; ++i) {
        EXPECT_EQ(body["customers"][i], it::fetch_customer(shop, made[2 - i])) << i;
    }
    EXPECT_TRUE(body["nextCursor"].isNull());
}

TEST(CustomersList, EmailIsComparedTrimmedAndCaseInsensitively) {
    const Shop shop = it::make_shop();
    const std::string email = it::unique_email("find");
    const int64_t id = add_customer(shop, object({{"email", email}}));
    add_customer(shop);
    const Json::Value body = list(with(kCustomers, "email=%20%20" + email + "%20"), shop);
    ASSERT_EQ(body["customers"].size(), 1u);
    EXPECT_EQ(body["customers"][0]["id"].asInt64(), id);
    std::string upper = email;
    for (char& c : upper) {
        c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    }
    EXPECT_EQ(ids_of(list(with(kCustomers, "email=" + upper), shop), "customers"),
              std::vector<std::string>{std::to_string(id)});
    // Another shop's customer with that email is not found.
    EXPECT_EQ(list(with(kCustomers, "email=" + email), it::make_shop())["customers"].size(), 0u);
}

TEST(CustomersList, PhoneNumberIsComparedTrimmed) {
    const Shop shop = it::make_shop();
    const std::string phone = "+1-555-" + it::unique_suffix();
    const int64_t id = add_customer(shop, object({{"phone_number", phone}}));
    // '+' is sent as %2B: a literal '+' in a query is also '+' (api/query.h), either works.
    const Json::Value body = list(with(kCustomers, "phone_number=%20%2B" + phone.substr(1)), shop);
    EXPECT_EQ(ids_of(body, "customers"), std::vector<std::string>{std::to_string(id)});
    EXPECT_EQ(
        list(with(kCustomers, "phone_number=999" + phone.substr(1)), shop)["customers"].size(), 0u);
}

TEST(CustomersList, StorefrontIdIsExact) {
    const Shop shop = it::make_shop();
    const int64_t id = add_customer(shop, object({{"storefront_id", "AbC-1"}}));
    EXPECT_EQ(ids_of(list(with(kCustomers, "storefront_id=AbC-1"), shop), "customers"),
              std::vector<std::string>{std::to_string(id)});
    for (const char* q : {"storefront_id=abc-1", "storefront_id=%20AbC-1", "storefront_id=AbC"}) {
        EXPECT_EQ(list(with(kCustomers, q), shop)["customers"].size(), 0u) << q;
    }
}

// Issue 42: utf8mb4_bin is PAD SPACE, so "SF1" matched "SF1 " (sql/019: NO PAD columns). The
// exact filters of customers (storefront_id) and tickets (Channel, tag) see trailing spaces,
// and one ticket may carry "x" and "x " as two tags, each found by its own filter.
TEST(CustomersList, ExactFiltersSeeTrailingSpaces) {
    const Shop shop = it::make_shop();
    const int64_t bare = add_customer(shop, object({{"storefront_id", "SF1"}}));
    const int64_t padded = add_customer(shop, object({{"storefront_id", "SF1 "}}));
    EXPECT_EQ(ids_of(list(with(kCustomers, "storefront_id=SF1"), shop), "customers"),
              std::vector<std::string>{std::to_string(bare)});
    EXPECT_EQ(ids_of(list(with(kCustomers, "storefront_id=SF1%20"), shop), "customers"),
              std::vector<std::string>{std::to_string(padded)});

    World w{shop, Json::Value(), bare};
    const std::string mail =
        it::tickets::create_ticket_id(w, object({{"tags", it::tickets::array({"trail"})}}));
    const std::string mail_padded = it::tickets::create_ticket_id(
        w, object({{"Channel", "Mail "}, {"tags", it::tickets::array({"trail ", "x", "x "})}}));
    auto found = [&](const std::string& query) {
        return ids_of(list(with(kTickets, query), shop), "tickets");
    };
    using Ids = std::vector<std::string>;
    EXPECT_EQ(found("Channel=Mail"), Ids{mail});
    EXPECT_EQ(found("Channel=Mail%20"), Ids{mail_padded});
    EXPECT_EQ(found("tag=trail"), Ids{mail});
    EXPECT_EQ(found("tag=trail%20"), Ids{mail_padded});
    EXPECT_EQ(found("tag=x"), Ids{mail_padded});
    EXPECT_EQ(found("tag=x%20"), Ids{mail_padded});
    EXPECT_EQ(found("tag=x&tag=trail"), Ids{});
}

TEST(CustomersList, NoMatchIsAnEmptyList) {
    const Shop shop = it::make_shop();
    add_customer(shop);
    const Json::Value body = list(with(kCustomers, "email=nobody%40example.test"), shop);
    EXPECT_EQ(body["customers"], Json::Value(Json::arrayValue));
    EXPECT_TRUE(body["nextCursor"].isNull());
}

TEST(CustomersList, AtMostOneFilter) {
    const Shop shop = it::make_shop();
    for (const char* q : {"email=a%40x.test&phone_number=1", "email=a%40x.test&storefront_id=1",
                          "phone_number=1&storefront_id=1"}) {
        EXPECT_TRUE(is_invalid_query(it::get(with(kCustomers, q), shop),
                                     "Use only one of email, phone_number, storefront_id, q"))
            << q;
    }
}

TEST(CustomersList, LimitIsOneToOneHundred) {
    const Shop shop = it::make_shop();
    for (int i = 0; i < 3; ++i) {
        add_customer(shop);
    }
    for (const char* q : {"limit=0", "limit=", "limit=-1", "limit=abc", "limit=1.5", "limit=2x"}) {
        EXPECT_TRUE(is_invalid_query(it::get(with(kCustomers, q), shop), "Invalid limit")) << q;
        EXPECT_TRUE(is_invalid_query(it::get(with(kTickets, q), shop), "Invalid limit")) << q;
    }
    // Over 100 is 100: all three fit, nothing follows.
    for (const char* q : {"limit=101", "limit=100000000000000000000000"}) {
        const Json::Value body = list(with(kCustomers, q), shop);
        EXPECT_EQ(body["customers"].size(), 3u) << q;
        EXPECT_TRUE(body["nextCursor"].isNull()) << q;
    }
    EXPECT_EQ(list(with(kCustomers, "limit=1"), shop)["customers"].size(), 1u);
}

TEST(CustomersList, LimitOver100IsAnsweredAs100) {
    const Shop shop = it::make_shop();
    for (int i = 0; i < 101; ++i) {
        add_customer(shop);
    }
    const Json::Value body = list(with(kCustomers, "limit=101"), shop);
    EXPECT_EQ(body["customers"].size(), 100u);
    EXPECT_TRUE(body["nextCursor"].isString());
    EXPECT_EQ(list(kCustomers, shop)["customers"].size(), 20u);  // the default
}

TEST(CustomersList, PagesFollowTheCursorAndEndWithNull) {
    const Shop shop = it::make_shop();
    const std::vector<std::string> made = newest_first(shop, 5);
    int pages = 0;
    EXPECT_EQ(walk(kCustomers, shop, 2, "customers", &pages), made);
    EXPECT_EQ(pages, 3);
}

TEST(CustomersList, AnExactlyFullLastPageHasANullCursor) {
    const Shop shop = it::make_shop();
    const std::vector<std::string> made = newest_first(shop, 4);
    int pages = 0;
    EXPECT_EQ(walk(kCustomers, shop, 2, "customers", &pages), made);
    EXPECT_EQ(pages, 2);
    EXPECT_TRUE(list(with(kCustomers, "limit=4"), shop)["nextCursor"].isNull());
}

TEST(CustomersList, LimitMayChangeFromPageToPage) {
    const Shop shop = it::make_shop();
    const std::vector<std::string> made = newest_first(shop, 4);
    const std::string cursor = first_cursor(with(kCustomers, "limit=1"), shop);
    const Json::Value rest = list(with(kCustomers, "limit=3&cursor=" + cursor), shop);
    EXPECT_EQ(ids_of(rest, "customers"), std::vector<std::string>(made.begin() + 1, made.end()));
    EXPECT_TRUE(rest["nextCursor"].isNull());
}

TEST(CustomersList, FilteredPagesKeepTheirFilter) {
    const Shop shop = it::make_shop();
    std::vector<std::string> made;
    for (int i = 0; i < 3; ++i) {
        made.insert(made.begin(),
                    std::to_string(add_customer(shop, object({{"storefront_id", "same"}}))));
        add_customer(shop, object({{"storefront_id", "other"}}));
    }
    EXPECT_EQ(walk(with(kCustomers, "storefront_id=same"), shop, 1, "customers"), made);
}

TEST(CustomersList, ACursorIsValidOnlyForItsShopAndFilters) {
    const Shop shop = it::make_shop();
    const Shop other = it::make_shop();
    for (int i = 0; i < 3; ++i) {
        add_customer(shop, object({{"storefront_id", "s"}}));
        add_customer(other, object({{"storefront_id", "s"}}));
    }
    const std::string cursor = first_cursor(with(kCustomers, "limit=1"), shop);
    const std::string filtered = first_cursor(with(kCustomers, "limit=1&storefront_id=s"), shop);
    const std::string others = first_cursor(with(kCustomers, "limit=1"), other);
    // Sanity: each is accepted where it was made.
    EXPECT_TRUE(it::is_success(it::get(with(kCustomers, "cursor=" + cursor), shop), 200));
    EXPECT_TRUE(
        it::is_success(it::get(with(kCustomers, "storefront_id=s&cursor=" + filtered), shop), 200));
    const std::vector<std::string> bad{
        "cursor=" + others,                               // another shop's
        "cursor=" + filtered,                             // made with a filter, used without
        "storefront_id=t&cursor=" + filtered,             // another filter's value
        "email=a%40x.test&cursor=" + filtered,            // another filter
        "storefront_id=s&cursor=" + cursor,               // made without a filter
        "cursor=" + edited(cursor),                       // edited
        "cursor=" + cursor.substr(0, cursor.size() - 2),  // truncated
        "cursor=" + cursor + "AAAA",                      // extended
        "cursor=",                                        // empty
        "cursor=bogus",
        "cursor=" + tickets_cursor_of_another_shop(),  // another list's
    };
    for (const std::string& q : bad) {
        EXPECT_TRUE(is_invalid_query(it::get(with(kCustomers, q), shop), "Invalid cursor")) << q;
    }
}

TEST(CustomersList, QueryChecksComeInOrderLimitFiltersCursor) {
    const Shop shop = it::make_shop();
    EXPECT_TRUE(is_invalid_query(
        it::get(with(kCustomers, "limit=0&email=a%40x.test&phone_number=1&cursor=x"), shop),
        "Invalid limit"));
    EXPECT_TRUE(is_invalid_query(
        it::get(with(kCustomers, "email=a%40x.test&phone_number=1&cursor=x"), shop),
        "Use only one of email, phone_number, storefront_id, q"));
}

TEST(CustomersList, PagingWhileCustomersAreAddedNeitherRepeatsNorSkips) {
    const Shop shop = it::make_shop();
    const std::vector<std::string> made = newest_first(shop, 7);
    int added = 0;
    const std::vector<std::string> seen = walk(kCustomers, shop, 2, "customers", nullptr, [&] {
        add_customer(shop);
        ++added;
    });
    EXPECT_EQ(seen, made);  // every row that existed, once, in order; new ones come before page 1
    EXPECT_GE(added, 4);
}

// ---------------------------------------------------------------------------------------------
// GET /api/v1/tickets

TEST(TicketsList, NewestFirstInTheCreateShape) {
    const World w = it::tickets::make_world();
    std::vector<Json::Value> made;
    for (int i = 0; i < 3; ++i) {
        made.push_back(it::tickets::create_ticket(
            w.shop,
            object({{"customerId", w.customer_id},
                    {"Channel", "Mail"},
                    {"name", "T" + std::to_string(i)},
                    {"tags", it::tickets::array({"a", "b"})},
                    {"isOpenedTicket", i == 1},
                    {"lastMessageTime", "2026-03-0" + std::to_string(i + 1) + "T10:00:00.123Z"}})));
    }
    it::tickets::create_ticket_id(it::tickets::make_world());  // another shop's
    const Json::Value body = list(kTickets, w.shop);
    EXPECT_EQ(it::member_names(body),
              (std::vector<std::string>{"nextCursor", "success", "tickets"}));
    ASSERT_EQ(body["tickets"].size(), 3u);
    for (unsigned i = 0; i < 3; ++i) {
        EXPECT_EQ(body["tickets"][i], made[2 - i]) << i;
    }
    EXPECT_TRUE(body["nextCursor"].isNull());
}

TEST(TicketsList, CustomerIdFilter) {
    const World w = it::tickets::make_world();
    const int64_t other_customer = it::tickets::make_customer(w.shop);
    const std::string mine = it::tickets::create_ticket_id(w);
    it::tickets::create_ticket(w.shop,
                               object({{"customerId", other_customer}, {"Channel", "Mail"}}));
    EXPECT_EQ(ids_of(list(with(kTickets, "customerId=" + std::to_string(w.customer_id)), w.shop),
                     "tickets"),
              std::vector<std::string>{mine});
    EXPECT_EQ(list(kTickets, w.shop)["tickets"].size(), 2u);
    // Unknown (or another shop's) customer: an empty list.
    const std::vector<std::string> unknown{
        "customerId=999999999999", "customerId=99999999999999999999999",
        "customerId=" + std::to_string(it::tickets::make_world().customer_id)};
    for (const std::string& q : unknown) {
        EXPECT_EQ(list(with(kTickets, q), w.shop)["tickets"], Json::Value(Json::arrayValue)) << q;
    }
    for (const char* q : {"customerId=abc", "customerId=", "customerId=-1", "customerId=1.0"}) {
        EXPECT_TRUE(is_invalid_query(it::get(with(kTickets, q), w.shop), "Invalid customerId"))
            << q;
    }
}

TEST(TicketsList, UpdatedSinceIsLastMessageTimeAtOrAfter) {
    const World w = it::tickets::make_world();
    const std::string early =
        it::tickets::create_ticket_id(w, object({{"lastMessageTime", "2026-05-01T09:59:59.999Z"}}));
    const std::string exact =
        it::tickets::create_ticket_id(w, object({{"lastMessageTime", "2026-05-01T10:00:00.000Z"}}));
    const std::string late =
        it::tickets::create_ticket_id(w, object({{"lastMessageTime", "2026-05-02T00:00:00.000Z"}}));
    EXPECT_EQ(
        ids_of(list(with(kTickets, "updatedSince=2026-05-01T10:00:00.000Z"), w.shop), "tickets"),
        (std::vector<std::string>{late, exact}));
    EXPECT_EQ(
        ids_of(list(with(kTickets, "updatedSince=2026-05-01T12:00:00%2B02:00"), w.shop), "tickets"),
        (std::vector<std::string>{late, exact}));
    EXPECT_EQ(ids_of(list(with(kTickets, "updatedSince=2026-05-01"), w.shop), "tickets"),
              (std::vector<std::string>{late, exact, early}));
    // A comment moves lastMessageTime: the ticket is "updated".
    it::tickets::add_comment(w.shop, early,
                             object({{"text", "hi"}, {"time", "2026-06-01T00:00:00Z"}}));
    EXPECT_EQ(ids_of(list(with(kTickets, "updatedSince=2026-05-15"), w.shop), "tickets"),
              (std::vector<std::string>{early}));
    for (const char* q : {"updatedSince=yesterday", "updatedSince=",
                          "updatedSince=2026-01-01T10:00:00", "updatedSince=2026-13-01"}) {
        EXPECT_TRUE(is_invalid_query(it::get(with(kTickets, q), w.shop), "Invalid updatedSince"))
            << q;
    }
}

TEST(TicketsList, FiltersCombine) {
    const World w = it::tickets::make_world();
    const int64_t other = it::tickets::make_customer(w.shop);
    const std::string match =
        it::tickets::create_ticket_id(w, object({{"lastMessageTime", "2026-07-02T00:00:00Z"}}));
    it::tickets::create_ticket_id(w, object({{"lastMessageTime", "2026-06-01T00:00:00Z"}}));
    it::tickets::create_ticket(w.shop, object({{"customerId", other},
                                               {"Channel", "Mail"},
                                               {"lastMessageTime", "2026-07-03T00:00:00Z"}}));
    const std::string q =
        "customerId=" + std::to_string(w.customer_id) + "&updatedSince=2026-07-01";
    EXPECT_EQ(ids_of(list(with(kTickets, q), w.shop), "tickets"), std::vector<std::string>{match});
}

TEST(TicketsList, PagesCursorsAndTheirScope) {
    const World w = it::tickets::make_world();
    std::vector<std::string> made;
    for (int i = 0; i < 4; ++i) {
        made.insert(made.begin(), it::tickets::create_ticket_id(w));
    }
    int pages = 0;
    EXPECT_EQ(walk(kTickets, w.shop, 2, "tickets", &pages), made);
    EXPECT_EQ(pages, 2);  // exactly full last page: null
    const std::string by_customer = "customerId=" + std::to_string(w.customer_id);
    EXPECT_EQ(walk(with(kTickets, by_customer), w.shop, 3, "tickets"), made);
    const std::string cursor = first_cursor(with(kTickets, "limit=1"), w.shop);
    const std::string filtered = first_cursor(with(kTickets, "limit=1&" + by_customer), w.shop);
    const std::vector<std::string> bad{
        by_customer + "&cursor=" + cursor,
        "cursor=" + filtered,
        "updatedSince=2026-01-01&" + by_customer + "&cursor=" + filtered,
        "customerId=1&cursor=" + filtered,
        "cursor=" + edited(cursor),
        "cursor=" + cursor.substr(0, 20),
        "cursor=" + tickets_cursor_of_another_shop(),
        "cursor=" + first_cursor(with(kCustomers, "limit=1"),
                                 [&] {
                                     add_customer(w.shop);
                                     return w.shop;
                                 }()),
    };
    for (const std::string& q : bad) {
        EXPECT_TRUE(is_invalid_query(it::get(with(kTickets, q), w.shop), "Invalid cursor")) << q;
    }
}

TEST(TicketsList, PagingWhileTicketsAreAddedNeitherRepeatsNorSkips) {
    const World w = it::tickets::make_world();
    std::vector<std::string> made;
    for (int i = 0; i < 5; ++i) {
        made.insert(made.begin(), it::tickets::create_ticket_id(w));
    }
    const std::vector<std::string> seen =
        walk(kTickets, w.shop, 2, "tickets", nullptr, [&] { it::tickets::create_ticket_id(w); });
    EXPECT_EQ(seen, made);
}

// ---------------------------------------------------------------------------------------------
// GET /api/v1/tickets/{id}/comments in pages

// A ticket with comments whose times are out of insertion order and tie: v1 order is time,
// then id. Returns the ticket id.
std::string ticket_with_comments(const World& w, int n) {
    const std::string id = it::tickets::create_ticket_id(w);
    for (int i = 0; i < n; ++i) {
        // Times 2026-02-0{3,2,1,3,2,1...}: ties broken by id.
        it::tickets::add_comment(
            w.shop, id,
            object({{"text", "c" + std::to_string(i)},
                    {"time", "2026-02-0" + std::to_string(3 - i % 3) + "T00:00:00.000Z"}}));
    }
    return id;
}

TEST(CommentsPages, WithoutLimitAndCursorTheAnswerIsV1s) {
    const World w = it::tickets::make_world();
    const std::string id = ticket_with_comments(w, 3);
    const Json::Value body = it::tickets::list_comments(w.shop, id);
    EXPECT_EQ(it::member_names(body),
              (std::vector<std::string>{"comments", "success", "totalCount"}));
    EXPECT_EQ(body["totalCount"].asInt(), 3);
    // Unknown parameters do not page either.
    EXPECT_EQ(list(with(comments_path(id), "page=1&foo=bar"), w.shop), body);
}

TEST(CommentsPages, PagesFollowV1OrderAndEndWithNull) {
    const World w = it::tickets::make_world();
    const std::string id = ticket_with_comments(w, 7);
    const std::vector<std::string> v1 = ids_of(it::tickets::list_comments(w.shop, id), "comments");
    ASSERT_EQ(v1.size(), 7u);
    for (int limit : {1, 2, 3, 7, 1000}) {
        int pages = 0;
        EXPECT_EQ(walk(comments_path(id), w.shop, limit, "comments", &pages), v1) << limit;
        EXPECT_EQ(pages, (7 + limit - 1) / limit) << limit;
    }
    const Json::Value page = list(with(comments_path(id), "limit=3"), w.shop);
    EXPECT_EQ(it::member_names(page),
              (std::vector<std::string>{"comments", "nextCursor", "success", "totalCount"}));
    EXPECT_EQ(page["totalCount"].asInt(), 3);
    // Exactly full last page: null.
    EXPECT_TRUE(list(with(comments_path(id), "limit=7"), w.shop)["nextCursor"].isNull());
    // Over 1000 is 1000.
    EXPECT_EQ(ids_of(list(with(comments_path(id), "limit=5000"), w.shop), "comments"), v1);
}

TEST(CommentsPages, ATicketWithoutCommentsIsAnEmptyPage) {
    const World w = it::tickets::make_world();
    const std::string id = it::tickets::create_ticket_id(w);
    const Json::Value body = list(with(comments_path(id), "limit=5"), w.shop);
    EXPECT_EQ(body["comments"], Json::Value(Json::arrayValue));
    EXPECT_TRUE(body["nextCursor"].isNull());
}

TEST(CommentsPages, LimitAndCursorChecks) {
    const World w = it::tickets::make_world();
    const std::string id = ticket_with_comments(w, 3);
    const std::string other_ticket = ticket_with_comments(w, 3);
    for (const char* q : {"limit=0", "limit=", "limit=x", "limit=-3"}) {
        EXPECT_TRUE(is_invalid_query(it::get(with(comments_path(id), q), w.shop), "Invalid limit"))
            << q;
    }
    const std::string cursor = first_cursor(with(comments_path(id), "limit=1"), w.shop);
    EXPECT_TRUE(it::is_success(it::get(with(comments_path(id), "cursor=" + cursor), w.shop), 200));
    const World stranger = it::tickets::make_world();
    const std::string strangers_ticket = ticket_with_comments(stranger, 2);
    const std::string strangers_cursor =
        first_cursor(with(comments_path(strangers_ticket), "limit=1"), stranger.shop);
    const std::vector<std::pair<std::string, std::string>> bad{
        {other_ticket, "cursor=" + cursor},                // another ticket's
        {id, "cursor=" + strangers_cursor},                // another shop's
        {strangers_ticket, "cursor=" + strangers_cursor},  // another shop's ticket and cursor
        {id, "limit=2&cursor=" + edited(cursor)},
        {id, "cursor=" + cursor.substr(0, cursor.size() - 1)},
        {id, "cursor=" + first_cursor(with(kTickets, "limit=1"),
                                      [&] {
                                          it::tickets::create_ticket_id(w);
                                          return w.shop;
                                      }())},
    };
    for (const auto& [ticket, q] : bad) {
        EXPECT_TRUE(
            is_invalid_query(it::get(with(comments_path(ticket), q), w.shop), "Invalid cursor"))
            << ticket << "?" << q;
    }
    // Order of checks: path id, then query, then the ticket.
    EXPECT_TRUE(it::is_error(it::get(comments_path("abc") + "?limit=0", w.shop), 400, "invalid_id",
                             "Invalid ticketId"));
    EXPECT_TRUE(is_invalid_query(it::get(comments_path("999999999999") + "?limit=0", w.shop),
                                 "Invalid limit"));
    EXPECT_TRUE(it::is_error(it::get(comments_path("999999999999") + "?limit=2", w.shop), 404,
                             "ticket_not_found", "Ticket not found"));
}

TEST(CommentsPages, PagingWhileCommentsAreAddedNeitherRepeatsNorSkips) {
    const World w = it::tickets::make_world();
    const std::string id = ticket_with_comments(w, 6);
    const std::vector<std::string> v1 = ids_of(it::tickets::list_comments(w.shop, id), "comments");
    std::vector<std::string> added;
    int n = 0;
    const std::vector<std::string> seen =
        walk(comments_path(id), w.shop, 2, "comments", nullptr, [&] {
            // One before everything (an older time) and one after.
            it::tickets::add_comment(w.shop, id,
                                     object({{"text", "old" + std::to_string(n)},
                                             {"time", "2026-01-01T00:00:00.000Z"}}));
            added.push_back(
                it::tickets::add_comment(w.shop, id,
                                         object({{"text", "new" + std::to_string(n++)},
                                                 {"time", "2026-12-01T00:00:00.000Z"}}))["id"]
                    .asString());
        });
    // Every comment that existed, once and in order; the later ones added while paging follow.
    ASSERT_GE(seen.size(), v1.size());
    EXPECT_EQ(std::vector<std::string>(seen.begin(), seen.begin() + v1.size()), v1);
    const std::set<std::string> unique(seen.begin(), seen.end());
    EXPECT_EQ(unique.size(), seen.size()) << "a comment was listed twice";
}

}  // namespace
