// GET /api/v1/tickets/{ticketId}/comments — api-v1.md §5; with limit or cursor, in keyset pages
// (extensions.md §E3). Without both, the answer is exactly v1's.
#include "api/api_error.h"
#include "api/handler.h"
#include "api/list_query.h"
#include "api/views.h"
#include "common/json_writer.h"
#include "db/comment_repo.h"

namespace supportcrm {

Response list_ticket_comments(HandlerContext& ctx) {
    CommentsQuery q = parse_comments_query(QueryParams(ctx.request.query));
    if (!q.error.empty()) {
        return errors::invalid_query(q.error);
    }
    std::optional<CommentPage> page;
    CursorScope scope{0, "comments", ctx.path_id, ""};
    if (q.page) {
        page.emplace().rows = q.page->limit + 1;
        if (q.page->cursor) {
            // A cursor is checked against the key's shop before the ticket is looked at (a
            // later page costs the key's own statement; the first one does not).
            Checked<const Shop*> shop = keyed(ctx);
            if (shop.error) {
                return std::move(*shop.error);
            }
            scope.shop_id = shop.value->id;
            Checked<std::optional<SortKey>> after = check_cursor(ctx.db, scope, q.page->cursor);
            if (after.error) {
                return std::move(*after.error);
            }
            page->after = CommentPage::After{after.value->time, after.value->id};
        }
    }
    Keyed<TicketComments> listed =
        list_comments(ctx.db, ctx.caller.key_digest(), ctx.path_id, page);
    std::optional<TicketComments>& found = listed.value;
    // No rows: an unknown key, a deleted shop, no such ticket, or a ticket without comments (or
    // none after the cursor).
    Checked<const Shop*> keyed_shop = found ? keyed(ctx, listed.key) : keyed(ctx);
    if (keyed_shop.error) {
        return std::move(*keyed_shop.error);
    }
    const Shop* shop = keyed_shop.value;
    if (!found) {
        found = ticket_without_comments(ctx.db, shop->id, ctx.path_id);
    }
    if (!found) {
        return errors::ticket_not_found();
    }
    std::optional<std::string> next;
    if (q.page) {
        scope.shop_id = shop->id;
        next = finish_page(found->comments, q.page->limit, ctx.db.cursor_secret(), scope,
                           [](const CommentRow& c) {
                               return SortKey{c.time_ms, c.id};
                           });
    }
    Response r;
    r.body.reserve(256 + found->comments.size() * 512);
    JsonWriter w(r.body);
    w.begin_object().field("success", true).key("comments").begin_array();
    for (const CommentRow& c : found->comments) {
        write_comment(w, c, found->customer);
    }
    w.end_array().field("totalCount", found->comments.size());
    if (q.page) {
        w.field("nextCursor", next);
    }
    w.end_object();
    return r;
}

}  // namespace supportcrm
