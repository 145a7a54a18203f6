#include "api/caller.h"

#include <stdexcept>

#include "api/api_error.h"

namespace supportcrm {

std::optional<Response> Caller::resolve(Db& db) {
    if (state_ != State::unresolved) {
        return error();
    }
    return settle(find_shop_by_key_digest(db, digest_));
}

std::optional<Response> Caller::adopt(const std::optional<Shop>& keyed) {
    return settle(keyed);
}

void Caller::accepted(Shop shop) {
    state_ = State::ok;
    shop_ = std::move(shop);
}

Response Caller::after_key_checks(Db& db, Response response) {
    if (auto key_error = resolve(db)) {
        return std::move(*key_error);
    }
    return response;
}

std::optional<Response> Caller::settle(const std::optional<Shop>& found) {
    if (!found) {
        state_ = State::unknown_key;
    } else if (found->deleted) {
        state_ = State::shop_deleted;
        shop_ = *found;
    } else {
        state_ = State::ok;
        shop_ = *found;
    }
    return error();
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
