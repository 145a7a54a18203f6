#include "api/dispatch.h"

#include <chrono>
#include <random>
#include <string>
#include <thread>

#include "api/api_error.h"
#include "api/auth.h"
#include "api/files.h"
#include "api/idempotency.h"
#include "api/key_rule.h"
#include "api/rerun_policy.h"
#include "common/keys.h"
#include "common/log.h"

namespace supportcrm {
namespace {

// The path id is the first of the operation's own checks (after the key and its shop).
Response run_handler(const RouteMatch& match, HandlerContext& ctx) {
    if (!match.id_name.empty()) {
        Checked<std::uint64_t> id = parse_path_id(match.path_id, match.id_name);
        if (id.error) {
            return std::move(*id.error);
        }
        ctx.path_id = id.value;
    }
    return match.handler(ctx);
}

// The answer to a keyed (or key-less) request once the route is known and the key read. The
// key's checks answer before the operation's (api/key_rule.h, kOrder): admit() refuses what
// this worker already knows of the key; the route's key mode says whether its facts come from
// the key's own statement before the handler or from the handler's statement.
Response answer(Request& request, Db& db, const RouteMatch& match, std::size_t max_body_bytes,
                Caller& caller) {
    if (match.needs_key) {
        // A keyed write's statement resolves the key inside itself: its terms (scope, expiry,
        // rate; extensions.md §E12) must be known before it runs.
        const bool writes_in_statement =
            request.method != "GET" && (match.key_in_statement || idempotency::applies(request));
        if (std::optional<Response> refused = caller.admit(db, writes_in_statement)) {
            return std::move(*refused);
        }
    }
    if (match.spooled_body) {
        // The key's checks answer before the body is taken in (api/key_rule.h).
        if (!caller.resolve(db)) {
            return *caller.error();
        }
        if (std::optional<Response> refused = files::spool_upload(request)) {
            return std::move(*refused);
        }
    }
    HandlerContext ctx{request, caller, db, 0, max_body_bytes};
    Response response;
    if (match.needs_key && idempotency::applies(request)) {
        // The claim of the key resolves the API key too (a keyed statement).
        response = idempotency::run_once(request, caller, db, max_body_bytes,
                                         [&] { return run_handler(match, ctx); });
    } else {
        if (match.needs_key && !match.key_in_statement && !caller.resolve(db)) {
            return *caller.error();
        }
        response = run_handler(match, ctx);
    }
    // Every check of the key comes before the operation's: a handler that resolves the key
    // inside its own statement checks what it can before that statement runs (path id, body,
    // fields, query) and may find no row; whatever it answers, the key's own error answers
    // instead. The key's statement runs here only if no statement of the handler settled it.
    if (match.needs_key && !caller.resolve(db)) {
        return *caller.error();
    }
    return response;
}

// The first two checks of the key rule, the route and a key given; the rest are the Caller's.
Response refusal_before_caller(const RouteMatch& match, key_rule::Check failed) {
    if (failed == key_rule::Check::key_given) {
        return errors::missing_api_key();
    }
    return match.kind == RouteMatch::Kind::method_not_allowed
               ? errors::method_not_allowed(match.allow)
               : errors::route_not_found();
}

Outcome dispatch(Request& request, Db& db, const RouteMatch& match, std::size_t max_body_bytes) {
    Outcome out;
    key_rule::Facts facts;
    facts.set(key_rule::Check::route, match.kind == RouteMatch::Kind::found);
    std::optional<std::string_view> key;
    if (!match.needs_key) {
        facts.without_key();
    } else if (match.kind == RouteMatch::Kind::found) {
        key = api_key_of(request);
        facts.set(key_rule::Check::key_given, key.has_value());
    }
    if (const key_rule::Verdict v = key_rule::judge(facts); v.refuses()) {
        out.response = refusal_before_caller(match, v.check);
        return out;
    }
    Caller caller;
    if (match.needs_key) {
        caller = Caller(keys::digest_hex(*key), match.scope);
    }
    out.response = answer(request, db, match, max_body_bytes, caller);
    if (match.needs_key) {
        caller.finish(out.response, db);  // RateLimit-* headers, lastUsedAt; never throws
    }
    out.shop_id = caller.shop_id();
    return out;
}

// A worker whose connection was lost (or never opened) opens a new one before the request.
// Success is a WARNING, not silence: the journal then shows when the database came back and
// which server answered.
// While the database is down every request fails here: one ERROR line, then at most one per
// kReconnectLogEvery per worker, counting the ones not written.
constexpr auto kReconnectLogEvery = std::chrono::seconds(5);

bool reconnect(Db& db) {
    static log::Throttle failures(kReconnectLogEvery);  // per worker (after fork)
    try {
        db.connect();
        const std::size_t held_back = failures.success();
        log::warning(
            "reconnected to the database " + db.where() + ": server " + db.server_version() +
            (held_back > 0
                 ? " (after " + std::to_string(held_back) + " more failed attempts not logged)"
                 : ""));
        return true;
    } catch (const DbUnavailable& e) {
        if (std::string line = failures.admit(e.what()); !line.empty()) {
            log::error(line);
        }
        return false;
    }
}

// One line per failure: what failed (statement, error code; never bound values) and what the
// request gets for it.
void log_failure(const std::string& what, rerun::Failure failure, rerun::Step step,
                 const char* durable, const rerun::Budget& budget) {
    using rerun::Failure;
    using rerun::Step;
    switch (step) {
        case Step::rerun:
            log::warning(what + "; nothing of the request was committed: reconnecting and " +
                         "running it again");
            return;
        case Step::rerun_after_jitter:
            log::warning(what + "; the transaction met another and was rolled back: running the " +
                         "request again (re-run " + std::to_string(budget.conflict_reruns) +
                         " of " + std::to_string(rerun::kMaxConflictReruns) + ")");
            return;
        case Step::unavailable:
            if (durable != nullptr && failure != Failure::commit_refused) {
                log::warning(what + "; not run again: the outcome of " + durable +
                             " is unknown (it may have been committed), answering 503");
            } else if (failure == Failure::commit_refused) {
                log::error(what + "; COMMIT failed, answering 503");
            } else {
                log::error(what + "; still failing after the re-runs allowed, answering 503");
            }
            return;
        case Step::internal_error:
            log::error(what);
            return;
    }
}

// Between re-runs of a rolled-back transaction; seeded per worker on first use (after fork).
std::chrono::microseconds rollback_jitter(int rerun) {
    static std::minstd_rand random{std::random_device{}()};
    return rerun::jitter(rerun, static_cast<unsigned>(random()));
}

}  // namespace

Outcome respond(Request& request, Db& db, const RouteMatch& match, std::size_t max_body_bytes) {
    // The one exception boundary of a request: every failure becomes the contract's error
    // body plus one log line; no exception reaches the worker loop. Whether a failed request
    // runs again is rerun::next()'s decision alone.
    db.start_request();
    rerun::Budget budget;
    while (true) {
        rerun::Failure failure = rerun::Failure::other;
        std::string what;
        try {
            if (!db.connected() && !reconnect(db)) {
                return {errors::unavailable(), std::nullopt};
            }
            return dispatch(request, db, match, max_body_bytes);
        } catch (const DbUnavailable& e) {
            db.disconnect();
            failure = rerun::Failure::connection_lost;
            what = e.what();
        } catch (const CommitFailed& e) {
            failure = Db::rolls_back_transaction(e.error_code) ? rerun::Failure::conflict
                                                               : rerun::Failure::commit_refused;
            what = e.what();
        } catch (const DbError& e) {
            if (Db::is_rerunnable_conflict(e.error_code)) {
                failure = rerun::Failure::conflict;
            }
            what = e.what();
        } catch (const std::exception& e) {
            what = std::string("unhandled exception: ") + e.what();
        } catch (...) {
            what = "unhandled non-standard exception";
        }
        const char* durable = db.ledger().durable();
        const rerun::Step step = rerun::next(failure, durable != nullptr, budget);
        log_failure(what, failure, step, durable, budget);
        switch (step) {
            case rerun::Step::rerun:
                continue;
            case rerun::Step::rerun_after_jitter:
                std::this_thread::sleep_for(rollback_jitter(budget.conflict_reruns));
                continue;
            case rerun::Step::unavailable:
                return {errors::unavailable(), std::nullopt};
            case rerun::Step::internal_error:
                return {errors::internal_error(), std::nullopt};
        }
        return {errors::internal_error(), std::nullopt};
    }
}

}  // namespace supportcrm
