// POST /api/v1/tickets — api-v1.md §3, contract §5 "Tickets".
#include "api/api_error.h"
#include "api/bodies.h"
#include "api/fields.h"
#include "api/handler.h"
#include "api/views.h"
#include "common/json_writer.h"
#include "common/text.h"
#include "db/ticket_repo.h"
#include "db/webhook_repo.h"

namespace supportcrm {

// Reads and validates every field, in the order a client would fix them.
NewTicket read_new_ticket(FieldReader& f, const Json::Value& body, timeutil::Millis now) {
    NewTicket t;
    t.customer_id = f.id("customerId").value_or(0);
    f.require("customerId");
    std::optional<std::string> channel = f.string("Channel", kShortText);
    if (f.ok() && (!channel || text::is_blank(*channel))) {
        f.fail("Channel is required");
    }
    t.channel = channel.value_or("");
    t.name = f.string("name", kShortText);
    t.thread_id = f.string("threadId", kShortText);
    t.email_used = f.string("emailUsed", kShortText);
    t.date = f.datetime("date").value_or(now);
    t.last_message = f.text("lastMessage");
    t.last_message_time = f.datetime("lastMessageTime").value_or(now);
    t.contact_reason = f.string("contact_reason", kShortText);
    t.assigned_to = f.id("assigned_to");
    t.is_opened_ticket = true_or_string_true(body["isOpenedTicket"]);
    t.unread_chat_count = f.count32("unReadChatCount").value_or(0);
    // v1's answer: the list as given, duplicates and blank tags too (PATCH refuses blank ones).
    t.tags_json = json_string_array(
        f.tag_array("tags", /*no_blank=*/false).value_or(std::vector<std::string>{}));
    t.language_code = f.string("language_code", kShortText);
    t.via = f.string("via", kShortText);
    t.created_at = now;
    return t;
}

namespace {

// 404 for a customer the shop does not have (or merged: the body's id is not followed, unlike a
// path's); 410 for an erased one: a ticket would attach new personal data to it.
std::optional<Response> refuse_customer(HandlerContext& ctx, std::uint64_t customer_id) {
    switch (ticket_customer(ctx.db, ctx.caller.shop().id, customer_id)) {
        case TicketCustomer::live:
            return std::nullopt;
        case TicketCustomer::erased:
            return errors::customer_erased();
        case TicketCustomer::missing:
            break;
    }
    return errors::customer_not_found();
}

}  // namespace

Response create_ticket(HandlerContext& ctx) {
    auto body = read_json_object(ctx);
    if (body.error) {
        return std::move(*body.error);
    }
    FieldReader fields(body.value);
    NewTicket ticket = read_new_ticket(fields, body.value, timeutil::now_ms());
    if (!fields.ok()) {
        return errors::validation(fields.error());
    }
    if (std::optional<Response> refused = refuse_customer(ctx, ticket.customer_id)) {
        return std::move(*refused);
    }
    if (ticket.assigned_to && !user_in_shop(ctx.db, ctx.caller.shop().id, *ticket.assigned_to)) {
        return errors::user_not_found();
    }
    const Shop& shop = ctx.caller.shop();
    Transaction tx(ctx.db);
    const InsertedTicket inserted = insert_ticket(ctx.db, shop.id, ticket);
    const std::uint64_t id = inserted.id;
    if (id == 0) {  // merged or erased since the check (extensions.md §E9): why, read again
        std::optional<Response> refused = refuse_customer(ctx, ticket.customer_id);
        return refused ? std::move(*refused) : errors::customer_not_found();
    }
    // Rendered once: the response's "ticket" and, when a webhook wants it, the event's data.
    std::string ticket_json;
    JsonWriter t(ticket_json);
    write_created_ticket(t, id, ticket, shop.domain);
    Response r =
        created(ctx, tx, {webhook_event::ticket_created, ticket.created_at}, "ticket", ticket_json);
    // A new ticket is version 1.
    r.headers.emplace_back("ETag", etag::of_ticket(id, 1, inserted.customer_version));
    return r;
}

}  // namespace supportcrm
