#include "fcgi/dispatch.h"

#include "fcgi/auth.h"
#include "fcgi/log.h"
#include "fcgi/router.h"
#include "handlers/api_error.h"

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
    AuthOutcome auth;
    if (match.needs_key) {
        auth = authenticate(request, db);
        if (auth.error) {
            out.response = std::move(*auth.error);
            return out;
        }
        out.shop_id = auth.shop->id;
    }
    HandlerContext ctx{request, auth.shop ? &*auth.shop : nullptr, db, match.path_id,
                       max_body_bytes};
    out.response = match.handler(ctx);
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
