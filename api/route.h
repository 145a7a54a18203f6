// What the route table answers for a method and a path. The table itself names the handlers,
// so it lives with them (handlers/router.cpp); the front (fcgi/worker.cpp) looks the route up
// and hands dispatch the match as a value, so dispatch never includes a layer above its own.
#pragma once

#include <string>
#include <string_view>

#include "api/handler.h"

namespace supportcrm {

struct RouteMatch {
    enum class Kind { found, not_found, method_not_allowed };
    Kind kind = Kind::not_found;
    Handler handler = nullptr;
    bool needs_key = true;
    // The scope a key needs for this route (extensions.md §E12; common/key_terms.h scope bits),
    // from the route table's own column; 0 for a route without a key.
    unsigned scope = 0;
    // The handler resolves the key itself, inside its own statement (api/caller.h);
    // otherwise the key is resolved before the handler runs. Either way the key's checks
    // answer in api/key_rule.h's order.
    bool key_in_statement = false;
    // The body is an upload: dispatch takes it into a file (api/files.h) once the key is
    // settled, before the handler and any Idempotency-Key claim.
    bool spooled_body = false;
    std::string_view path_id;  // the {name} segment (points into the matched path)
    std::string_view id_name;  // its name ("ticketId"); empty for a route without a path id
    std::string allow;         // for method_not_allowed: "GET, POST"
    // The counters' name of the route the path is on, whatever the method (extensions.md §E6:
    // a template, never a raw path): 1 + the table position of the first route whose pattern
    // matches; 0 when none does.
    std::size_t label = 0;
};

}  // namespace supportcrm
