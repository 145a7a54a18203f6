// A worker process: one database connection with its prepared statements, and a loop that
// accepts one FastCGI request at a time and answers it. It accepts nothing before it has
// connected; it reports on ready_fd (the master's readiness pipe, fcgi/readiness.h) that it
// serves, or why it cannot yet, and closes it once it serves. It shows its state and counts
// its requests in its scoreboard slot (common/scoreboard.h; null: the board was full) and logs
// a request slower than slowlog-threshold. Returns the process exit status.
#pragma once

#include "common/config.h"
#include "common/scoreboard.h"

namespace supportcrm {

int run_worker(int listen_fd, int ready_fd, const Config& config, WorkerSlot* slot);

}  // namespace supportcrm
