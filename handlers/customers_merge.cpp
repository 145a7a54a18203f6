// POST /api/v1/customers/{customerId}/merge — extensions.md §E9.
//
// Statements: the read of the target with the key (customer_by_id, as GET does), then in one
// transaction the lock of both customers (customer_merge_lock: FOR UPDATE in id order, so two
// merges racing in opposite directions queue on the lower id and the second one sees the first
// one's outcome: 308 or 404, never a lost customer), the source (it gives up the keys the target
// takes), the re-pointing of earlier merges (chains resolve in one hop), the target, the tickets,
// the surveys, the event when the shop wants it, COMMIT. A dry run reads the counts instead.
#include "api/api_error.h"
#include "api/fields.h"
#include "api/handler.h"
#include "api/views.h"
#include "common/json_writer.h"
#include "db/customer_repo.h"
#include "db/webhook_repo.h"
#include "handlers/path_customer.h"

namespace supportcrm {
namespace {

struct MergeRequest {
    std::uint64_t source_id = 0;
    bool dry_run = false;
};

// The body's checks in the spec's order; the merge into itself is a field check (before any
// customer is looked up).
Checked<MergeRequest> read_merge_request(const Json::Value& body, std::uint64_t target_id) {
    Checked<MergeRequest> out;
    FieldReader f(body);
    f.require("sourceId");
    std::optional<std::uint64_t> source = f.id("sourceId");
    const Json::Value& dry_run = body["dryRun"];
    if (f.ok() && !dry_run.isNull() && !dry_run.isBool()) {
        f.fail("dryRun must be a boolean");
    }
    if (f.ok() && *source == target_id) {
        f.fail("Cannot merge a customer into itself");
    }
    if (!f.ok()) {
        out.error = errors::validation(f.error());
        return out;
    }
    out.value.source_id = *source;
    out.value.dry_run = dry_run.isBool() && dry_run.asBool();
    return out;
}

// Why the locked pair cannot merge, if it cannot: the target (the path id) answers as every
// route naming it does; the source must be a live customer of the shop.
std::optional<Response> refuse(const MergePair& pair) {
    if (!pair.target) {
        return errors::customer_not_found();
    }
    if (auto gone = errors::customer_gone(pair.target->merged_into, pair.target->erased)) {
        return gone;
    }
    if (!pair.source || pair.source->merged_into) {
        return errors::customer_not_found();
    }
    if (pair.source->erased) {
        return errors::customer_erased();
    }
    return std::nullopt;
}

Response merge_answer(const CustomerRow& target, std::string_view shop_domain, const Moved& moved,
                      bool dry_run) {
    Response r;
    if (!dry_run) {
        r.headers.emplace_back("ETag", etag::of(etag::Kind::customer, target.id, target.version));
    }
    JsonWriter w(r.body);
    w.begin_object().field("success", true).key("customer");
    write_fetched_customer(w, target, shop_domain);
    w.key("moved")
        .begin_object()
        .field("tickets", moved.tickets)
        .field("surveys", moved.surveys)
        .end_object();
    if (dry_run) {
        w.field("dryRun", true);
    }
    w.end_object();
    return r;
}

}  // namespace

Response merge_customer(HandlerContext& ctx) {
    auto body = read_json_object(ctx);
    if (body.error) {
        return std::move(*body.error);
    }
    Checked<MergeRequest> req = read_merge_request(body.value, ctx.path_id);
    if (req.error) {
        return std::move(*req.error);
    }
    Checked<PathCustomer> found = read_path_customer(ctx);
    if (found.error) {
        return std::move(*found.error);
    }

    Transaction tx(ctx.db);
    const MergePair pair =
        lock_merge_pair(ctx.db, found.value.shop->id, ctx.path_id, req.value.source_id);
    if (std::optional<Response> refused = refuse(pair)) {
        return std::move(*refused);  // tx rolls back: nothing was written
    }
    const CustomerRow after = merged_customer(*pair.target, *pair.source);
    const Shop& shop = *found.value.shop;
    const std::string& domain = shop.domain;
    if (req.value.dry_run) {
        return merge_answer(after, domain, count_movable(ctx.db, pair.source->id), true);
    }
    const Moved moved = merge_customers(ctx.db, shop.id, pair, timeutil::now_ms());
    record_event(ctx.db, shop, webhook_event::customer_merged, fetched_customer_json(after, domain),
                 timeutil::now_ms(), std::to_string(pair.source->id));
    tx.commit();
    return merge_answer(after, domain, moved, false);
}

}  // namespace supportcrm
