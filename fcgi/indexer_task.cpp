#include "fcgi/indexer_task.h"

#include <algorithm>
#include <string>

#include "common/log.h"
#include "common/scoreboard.h"
#include "common/signals.h"
#include "common/time_util.h"
#include "db/db.h"
#include "db/search/indexer.h"
#include "fcgi/task_process.h"

namespace supportcrm {
namespace {

// With nothing queued, the next look is this far off: with a batch's own ~10-50 ms, a comment
// is found well within E10's second (bench/run's lag row measures it under load).
constexpr unsigned kIdlePollMs = 100;
// A conflict that survived the batch's retries, a lost connection: the next try.
constexpr unsigned kErrorPauseMs = 1000;

// What /status and /metrics show of the indexer (common/scoreboard.h): the age of the oldest
// comment or customer the last batches took, when it looked, and the comments indexed in all.
void publish(const search::IndexedBatch& done) {
    Scoreboard* board = Scoreboard::attached();
    if (board == nullptr) {
        return;
    }
    ScoreboardHeader& h = board->header();
    h.indexer_lag_ms.store(done.oldest_ms < 0 ? 0 : done.oldest_ms, std::memory_order_relaxed);
    h.indexer_checked_ms.store(timeutil::now_ms(), std::memory_order_relaxed);
    h.indexer_comments.store(h.indexer_comments.load(std::memory_order_relaxed) + done.entries,
                             std::memory_order_relaxed);
}

// One batch, run again on a deadlock, a lock wait timeout or a certification conflict (a
// batch rolled back leaves its queue rows for the next). Whether the queue held a full batch.
// A batch of customers (sql/024) follows each batch of comments.
bool one_batch(Db& db) {
    const search::IndexedBatch comments =
        repeat_if_rolled_back(5, [&] { return search::index_comment_batch(db); });
    const search::IndexedBatch customers =
        repeat_if_rolled_back(5, [&] { return search::index_customer_batch(db); });
    search::IndexedBatch shown = comments;
    shown.oldest_ms = std::max(comments.oldest_ms, customers.oldest_ms);
    publish(shown);
    return comments.entries == search::kIndexBatch || customers.entries == search::kIndexBatch;
}

}  // namespace

int run_indexer_task(const Config& config) {
    // `ps` and the process tests tell it from a worker by this name.
    if (!become_task_process("scrm-indexer")) {
        return 0;
    }
    Db db(config.db);
    std::string last_failure;
    while (!signals::stop_requested) {
        if (!db.connected() &&
            !connect_until_stopped(db, "search indexer", search::prepare_indexer_session)) {
            break;
        }
        try {
            if (!one_batch(db)) {
                signals::pause_ms(kIdlePollMs);
            }
            last_failure.clear();
        } catch (const std::exception& e) {
            // Nothing of the batch is kept: its rows wait for the next try.
            if (e.what() != last_failure) {
                last_failure = e.what();
                log::warning(std::string("search indexer: ") + e.what() + "; trying again");
            }
            db.disconnect();
            signals::pause_ms(kErrorPauseMs);
        }
    }
    return 0;
}

}  // namespace supportcrm
