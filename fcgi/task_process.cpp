#include "fcgi/task_process.h"

#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <string>

#include "common/log.h"
#include "common/signals.h"

namespace supportcrm {

bool become_task_process(const char* name) {
    const pid_t master = getppid();
    prctl(PR_SET_PDEATHSIG, SIGTERM);  // an orphaned task stops too
    if (getppid() != master) {
        return false;
    }
    prctl(PR_SET_NAME, name);
    signals::install_task_handlers();
    return true;
}

bool connect_until_stopped(Db& db, const char* who, void (*after_connect)(Db&)) {
    std::string last_reason;
    while (!signals::stop_requested) {
        try {
            db.connect();
            if (after_connect != nullptr) {
                after_connect(db);
            }
            return true;
        } catch (const std::exception& e) {
            if (e.what() != last_reason) {
                last_reason = e.what();
                log::warning(std::string(who) + ": " + last_reason + "; retrying every second");
            }
            db.disconnect();
        }
        signals::pause_ms(1000);
    }
    return false;
}

}  // namespace supportcrm
