// The master's states and the one table of what each event does in each of them. Pure (no
// signals, processes or clock) so that the table is unit-tested without forking; master.cpp
// turns signals, the readiness pipe and the clock into events and does what entering a state
// means (README "Signals", docs/operations.md "Reload, restart, stop").
#pragma once

#include <optional>

namespace supportcrm {

enum class MasterState {
    starting,   // the first pool is connecting to the database; systemd has not heard READY=1
    running,    // a whole pool has said it serves (READY=1); a worker that dies is replaced
    reloading,  // SIGHUP: the master re-executed itself and a new pool is connecting; the old
                // pool serves until the new one is ready (RELOADING=1)
    stopping,   // workers finish the request in hand until shutdown-timeout (STOPPING=1)
    failing,    // the first pool did not connect within ready-timeout: workers stop, exit 1
    killing,    // shutdown-timeout passed: the rest were SIGKILLed and are being reaped
    stopped,    // no worker left: the master exits (0, or 1 after failing)
};

enum class MasterEvent {
    pool_ready,        // as many workers of the new pool as configured have connected
    ready_timeout,     // ready-timeout passed and the new pool is still not ready
    reload_requested,  // SIGHUP
    stop_requested,    // SIGTERM, SIGINT or SIGQUIT
    shutdown_timeout,  // shutdown-timeout passed with workers left
    workers_gone,      // the last worker was reaped while shutting down
};

struct MasterTransition {
    MasterState from;
    MasterEvent event;
    MasterState to;
};

// Every transition there is; an event in a state not listed with it changes nothing (a second
// SIGTERM, a SIGHUP while starting or stopping, READY of a pool that is already announced).
// A reload while reloading is a transition of its own: it re-executes again and starts yet
// another pool. From reloading, pool_ready retires the old pool and ready_timeout abandons
// the new one: both lead to running, with the pool that then serves.
inline constexpr MasterTransition kMasterTransitions[] = {
    {MasterState::starting, MasterEvent::pool_ready, MasterState::running},
    {MasterState::reloading, MasterEvent::pool_ready, MasterState::running},
    {MasterState::starting, MasterEvent::ready_timeout, MasterState::failing},
    {MasterState::reloading, MasterEvent::ready_timeout, MasterState::running},
    {MasterState::running, MasterEvent::reload_requested, MasterState::reloading},
    {MasterState::reloading, MasterEvent::reload_requested, MasterState::reloading},
    {MasterState::starting, MasterEvent::stop_requested, MasterState::stopping},
    {MasterState::running, MasterEvent::stop_requested, MasterState::stopping},
    {MasterState::reloading, MasterEvent::stop_requested, MasterState::stopping},
    {MasterState::stopping, MasterEvent::shutdown_timeout, MasterState::killing},
    {MasterState::failing, MasterEvent::shutdown_timeout, MasterState::killing},
    {MasterState::stopping, MasterEvent::workers_gone, MasterState::stopped},
    {MasterState::failing, MasterEvent::workers_gone, MasterState::stopped},
    {MasterState::killing, MasterEvent::workers_gone, MasterState::stopped},
};

// The state `event` leads to from `state`, or nullopt when the event changes nothing there.
constexpr std::optional<MasterState> next_state(MasterState state, MasterEvent event) {
    for (const MasterTransition& t : kMasterTransitions) {
        if (t.from == state && t.event == event) {
            return t.to;
        }
    }
    return std::nullopt;
}

// Once stopping (or failing), the pool is no longer refilled: a worker that exits stays gone.
constexpr bool shutting_down(MasterState state) {
    return state == MasterState::stopping || state == MasterState::failing ||
           state == MasterState::killing || state == MasterState::stopped;
}

// A new pool is connecting and has ready-timeout to say it serves.
constexpr bool awaiting_pool(MasterState state) {
    return state == MasterState::starting || state == MasterState::reloading;
}

}  // namespace supportcrm
