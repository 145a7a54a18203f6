#include "fcgi/reindex_task.h"

#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <string>

#include "common/log.h"
#include "common/signals.h"
#include "db/db.h"
#include "db/migrations.h"
#include "db/search/reindex.h"

namespace supportcrm {
namespace {

// The database may be restarting with the service: try every second until told to stop.
bool connect_until_stopped(Db& db) {
    std::string last_reason;
    while (!signals::stop_requested) {
        try {
            db.connect();
            return true;
        } catch (const std::exception& e) {
            if (e.what() != last_reason) {
                last_reason = e.what();
                log::warning("re-index task: " + last_reason + "; retrying every second");
            }
            db.disconnect();
        }
        signals::pause_ms(1000);
    }
    return false;
}

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
    const pid_t master = getppid();
    prctl(PR_SET_PDEATHSIG, SIGTERM);  // an orphaned task stops too
    if (getppid() != master) {
        return 0;
    }
    // `ps` and the process tests tell it from a worker by this name.
    prctl(PR_SET_NAME, "scrm-reindex");
    signals::install_task_handlers();
    Db db(config.db);
    if (!connect_until_stopped(db)) {
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
