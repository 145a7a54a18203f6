#include "handlers/router.h"

#include "common/key_terms.h"

namespace supportcrm {
namespace {

// The scope a key needs (extensions.md §E12), a column of its own in every entry, before the
// handler: an entry written without one does not compile. The rule of E12: `read` for a GET
// under /api/v1, `write` for POST and PATCH, `export` for the exports and the changes feed,
// `erase` for DELETE of a customer; `kNoKey` for the routes without a key.
// tests/unit/route_scope_test.cpp checks every entry against that rule.
constexpr unsigned kRead = key_terms::scope::read, kWrite = key_terms::scope::write,
                   kExport = key_terms::scope::export_, kErase = key_terms::scope::erase,
                   kNoKey = 0;

struct Route {
    const char* method;
    const char* pattern;  // "{name}" matches any one segment, even an empty one: the path id
    unsigned scope;       // the key's scope the route needs (kRead ... kErase, kNoKey)
    Handler handler;
    // Where the key's facts (api/key_rule.h, kOrder: key known .. rate) come from, never in
    // which order they count: `none`, a route without a key (no key check applies);
    // `resolved_first`, the key's own statement before the handler; `in_statement`, the
    // handler's keyed statement (its row, or the key's own statement when it found none).
    enum Key { none, resolved_first, in_statement } key;
    // Which of the master's timers bounds a request on it: request-terminate-timeout, or
    // stream-terminate-timeout for an answer that is long by nature (an export's whole
    // history), so that the short timer of every other route cannot cut it.
    enum Timer { request, stream } timer;
    // How the body is taken: by the handler (a JSON body, read into memory), or `spooled`, by
    // dispatch into a file under files-dir before the handler runs (an upload: api/files.h).
    enum Body { in_memory, spooled } body = in_memory;
};

// clang-format off
const Route kRoutes[] = {
    // GET before POST and PATCH: the order of a 405's Allow ("GET, POST", "GET, PATCH, DELETE").
    {"GET",   "/api/v1/customers",                  kRead,   list_customers,       Route::resolved_first, Route::request},
    {"POST",  "/api/v1/customers",                  kWrite,  create_customer,      Route::in_statement,   Route::request},
    {"GET",   "/api/v1/customers/{customerId}",     kRead,   get_customer,         Route::in_statement,   Route::request},
    {"PATCH", "/api/v1/customers/{customerId}",     kWrite,  patch_customer,       Route::in_statement,   Route::request},
    {"DELETE", "/api/v1/customers/{customerId}",    kErase,  delete_customer,      Route::in_statement,   Route::request},
    {"POST",  "/api/v1/customers/{customerId}/merge", kWrite, merge_customer,      Route::in_statement,   Route::request},
    {"GET",   "/api/v1/customers/{customerId}/export", kExport, export_customer,   Route::in_statement,   Route::stream},
    {"GET",   "/api/v1/tickets",                    kRead,   list_tickets,         Route::resolved_first, Route::request},
    {"POST",  "/api/v1/tickets",                    kWrite,  create_ticket,        Route::resolved_first, Route::request},
    {"GET",   "/api/v1/tickets/{ticketId}",         kRead,   get_ticket,           Route::in_statement,   Route::request},
    {"PATCH", "/api/v1/tickets/{ticketId}",         kWrite,  patch_ticket,         Route::in_statement,   Route::request},
    {"GET",   "/api/v1/tickets/{ticketId}/comments", kRead,  list_ticket_comments, Route::in_statement,   Route::request},
    {"POST",  "/api/v1/tickets/{ticketId}/comments", kWrite, create_comment,       Route::in_statement,   Route::request},
    {"GET",   "/api/v1/csat",                       kRead,   list_csat,            Route::in_statement,   Route::request},
    {"POST",  "/api/v1/csat",                       kWrite,  create_survey,        Route::resolved_first, Route::request},
    {"GET",   "/api/v1/csat/export",                kExport, export_csat,          Route::resolved_first, Route::stream},
    {"GET",   "/api/v1/changes",                    kExport, list_changes,         Route::resolved_first, Route::request},
    // Files (extensions.md §E13): the bytes are sent by nginx (X-Accel-Redirect); the signed
    // link needs no key, its signature is checked by its handler.
    {"POST",  "/api/v1/files",                      kWrite,  upload_file,          Route::resolved_first, Route::request, Route::spooled},
    {"GET",   "/api/v1/files/{fileId}",             kRead,   download_file,        Route::resolved_first, Route::request},
    {"GET",   "/api/v1/files/{fileId}/meta",        kRead,   get_file_meta,        Route::resolved_first, Route::request},
    {"GET",   "/files/{fileId}/{filename}",         kNoKey,  download_signed_file, Route::none,           Route::request},
    {"GET",   "/api/v1/openapi.json",               kNoKey,  get_openapi,          Route::none,           Route::request},
    {"GET",   "/healthz",                           kNoKey,  healthz,              Route::none,           Route::request},
    // Load balancers probe with HEAD too; the worker sends GET's headers without the body.
    {"HEAD",  "/healthz",                           kNoKey,  healthz,              Route::none,           Route::request},
    // The pool's own state (extensions.md §E6); nginx lets only listed addresses reach them.
    {"GET",   "/status",                            kNoKey,  get_pool_status,      Route::none,           Route::request},
    {"GET",   "/metrics",                           kNoKey,  get_pool_metrics,     Route::none,           Route::request},
};
// clang-format on

// Matches path against pattern segment by segment; on success id holds the first {name}
// segment and id_name its name (a later one, the signed link's filename, is its handler's).
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
            if (id_name.empty()) {
                id = s_seg.substr(1);
                id_name = p_seg.substr(2, p_seg.size() - 3);
            }
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
        names.push_back({r.method, r.pattern, r.scope, r.key != Route::none});
    }
    return names;
}

std::string_view route_label(std::size_t index) {
    constexpr std::size_t n = sizeof kRoutes / sizeof kRoutes[0];
    return index >= 1 && index <= n ? kRoutes[index - 1].pattern : std::string_view();
}

bool route_streams(std::size_t index) {
    constexpr std::size_t n = sizeof kRoutes / sizeof kRoutes[0];
    return index >= 1 && index <= n && kRoutes[index - 1].timer == Route::stream;
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
            m.scope = r.scope;
            m.key_in_statement = r.key == Route::in_statement;
            m.path_id = id;
            m.id_name = id_name;
            m.spooled_body = r.body == Route::spooled;
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
