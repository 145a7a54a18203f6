// Who is calling: the request's API key, resolved to its shop at most once per request, and
// what the key may do (extensions.md §E12: scope, expiry, rate). The order in which those
// answer is api/key_rule.h's: Caller gathers the key's facts and decides only through
// key_rule::judge() — 401 for an unknown, revoked or expired key, 404 for a deleted shop, 403
// for a key without the route's scope, 429 over the key's rate, then the operation's own checks.
//
// The hot operations resolve the key inside their own statement — the key and shop tables are
// joined into it (SUPPORTCRM_KEY_* in db/auth_sql.h), one round trip instead of two — and hand the
// key columns of its row to learn(). Everything else goes through resolve(), which runs the
// key's own statement while judge() still needs a fact of the key. Whatever a handler answers,
// api/dispatch.cpp answers the key's own error instead when it has one.
//
// The key's row carries its terms, so neither scope nor expiry nor rate costs a statement. A
// keyed write's own row does not carry them, so a write must not run before they are known:
// admit() decides from this worker's copy of the key's row (api/key_cache.h, at most a second
// old) or, when it has none, runs the key's own statement first.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "api/key_rule.h"
#include "api/response.h"
#include "common/rate_limit.h"
#include "db/auth_repo.h"
#include "db/db.h"

namespace supportcrm {

class Caller {
  public:
    Caller() = default;  // a route without a key: nothing to resolve
    // A found route's key, given: `scope` is the scope bit the route needs (RouteMatch::scope);
    // 0 checks none.
    explicit Caller(std::string key_digest, unsigned scope = 0);

    // SHA-256 of the key, hex: what keyed statements bind.
    const std::string& key_digest() const { return digest_; }

    // Before the handler. `writes_in_statement`: the handler's keyed statement may write (its row
    // does not carry the key's terms). Refuses what this worker's copy of the key's row already
    // decides — expired, a deleted shop, lacking the scope (after the key's statement confirms
    // the shop), over the rate — and makes sure a write never runs for a key whose terms are
    // unknown. nullopt: go on.
    std::optional<Response> admit(Db& db, bool writes_in_statement);

    // What a keyed statement found about the key: the key columns of its row
    // (read_keyed_shop()), or a shop a keyed write succeeded for (it only does for a live shop
    // of the key). nullopt means no unrevoked key has this digest: pass it only from a
    // statement that returns the key's row whenever the key exists. Returns the shop when the
    // key may go on, else nullptr (the request is then answered with error()). The layers above
    // reach it through KeyedOpener (api/handler.h, for a Keyed result) or settle_by_write().
    const Shop* learn(const std::optional<Shop>& key);

    // A keyed write succeeded for `shop`: it does only for a live shop of an unrevoked key,
    // whose terms admit() judged before it ran. The shop, or nullptr with error() (the rate).
    const Shop* settle_by_write(const Shop& shop) { return learn(shop); }

    // The key's live shop, or nullptr (then error() says why). Runs the key's own statement
    // only if nothing has settled the key yet.
    const Shop* resolve(Db& db);

    // The key's own error once it is settled: 401 invalid_api_key ("Invalid API key" or "API
    // key expired"), 404 shop_not_found, 403 insufficient_scope or 429 rate_limited; nullopt
    // for a key that may go on or one not looked at yet.
    std::optional<Response> error() const;

    const Shop& shop() const;
    std::optional<std::uint64_t> shop_id() const;  // for the access log

    // After the answer: RateLimit-Limit / -Remaining / -Reset on every answer to a key with a
    // rate (extensions.md §E12), and the key's lastUsedAt at most once a minute (never fails).
    void finish(Response& response, Db& db);

  private:
    // judge() of the facts so far, taking the rate's token when that is the fact it needs (once
    // a request: the token is taken only for a key that passed every check before the rate).
    key_rule::Verdict settle();
    // The facts the key's terms decide: not expired, the route's scope.
    void know_terms(std::int64_t now_ms);
    bool rated() const { return terms_ && terms_->rate_count > 0; }

    std::string digest_;
    unsigned scope_ = 0;
    key_rule::Facts facts_;
    key_rule::Verdict verdict_{key_rule::Verdict::Kind::need, key_rule::Check::key_given};
    Shop shop_;
    std::optional<KeyTerms> terms_;
    std::optional<rate_limit::Decision> rate_;  // the token this request took (or was refused)
};

}  // namespace supportcrm
