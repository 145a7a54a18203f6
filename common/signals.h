// One signal style for both daemons: handlers only record that a signal came (lock-free
// atomics, safe in a handler); the loops act on the flags. A loop waits with wait_mask(): the
// handled signals are blocked everywhere else around the check and unblocked only inside the
// wait (ppoll / epoll_pwait), so a flag can never be missed between check and wait, and no
// loop polls a flag on a timer.
#pragma once

#include <signal.h>

#include <atomic>

namespace supportcrm::signals {

extern std::atomic<bool> stop_requested;    // SIGTERM, SIGINT, SIGQUIT
extern std::atomic<bool> reload_requested;  // SIGHUP (supportcrm-fcgi's master only)
extern std::atomic<bool> child_exited;      // SIGCHLD (supportcrm-fcgi's master only)

// supportcrm-fcgi's master: the handled signals stay blocked except while it waits.
void install_master_handlers();
// In a freshly forked worker: its own handlers, the master's flags cleared.
void install_worker_handlers();
// In a freshly forked task of the master (fcgi/reindex_task.h): the worker's handlers, with the
// stop signals unblocked while it works, so that stop_requested is seen between two batches.
void install_task_handlers();
// supportcrm-webhooks: stop on SIGTERM, SIGINT, SIGQUIT. The signals stay unblocked while it
// works (an attempt in hand sees stop_requested at once); pause_ms() blocks them around its
// check and wait.
void install_stop_handlers();

// The signal mask to wait with: the handled signals unblocked.
const sigset_t& wait_mask();

// Sleeps up to ms, returning early (false) as soon as stop_requested is set, also when the
// signal came just before the call; true when the time ran out.
bool pause_ms(unsigned ms);

}  // namespace supportcrm::signals
