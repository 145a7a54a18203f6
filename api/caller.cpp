#include "api/caller.h"

#include <stdexcept>

#include "api/api_error.h"

namespace supportcrm {

const Shop* Caller::learn(const std::optional<Shop>& key) {
    if (!key) {
        state_ = State::unknown_key;
        return nullptr;
    }
    shop_ = *key;
    state_ = key->deleted ? State::shop_deleted : State::ok;
    return state_ == State::ok ? &shop_ : nullptr;
}

const Shop* Caller::resolve(Db& db) {
    if (state_ == State::unresolved) {
        return learn(find_shop_by_key_digest(db, digest_));
    }
    return state_ == State::ok ? &shop_ : nullptr;
}

std::optional<Response> Caller::error() const {
    switch (state_) {
        case State::unknown_key:
            return errors::invalid_api_key();
        case State::shop_deleted:
            return errors::shop_not_found();
        case State::unresolved:
        case State::ok:
            break;
    }
    return std::nullopt;
}

const Shop& Caller::shop() const {
    if (state_ != State::ok) {
        throw std::logic_error("Caller::shop() before the key was resolved");
    }
    return shop_;
}

std::optional<std::uint64_t> Caller::shop_id() const {
    if (state_ != State::ok) {
        return std::nullopt;
    }
    return shop_.id;
}

}  // namespace supportcrm
