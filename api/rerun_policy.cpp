#include "api/rerun_policy.h"

#include <algorithm>

namespace supportcrm::rerun {

Step next(Failure failure, bool may_have_committed, Budget& budget) {
    switch (failure) {
        case Failure::connection_lost:
            if (may_have_committed || budget.reconnect_reruns >= kMaxReconnectReruns) {
                return Step::unavailable;
            }
            ++budget.reconnect_reruns;
            return Step::rerun;
        case Failure::conflict:
            if (may_have_committed || budget.conflict_reruns >= kMaxConflictReruns) {
                return Step::unavailable;
            }
            ++budget.conflict_reruns;
            return Step::rerun_after_jitter;
        case Failure::commit_refused:
            return Step::unavailable;
        case Failure::other:
            break;
    }
    return Step::internal_error;
}

std::chrono::microseconds jitter(int rerun, unsigned random) {
    // Doubling: transactions that keep meeting on one hot row (across Galera nodes) spread out
    // fast, while the first re-runs stay as short as a deadlock on one server needs.
    const unsigned n = 1u << (rerun < 1 ? 0 : std::min(rerun - 1, 6));
    return std::chrono::microseconds(1000 * n + random % (3000 * n + 1));
}

}  // namespace supportcrm::rerun
