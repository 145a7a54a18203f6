// The customer a route's path names (GET, merge, export of /api/v1/customers/{customerId}...),
// read with the key's shop in one statement and answered as every such route answers it.
#pragma once

#include "api/handler.h"
#include "db/customer_repo.h"

namespace supportcrm {

struct PathCustomer {
    CustomerRow row;
    const Shop* shop = nullptr;
};

// The key's error first (401 / 404 shop_not_found), then 404 customer_not_found, then for a
// merged id 308 to its target and for an erased one 410 (extensions.md §E9).
Checked<PathCustomer> read_path_customer(HandlerContext& ctx);

}  // namespace supportcrm
