// When a request that failed on the database is run again, and what it is answered otherwise
// (docs/operations.md "When the database fails"). A pure function of the failure, of whether the
// request may already have committed a write (Db's WriteLedger) and of the re-runs already spent,
// so it is unit-tested without a database; api/dispatch.cpp applies it.
#pragma once

#include <chrono>

namespace supportcrm::rerun {

enum class Failure {
    connection_lost,          // DbUnavailable: the connection broke, or could not be opened
    transaction_rolled_back,  // the server rolled the transaction back (a deadlock; Galera's
                              // certification failure at COMMIT)
    commit_refused,           // the server answered COMMIT with any other error
    other,                    // any other database error, or a bug
};

enum class Step {
    rerun,               // reconnect if needed and run the whole request again now
    rerun_after_jitter,  // the same after a short random pause (jitter())
    unavailable,         // 503 unavailable
    internal_error,      // 500 internal_error
};

// A lost connection is re-opened and the request re-run once; a transaction the server rolled
// back is re-run at most six times. Two re-runs were enough on one server, where the second
// writer waits for the first's row lock; across Galera nodes writers do not wait but fail at
// COMMIT, and with 32 clients on one hot row through two nodes two re-runs left 19% (CSAT count
// rows) and 40% (one ticket) of the requests at 503, six with doubling jitter 2.5% and 5.9%
// (docs/scale-out.md).
inline constexpr int kMaxReconnectReruns = 1;
inline constexpr int kMaxRollbackReruns = 6;

struct Budget {
    int reconnect_reruns = 0;
    int rollback_reruns = 0;
};

// The next step after `failure`; a re-run is spent from `budget`. Nothing is re-run once the
// request may have committed a write: running it again could apply it twice.
Step next(Failure failure, bool may_have_committed, Budget& budget);

// The pause before rollback re-run number `rerun` (1-based): `random` spread over [n, 4n] ms
// with n = 2^(rerun-1) (1-4 ms, 2-8 ms, ... 32-128 ms), so that the transactions that met do not
// start again in step.
std::chrono::microseconds jitter(int rerun, unsigned random);

}  // namespace supportcrm::rerun
