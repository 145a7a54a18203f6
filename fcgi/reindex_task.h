// The master's re-index task: a child process, not a worker, that the master starts once per
// pool when that pool serves and no worker of an older pool is left (after a reload, when the
// previous binary's workers have exited). It finishes the search re-index a migrate left to do
// again (sql/020, db/search/reindex.h: what the previous release wrote behind the migrate's
// walk) and whatever walk is unfinished, between batches checking whether it is told to stop
// (SIGTERM: the master stops, or reloads), then exits. Most starts find nothing to do: one
// connection, two statements.
#pragma once

#include "common/config.h"

namespace supportcrm {

// The task's whole life in the forked child; returns the exit status (0 also when it stopped
// early: the next pool's task goes on from the last committed batch).
int run_reindex_task(const Config& config);

}  // namespace supportcrm
