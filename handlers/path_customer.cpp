#include "handlers/path_customer.h"

#include "api/api_error.h"

namespace supportcrm {

Checked<PathCustomer> read_path_customer(HandlerContext& ctx) {
    Checked<PathCustomer> out;
    Keyed<CustomerRow> row = find_customer(ctx.db, ctx.caller.key_digest(), ctx.path_id);
    Checked<Opened<CustomerRow>> found = open(ctx, row);
    CustomerRow* customer = found.value.record;
    if (found.error) {
        out.error = std::move(found.error);
    } else if (!customer) {
        out.error = errors::customer_not_found();
    } else if (auto gone = errors::customer_gone(customer->merged_into, customer->erased)) {
        out.error = std::move(gone);
    } else {
        out.value = {std::move(*customer), found.value.shop};
    }
    return out;
}

}  // namespace supportcrm
