// A worker process: one database connection with its prepared statements, and a loop that
// accepts one FastCGI request at a time and answers it. Once it can serve it writes one byte
// to ready_fd (the master's readiness pipe) and closes it. Returns the process exit status.
#pragma once

#include "common/config.h"

namespace supportcrm {

int run_worker(int listen_fd, int ready_fd, const Config& config);

}  // namespace supportcrm
