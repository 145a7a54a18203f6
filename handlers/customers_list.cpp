// GET /api/v1/customers — extensions.md §E3: the shop's customers, newest first, in the fetch
// shape, at most one filter, keyset pages.
#include "api/api_error.h"
#include "api/handler.h"
#include "api/list_query.h"
#include "api/views.h"
#include "db/customer_repo.h"

namespace supportcrm {

Response list_customers(HandlerContext& ctx) {
    CustomersQuery q = parse_customers_query(QueryParams(ctx.request.query));
    if (!q.error.empty()) {
        return errors::invalid_query(q.error);
    }
    const Shop& shop = ctx.caller.shop();
    return id_page<CustomerRow>(
        ctx.db, {shop.id, "customers", 0, filter_fingerprint(q.filter)}, q.page, "customers",
        [&](std::uint64_t before_id, std::uint64_t rows) {
            return read_customers_page(ctx.db, shop.id, q.filter, before_id, rows);
        },
        [&](JsonWriter& w, const CustomerRow& c) { write_fetched_customer(w, c, shop.domain); });
}

}  // namespace supportcrm
