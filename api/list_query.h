// The query rules of the lists that page with cursors (extensions.md §E3): GET
// /api/v1/customers, GET /api/v1/tickets and the paged GET /api/v1/tickets/{id}/comments. Kept
// apart from I/O so they can be tested on their own; the cursor itself is checked by the
// handler, which knows the shop and holds the secret (api/cursor.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "api/cursor.h"
#include "api/handler.h"
#include "api/query.h"
#include "api/response.h"
#include "common/json_writer.h"
#include "db/customer_repo.h"
#include "db/ticket_repo.h"

namespace supportcrm {

constexpr std::uint64_t kListDefaultLimit = 20;
constexpr std::uint64_t kListMaxLimit = 100;
constexpr std::uint64_t kCommentsMaxLimit = 1000;
// A comment list given only a cursor pages with this limit.
constexpr std::uint64_t kCommentsDefaultLimit = 100;

// What every paged list reads: limit (1..max, over max becomes max; anything else is "Invalid
// limit") and the cursor's text, unchecked.
struct PageQuery {
    std::uint64_t limit = 0;
    std::optional<std::string> cursor;
};

struct CustomersQuery {
    PageQuery page;
    CustomerFilter filter;
    std::string error;  // the invalid_query message; empty when valid
};

struct TicketsQuery {
    PageQuery page;
    TicketFilter filter;
    std::string error;  // the invalid_query message; empty when valid
};

struct CommentsQuery {
    std::optional<PageQuery> page;  // nullopt: neither limit nor cursor, v1's whole list
    std::string error;
};

// Checks in this order: limit, filters, and (in the handler) the cursor, which is only
// meaningful for valid filters.
CustomersQuery parse_customers_query(const QueryParams& query);
TicketsQuery parse_tickets_query(const QueryParams& query);
CommentsQuery parse_comments_query(const QueryParams& query);

// The sort key a page starts after: nullopt without a cursor (the first page), else the
// cursor's, or 400 invalid_query "Invalid cursor" when it does not verify in this scope.
Checked<std::optional<SortKey>> check_cursor(Db& db, const CursorScope& scope,
                                             const std::optional<std::string>& cursor);

// The filters as a cursor's scope compares them: equal filters, however written, give equal
// text.
std::string filter_fingerprint(const CustomerFilter& filter);
std::string filter_fingerprint(const TicketFilter& filter);

// What the lists by id (GET /api/v1/customers, GET /api/v1/tickets) share once their query is
// valid: the cursor checked in its scope, read(before_id, rows) asked for limit + 1 rows below
// the cursor's id, and the answer {"success":true,"<member>":[write(w, row)...],"nextCursor":…}.
template <typename Row, typename Read, typename Write>
Response id_page(Db& db, const CursorScope& scope, const PageQuery& page, std::string_view member,
                 Read read, Write write) {
    Checked<std::optional<SortKey>> after = check_cursor(db, scope, page.cursor);
    if (after.error) {
        return std::move(*after.error);
    }
    std::vector<Row> rows = read(after.value ? after.value->id : UINT64_MAX, page.limit + 1);
    std::optional<std::string> next =
        finish_page(rows, page.limit, db.cursor_secret(), scope, [](const Row& row) {
            return SortKey{0, row.id};
        });
    Response r;
    r.body.reserve(128 + rows.size() * 768);
    JsonWriter w(r.body);
    w.begin_object().field("success", true).key(member).begin_array();
    for (const Row& row : rows) {
        write(w, row);
    }
    w.end_array().field("nextCursor", next).end_object();
    return r;
}

}  // namespace supportcrm
