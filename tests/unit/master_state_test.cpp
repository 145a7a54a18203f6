// The master's transition table (fcgi/master_state.h), without forking: what each signal, the
// pool's readiness and shutdown-timeout do in each state. What entering a state does (workers,
// sd_notify, the log) is covered by tests/integration/process_test.cpp.
#include "fcgi/master_state.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <initializer_list>
#include <iterator>
#include <optional>
#include <ostream>
#include <span>
#include <vector>

namespace supportcrm {

// gtest prints these by name in a failure message.
void PrintTo(MasterState s, std::ostream* os) {
    const char* names[] = {"starting", "running", "reloading", "stopping",
                           "failing",  "killing", "stopped"};
    *os << names[static_cast<int>(s)];
}
void PrintTo(MasterEvent e, std::ostream* os) {
    const char* names[] = {"pool_ready",     "ready_timeout",    "reload_requested",
                           "stop_requested", "shutdown_timeout", "workers_gone"};
    *os << names[static_cast<int>(e)];
}

}  // namespace supportcrm

namespace {

using supportcrm::awaiting_pool;
using supportcrm::MasterEvent;
using supportcrm::MasterState;
using supportcrm::next_state;
using supportcrm::shutting_down;

constexpr MasterState kAllStates[] = {
    MasterState::starting, MasterState::running, MasterState::reloading, MasterState::stopping,
    MasterState::failing,  MasterState::killing, MasterState::stopped};
constexpr MasterEvent kAllEvents[] = {MasterEvent::pool_ready,       MasterEvent::ready_timeout,
                                      MasterEvent::reload_requested, MasterEvent::stop_requested,
                                      MasterEvent::shutdown_timeout, MasterEvent::workers_gone};
constexpr MasterState kServing[] = {MasterState::starting, MasterState::running,
                                    MasterState::reloading};
constexpr MasterState kShuttingDown[] = {MasterState::stopping, MasterState::failing,
                                         MasterState::killing, MasterState::stopped};

// `event` leads to `to` from each of `states` (nullopt: changes nothing there).
void expect_from_each(std::span<const MasterState> states, MasterEvent event,
                      std::optional<MasterState> to) {
    for (MasterState s : states) {
        EXPECT_EQ(next_state(s, event), to)
            << "from " << ::testing::PrintToString(s) << " on " << ::testing::PrintToString(event);
    }
}

// The state after `events` from `state`, the way the master's loop applies them: an event the
// table does not take leaves the state as it is.
MasterState after(MasterState state, std::initializer_list<MasterEvent> events) {
    for (MasterEvent e : events) {
        state = next_state(state, e).value_or(state);
    }
    return state;
}

// The states `events` lead through from `state`, up to the first event the table does not take.
std::vector<MasterState> path(MasterState state, std::initializer_list<MasterEvent> events) {
    std::vector<MasterState> states;
    for (MasterEvent e : events) {
        std::optional<MasterState> next = next_state(state, e);
        if (!next) {
            break;
        }
        state = *next;
        states.push_back(state);
    }
    return states;
}

// The table is a function: no state has two rows for the same event.
constexpr bool one_row_per_state_and_event() {
    for (const auto& a : supportcrm::kMasterTransitions) {
        int rows = 0;
        for (const auto& b : supportcrm::kMasterTransitions) {
            rows += a.from == b.from && a.event == b.event;
        }
        if (rows != 1) {
            return false;
        }
    }
    return true;
}
static_assert(one_row_per_state_and_event());

}  // namespace

TEST(MasterState, StartReloadAndStopCleanly) {
    EXPECT_EQ(path(MasterState::starting,
                   {MasterEvent::pool_ready, MasterEvent::reload_requested, MasterEvent::pool_ready,
                    MasterEvent::stop_requested, MasterEvent::workers_gone}),
              (std::vector{MasterState::running, MasterState::reloading, MasterState::running,
                           MasterState::stopping, MasterState::stopped}));
}

TEST(MasterState, ShutdownTimeoutKillsThenStopsWhenTheLastWorkerIsReaped) {
    EXPECT_EQ(
        path(MasterState::running, {MasterEvent::stop_requested, MasterEvent::shutdown_timeout,
                                    MasterEvent::workers_gone}),
        (std::vector{MasterState::stopping, MasterState::killing, MasterState::stopped}));
    // The deadline stays passed while the killed workers are reaped: SIGKILL goes out once.
    EXPECT_EQ(next_state(MasterState::killing, MasterEvent::shutdown_timeout), std::nullopt);
}

