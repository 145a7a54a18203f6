// PATCH /api/v1/customers/{customerId} — extensions.md §E8.
//
// Statements (docs/performance.md, "PATCH and ETags"): the read (customer_by_id, the hot fetch's
// own statement: the key and the customer in one round trip), then the conditional write
// (customer_update: the version check, the fields and the duplicate-detection keys in one
// statement, whose unique keys refuse another customer's email or phone number), in a
// transaction with its customer.updated event (every shop records every event since the
// changes feed, E11): START TRANSACTION, the write, the words, the event, COMMIT. A 409 adds the
// read of the other customer.
#include <cctype>

#include "api/api_error.h"
#include "api/handler.h"
#include "api/patches.h"
#include "api/views.h"
#include "common/text.h"
#include "db/customer_repo.h"
#include "db/webhook_repo.h"

namespace supportcrm {
namespace {

// The duplicate-detection key a value has (email: trimmed, case-insensitive; phone: trimmed).
std::optional<std::string> email_key(const std::optional<std::string>& email) {
    if (!email) {
        return std::nullopt;
    }
    std::string key(text::trim(*email));
    for (char& c : key) {
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    return key;
}

// The 409 of a write the unique keys refused: the other customer with the new email, else with
// the new phone number (email is checked first, as duplicate detection does).
Response duplicate_of(HandlerContext& ctx, std::uint64_t shop_id, const CustomerRow& before,
                      const CustomerRow& after) {
    if (after.email && email_key(after.email) != email_key(before.email)) {
        NewCustomer probe;
        probe.email = after.email;
        if (auto other = find_existing_customer(ctx.db, shop_id, probe);
            other && other->id != after.id) {
            return errors::customer_exists("email", other->id);
        }
    }
    if (after.phone_number) {
        NewCustomer probe;
        probe.phone_number = after.phone_number;
        if (auto other = find_existing_customer(ctx.db, shop_id, probe);
            other && other->id != after.id) {
            return errors::customer_exists("phone_number", other->id);
        }
    }
    // The other customer committed after this request's snapshot was taken (a PATCH inside an
    // Idempotency-Key's transaction): run the request again, it will see it.
    lost_version_race("customer_update: duplicate key of a customer not visible yet");
}

// The write, inside the caller's transaction. A duplicate email or phone number may be a
// customer's merged into this one (extensions.md §E9): it becomes this one's own, the release
// and the write together or neither.
CustomerUpdate update_taking_merged_keys(Db& db, std::uint64_t shop_id, const CustomerRow& before,
                                         const CustomerRow& after) {
    CustomerUpdate written = update_customer(db, shop_id, before, after);
    if (written == CustomerUpdate::duplicate && release_merged_keys(db, after)) {
        written = update_customer(db, shop_id, before, after);
    }
    return written;
}

// The customer's words (extensions.md §E10) and its event commit with the row; the 200
// carries the customer as written, a 409 the other customer its email or phone number is.
Response commit_customer_change(HandlerContext& ctx, const Shop& shop, const CustomerRow& current,
                                CustomerChange& change) {
    Transaction tx(ctx.db);
    if (update_taking_merged_keys(ctx.db, shop.id, current, change.after) ==
        CustomerUpdate::duplicate) {
        return duplicate_of(ctx, shop.id, current, change.after);  // tx rolls back
    }
    change.after.version = current.version + 1;
    const std::string json = fetched_customer_json(change.after, shop.domain);
    record_event(ctx.db, shop, webhook_event::customer_updated, json, timeutil::now_ms(),
                 change.changes_json);
    tx.commit();
    return record_answer("customer", json,
                         etag::of(etag::Kind::customer, current.id, change.after.version));
}

}  // namespace

Response patch_customer(HandlerContext& ctx) {
    Checked<PatchRequest<CustomerPatch>> read = read_patch_request(ctx, read_customer_patch);
    if (read.error) {
        return std::move(*read.error);
    }
    Keyed<CustomerRow> row = find_customer(ctx.db, ctx.caller.key_digest(), ctx.path_id);
    Checked<Opened<CustomerRow>> found = open(ctx, row);
    if (found.error) {
        return std::move(*found.error);
    }
    const Shop* shop = found.value.shop;
    const CustomerRow* customer = found.value.record;
    if (!customer) {
        return errors::customer_not_found();
    }
    if (auto gone = errors::customer_gone(customer->merged_into, customer->erased)) {
        return std::move(*gone);  // extensions.md §E9: 308 to the target, or 410
    }
    const CustomerRow& current = *customer;
    CustomerChange change = apply_customer_patch(current, read.value.patch);
    if (!change.error.empty()) {
        return errors::validation(change.error);
    }
    const std::string current_tag = etag::of(etag::Kind::customer, current.id, current.version);
    if (!read.value.may_change(current_tag)) {
        return errors::precondition_failed("The customer has changed", "customer",
                                           fetched_customer_json(current, shop->domain),
                                           current_tag);
    }
    if (!change.changed) {
        return record_answer("customer", fetched_customer_json(current, shop->domain), current_tag);
    }
    return commit_customer_change(ctx, *shop, current, change);
}

}  // namespace supportcrm
