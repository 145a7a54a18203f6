// rerun::next(): which failed requests run again. A request that may have committed a write is
// never run again, whatever failed; a lost connection is re-run once, a conflict (deadlock, lock
// wait, AUTO-INC lock) 16 times.
#include "api/rerun_policy.h"

#include <gtest/gtest.h>

#include <algorithm>

using supportcrm::rerun::Budget;
using supportcrm::rerun::Failure;
using supportcrm::rerun::jitter;
using supportcrm::rerun::next;
using supportcrm::rerun::Step;

TEST(RerunPolicy, ALostConnectionIsReRunOnceWhenNothingCanHaveBeenCommitted) {
    Budget b;
    EXPECT_EQ(next(Failure::connection_lost, false, b), Step::rerun);
    EXPECT_EQ(next(Failure::connection_lost, false, b), Step::unavailable);
}

TEST(RerunPolicy, ALostConnectionAfterAWriteWasSentIsNeverReRun) {
    Budget b;
    EXPECT_EQ(next(Failure::connection_lost, true, b), Step::unavailable);
    EXPECT_EQ(b.reconnect_reruns, 0);
}

TEST(RerunPolicy, AConflictIsReRunSixteenTimesWithJitter) {
    static_assert(supportcrm::rerun::kMaxConflictReruns == 16);
    Budget b;
    for (int i = 1; i <= 16; ++i) {
        EXPECT_EQ(next(Failure::conflict, false, b), Step::rerun_after_jitter);
        EXPECT_EQ(b.conflict_reruns, i);
    }
    EXPECT_EQ(next(Failure::conflict, false, b), Step::unavailable);
}

TEST(RerunPolicy, AllTheConflictPausesTogetherStayWithinAFewSeconds) {
    using std::chrono::microseconds;
    microseconds longest{0};
    for (int rerun = 1; rerun <= supportcrm::rerun::kMaxConflictReruns; ++rerun) {
        microseconds pause{0};
        for (unsigned random = 0; random <= 3000u * 64; ++random) {
            pause = std::max(pause, jitter(rerun, random));
        }
        longest += pause;
    }
    EXPECT_LE(longest, supportcrm::rerun::kMaxConflictWait);
    EXPECT_LE(supportcrm::rerun::kMaxConflictWait, std::chrono::seconds(4));
}

TEST(RerunPolicy, ARollbackAfterAnEarlierCommittedWriteIsNotReRun) {
    Budget b;
    EXPECT_EQ(next(Failure::conflict, true, b), Step::unavailable);
}

TEST(RerunPolicy, TheTwoBudgetsAreSeparateAndBounded) {
    Budget b;
    EXPECT_EQ(next(Failure::conflict, false, b), Step::rerun_after_jitter);
    EXPECT_EQ(next(Failure::connection_lost, false, b), Step::rerun);
    for (int i = 2; i <= 16; ++i) {
        EXPECT_EQ(next(Failure::conflict, false, b), Step::rerun_after_jitter);
    }
    EXPECT_EQ(next(Failure::connection_lost, false, b), Step::unavailable);
    EXPECT_EQ(next(Failure::conflict, false, b), Step::unavailable);
}

TEST(RerunPolicy, ARefusedCommitIs503AndOtherErrors500) {
    Budget b;
    EXPECT_EQ(next(Failure::commit_refused, false, b), Step::unavailable);
    EXPECT_EQ(next(Failure::commit_refused, true, b), Step::unavailable);
    EXPECT_EQ(next(Failure::other, false, b), Step::internal_error);
    EXPECT_EQ(next(Failure::other, true, b), Step::internal_error);
}

TEST(RerunPolicy, JitterIsAFewMillisecondsGrowingWithEachReRun) {
    using std::chrono::microseconds;
    for (unsigned r : {0u, 1u, 1234u, 2999u, 3000u, 4294967295u}) {
        EXPECT_GE(jitter(1, r), microseconds(1000));
        EXPECT_LE(jitter(1, r), microseconds(4000));
        EXPECT_GE(jitter(2, r), microseconds(2000));
        EXPECT_LE(jitter(2, r), microseconds(8000));
        // Doubling: the sixth re-run waits 32-128 ms, the seventh and every later one 64-256.
        EXPECT_GE(jitter(6, r), microseconds(32000));
        EXPECT_LE(jitter(6, r), microseconds(128000));
        EXPECT_GE(jitter(16, r), microseconds(64000));
        EXPECT_LE(jitter(16, r), microseconds(256000));
    }
    EXPECT_NE(jitter(1, 0), jitter(1, 1500));
}
