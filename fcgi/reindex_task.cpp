#include "fcgi/reindex_task.h"

#include <string>

#include "common/log.h"
#include "common/signals.h"
#include "db/db.h"
#include "db/migrations.h"
#include "db/search/reindex.h"
#include "fcgi/task_process.h"

namespace supportcrm {
namespace {

void log_outcome(const TakeoverReindex& done) {
    const std::string counts = std::to_string(done.totals.tickets) + " tickets and " +
                               std::to_string(done.totals.customers) + " customers";
    if (signals::stop_requested) {
        log::info("re-index task stopped after " + counts + "; the next start goes on");
    } else if (done.rechecked) {
        log::info("re-index task: the search data was walked again after the takeover (" + counts +
                  ")");
    } else if (done.totals.tickets + done.totals.customers > 0) {
        log::info("re-index task: finished an unfinished re-index (" + counts + ")");
    } else {
        log::debug("re-index task: nothing to do");
    }
}

}  // namespace

int run_reindex_task(const Config& config) {
    // `ps` and the process tests tell it from a worker by this name.
    if (!become_task_process("scrm-reindex")) {
        return 0;
    }
    Db db(config.db);
    if (!connect_until_stopped(db, "re-index task")) {
        return 0;
    }
    const KeepGoing keep_going = [] { return !signals::stop_requested; };
    try {
        // A migrate still running (the package reloads, then migrates) has not asked for the
        // recheck yet, nor added sql/020: its walk first, then ours.
        bool waited = false;
        if (!wait_while_migrating(db, keep_going, waited)) {
            return 0;
        }
        if (waited) {
            log::info("re-index task: supportcrm-admin migrate has finished");
        }
        log_outcome(reindex_after_takeover(db, keep_going));
        return 0;
    } catch (const std::exception& e) {
        // A schema older than sql/020 (the binary was installed, migrate not run yet) lands
        // here too: the next start, after the migrate, does the work.
        log::warning(std::string("re-index task failed: ") + e.what() +
                     "; the next start of the pool tries again");
        return 1;
    }
}

}  // namespace supportcrm
