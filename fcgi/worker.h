// A worker process: one database connection with its prepared statements, and a loop that
// accepts one FastCGI request at a time and answers it. Returns the process exit status.
#pragma once

#include "fcgi/config.h"

namespace supportcrm {

int run_worker(int listen_fd, const Config& config);

}  // namespace supportcrm
