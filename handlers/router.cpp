#include "handlers/router.h"

namespace supportcrm {
namespace {

struct Route {
    const char* method;
    const char* pattern;  // "{id}" matches any one segment, even an empty one
    Handler handler;
    enum Key { none, resolved_first, in_statement } key;
};

// clang-format off
const Route kRoutes[] = {
    {"POST", "/api/v1/customers",              create_customer,      Route::in_statement},
    {"GET",  "/api/v1/customers/{id}",         get_customer,         Route::in_statement},
    {"POST", "/api/v1/tickets",                create_ticket,        Route::resolved_first},
    {"GET",  "/api/v1/tickets/{id}",           get_ticket,           Route::in_statement},
    {"GET",  "/api/v1/tickets/{id}/comments",  list_ticket_comments, Route::in_statement},
    {"POST", "/api/v1/tickets/{id}/comments",  create_comment,       Route::in_statement},
    {"GET",  "/api/v1/csat",                   list_csat,            Route::in_statement},
    {"POST", "/api/v1/csat",                   create_survey,        Route::resolved_first},
    {"GET",  "/healthz",                       healthz,              Route::none},
    // Load balancers probe with HEAD too; the worker sends GET's headers without the body.
    {"HEAD", "/healthz",                       healthz,              Route::none},
};
// clang-format on

// Matches path against pattern segment by segment; on success id holds the {id} segment.
bool matches(std::string_view pattern, std::string_view path, std::string_view& id) {
    while (true) {
        auto p_end = pattern.find('/', 1);
        auto s_end = path.find('/', 1);
        std::string_view p_seg = pattern.substr(0, p_end);
        std::string_view s_seg = path.substr(0, s_end);
        if (p_seg == "/{id}") {
            if (s_seg.empty() || s_seg[0] != '/') {
                return false;
            }
            id = s_seg.substr(1);
        } else if (p_seg != s_seg) {
            return false;
        }
        if (p_end == std::string_view::npos || s_end == std::string_view::npos) {
            return p_end == s_end;
        }
        pattern.remove_prefix(p_end);
        path.remove_prefix(s_end);
    }
}

}  // namespace

RouteMatch route(std::string_view method, std::string_view path) {
    RouteMatch m;
    for (const Route& r : kRoutes) {
        std::string_view id;
        if (!matches(r.pattern, path, id)) {
            continue;
        }
        if (method == r.method) {
            m.kind = RouteMatch::Kind::found;
            m.handler = r.handler;
            m.needs_key = r.key != Route::none;
            m.key_in_statement = r.key == Route::in_statement;
            m.path_id = id;
            return m;
        }
        m.kind = RouteMatch::Kind::method_not_allowed;
        if (m.allow.find(r.method) == std::string::npos) {
            m.allow.append(m.allow.empty() ? "" : ", ").append(r.method);
        }
    }
    return m;
}

}  // namespace supportcrm
