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
        write_comment(w, c, found->customer);
    }
    w.end_array().field("totalCount", found->comments.size()).end_object();
    return r;
}

}  // namespace supportcrm
