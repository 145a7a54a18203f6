#include "fcgi/signals.h"

#include <cstring>
#include <initializer_list>

namespace supportcrm::signals {

volatile sig_atomic_t stop_requested = 0;
volatile sig_atomic_t reload_requested = 0;
volatile sig_atomic_t child_exited = 0;

namespace {

sigset_t g_wait_mask;

void on_stop(int) {
    stop_requested = 1;
}
void on_reload(int) {
    reload_requested = 1;
}
void on_child(int) {
    child_exited = 1;
}

void set_handler(int sig, void (*handler)(int)) {
    struct sigaction sa;
    std::memset(&sa, 0, sizeof sa);
    sa.sa_handler = handler;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0;  // no SA_RESTART: a wait must return EINTR so the loop sees the flag
    sigaction(sig, &sa, nullptr);
}

void block_handled_signals() {
    sigset_t block;
    sigemptyset(&block);
    for (int sig : {SIGTERM, SIGINT, SIGQUIT, SIGHUP, SIGCHLD}) {
        sigaddset(&block, sig);
    }
    sigset_t previous;
    sigprocmask(SIG_BLOCK, &block, &previous);
    g_wait_mask = previous;
    for (int sig : {SIGTERM, SIGINT, SIGQUIT, SIGHUP, SIGCHLD}) {
        sigdelset(&g_wait_mask, sig);
    }
}

}  // namespace

void install_master_handlers() {
    block_handled_signals();
    set_handler(SIGTERM, on_stop);
    set_handler(SIGINT, on_stop);
    set_handler(SIGQUIT, on_stop);
    set_handler(SIGHUP, on_reload);
    set_handler(SIGCHLD, on_child);
    // A peer (nginx) closing early must not kill us while we write.
    set_handler(SIGPIPE, SIG_IGN);
}

void install_worker_handlers() {
    stop_requested = 0;
    reload_requested = 0;
    child_exited = 0;
    set_handler(SIGCHLD, SIG_DFL);
    // Reload is the master's business: it replaces workers by asking them to stop.
    set_handler(SIGHUP, SIG_IGN);
    set_handler(SIGTERM, on_stop);
    set_handler(SIGINT, on_stop);
    set_handler(SIGQUIT, on_stop);
    set_handler(SIGPIPE, SIG_IGN);
}

const sigset_t& wait_mask() {
    return g_wait_mask;
}

}  // namespace supportcrm::signals
