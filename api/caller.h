// Who is calling: the request's API key, resolved to its shop at most once per request.
//
// The hot operations resolve the key inside their own statement — the key and shop tables are
// joined into it (SUPPORTCRM_KEY_* in db/auth_sql.h), one round trip instead of two — and hand the
// key columns of its row to learn(). Everything else goes through resolve(), which runs the
// key's own statement unless a statement has already settled the key. Either way a request gets
// the same answer in the contract's order: 401 for an unknown or revoked key, 404 for a deleted
// shop, then the operation's own checks. That order is kept in one place, api/dispatch.cpp:
// whatever a handler answers, a key without a live shop answers instead.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "api/response.h"
#include "db/auth_repo.h"
#include "db/db.h"

namespace supportcrm {

class Caller {
  public:
    Caller() = default;  // a route without a key: nothing to resolve
    explicit Caller(std::string key_digest) : digest_(std::move(key_digest)) {}

    // SHA-256 of the key, hex: what keyed statements bind.
    const std::string& key_digest() const { return digest_; }

    // What a keyed statement found about the key: the key columns of its row
    // (read_keyed_shop()), or a shop a keyed write succeeded for (it only does for a live shop
    // of the key). nullopt means no unrevoked key has this digest: pass it only from a
    // statement that returns the key's row whenever the key exists. Returns the shop when it is
    // live, else nullptr (the request is then answered with error()).
    const Shop* learn(const std::optional<Shop>& key);

    // The key's live shop, or nullptr (then error() says why). Runs the key's own statement
    // only if nothing has settled the key yet.
    const Shop* resolve(Db& db);

    // The key's own error once it is settled: 401 invalid_api_key or 404 shop_not_found;
    // nullopt for a live shop or a key not looked at yet.
    std::optional<Response> error() const;

    const Shop& shop() const;
    std::optional<std::uint64_t> shop_id() const;  // for the access log

  private:
    enum class State { unresolved, ok, unknown_key, shop_deleted };

    std::string digest_;
    State state_ = State::unresolved;
    Shop shop_;
};

}  // namespace supportcrm
