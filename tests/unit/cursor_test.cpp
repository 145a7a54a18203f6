// api/cursor: keyset cursors round-trip, and any change of scope, secret or text fails.
#include "api/cursor.h"

#include <gtest/gtest.h>

#include "api/list_query.h"

using namespace supportcrm;

namespace {

const std::string kSecret(64, 'a');

CursorScope scope(std::uint64_t shop = 7, std::string_view list = "customers",
                  std::uint64_t parent = 0, std::string filters = "") {
    return CursorScope{shop, list, parent, std::move(filters)};
}

}  // namespace

TEST(Cursor, RoundTripsTheSortKey) {
    const SortKey key{1764000000123, 987654321};
    const std::string c = encode_cursor(kSecret, scope(), key);
    EXPECT_EQ(c.size(), 44u);
    EXPECT_EQ(
        c.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"),
        std::string::npos)
        << c;
    EXPECT_EQ(decode_cursor(kSecret, scope(), c), key);
    const SortKey extremes{-62135596800000, UINT64_MAX};
    EXPECT_EQ(decode_cursor(kSecret, scope(), encode_cursor(kSecret, scope(), extremes)), extremes);
}

TEST(Cursor, IsValidOnlyInItsScope) {
    const std::string c = encode_cursor(kSecret, scope(7, "tickets", 0, "customerId=1"), {0, 5});
    EXPECT_TRUE(decode_cursor(kSecret, scope(7, "tickets", 0, "customerId=1"), c));
    EXPECT_FALSE(decode_cursor(kSecret, scope(8, "tickets", 0, "customerId=1"), c));  // shop
    EXPECT_FALSE(decode_cursor(kSecret, scope(7, "customers", 0, "customerId=1"), c));
    EXPECT_FALSE(decode_cursor(kSecret, scope(7, "tickets", 1, "customerId=1"), c));  // ticket
    EXPECT_FALSE(decode_cursor(kSecret, scope(7, "tickets", 0, "customerId=2"), c));  // filter
    EXPECT_FALSE(decode_cursor(kSecret, scope(7, "tickets", 0, ""), c));
    EXPECT_FALSE(decode_cursor(std::string(64, 'b'), scope(7, "tickets", 0, "customerId=1"), c));
}

TEST(Cursor, EditedTruncatedOrForeignTextIsRejected) {
    const std::string c = encode_cursor(kSecret, scope(), {0, 42});
    for (std::size_t i = 0; i < c.size(); ++i) {
        std::string edited = c;
        edited[i] = edited[i] == 'A' ? 'B' : 'A';
        EXPECT_FALSE(decode_cursor(kSecret, scope(), edited)) << "byte " << i;
    }
    EXPECT_FALSE(decode_cursor(kSecret, scope(), c.substr(0, c.size() - 1)));
    EXPECT_FALSE(decode_cursor(kSecret, scope(), c + "A"));
    EXPECT_FALSE(decode_cursor(kSecret, scope(), c + "="));
    EXPECT_FALSE(decode_cursor(kSecret, scope(), ""));
    EXPECT_FALSE(decode_cursor(kSecret, scope(), std::string(44, '=')));
    std::string plus = c;
    plus[0] = '+';  // standard base64, not base64url
    EXPECT_FALSE(decode_cursor(kSecret, scope(), plus));
}

TEST(ListQuery, LimitIsOneToTheMaximumElseInvalid) {
    EXPECT_EQ(parse_customers_query(QueryParams("")).page.limit, 20u);
    EXPECT_EQ(parse_customers_query(QueryParams("limit=1")).page.limit, 1u);
    EXPECT_EQ(parse_customers_query(QueryParams("limit=101")).page.limit, 100u);
    EXPECT_EQ(parse_tickets_query(QueryParams("limit=99999999999999999999999")).page.limit, 100u);
    for (const char* q : {"limit=0", "limit=", "limit=-1", "limit=1.5", "limit=ten", "limit=+5"}) {
        EXPECT_EQ(parse_customers_query(QueryParams(q)).error, "Invalid limit") << q;
        EXPECT_EQ(parse_tickets_query(QueryParams(q)).error, "Invalid limit") << q;
        EXPECT_EQ(parse_comments_query(QueryParams(q)).error, "Invalid limit") << q;
    }
    EXPECT_EQ(parse_comments_query(QueryParams("limit=1001")).page->limit, 1000u);
    EXPECT_EQ(parse_comments_query(QueryParams("cursor=x")).page->limit, 100u);
    EXPECT_FALSE(parse_comments_query(QueryParams("other=1")).page);
}

TEST(ListQuery, AtMostOneCustomerFilter) {
    CustomersQuery q = parse_customers_query(QueryParams("email=%20Ann@Example.test%20"));
    ASSERT_EQ(q.error, "");
    EXPECT_EQ(q.filter.kind, CustomerFilter::Kind::email);
    EXPECT_EQ(filter_fingerprint(q.filter), "email=ann@example.test");
    EXPECT_EQ(parse_customers_query(QueryParams("email=a@x.test&storefront_id=1")).error,
              "Use only one of email, phone_number, storefront_id, q");
    EXPECT_EQ(parse_customers_query(QueryParams("phone_number=1&storefront_id=1")).error,
              "Use only one of email, phone_number, storefront_id, q");
    // An empty email or phone_number is absent, as in a body; storefront_id is exact.
    EXPECT_EQ(parse_customers_query(QueryParams("email=&storefront_id=A")).filter.kind,
              CustomerFilter::Kind::storefront_id);
    EXPECT_EQ(filter_fingerprint(parse_customers_query(QueryParams("storefront_id=%20A")).filter),
              "storefront_id= A");
}

TEST(ListQuery, TicketFiltersCombine) {
    TicketsQuery q =
        parse_tickets_query(QueryParams("customerId=12&updatedSince=2026-01-02T03:04:05.006Z"));
    ASSERT_EQ(q.error, "");
    EXPECT_EQ(q.filter.customer_id, 12u);
    EXPECT_EQ(timeutil::format_iso(*q.filter.updated_since), "2026-01-02T03:04:05.006Z");
    EXPECT_EQ(parse_tickets_query(QueryParams("customerId=abc")).error, "Invalid customerId");
    EXPECT_EQ(parse_tickets_query(QueryParams("customerId=")).error, "Invalid customerId");
    EXPECT_EQ(parse_tickets_query(QueryParams("updatedSince=2026-01-01T10:00:00")).error,
              "Invalid updatedSince");
    TicketFilter customer;
    customer.customer_id = 1;
    EXPECT_NE(filter_fingerprint(customer), filter_fingerprint(TicketFilter{}));
}
