// The master's search indexer task: a child process, not a worker, that the master starts when
// its pool serves and starts again when it exits (after kFastFailure when it failed fast). It
// writes the words of committed comments in batches (db/search/indexer.h) until told to stop
// (SIGTERM: the master stops or reloads; the next pool starts its own, which goes on from the
// queue). Every app host of a cluster runs one: the batches are safe to run side by side.
#pragma once

#include "common/config.h"

namespace supportcrm {

// The task's whole life in the forked child; returns the exit status (0 when told to stop,
// 1 on an error it does not retry: the master starts it again).
int run_indexer_task(const Config& config);

}  // namespace supportcrm
