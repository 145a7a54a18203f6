#include "api/caller.h"

#include <stdexcept>

#include "api/api_error.h"
#include "api/key_cache.h"
#include "common/key_terms.h"
#include "common/time_util.h"

namespace supportcrm {
namespace {

bool expired(const KeyTerms& terms, std::int64_t now_ms) {
    return terms.expires_ms && *terms.expires_ms <= now_ms;
}

rate_limit::Rate rate_of(const KeyTerms& terms) {
    return {terms.rate_count, terms.rate_period_s};
}

}  // namespace

Caller::State Caller::judge(bool shop_deleted) {
    if (shop_deleted) {
        return State::shop_deleted;
    }
    if (scope_ != 0 && (terms_->scopes & scope_) == 0) {
        return State::lacks_scope;
    }
    if (rated() && !rate_) {
        rate_ = rate_limit::take(rate_limit::host_slots(), terms_->id, rate_of(*terms_),
                                 rate_limit::monotonic_us());
    }
    return rate_ && !rate_->allowed ? State::rate_limited : State::ok;
}

std::optional<Response> Caller::admit(Db& db, bool writes_in_statement) {
    const std::int64_t now = timeutil::now_ms();
    std::optional<KeyTerms> cached = key_cache::fresh(digest_, now);
    if (!cached) {
        // A write must not run before the terms are known: read them with the key's own
        // statement (once a second per key and worker at most, while the key is in use).
        if (writes_in_statement && !resolve(db)) {
            return error();
        }
        return std::nullopt;
    }
    terms_ = cached;
    if (expired(*terms_, now)) {
        state_ = State::expired;  // a key-level refusal: its shop does not matter
        return error();
    }
    if (scope_ != 0 && (terms_->scopes & scope_) == 0) {
        // 404 for a deleted shop comes before 403: the key's own statement tells (an error path).
        resolve(db);
        return error();
    }
    if (rated()) {
        rate_ = rate_limit::take(rate_limit::host_slots(), terms_->id, rate_of(*terms_),
                                 rate_limit::monotonic_us());
        if (!rate_->allowed) {
            state_ = State::rate_limited;  // no statement for a request over its budget
            return error();
        }
    }
    return std::nullopt;
}

const Shop* Caller::learn(const std::optional<Shop>& key) {
    if (!key) {
        state_ = State::unknown_key;
        return nullptr;
    }
    shop_ = *key;
    if (key->key.known) {
        const std::int64_t now = timeutil::now_ms();
        key_cache::remember(digest_, key->key, now);
        terms_ = key->key;
        state_ = expired(*terms_, now) ? State::expired : judge(key->deleted);
    } else if (terms_) {
        // A keyed write's row: the terms were judged by admit() before it ran.
        state_ = judge(key->deleted);
    } else {
        state_ = key->deleted ? State::shop_deleted : State::ok;
    }
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
        case State::expired:
            return errors::api_key_expired();
        case State::shop_deleted:
            return errors::shop_not_found();
        case State::lacks_scope:
            return errors::insufficient_scope(key_terms::scope_name(scope_));
        case State::rate_limited:
            return errors::rate_limited(rate_ ? rate_->retry_after_s : 1);
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

void Caller::finish(Response& response, Db& db) {
    if (!terms_ || state_ == State::unknown_key) {
        return;
    }
    if (rated()) {
        const rate_limit::Decision d =
            rate_ ? *rate_
                  : rate_limit::peek(rate_limit::host_slots(), terms_->id, rate_of(*terms_),
                                     rate_limit::monotonic_us());
        // One allocation for the three (a GET's answer already holds its ETag: without this the
        // vector would grow twice, moving the headers each time).
        response.headers.reserve(response.headers.size() + 3);
        response.headers.emplace_back("RateLimit-Limit", std::to_string(d.limit));
        response.headers.emplace_back("RateLimit-Remaining", std::to_string(d.remaining));
        response.headers.emplace_back("RateLimit-Reset", std::to_string(d.reset_s));
    }
    if (state_ == State::ok && key_cache::touch_due(terms_->id, timeutil::now_ms())) {
        touch_key(db, terms_->id);
    }
}

}  // namespace supportcrm
