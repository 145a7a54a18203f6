#include "handlers/router.h"

namespace supportcrm {
namespace {

struct Route {
    const char* method;
    const char* pattern;  // "{name}" matches any one segment, even an empty one: the path id
    Handler handler;
    enum Key { none, resolved_first, in_statement } key;
};

// clang-format off
const Route kRoutes[] = {
    // GET before POST and PATCH: the order of a 405's Allow ("GET, POST", "GET, PATCH").
    {"GET",  "/api/v1/customers",              list_customers,       Route::resolved_first},
    {"POST", "/api/v1/customers",              create_customer,      Route::in_statement},
    {"GET",  "/api/v1/customers/{customerId}", get_customer,         Route::in_statement},
    {"PATCH", "/api/v1/customers/{customerId}", patch_customer,      Route::in_statement},
    {"POST", "/api/v1/customers/{customerId}/merge", merge_customer, Route::in_statement},
    {"GET",  "/api/v1/customers/{customerId}/export", export_customer, Route::in_statement},
    {"GET",  "/api/v1/tickets",                list_tickets,         Route::resolved_first},
    {"POST", "/api/v1/tickets",                create_ticket,        Route::resolved_first},
    {"GET",  "/api/v1/tickets/{ticketId}",     get_ticket,           Route::in_statement},
    {"PATCH", "/api/v1/tickets/{ticketId}",    patch_ticket,         Route::in_statement},
    {"GET",  "/api/v1/tickets/{ticketId}/comments", list_ticket_comments, Route::in_statement},
    {"POST", "/api/v1/tickets/{ticketId}/comments", create_comment,       Route::in_statement},
    {"GET",  "/api/v1/csat",                   list_csat,            Route::in_statement},
    {"POST", "/api/v1/csat",                   create_survey,        Route::resolved_first},
    {"GET",  "/api/v1/csat/export",            export_csat,          Route::resolved_first},
    {"GET",  "/api/v1/openapi.json",           get_openapi,          Route::none},
    {"GET",  "/healthz",                       healthz,              Route::none},
    // Load balancers probe with HEAD too; the worker sends GET's headers without the body.
    {"HEAD", "/healthz",                       healthz,              Route::none},
    // The pool's own state (extensions.md §E6); nginx lets only listed addresses reach them.
    {"GET",  "/status",                        get_pool_status,      Route::none},
    {"GET",  "/metrics",                       get_pool_metrics,     Route::none},
};
// clang-format on

// Matches path against pattern segment by segment; on success id holds the {name} segment and
// id_name its name.
bool matches(std::string_view pattern, std::string_view path, std::string_view& id,
             std::string_view& id_name) {
    while (true) {
        auto p_end = pattern.find('/', 1);
        auto s_end = path.find('/', 1);
        std::string_view p_seg = pattern.substr(0, p_end);
        std::string_view s_seg = path.substr(0, s_end);
        if (p_seg.size() > 3 && p_seg[1] == '{' && p_seg.back() == '}') {
            if (s_seg.empty() || s_seg[0] != '/') {
                return false;
            }
            id = s_seg.substr(1);
            id_name = p_seg.substr(2, p_seg.size() - 3);
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

std::vector<RouteName> route_names() {
    std::vector<RouteName> names;
    for (const Route& r : kRoutes) {
        names.push_back({r.method, r.pattern});
    }
    return names;
}

std::string_view route_label(std::size_t index) {
    constexpr std::size_t n = sizeof kRoutes / sizeof kRoutes[0];
    return index >= 1 && index <= n ? kRoutes[index - 1].pattern : std::string_view();
}

RouteMatch route(std::string_view method, std::string_view path) {
    RouteMatch m;
    std::size_t position = 0;
    for (const Route& r : kRoutes) {
        ++position;
        std::string_view id;
        std::string_view id_name;
        if (!matches(r.pattern, path, id, id_name)) {
            continue;
        }
        if (m.label == 0) {
            m.label = position;
        }
        if (method == r.method) {
            m.kind = RouteMatch::Kind::found;
            m.handler = r.handler;
            m.needs_key = r.key != Route::none;
            m.key_in_statement = r.key == Route::in_statement;
            m.path_id = id;
            m.id_name = id_name;
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
