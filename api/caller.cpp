#include "api/caller.h"

#include <stdexcept>

#include "api/api_error.h"
#include "api/key_cache.h"
#include "common/key_terms.h"
#include "common/time_util.h"

namespace supportcrm {

using key_rule::Check;
using key_rule::Fact;
using key_rule::Verdict;

namespace {

bool expired(const KeyTerms& terms, std::int64_t now_ms) {
    return terms.expires_ms && *terms.expires_ms <= now_ms;
}

rate_limit::Rate rate_of(const KeyTerms& terms) {
    return {terms.rate_count, terms.rate_period_s};
}

}  // namespace

Caller::Caller(std::string key_digest, unsigned scope)
    : digest_(std::move(key_digest)), scope_(scope) {
    facts_.set(Check::route, Fact::yes).set(Check::key_given, Fact::yes);
    verdict_ = key_rule::judge(facts_);
}

Verdict Caller::settle() {
    verdict_ = key_rule::judge(facts_);
    if (verdict_.needs() && verdict_.check == Check::rate) {
        if (rated() && !rate_) {
            rate_ = rate_limit::take(rate_limit::host_slots(), terms_->id, rate_of(*terms_),
                                     rate_limit::monotonic_us());
        }
        facts_.set(Check::rate, !rated() || rate_->allowed);
        verdict_ = key_rule::judge(facts_);
    }
    return verdict_;
}

void Caller::know_terms(std::int64_t now_ms) {
    facts_.set(Check::not_expired, !expired(*terms_, now_ms));
    facts_.set(Check::scope, scope_ == 0 || (terms_->scopes & scope_) != 0);
}

std::optional<Response> Caller::admit(Db& db, bool writes_in_statement) {
    const std::int64_t now = timeutil::now_ms();
    std::optional<key_cache::Seen> seen = key_cache::fresh(digest_, now);
    if (!seen) {
        // A write must not run before the terms are known: read them with the key's own
        // statement (once a second per key and worker at most, while the key is in use).
        if (writes_in_statement && !resolve(db)) {
            return error();
        }
        return std::nullopt;
    }
    // The key's row as this worker read it less than a second ago.
    terms_ = seen->terms;
    know_terms(now);
    facts_.set(Check::key_known, Fact::yes).set(Check::shop_live, !seen->shop_deleted);
    if (settle().refuses()) {
        if (verdict_.check == Check::scope) {
            // A 403 is an error path: the key's own statement confirms the key and its shop
            // first (either would answer before the scope).
            facts_.set(Check::key_known, Fact::unknown).set(Check::shop_live, Fact::unknown);
            verdict_ = key_rule::judge(facts_);
            resolve(db);
        }
        return error();  // no statement for a request over its budget
    }
    // Revocation is never cached: whether the key is known, and its shop, are for the request's
    // statement to tell; the terms' verdicts (and the token taken) stand.
    facts_.set(Check::key_known, Fact::unknown).set(Check::shop_live, Fact::unknown);
    verdict_ = key_rule::judge(facts_);
    return std::nullopt;
}

const Shop* Caller::learn(const std::optional<Shop>& key) {
    if (!key) {
        facts_.set(Check::key_known, Fact::no);
        settle();
        return nullptr;
    }
    shop_ = *key;
    facts_.set(Check::key_known, Fact::yes).set(Check::shop_live, !key->deleted);
    if (key->key.known) {
        const std::int64_t now = timeutil::now_ms();
        key_cache::remember(digest_, {key->key, key->deleted}, now);
        terms_ = key->key;
        know_terms(now);
    } else if (!terms_) {
        // A keyed write's row for a caller admit() never judged (admit() reads the terms before
        // every keyed write): no terms limit the key.
        facts_.set(Check::not_expired, Fact::yes).set(Check::scope, Fact::yes);
    }
    // (A keyed write's row otherwise: the terms were judged by admit() before it ran.)
    return settle().goes_on() ? &shop_ : nullptr;
}

const Shop* Caller::resolve(Db& db) {
    if (verdict_.needs()) {
        return learn(find_shop_by_key_digest(db, digest_));
    }
    return verdict_.goes_on() ? &shop_ : nullptr;
}

std::optional<Response> Caller::error() const {
    if (!verdict_.refuses()) {
        return std::nullopt;
    }
    switch (verdict_.check) {
        case Check::key_given:
            return errors::missing_api_key();
        case Check::key_known:
            return errors::invalid_api_key();
        case Check::not_expired:
            return errors::api_key_expired();
        case Check::shop_live:
            return errors::shop_not_found();
        case Check::scope:
            return errors::insufficient_scope(key_terms::scope_name(scope_));
        case Check::rate:
            return errors::rate_limited(rate_ ? rate_->retry_after_s : 1);
        case Check::route:  // dispatch's, before there is a caller
        case Check::operation:
            break;
    }
    return std::nullopt;
}

const Shop& Caller::shop() const {
    if (!verdict_.goes_on()) {
        throw std::logic_error("Caller::shop() before the key was resolved");
    }
    return shop_;
}

std::optional<std::uint64_t> Caller::shop_id() const {
    if (!verdict_.goes_on()) {
        return std::nullopt;
    }
    return shop_.id;
}

void Caller::finish(Response& response, Db& db) {
    if (!terms_ || facts_[Check::key_known] == Fact::no) {
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
    if (verdict_.goes_on() && key_cache::touch_due(terms_->id, timeutil::now_ms())) {
        touch_key(db, terms_->id);
    }
}

}  // namespace supportcrm
