// GET /api/v1/tickets/{ticketId} — api-v1.md §4; its ETag and If-None-Match: extensions.md §E8
// (the version is a column of the same statement).
#include "api/api_error.h"
#include "api/handler.h"
#include "api/views.h"
#include "common/json_writer.h"
#include "db/ticket_repo.h"

namespace supportcrm {
namespace {

void write_human_ticket(JsonWriter& w, const std::optional<HumanTicketRow>& h) {
    if (!h) {
        w.null();
        return;
    }
    w.begin_object()
        .field("id", h->id)
        .field("HumanTicketStatus", h->status)
        .field("openedAt", h->opened_at)
        .field("closedAt", h->closed_at)
        .end_object();
}

}  // namespace

Response get_ticket(HandlerContext& ctx) {
    Keyed<TicketDetail> row = find_ticket(ctx.db, ctx.caller.key_digest(), ctx.path_id);
    Checked<Opened<TicketDetail>> found = open(ctx, row);
    if (found.error) {
        return std::move(*found.error);
    }
    const Shop* shop = found.value.shop;
    if (!found.value.record) {
        return errors::ticket_not_found();
    }
    const TicketDetail& ticket = *found.value.record;
    const std::string tag = etag::of_ticket(ticket.id, ticket.version, ticket.customer_version);
    if (std::optional<Response> unchanged = not_modified(ctx.request, tag)) {
        return std::move(*unchanged);
    }
    Response r;
    r.headers.emplace_back("ETag", tag);
    JsonWriter w(r.body);
    w.begin_object().field("success", true).key("ticket").begin_object();
    w.key("id").id_string(ticket.id);
    w.field("shopDomain", shop->domain).field("Channel", ticket.channel).field("name", ticket.name);
    w.key("Customer");
    write_customer(w, ticket.customer, true);
    w.key("User");
    write_user(w, ticket.user);
    w.key("HumanTicket");
    write_human_ticket(w, ticket.human_ticket);
    w.end_object().end_object();
    return r;
}

}  // namespace supportcrm
