// What every task of the master (fcgi/reindex_task.h, fcgi/indexer_task.h) does first in its
// forked child: become a task process, then reach the database.
#pragma once

#include "db/db.h"

namespace supportcrm {

// Stops with the master (PDEATHSIG), takes `name` for `ps` and the process tests, and installs
// the task's signal handlers. False when the master is gone already: the task returns at once.
bool become_task_process(const char* name);

// Connects (and runs `after_connect` on the new connection), trying every second until told to
// stop: the database may be restarting with the service. False when told to stop first. Each
// new reason is logged once, prefixed with `who`.
bool connect_until_stopped(Db& db, const char* who, void (*after_connect)(Db&) = nullptr);

}  // namespace supportcrm
