// A worker process: one database connection with its prepared statements, and a loop that
// accepts one FastCGI request at a time and answers it. It accepts nothing before it has
// connected; it reports on ready_fd (the master's readiness pipe, fcgi/readiness.h) that it
// serves, or why it cannot yet, and closes it once it serves. It shows its state and counts
// its requests in its scoreboard slot (common/scoreboard.h; null: the board was full) and logs
// a request slower than slowlog-threshold. Between requests it keeps nginx's connection when
// nginx asks (FCGI_KEEP_CONN) and hands it to the master instead of closing it when it must
// serve another one (fcgi/parking.h). Returns the process exit status.
#pragma once

#include "common/config.h"
#include "common/scoreboard.h"

namespace supportcrm {

struct WorkerFds {
    int listen;   // the listening socket
    int ready;    // the master's readiness pipe (closed once serving)
    int handoff;  // the pool's end of the hand-off channel (fcgi/parking.h)
    int requeue;  // its master's end, to queue a connection with a request for the pool
};

int run_worker(const WorkerFds& fds, const Config& config, WorkerSlot* slot);

}  // namespace supportcrm
