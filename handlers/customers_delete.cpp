// DELETE /api/v1/customers/{customerId} — erasure, extensions.md §E9.
//
// The read of the customer with the key (customer_by_id, as GET does: 401/404, 308 for a merged
// id; an erased one carries on, the DELETE finishes it), then the first transaction: the
// customer row and the rows merged into it cleared, erased_at set, the customer.erased event.
// From its COMMIT every route naming the id answers 410. The rest runs in bounded batches, each
// its own short transaction (db/erasure_repo.h), and one DELETE runs only so many of them
// (db/erasure_plan.h: a count and a deadline): 200 "complete": true when nothing is left, else
// 202 "complete": false with Retry-After, and the next DELETE goes on where this one stopped.
// A DELETE cut short is the same as one that ran out of budget. The totals are counted from the
// rows, which stay (scrubbed): every answer of one erasure carries the same.
#include "api/api_error.h"
#include "api/files.h"
#include "api/handler.h"
#include "common/json_writer.h"
#include "db/customer_repo.h"
#include "db/erasure_repo.h"
#include "db/webhook_repo.h"

namespace supportcrm {
namespace {

// Runs of the remaining batches when the server rolls one back (repeat_if_rolled_back).
constexpr int kErasureAttempts = 8;

// 200 when the erasure is complete; 202 while work is left, with when to repeat the DELETE.
Response erased_answer(std::uint64_t id, const ErasureTotals& t, bool complete) {
    Response r;
    if (!complete) {
        r.status = 202;
        r.headers.emplace_back("Retry-After", "1");
    }
    JsonWriter w(r.body);
    w.begin_object()
        .field("success", true)
        .key("erased")
        .begin_object()
        .field("customerId", id)
        .field("tickets", t.tickets)
        .field("comments", t.comments)
        .field("surveys", t.surveys)
        .end_object()
        .field("complete", complete)
        .end_object();
    return r;
}

// The first transaction; nullopt once the customer is erased (now or before), else the answer
// for a customer merged meanwhile (a merge raced the erasure and won).
std::optional<Response> start_erasure(HandlerContext& ctx, const Shop& shop) {
    Transaction tx(ctx.db);
    const timeutil::Millis now = timeutil::now_ms();
    if (!erase_customer_row(ctx.db, shop.id, ctx.path_id, now)) {
        // Erased by a concurrent DELETE (carry on) or merged meanwhile (308).
        Keyed<CustomerRow> row = find_customer(ctx.db, ctx.caller.key_digest(), ctx.path_id);
        Checked<Opened<CustomerRow>> again = open(ctx, row);
        if (again.error) {
            return std::move(again.error);
        }
        const CustomerRow* customer = again.value.record;
        if (!customer) {
            return errors::customer_not_found();
        }
        if (customer->merged_into) {
            return errors::customer_merged(*customer->merged_into);
        }
        return std::nullopt;
    }
    record_event(ctx.db, shop, webhook_event::customer_erased,
                 "{\"id\":" + std::to_string(ctx.path_id) + "}", now);
    tx.commit();
    return std::nullopt;
}

}  // namespace

Response delete_customer(HandlerContext& ctx) {
    Keyed<CustomerRow> row = find_customer(ctx.db, ctx.caller.key_digest(), ctx.path_id);
    Checked<Opened<CustomerRow>> found = open(ctx, row);
    if (found.error) {
        return std::move(*found.error);
    }
    const CustomerRow* customer = found.value.record;
    if (!customer) {
        return errors::customer_not_found();
    }
    if (customer->merged_into) {
        return errors::customer_merged(*customer->merged_into);
    }
    if (!customer->erased) {
        if (std::optional<Response> refused = start_erasure(ctx, *found.value.shop)) {
            return std::move(*refused);
        }
    }
    bool complete = erasure_done(ctx.db, ctx.path_id);
    if (!complete) {
        // Its batches come after the first transaction committed, and each step does only what
        // is left: one rolled back (a Galera node's write set on the same event or comment) is
        // finished by running the rest again here, not answered 503. The budget is the
        // request's: a run again spends what is left of it.
        ErasureBudget budget = request_budget(ErasureClock::now());
        complete = repeat_if_rolled_back(kErasureAttempts, [&] {
            return finish_erasure(
                ctx.db, found.value.shop->id, ctx.path_id, budget,
                [&](const std::string& sha256) { files::remove_unnamed_bytes(ctx.db, sha256); });
        });
    }
    return erased_answer(ctx.path_id, erasure_totals(ctx.db, ctx.path_id), complete);
}

}  // namespace supportcrm
