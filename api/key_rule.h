// The key rule (contract.md, extensions.md §E12): the order in which a request's checks answer,
// declared once. Every answer about a request's route and key follows kOrder: the route
// (404 route_not_found / 405), a key given (401 missing_api_key), the key known and not revoked
// (401 "Invalid API key"), not expired (401 "API key expired"), its shop live (404
// shop_not_found), the route's scope (403 insufficient_scope), the key's rate (429 rate_limited),
// and only then the operation's own checks (path id, body, fields, records).
//
// The facts come from different places and at different times — the route table, the request's
// headers, a keyed statement's row or the key's own statement, this worker's copy of the key's
// terms (api/key_cache.h), the rate's token bucket — so judge() takes each as unknown, yes or no
// and answers what the request may do now: refuse at the first check that failed, or name the
// first fact still needed (the caller then runs the key's statement, or takes a token), or go
// on with the operation. A fact learned late can never overtake an earlier check: a deleted
// shop's key is 404 even when its rate is spent, because shop_live comes before rate.
//
// Who uses it: api/dispatch.cpp (route, key given) and api/caller.cpp (the rest), which decides
// only through judge(). The route's key mode (handlers/router.cpp) says where the key's facts
// come from, not in which order they count. Pure and constexpr: no allocation on the hot path.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace supportcrm::key_rule {

enum class Check : std::uint8_t {
    route,        // the method and path name an operation
    key_given,    // x-api-key or Authorization: Bearer (a route with a key)
    key_known,    // an unrevoked key has the digest
    not_expired,  // the key's expiry is in the future (or it has none)
    shop_live,    // the key's shop is not deleted
    scope,        // the key has the route's scope
    rate,         // the key's rate has a token for this request
    operation,    // the operation's own checks and work: not a fact, where the rule ends
};

// THE order. Nothing else in the tree lists it.
inline constexpr std::array<Check, 8> kOrder = {
    Check::route,     Check::key_given, Check::key_known, Check::not_expired,
    Check::shop_live, Check::scope,     Check::rate,      Check::operation,
};
inline constexpr std::size_t kFacts = kOrder.size() - 1;  // every check but the operation

enum class Fact : std::uint8_t { unknown, yes, no };

// What is known about a request so far, one fact per check of kOrder (but the operation).
class Facts {
  public:
    constexpr Fact operator[](Check c) const { return facts_[static_cast<std::size_t>(c)]; }
    constexpr Facts& set(Check c, Fact f) {
        facts_[static_cast<std::size_t>(c)] = f;
        return *this;
    }
    constexpr Facts& set(Check c, bool holds) { return set(c, holds ? Fact::yes : Fact::no); }
    // A route without a key (/healthz, the description, /status): no key check applies to it.
    constexpr Facts& without_key() {
        for (std::size_t i = static_cast<std::size_t>(Check::key_given); i < kFacts; ++i) {
            facts_[i] = Fact::yes;
        }
        return *this;
    }
    constexpr bool operator==(const Facts&) const = default;

  private:
    std::array<Fact, kFacts> facts_{};
};

struct Verdict {
    enum class Kind : std::uint8_t {
        refuse,  // `check` failed: its error answers the request
        need,    // `check`'s fact is not known yet, and every check before it passed
        go_on,   // every check passed: the operation (`check` is Check::operation)
    };
    Kind kind;
    Check check;

    constexpr bool refuses() const { return kind == Kind::refuse; }
    constexpr bool needs() const { return kind == Kind::need; }
    constexpr bool goes_on() const { return kind == Kind::go_on; }
    constexpr bool operator==(const Verdict&) const = default;
};

// The rule itself: the first check of kOrder whose fact is not yes decides.
constexpr Verdict judge(const Facts& facts) {
    for (Check c : kOrder) {
        if (c == Check::operation) {
            break;
        }
        if (facts[c] == Fact::no) {
            return {Verdict::Kind::refuse, c};
        }
        if (facts[c] == Fact::unknown) {
            return {Verdict::Kind::need, c};
        }
    }
    return {Verdict::Kind::go_on, Check::operation};
}

// The check's name, for logs and test messages ("shop_live").
const char* name(Check c);

}  // namespace supportcrm::key_rule
