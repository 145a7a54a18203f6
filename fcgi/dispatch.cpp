#include "fcgi/dispatch.h"

#include "fcgi/auth.h"
#include "fcgi/log.h"
#include "fcgi/router.h"
#include "handlers/api_error.h"
#include "handlers/repo/keys.h"

namespace supportcrm {
namespace {

Outcome dispatch(Request& request, Db& db, std::size_t max_body_bytes) {
    Outcome out;
    RouteMatch match = route(request.method, request.path);
    if (match.kind == RouteMatch::Kind::not_found) {
        out.response = errors::route_not_found();
        return out;
    }
    if (match.kind == RouteMatch::Kind::method_not_allowed) {
        out.response = errors::method_not_allowed(match.allow);
        return out;
    }
    Caller caller;
    if (match.needs_key) {
        std::optional<std::string_view> key = api_key_of(request);
        if (!key) {
            out.response = errors::missing_api_key();
            return out;
        }
        caller = Caller(keys::digest_hex(*key));
        if (!match.key_in_statement) {
            if (auto key_error = caller.resolve(db)) {
                out.response = std::move(*key_error);
                return out;
            }
        }
    }
    HandlerContext ctx{request, caller, db, match.path_id, max_body_bytes};
    out.response = match.handler(ctx);
    out.shop_id = caller.shop_id();
    return out;
}

bool reconnect(Db& db) {
    try {
        db.connect();
        return true;
    } catch (const DbUnavailable& e) {
        log::error(e.what());
        return false;
    }
}

}  // namespace

Outcome respond(Request& request, Db& db, std::size_t max_body_bytes) {
    // The one exception boundary of a request: every failure becomes the contract's error
    // body plus one log line; no exception reaches the worker loop.
    for (int attempt = 0;; ++attempt) {
        try {
            if (!db.connected() && !reconnect(db)) {
                return {errors::unavailable(), std::nullopt};
            }
            return dispatch(request, db, max_body_bytes);
        } catch (const DbUnavailable& e) {
            log::error(e.what());
            db.disconnect();
            if (attempt == 0) {
                continue;  // reconnect once and run the request again
            }
            return {errors::unavailable(), std::nullopt};
        } catch (const DbError& e) {
            log::error(e.what());
            return {errors::internal_error(), std::nullopt};
        } catch (const std::exception& e) {
            log::error(std::string("unhandled exception: ") + e.what());
            return {errors::internal_error(), std::nullopt};
        } catch (...) {
            log::error("unhandled non-standard exception");
            return {errors::internal_error(), std::nullopt};
        }
    }
}

}  // namespace supportcrm
