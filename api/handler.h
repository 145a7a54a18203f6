// What every operation handler gets and the steps they share. A handler is one function from
// a HandlerContext to a Response; it validates in the contract's order (path id, body, fields,
// referenced records) and answers bad input with an error Response, never an exception. The key
// and its shop come first in that order: on a route whose handler resolves the key inside its
// own statement, dispatch answers with the key's error instead of whatever the handler answers.
#pragma once

#include <json/value.h>

#include <cstdint>
#include <optional>
#include <string_view>

#include "api/caller.h"
#include "api/etag.h"
#include "api/request.h"
#include "api/response.h"
#include "common/time_util.h"
#include "db/db.h"

namespace supportcrm {

struct HandlerContext {
    Request& request;
    Caller& caller;  // resolved before the handler runs unless its route says key_in_statement
    Db& db;
    std::uint64_t path_id;  // the route's path id, checked by dispatch (0 for a route without one)
    std::size_t max_body_bytes;
};

using Handler = Response (*)(HandlerContext&);

// Either a value or the error response that replaces it.
template <typename T>
struct Checked {
    T value{};
    std::optional<Response> error;
};

// The path id segment as a number, checked by dispatch before the handler runs: empty → 400
// "<name> is required", not all digits → 400 "Invalid <name>", beyond 64 bits → UINT64_MAX
// (no such row, so 404 follows).
Checked<std::uint64_t> parse_path_id(std::string_view segment, std::string_view name);

// The body as a JSON object: 413 / 415 / 400 invalid_json / 400 invalid_body per the
// contract. An empty body is {}.
Checked<Json::Value> read_json_object(HandlerContext& ctx);

// extensions.md §E8. The request's If-Match as a condition: nullopt without the header; an
// error (400 invalid_if_match) when it is not `*` or a list of entity tags.
Checked<std::optional<etag::Condition>> read_if_match(const Request& request);
// The 200 of a change to one record: {"success":true,"<member>":<json>} with its ETag.
Response record_answer(const char* member, const std::string& json, const std::string& tag);
// A GET answer about one record: 304 with its ETag and no body when If-None-Match names `tag`
// (alone, in a list, or `*`); else nullopt and the caller answers with the ETag itself.
std::optional<Response> not_modified(const Request& request, const std::string& tag);

// A PATCH that cannot finish on what it read (the customer its write collided with is not in
// its snapshot yet): nothing of it was written. Raised as db/db.h's version_changed() is, so
// the request boundary runs the request again. Only after a write the server refused, so that
// nothing of the request is durable.
[[noreturn]] void lost_version_race(const char* what);

// A keyed statement's result, opened: the key's live shop and the record, if there was one.
// The record stays in the Keyed<T> it was opened from (a handler's local), so opening costs no
// move of a row that can hold a ticket's whole detail; take it with std::move(*record).
template <typename T>
struct Opened {
    const Shop* shop = nullptr;
    T* record = nullptr;  // none: not in the key's shop, or the key refused
};

// The one way to read a Keyed<T> (db/rows.h): the key rule (api/key_rule.h) first, so the
// record comes only with the key's answer. A statement that returns the key's row whenever the
// key exists proves an unknown key by returning none; one that returns rows only with the
// record proves nothing by returning none, and the key's own statement then decides.
struct KeyedOpener {
    template <typename T>
    static Checked<Opened<T>> open(Caller& caller, Db& db, Keyed<T>& found) {
        Checked<Opened<T>> out;
        const Shop* shop = found.key_ || found.join_ == KeyJoin::whenever_key_exists
                               ? caller.learn(found.key_)
                               : caller.resolve(db);
        if (shop == nullptr) {
            out.error = caller.error();  // 401 invalid_api_key, 404 shop_not_found, 403, 429
            return out;
        }
        out.value = {shop, found.record_ ? &*found.record_ : nullptr};
        return out;
    }

    // An export's body, produced after its head was sent: the key was settled by open() or
    // keyed() before that, and the body is read in one snapshot, so the record alone.
    template <typename T>
    static Checked<Opened<T>> open(Caller&, Db&, Keyed<T>&&) = delete;  // would dangle

