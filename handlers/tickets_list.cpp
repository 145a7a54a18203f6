// GET /api/v1/tickets — extensions.md §E3: the shop's tickets, newest first, in the shape
// POST /api/v1/tickets answers with, filtered by customerId and/or updatedSince, keyset pages.
#include "api/api_error.h"
#include "api/handler.h"
#include "api/list_query.h"
#include "api/views.h"
#include "db/ticket_repo.h"

namespace supportcrm {

Response list_tickets(HandlerContext& ctx) {
    TicketsQuery q = parse_tickets_query(QueryParams(ctx.request.query));
    if (!q.error.empty()) {
        return errors::invalid_query(q.error);
    }
    const Shop& shop = ctx.caller.shop();
    return id_page<TicketRow>(
        ctx.db, {shop.id, "tickets", 0, filter_fingerprint(q.filter)}, q.page, "tickets",
        [&](std::uint64_t before_id, std::uint64_t rows) {
            return read_tickets_page(ctx.db, shop.id, q.filter, before_id, rows);
        },
        [&](JsonWriter& w, const TicketRow& t) {
            write_created_ticket(w, t.id, t.ticket, shop.domain);
        });
}

}  // namespace supportcrm
