#include "handlers/path_customer.h"

#include "api/api_error.h"

namespace supportcrm {

Checked<PathCustomer> read_path_customer(HandlerContext& ctx) {
    Checked<PathCustomer> out;
    Keyed<CustomerRow> found = find_customer(ctx.db, ctx.caller.key_digest(), ctx.path_id);
    Checked<const Shop*> shop = keyed(ctx, found.key);
    if (shop.error) {
        out.error = std::move(shop.error);
    } else if (!found.value) {
        out.error = errors::customer_not_found();
    } else if (auto gone = errors::customer_gone(found.value->merged_into, found.value->erased)) {
        out.error = std::move(gone);
    } else {
        out.value = {std::move(*found.value), shop.value};
    }
    return out;
}

}  // namespace supportcrm
