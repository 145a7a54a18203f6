// The key rule's order (api/key_rule.h): judge() over every combination of the seven facts
// (3^7 = 2,187), and the contract's cases by name. What Caller makes of a verdict is in
// caller_test.cpp; the answers over HTTP in tests/integration (key_terms, auth).
#include "api/key_rule.h"

#include <gtest/gtest.h>

#include <array>
#include <cstddef>
#include <ostream>
#include <string>

namespace supportcrm::key_rule {

// gtest prints these by name in a failure message.
void PrintTo(Check c, std::ostream* os) {
    *os << name(c);
}
void PrintTo(const Verdict& v, std::ostream* os) {
    const char* kinds[] = {"refuse", "need", "go_on"};
    *os << kinds[static_cast<int>(v.kind)] << " " << name(v.check);
}

}  // namespace supportcrm::key_rule

namespace {

using supportcrm::key_rule::Check;
using supportcrm::key_rule::Fact;
using supportcrm::key_rule::Facts;
using supportcrm::key_rule::judge;
using supportcrm::key_rule::kFacts;
using supportcrm::key_rule::kOrder;
using supportcrm::key_rule::Verdict;

constexpr Verdict refuse(Check c) {
    return {Verdict::Kind::refuse, c};
}
constexpr Verdict need(Check c) {
    return {Verdict::Kind::need, c};
}
constexpr Verdict go_on() {
    return {Verdict::Kind::go_on, Check::operation};
}

// Every fact yes but those named.
Facts all_yes() {
    Facts f;
    for (std::size_t i = 0; i < kFacts; ++i) {
        f.set(kOrder[i], Fact::yes);
    }
    return f;
}

// The combination numbered n (0 .. 3^7 - 1): fact i is digit i of n in base 3.
Facts combination(unsigned n) {
    Facts f;
    for (std::size_t i = 0; i < kFacts; ++i, n /= 3) {
        f.set(kOrder[i], static_cast<Fact>(n % 3));
    }
    return f;
}

constexpr unsigned kCombinations = 2187;  // 3^7

std::string describe(const Facts& f) {
    const char* values[] = {"?", "yes", "no"};
    std::string s;
    for (std::size_t i = 0; i < kFacts; ++i) {
        s += std::string(supportcrm::key_rule::name(kOrder[i])) + "=" +
             values[static_cast<int>(f[kOrder[i]])] + " ";
    }
    return s;
}

// judge() is a constant expression: nothing of it runs at run time that could not.
static_assert(judge(Facts{}) == Verdict{Verdict::Kind::need, Check::route});
static_assert(judge(Facts{}.set(Check::route, true).without_key()) == go_on());

TEST(KeyRule, TheOrderIsTheContractsAndEachCheckComesOnce) {
    const std::array<Check, 8> contract = {Check::route,       Check::key_given, Check::key_known,
                                           Check::not_expired, Check::shop_live, Check::scope,
                                           Check::rate,        Check::operation};
    EXPECT_EQ(kOrder, contract);
    EXPECT_EQ(kFacts, kOrder.size() - 1);
    EXPECT_EQ(kOrder.back(), Check::operation);
}

TEST(KeyRule, EveryFactKnownAndHoldingGoesOn) {
    EXPECT_EQ(judge(all_yes()), go_on());
}

TEST(KeyRule, TheFirstFactNotHoldingDecidesInEveryCombination) {
    for (unsigned n = 0; n < kCombinations; ++n) {
        const Facts f = combination(n);
        const Verdict v = judge(f);
        std::size_t first = 0;
        while (first < kFacts && f[kOrder[first]] == Fact::yes) {
            ++first;
        }
        if (first == kFacts) {
            EXPECT_EQ(v, go_on()) << describe(f);
        } else if (f[kOrder[first]] == Fact::no) {
            EXPECT_EQ(v, refuse(kOrder[first])) << describe(f);
        } else {
            EXPECT_EQ(v, need(kOrder[first])) << describe(f);
        }
    }
}

TEST(KeyRule, NoFactAfterTheDecidingCheckChangesTheVerdict) {
    for (unsigned n = 0; n < kCombinations; ++n) {
        const Facts f = combination(n);
        const Verdict v = judge(f);
        for (std::size_t later = static_cast<std::size_t>(v.check) + 1; later < kFacts; ++later) {
            for (Fact other : {Fact::unknown, Fact::yes, Fact::no}) {
                Facts changed = f;
                changed.set(kOrder[later], other);
                EXPECT_EQ(judge(changed), v) << describe(changed);
            }
        }
    }
}

TEST(KeyRule, EveryCheckBeforeTheDecidingOneHolds) {
    unsigned refusals = 0, needs = 0, go_ons = 0;
    for (unsigned n = 0; n < kCombinations; ++n) {
        const Facts f = combination(n);
        const Verdict v = judge(f);
        for (std::size_t before = 0; before < static_cast<std::size_t>(v.check); ++before) {
            EXPECT_EQ(f[kOrder[before]], Fact::yes) << describe(f);
        }
        refusals += v.refuses();
        needs += v.needs();
        go_ons += v.goes_on();
    }
    // Exactly one combination goes on; of the rest, for each check, as many refuse as need.
    EXPECT_EQ(go_ons, 1u);
    EXPECT_EQ(refusals, needs);
    EXPECT_EQ(refusals + needs + go_ons, kCombinations);
}

// The contract's cases, by name.
TEST(KeyRule, ADeletedShopsKeyIs404EvenOverItsRateOrWithoutTheScope) {
    Facts f = all_yes();
    f.set(Check::shop_live, Fact::no).set(Check::rate, Fact::no);
    EXPECT_EQ(judge(f), refuse(Check::shop_live));
    f.set(Check::scope, Fact::no);
    EXPECT_EQ(judge(f), refuse(Check::shop_live));
}

TEST(KeyRule, AnExpiredKeyIs401BeforeItsShop) {
    Facts f = all_yes();
    f.set(Check::not_expired, Fact::no).set(Check::shop_live, Fact::no);
    EXPECT_EQ(judge(f), refuse(Check::not_expired));
}

TEST(KeyRule, AnUnknownKeyIs401WhateverElseIsKnown) {
    for (Fact rest : {Fact::unknown, Fact::yes, Fact::no}) {
        Facts f;
        f.set(Check::route, Fact::yes).set(Check::key_given, Fact::yes);
        f.set(Check::key_known, Fact::no);
        for (Check c : {Check::not_expired, Check::shop_live, Check::scope, Check::rate}) {
            f.set(c, rest);
        }
        EXPECT_EQ(judge(f), refuse(Check::key_known));
    }
}

TEST(KeyRule, TheScopeIs403BeforeTheRate) {
    Facts f = all_yes();
    f.set(Check::scope, Fact::no).set(Check::rate, Fact::no);
    EXPECT_EQ(judge(f), refuse(Check::scope));
    f.set(Check::scope, Fact::yes);
    EXPECT_EQ(judge(f), refuse(Check::rate));
}

TEST(KeyRule, ARateTokenIsNeededOnlyOnceEverythingBeforeItHolds) {
    Facts f = all_yes();
    f.set(Check::rate, Fact::unknown);
    EXPECT_EQ(judge(f), need(Check::rate));
    f.set(Check::shop_live, Fact::unknown);
    EXPECT_EQ(judge(f), need(Check::shop_live));  // the key's statement first, then the token
}

TEST(KeyRule, AKeyNotYetLookedAtNeedsItsStatement) {
    Facts f;
    f.set(Check::route, Fact::yes).set(Check::key_given, Fact::yes);
    EXPECT_EQ(judge(f), need(Check::key_known));
}

TEST(KeyRule, TheRouteComesBeforeTheKeyAndARouteWithoutAKeyChecksNone) {
    Facts f;
    f.set(Check::route, Fact::no).set(Check::key_given, Fact::no);
    EXPECT_EQ(judge(f), refuse(Check::route));
    f.set(Check::route, Fact::yes);
    EXPECT_EQ(judge(f), refuse(Check::key_given));
    EXPECT_EQ(judge(Facts{}.set(Check::route, Fact::no).without_key()), refuse(Check::route));
    EXPECT_EQ(judge(Facts{}.set(Check::route, Fact::yes).without_key()), go_on());
}

}  // namespace
