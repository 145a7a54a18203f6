// PATCH /api/v1/tickets/{ticketId} — extensions.md §E8.
//
// Statements (docs/performance.md, "PATCH and ETags"): the read (ticket_for_patch: the key, the
// ticket, its HumanTicket and the body's assigned_to in one round trip), then the conditional write
// (ticket_update: the version check, the ticket and its HumanTicket in one statement), in a
// transaction with its ticket.updated event (every shop records every event since the changes
// feed, E11): START TRANSACTION, the write, the HumanTicket's insert, the name's words, the
// event, COMMIT. A PATCH that changes nothing, or is refused, is the read alone.
#include "api/api_error.h"
#include "api/fields.h"
#include "api/handler.h"
#include "api/patches.h"
#include "api/views.h"
#include "db/ticket_repo.h"
#include "db/webhook_repo.h"

namespace supportcrm {
namespace {

// The 422 of a patch the ticket cannot take: a status its machine refuses, or more tags than a
// ticket holds; nullopt when it can take it.
std::optional<Response> refusal_of(const TicketChange& change) {
    if (change.refused) {
        return errors::invalid_transition(change.refused->from, change.refused->to,
                                          change.refused->allowed);
    }
    if (change.too_many_tags) {
        return errors::too_many_tags(kMaxTags);
    }
    return std::nullopt;
}

// The write and its event (and a new name's words, new tags' index: extensions.md §E10, and the
// HumanTicket the patch opens) commit together; the 200 carries the ticket as written.
Response commit_ticket_change(HandlerContext& ctx, const Shop& shop, const FullTicket& current,
                              TicketChange& change, timeutil::Millis now) {
    Transaction tx(ctx.db);
    update_ticket(ctx.db, shop.id, current, change.after);
    if (change.opens_human_ticket) {
        change.after.human_ticket->id = open_human_ticket(ctx.db, shop.id, current.id, now);
    }
    change.after.version = current.version + 1;
    const std::string ticket_json = full_ticket_json(change.after, shop.domain);
    record_event(ctx.db, shop, webhook_event::ticket_updated, ticket_json, now,
                 change.changes_json);
    tx.commit();
    return record_answer(
        "ticket", ticket_json,
        etag::of_ticket(current.id, change.after.version, current.customer_version));
}

}  // namespace

Response patch_ticket(HandlerContext& ctx) {
    Checked<PatchRequest<TicketPatch>> read = read_patch_request(ctx, read_ticket_patch);
    if (read.error) {
        return std::move(*read.error);
    }
    const TicketPatch& patch = read.value.patch;
    const std::optional<std::uint64_t> user_id =
        patch.assigned_to ? *patch.assigned_to : std::nullopt;

    Keyed<TicketForPatch> row =
        find_ticket_for_patch(ctx.db, ctx.caller.key_digest(), ctx.path_id, user_id);
    Checked<Opened<TicketForPatch>> found = open(ctx, row);
    if (found.error) {
        return std::move(*found.error);
    }
    const Shop* shop = found.value.shop;
    if (!found.value.record) {
        return errors::ticket_not_found();
    }
    const FullTicket& current = found.value.record->ticket;
    if (user_id && !found.value.record->user_found) {
        return errors::user_not_found();
    }
    const std::string current_tag =
        etag::of_ticket(current.id, current.version, current.customer_version);
    if (!read.value.may_change(current_tag)) {
        return errors::precondition_failed("The ticket has changed", "ticket",
                                           full_ticket_json(current, shop->domain), current_tag);
    }
    const timeutil::Millis now = timeutil::now_ms();
    TicketChange change = apply_ticket_patch(current, patch, now);
    if (std::optional<Response> refused = refusal_of(change)) {
        return std::move(*refused);
    }
    if (!change.changed) {
        return record_answer("ticket", full_ticket_json(current, shop->domain), current_tag);
    }
    return commit_ticket_change(ctx, *shop, current, change, now);
}

}  // namespace supportcrm
