#include "common/signals.h"

#include <poll.h>

#include <cstring>
#include <initializer_list>

namespace supportcrm::signals {

std::atomic<bool> stop_requested{false};
std::atomic<bool> reload_requested{false};
std::atomic<bool> child_exited{false};

static_assert(std::atomic<bool>::is_always_lock_free, "a signal handler may only touch these");

namespace {

sigset_t g_wait_mask;
sigset_t g_handled;

void on_stop(int) {
    stop_requested = true;
}
void on_reload(int) {
    reload_requested = true;
}
void on_child(int) {
    child_exited = true;
}

void set_handler(int sig, void (*handler)(int)) {
    struct sigaction sa;
    std::memset(&sa, 0, sizeof sa);
    sa.sa_handler = handler;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0;  // no SA_RESTART: a wait must return EINTR so the loop sees the flag
    sigaction(sig, &sa, nullptr);
}

// The mask to wait with: the process's mask as it is, with the handled signals unblocked.
void handle(std::initializer_list<int> handled) {
    sigemptyset(&g_handled);
    for (int sig : handled) {
        sigaddset(&g_handled, sig);
    }
    sigprocmask(SIG_SETMASK, nullptr, &g_wait_mask);
    for (int sig : handled) {
        sigdelset(&g_wait_mask, sig);
    }
}

}  // namespace

void install_master_handlers() {
    handle({SIGTERM, SIGINT, SIGQUIT, SIGHUP, SIGCHLD});
    sigprocmask(SIG_BLOCK, &g_handled, nullptr);
    set_handler(SIGTERM, on_stop);
    set_handler(SIGINT, on_stop);
    set_handler(SIGQUIT, on_stop);
    set_handler(SIGHUP, on_reload);
    set_handler(SIGCHLD, on_child);
    // A peer (nginx) closing early must not kill us while we write.
    set_handler(SIGPIPE, SIG_IGN);
}

void install_worker_handlers() {
    stop_requested = false;
    reload_requested = false;
    child_exited = false;
    set_handler(SIGCHLD, SIG_DFL);
    // Reload is the master's business: it replaces workers by asking them to stop.
    set_handler(SIGHUP, SIG_IGN);
    set_handler(SIGTERM, on_stop);
    set_handler(SIGINT, on_stop);
    set_handler(SIGQUIT, on_stop);
    set_handler(SIGPIPE, SIG_IGN);
}

void install_task_handlers() {
    install_worker_handlers();
    handle({SIGTERM, SIGINT, SIGQUIT});
    sigprocmask(SIG_UNBLOCK, &g_handled, nullptr);
}

void install_stop_handlers() {
    handle({SIGTERM, SIGINT, SIGQUIT});
    set_handler(SIGTERM, on_stop);
    set_handler(SIGINT, on_stop);
    set_handler(SIGQUIT, on_stop);
    set_handler(SIGPIPE, SIG_IGN);
}

const sigset_t& wait_mask() {
    return g_wait_mask;
}

bool pause_ms(unsigned ms) {
    sigset_t before;
    sigprocmask(SIG_BLOCK, &g_handled, &before);
    if (!stop_requested) {
        // A signal blocked since the check is delivered inside ppoll, which then returns EINTR.
        const timespec timeout{static_cast<time_t>(ms / 1000),
                               static_cast<long>(ms % 1000) * 1'000'000L};
        ppoll(nullptr, 0, &timeout, &g_wait_mask);
    }
    sigprocmask(SIG_SETMASK, &before, nullptr);
    return !stop_requested;
}

}  // namespace supportcrm::signals
