// GET /api/v1/customers/{customerId} — api-v1.md §2; its ETag and If-None-Match: extensions.md
// §E8 (the version is a column of the same statement).
#include "api/api_error.h"
#include "api/handler.h"
#include "api/views.h"
#include "common/json_writer.h"
#include "db/customer_repo.h"

namespace supportcrm {

Response get_customer(HandlerContext& ctx) {
    Keyed<CustomerRow> found = find_customer(ctx.db, ctx.caller.key_digest(), ctx.path_id);
    Checked<const Shop*> shop = keyed(ctx, found.key);
    if (shop.error) {
        return std::move(*shop.error);
    }
    if (!found.value) {
        return errors::customer_not_found();
    }
    if (auto gone = errors::customer_gone(found.value->merged_into, found.value->erased)) {
        return std::move(*gone);  // extensions.md §E9: 308 to the target, or 410
    }
    const CustomerRow& c = *found.value;
    const std::string tag = etag::of(etag::Kind::customer, c.id, c.version);
    if (std::optional<Response> unchanged = not_modified(ctx.request, tag)) {
        return std::move(*unchanged);
    }

    Response r;
    r.headers.emplace_back("ETag", tag);
    JsonWriter w(r.body);
    w.begin_object().field("success", true).key("customer");
    write_fetched_customer(w, c, shop.value->domain);
    w.end_object();
    return r;
}

}  // namespace supportcrm
