// GET /api/v1/customers/{customerId} — api-v1.md §2; its ETag and If-None-Match: extensions.md
// §E8 (the version is a column of the same statement).
#include "api/api_error.h"
#include "api/handler.h"
#include "api/views.h"
#include "common/json_writer.h"
#include "db/customer_repo.h"
#include "handlers/path_customer.h"

namespace supportcrm {

Response get_customer(HandlerContext& ctx) {
    Checked<PathCustomer> found = read_path_customer(ctx);
    if (found.error) {
        return std::move(*found.error);  // the key's, 404, or (extensions.md §E9) 308 / 410
    }
    const CustomerRow& c = found.value.row;
    const std::string tag = etag::of(etag::Kind::customer, c.id, c.version);
    if (std::optional<Response> unchanged = not_modified(ctx.request, tag)) {
        return std::move(*unchanged);
    }

    Response r;
    r.headers.emplace_back("ETag", tag);
    JsonWriter w(r.body);
    w.begin_object().field("success", true).key("customer");
    write_fetched_customer(w, c, found.value.shop->domain);
    w.end_object();
    return r;
}

}  // namespace supportcrm
