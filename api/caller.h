// Who is calling: the request's API key, resolved to its shop at most once per request.
//
// The hot operations resolve the key inside their own statement — the key and shop tables are
// joined into it (SUPPORTCRM_KEY_* in repo/db.cpp), one round trip instead of two — and hand
// the key columns of its row to adopt(). Every other path calls resolve(), which runs the
// key's own statement. Either way a request gets the same answer in the contract's order:
// 401 for an unknown or revoked key, 404 for a deleted shop, then the operation's own checks.
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

    // nullopt when the key leads to a live shop (shop() is then valid), else the response.
    // Runs the key's statement only if the key has not been resolved yet.
    [[nodiscard]] std::optional<Response> resolve(Db& db);

    // The key columns of a keyed statement's row (read_keyed_shop()); nullopt for no row,
    // which for a statement that always returns the key's row means the key is unknown.
    [[nodiscard]] std::optional<Response> adopt(const std::optional<Shop>& keyed);

    // A keyed write succeeded, which it only does for a live shop of the key: this one.
    // (After a comment only the id is known; shop().domain is then empty.)
    void accepted(Shop shop);

    // A response that must not overtake the key's checks: the key's own error if it has one,
    // else `response`.
    [[nodiscard]] Response after_key_checks(Db& db, Response response);

    const Shop& shop() const;
    std::optional<std::uint64_t> shop_id() const;  // for the access log

  private:
    enum class State { unresolved, ok, unknown_key, shop_deleted };
    std::optional<Response> settle(const std::optional<Shop>& found);
    std::optional<Response> error() const;

    std::string digest_;
    State state_ = State::unresolved;
    Shop shop_;
};

}  // namespace supportcrm
