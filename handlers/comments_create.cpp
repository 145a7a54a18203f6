// POST /api/v1/tickets/{ticketId}/comments — api-v1.md §6, contract §5 "Comments"; a customer's
// comment reopens a PENDING or SOLVED ticket (extensions.md §E8, db/comment_repo.h).
#include "api/api_error.h"
#include "api/bodies.h"
#include "api/fields.h"
#include "api/handler.h"
#include "api/views.h"
#include "common/json_writer.h"
#include "common/text.h"
#include "db/comment_repo.h"
#include "db/webhook_repo.h"

namespace supportcrm {

namespace {

constexpr std::size_t kMaxFiles = 20;

// extensions.md §E13: "files", an array of file ids (strings of digits; integers are taken too),
// at most 20; absent or null: none.
void read_file_ids(FieldReader& f, const Json::Value& files, NewComment& c) {
    if (!f.ok() || files.isNull()) {
        return;
    }
    if (!files.isArray()) {
        f.fail("files must be an array of file ids");
        return;
    }
    if (files.size() > kMaxFiles) {
        f.fail("At most 20 files");
        return;
    }
    std::string json = "[";
    for (const Json::Value& id : files) {
        std::optional<std::uint64_t> value;
        if (id.isString()) {
            value = text::parse_u64(id.asString());
        } else if (id.isUInt64()) {
            value = id.asUInt64();
        }
        if (!value) {
            f.fail("files must be an array of file ids");
            return;
        }
        json.append(json.size() > 1 ? "," : "").append(std::to_string(*value));
    }
    c.file_ids_json = json + "]";
    c.file_count = files.size();
}

}  // namespace

NewComment read_new_comment(FieldReader& f, const Json::Value& body, std::string_view raw_body,
                            timeutil::Millis now) {
    NewComment c;
    std::optional<std::string> text = f.text("text");
    if (f.ok() && (!text || text::is_blank(*text))) {
        f.fail("text is required");
    }
    c.text = text.value_or("");
    c.time = f.datetime("time").value_or(now);
    c.subject = f.string("subject", kSubject);
    c.from_email = f.string("fromEmail", kShortText);
    if (body["toEmails"].isArray()) {  // anything but an array becomes []
        c.to_emails_json = json_string_array(
            f.string_array("toEmails", kShortText).value_or(std::vector<std::string>{}));
    }
    if (f.present("attachments")) {
        c.attachments_json = raw_json(body["attachments"], raw_body);
    }
    c.tags_json = json_string_array(
        f.tag_array("tags", /*no_blank=*/false).value_or(std::vector<std::string>{}));
    // Optional (the ticket's channel by default), but when given it follows the ticket's rule.
    c.channel = f.string("Channel", kShortText);
    if (f.ok() && c.channel && text::is_blank(*c.channel)) {
        f.fail("Channel is required");
    }
    std::optional<bool> from_shop = boolean_or_string(body["isFromShop"], true);
    if (!from_shop) {
        f.fail("isFromShop must be a boolean");
    }
    c.is_from_shop = from_shop.value_or(true);
    c.created_at = now;
    read_file_ids(f, body["files"], c);
    return c;
}

namespace {

// The event's data (extensions.md §E5): the response's comment object plus "ticketId", written
// as the API writes ticket ids.
std::string with_ticket_id(const std::string& comment_object, const HandlerContext& ctx) {
    const std::uint64_t ticket_id = ctx.path_id;
    std::string out = comment_object.substr(0, comment_object.size() - 1);  // drops the '}'
    JsonWriter w(out);
    out += ",\"ticketId\":";
    w.id_string(ticket_id);
    out += '}';
    return out;
}

// ticket.updated for a ticket the customer's comment reopened (extensions.md §E8): the full
// shape as this transaction leaves it (ticket_json; add_comment returns it, read by the
// comment's own statements), and the status change; recorded with comment.created in one
// statement (created()).
EventRecord reopen_event(const ReopenedTicket& reopened, timeutil::Millis at,
                         std::string& ticket_json) {
    JsonWriter t(ticket_json);
    write_full_ticket(t, reopened.ticket, reopened.shop_domain);
    std::string changes;
    JsonWriter c(changes);
    c.begin_object().key("HumanTicketStatus").begin_object();
    c.field("from", reopened.from).field("to", "OPEN").end_object().end_object();
    return {webhook_event::ticket_updated, ticket_json, at, std::move(changes)};
}

}  // namespace

Response create_comment(HandlerContext& ctx) {
    // Path id and body are checked before the key is looked up (its statement is the ticket's
    // update); dispatch puts the key's own checks first.
    auto body = read_json_object(ctx);
    if (body.error) {
        return std::move(*body.error);
    }
    FieldReader fields(body.value);
    NewComment comment =
        read_new_comment(fields, body.value, ctx.request.body(), timeutil::now_ms());
    if (!fields.ok()) {
        return errors::validation(fields.error());
    }
    // add_comment's transaction joins this one, so the event commits with the comment.
    Transaction tx(ctx.db);
    std::optional<AddedComment> added =
        add_comment(ctx.db, ctx.caller.key_digest(), ctx.path_id, comment);
    if (!added) {
        // The comment would put personal data back on an erased customer's ticket (E9).
        if (ticket_of_erased_customer(ctx.db, ctx.caller.key_digest(), ctx.path_id)) {
            return errors::customer_erased();
        }
        return errors::ticket_not_found();  // nothing matched: the key's own statement decides
    }
    if (added->unknown_file) {  // nothing of the comment commits: tx rolls back
        return errors::validation("Unknown file: " + std::to_string(*added->unknown_file));
    }
    // Only the id of the shop and its event masks are known (its domain is not needed).
    Shop shop;
    shop.id = added->shop_id;
    shop.webhook_events = added->shop_webhook_events;
    settle_by_write(ctx, shop);  // the keyed update matched: the key's shop is live
    std::string comment_json;
    JsonWriter w(comment_json);
    w.begin_object();
    w.key("id").id_string(added->id);
    w.field("text", comment.text)
        .field("time", timeutil::format_iso(comment.time))
        .field("Channel", added->channel)
        .field("isFromShop", comment.is_from_shop)
        .field("subject", comment.subject)
        .field("fromEmail", comment.from_email)
        .key("toEmails")
        .raw(comment.to_emails_json)
        .key("tags")
        .raw(comment.tags_json);
    w.end_object();
    std::optional<EventRecord> reopened;
    std::string ticket_json;  // reopened's payload
    if (added->reopened) {
        reopened = reopen_event(*added->reopened, comment.created_at, ticket_json);
    }
    return created(ctx, tx, {webhook_event::comment_created, comment.created_at, &with_ticket_id},
                   "comment", comment_json, reopened ? &*reopened : nullptr);
}

}  // namespace supportcrm
