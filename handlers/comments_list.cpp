// GET /api/v1/tickets/{ticketId}/comments — api-v1.md §5; with limit or cursor, in keyset pages
// (extensions.md §E3). Without both, the answer is exactly v1's.
#include "api/api_error.h"
#include "api/handler.h"
#include "api/list_query.h"
#include "api/views.h"
#include "common/json_writer.h"
#include "db/comment_repo.h"

namespace supportcrm {
namespace {

// A comment list's cursors are valid for one ticket of one shop.
CursorScope comments_scope(std::uint64_t shop_id, std::uint64_t ticket_id) {
    return CursorScope{shop_id, "comments", ticket_id, ""};
}

// The page the query asks for (nullopt: v1's whole list). A cursor is checked against the key's
// shop before the ticket is looked at (a later page costs the key's own statement; the first
// one does not).
Checked<std::optional<CommentPage>> requested_page(HandlerContext& ctx,
                                                   const std::optional<PageQuery>& query) {
    Checked<std::optional<CommentPage>> out;
    if (!query) {
        return out;
    }
    CommentPage& page = out.value.emplace();
    page.rows = query->limit + 1;
    if (!query->cursor) {
        return out;
    }
    Checked<const Shop*> shop = keyed(ctx);
    if (shop.error) {
        out.error = std::move(shop.error);
        return out;
    }
    Checked<std::optional<SortKey>> after =
        check_cursor(ctx.db, comments_scope(shop.value->id, ctx.path_id), query->cursor);
    if (after.error) {
        out.error = std::move(after.error);
        return out;
    }
    page.after = CommentPage::After{after.value->time, after.value->id};
    return out;
}

// {"success":true,"comments":[...],"totalCount":N}, and a paged list's "nextCursor".
Response comments_answer(const TicketComments& found, bool paged,
                         const std::optional<std::string>& next_cursor) {
    Response r;
    r.body.reserve(256 + found.comments.size() * 512);
    JsonWriter w(r.body);
    w.begin_object().field("success", true).key("comments").begin_array();
    for (const CommentRow& c : found.comments) {
        write_comment(w, c, found.customer);
    }
    w.end_array().field("totalCount", found.comments.size());
    if (paged) {
        w.field("nextCursor", next_cursor);
    }
    w.end_object();
    return r;
}

}  // namespace

Response list_ticket_comments(HandlerContext& ctx) {
    CommentsQuery q = parse_comments_query(QueryParams(ctx.request.query));
    if (!q.error.empty()) {
        return errors::invalid_query(q.error);
    }
    Checked<std::optional<CommentPage>> page = requested_page(ctx, q.page);
    if (page.error) {
        return std::move(*page.error);
    }
    // No rows: an unknown key, a deleted shop, no such ticket, or a ticket without comments (or
    // none after the cursor); open() then runs the key's own statement.
    Keyed<TicketComments> rows =
        list_comments(ctx.db, ctx.caller.key_digest(), ctx.path_id, page.value);
    Checked<Opened<TicketComments>> listed = open(ctx, rows);
    if (listed.error) {
        return std::move(*listed.error);
    }
    const Shop* shop = listed.value.shop;
    TicketComments* found = listed.value.record;
    std::optional<TicketComments> without_comments;
    if (!found && (without_comments = ticket_without_comments(ctx.db, shop->id, ctx.path_id))) {
        found = &*without_comments;
    }
    if (!found) {
        return errors::ticket_not_found();
    }
    std::optional<std::string> next;
    if (q.page) {
        next = finish_page(found->comments, q.page->limit, ctx.db.cursor_secret(),
                           comments_scope(shop->id, ctx.path_id), [](const CommentRow& c) {
                               return SortKey{c.time_ms, c.id};
                           });
    }
    return comments_answer(*found, q.page.has_value(), next);
}

}  // namespace supportcrm
