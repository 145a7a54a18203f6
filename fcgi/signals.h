// Signal handlers only record that a signal came (a volatile sig_atomic_t); the master's and
// the workers' loops act on the flags. Handled signals stay blocked except while a loop waits
// (ppoll / epoll_pwait with wait_mask()), so a flag can never be missed between check and wait.
#pragma once

#include <signal.h>

namespace supportcrm::signals {

extern volatile sig_atomic_t stop_requested;    // SIGTERM, SIGINT, SIGQUIT
extern volatile sig_atomic_t reload_requested;  // SIGHUP (master only)
extern volatile sig_atomic_t child_exited;      // SIGCHLD (master only)

void install_master_handlers();
// In a freshly forked worker: its own handlers, the master's flags cleared.
void install_worker_handlers();

// The signal mask to wait with: the handled signals unblocked.
const sigset_t& wait_mask();

}  // namespace supportcrm::signals
