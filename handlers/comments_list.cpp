// GET /api/v1/tickets/{ticketId}/comments — api-v1.md §5.
#include "api/api_error.h"
#include "api/handler.h"
#include "api/views.h"
#include "common/json_writer.h"
#include "db/comment_repo.h"

namespace supportcrm {

Response list_ticket_comments(HandlerContext& ctx) {
    Keyed<TicketComments> listed = list_comments(ctx.db, ctx.caller.key_digest(), ctx.path_id);
    std::optional<TicketComments>& found = listed.value;
    // No rows: an unknown key, a deleted shop, no such ticket, or a ticket without comments.
    const Shop* shop = found ? ctx.caller.learn(listed.key) : ctx.caller.resolve(ctx.db);
    if (!shop) {
        return *ctx.caller.error();
    }
    if (!found) {
        found = ticket_without_comments(ctx.db, shop->id, ctx.path_id);
    }
    if (!found) {
        return errors::ticket_not_found();
    }
    Response r;
    r.body.reserve(256 + found->comments.size() * 512);
    JsonWriter w(r.body);
    w.begin_object().field("success", true).key("comments").begin_array();
    for (const CommentRow& c : found->comments) {
        w.begin_object();
        w.key("id").id_string(c.id);
        w.field("text", c.text)
            .field("time", c.time)
            .field("Channel", c.channel)
            .field("isFromShop", c.is_from_shop)
            .field("subject", c.subject)
            .field("fromEmail", c.from_email)
            .key("toEmails")
            .raw(c.to_emails_json)
            .key("attachments");
        c.attachments_json ? w.raw(*c.attachments_json) : w.null();
        w.key("tags").raw(c.tags_json).key("Customer");
        write_customer(w, found->customer, false);
        w.key("User");
        write_user(w, c.user);
        w.end_object();
    }
    w.end_array().field("totalCount", found->comments.size()).end_object();
    return r;
}

}  // namespace supportcrm
