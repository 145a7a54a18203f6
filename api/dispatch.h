// The request path: route → authenticate → handler, inside the one exception boundary of a
// request. Whatever goes wrong, respond() returns the contract's response and logs why.
#pragma once

#include <cstdint>
#include <optional>

#include "api/request.h"
#include "api/response.h"
#include "api/route.h"
#include "db/db.h"

namespace supportcrm {

struct Outcome {
    Response response;
    std::optional<std::uint64_t> shop_id;  // for the access log
};

// Never throws. A request that failed on the database runs again only while nothing of it can
// have been committed (rerun::next(): once after a lost connection, twice after a deadlock);
// otherwise, and when that fails too, the answer is 503.
// `match` is the route of the request (handlers/router.h's route(), looked up by the caller,
// which also needs its label).
Outcome respond(Request& request, Db& db, const RouteMatch& match, std::size_t max_body_bytes);

}  // namespace supportcrm