TEST(MasterState, ShutdownTimeoutMeansNothingBeforeAStop) {
    expect_from_each(kServing, MasterEvent::shutdown_timeout, std::nullopt);
}

TEST(MasterState, StopIsTakenInEveryServingStateAndOnlyOnce) {
    expect_from_each(kServing, MasterEvent::stop_requested, MasterState::stopping);
    expect_from_each(kShuttingDown, MasterEvent::stop_requested, std::nullopt);
}

// A reload re-executes and starts a new pool, also while one is still connecting; while the
// first pool is connecting there is no old one to fall back on, so SIGHUP waits for READY.
TEST(MasterState, ReloadStartsANewPoolOnlyOnceTheFirstOneServed) {
    expect_from_each(std::array{MasterState::running, MasterState::reloading},
                     MasterEvent::reload_requested, MasterState::reloading);
    EXPECT_EQ(next_state(MasterState::starting, MasterEvent::reload_requested), std::nullopt);
}

TEST(MasterState, NothingButTheWorkersLeavingEndsAShutdown) {
    for (MasterEvent e :
         {MasterEvent::pool_ready, MasterEvent::ready_timeout, MasterEvent::reload_requested}) {
        expect_from_each(kShuttingDown, e, std::nullopt);
    }
}

// A reload whose workers cannot connect is abandoned: the master runs on with the old pool,
// and can be reloaded again.
TEST(MasterState, AReloadThatDoesNotConnectIsAbandonedAndTheOldPoolServes) {
    EXPECT_EQ(path(MasterState::running, {MasterEvent::reload_requested, MasterEvent::ready_timeout,
                                          MasterEvent::reload_requested, MasterEvent::pool_ready}),
              (std::vector{MasterState::reloading, MasterState::running, MasterState::reloading,
                           MasterState::running}));
}

// A first pool that cannot connect fails the start: its workers stop (killed at
// shutdown-timeout if need be) and the master exits.
TEST(MasterState, AStartThatDoesNotConnectFails) {
    EXPECT_EQ(path(MasterState::starting, {MasterEvent::ready_timeout, MasterEvent::workers_gone}),
              (std::vector{MasterState::failing, MasterState::stopped}));
    EXPECT_EQ(
        path(MasterState::starting, {MasterEvent::ready_timeout, MasterEvent::shutdown_timeout,
                                     MasterEvent::workers_gone}),
        (std::vector{MasterState::failing, MasterState::killing, MasterState::stopped}));
    // Not a pool that is late any more: its READY comes to nothing, a stop changes nothing.
    for (MasterEvent e : {MasterEvent::pool_ready, MasterEvent::stop_requested}) {
        EXPECT_EQ(next_state(MasterState::failing, e), std::nullopt);
    }
}

TEST(MasterState, ReadyTimeoutMattersOnlyWhileAPoolIsConnecting) {
    for (MasterState s : kAllStates) {
        EXPECT_EQ(next_state(s, MasterEvent::ready_timeout).has_value(), awaiting_pool(s))
            << ::testing::PrintToString(s);
    }
}

TEST(MasterState, ReadyIsAnnouncedOncePerPool) {
    EXPECT_EQ(path(MasterState::starting, {MasterEvent::pool_ready, MasterEvent::pool_ready}),
              (std::vector{MasterState::running}));
}

TEST(MasterState, WorkersLeavingWhileServingAreReplacedNotAStop) {
    expect_from_each(kServing, MasterEvent::workers_gone, std::nullopt);
}

TEST(MasterState, StoppedIsFinal) {
    for (MasterEvent e : kAllEvents) {
        expect_from_each(std::array{MasterState::stopped}, e, std::nullopt);
    }
}

// The loop's order within one pass: a SIGTERM and a SIGHUP that arrive together stop the master
// without a reload.
TEST(MasterState, AReloadAfterTheStopIsIgnored) {
    EXPECT_EQ(
        after(MasterState::running, {MasterEvent::stop_requested, MasterEvent::reload_requested}),
        MasterState::stopping);
}

TEST(MasterState, EveryStateCanReachStopped) {
    for (MasterState s : kAllStates) {
        EXPECT_EQ(after(s, {MasterEvent::stop_requested, MasterEvent::shutdown_timeout,
                            MasterEvent::workers_gone}),
                  MasterState::stopped)
            << ::testing::PrintToString(s);
    }
}

TEST(MasterState, ThePoolIsRefilledOnlyUntilTheStop) {
    for (MasterState s : kAllStates) {
        bool serving = std::find(std::begin(kServing), std::end(kServing), s) != std::end(kServing);
        EXPECT_EQ(shutting_down(s), !serving) << ::testing::PrintToString(s);
    }
}
