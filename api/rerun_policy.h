// When a request that failed on the database is run again, and what it is answered otherwise
// (docs/operations.md "When the database fails"). A pure function of the failure, of whether the
// request may already have committed a write (Db's WriteLedger) and of the re-runs already spent,
// so it is unit-tested without a database; api/dispatch.cpp applies it.
#pragma once

#include <chrono>

namespace supportcrm::rerun {

enum class Failure {
    connection_lost,  // DbUnavailable: the connection broke, or could not be opened
    conflict,         // the transaction met another and the request's work was rolled
                      // back (Db::is_rerunnable_conflict: a deadlock, Galera's
                      // certification failure at COMMIT, a lock wait timeout, a failed
                      // AUTO-INC table lock)
    commit_refused,   // the server answered COMMIT with any other error
    other,            // any other database error, or a bug
};

enum class Step {
    rerun,               // reconnect if needed and run the whole request again now
    rerun_after_jitter,  // the same after a short random pause (jitter())
    unavailable,         // 503 unavailable
    internal_error,      // 500 internal_error
};

// A lost connection is re-opened and the request re-run once; a conflict is re-run at most 16
// times. Two re-runs were enough on one server, where the second writer waits for the first's
// row lock; across Galera nodes writers do not wait but fail at COMMIT, and with 32 clients on
// one hot row through two nodes two re-runs left 19% (CSAT count rows) and 40% (one ticket) of
// the requests at 503, six with doubling jitter 2.5% and 5.9%, and the two-writer load of
// `scripts/test --galera` still met a 503 now and then (docs/scale-out.md). Sixteen, the pause
// growing to 64-256 ms from the seventh on, bound a request's waiting to about 3.4 s at the
// most (kMaxConflictWait), well within the request timeout.
inline constexpr int kMaxReconnectReruns = 1;
inline constexpr int kMaxConflictReruns = 16;

struct Budget {
    int reconnect_reruns = 0;
    int conflict_reruns = 0;
};

// The next step after `failure`; a re-run is spent from `budget`. Nothing is re-run once the
// request may have committed a write: running it again could apply it twice.
Step next(Failure failure, bool may_have_committed, Budget& budget);

// The pause before conflict re-run number `rerun` (1-based): `random` spread over [n, 4n] ms
// with n = 2^(rerun-1) up to 64 (1-4 ms, 2-8 ms, ... 64-256 ms), so that the transactions that
// met do not start again in step.
std::chrono::microseconds jitter(int rerun, unsigned random);

// The longest that kMaxConflictReruns pauses add up to.
inline constexpr std::chrono::milliseconds kMaxConflictWait{4 * (1 + 2 + 4 + 8 + 16 + 32) +
                                                            4 * 64 * (kMaxConflictReruns - 6)};

}  // namespace supportcrm::rerun