    template <typename T>
    static std::optional<T> record_of_settled_key(Keyed<T>&& found) {
        return std::move(found.record_);
    }
};

// What a handler's keyed statement found, opened: the key's own error, or its shop and the
// record (none: the handler's own 404). `found` must outlive the answer, which points into it.
template <typename T>
Checked<Opened<T>> open(HandlerContext& ctx, Keyed<T>& found) {
    return KeyedOpener::open(ctx.caller, ctx.db, found);
}
template <typename T>
Checked<Opened<T>> open(HandlerContext& ctx, Keyed<T>&& found) = delete;  // would dangle

// The key rule for a handler whose statements have not settled the key: the key's live shop,
// or the key's own error to answer with; runs the key's own statement unless the key is
// settled already.
Checked<const Shop*> keyed(HandlerContext& ctx);
// A keyed write succeeded for `shop` (add_comment, insert_customer): the key is settled on it.
void settle_by_write(HandlerContext& ctx, const Shop& shop);

// What a create writes besides its row: the event of extensions.md §E5 (when a webhook of the
// shop wants `type`), with `data` as its payload (nullptr: the created object itself).
struct EventRecord;  // db/webhook_repo.h

struct CreatedEvent {
    unsigned type;
    timeutil::Millis at;
    std::string (*data)(const std::string& object, const HandlerContext& ctx) = nullptr;
};

// The common ending of a create, in the one right order: the event row (inside tx), COMMIT,
// then 201 {"success":true,"<name>":<object>}. The shop is the caller's (settled by keyed(),
// open(), settle_by_write() or before the handler ran).
// preceding: an event of the same write recorded before the create's own, in its statement
// (a customer's comment that reopened its ticket: ticket.updated).
Response created(HandlerContext& ctx, Transaction& tx, const CreatedEvent& event,
                 std::string_view name, const std::string& object,
                 const EventRecord* preceding = nullptr);

// Handlers, one file each.
Response create_customer(HandlerContext& ctx);
Response get_customer(HandlerContext& ctx);
// The body of an export (CSAT, a customer's): produced after the head is sent, read inside
// one snapshot transaction that commits when the body is complete. write_to() is the one
// boundary for every export: a database or other failure is logged, the connection is dropped
// (a DbUnavailable one too) and the client sees a truncated answer, never a short complete one.
class SnapshotStream : public BodyStream {
  public:
    SnapshotStream(Db& db, std::unique_ptr<Transaction> tx) : db_(db), tx_(std::move(tx)) {}
    bool write_to(BodySink& sink) final;

  protected:
    // Writes the whole body to sink; throws on failure.
    virtual void produce(BodySink& sink) = 0;
    Db& db_;

  private:
    std::unique_ptr<Transaction> tx_;
};

Response list_customers(HandlerContext& ctx);
Response create_ticket(HandlerContext& ctx);
Response get_ticket(HandlerContext& ctx);
Response list_tickets(HandlerContext& ctx);
Response list_ticket_comments(HandlerContext& ctx);
Response create_comment(HandlerContext& ctx);
Response list_csat(HandlerContext& ctx);
Response export_csat(HandlerContext& ctx);
Response create_survey(HandlerContext& ctx);
Response list_changes(HandlerContext& ctx);
Response healthz(HandlerContext& ctx);
Response get_openapi(HandlerContext& ctx);
Response patch_ticket(HandlerContext& ctx);
Response patch_customer(HandlerContext& ctx);
Response merge_customer(HandlerContext& ctx);
Response export_customer(HandlerContext& ctx);
Response delete_customer(HandlerContext& ctx);
Response get_pool_status(HandlerContext& ctx);
Response get_pool_metrics(HandlerContext& ctx);
Response upload_file(HandlerContext& ctx);
Response download_file(HandlerContext& ctx);
Response get_file_meta(HandlerContext& ctx);
Response download_signed_file(HandlerContext& ctx);

}  // namespace supportcrm
