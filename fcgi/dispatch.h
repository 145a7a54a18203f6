// The request path: route → authenticate → handler, inside the one exception boundary of a
// request. Whatever goes wrong, respond() returns the contract's response and logs why.
#pragma once

#include <cstdint>
#include <optional>

#include "fcgi/request.h"
#include "handlers/repo/db.h"
#include "handlers/response.h"

namespace supportcrm {

struct Outcome {
    Response response;
    std::optional<std::uint64_t> shop_id;  // for the access log
};

// Never throws. A lost database connection is re-opened once and the request re-run (its
// transaction, if any, was rolled back by the server); a second failure answers 503.
Outcome respond(Request& request, Db& db, std::size_t max_body_bytes);

}  // namespace supportcrm
