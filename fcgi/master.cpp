#include "fcgi/master.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <optional>
#include <set>
#include <stdexcept>

#include "common/build_info.h"
#include "common/daemon.h"
#include "common/log.h"
#include "common/scoreboard.h"
#include "common/signals.h"
#include "db/db.h"
#include "fcgi/children.h"
#include "fcgi/indexer_task.h"
#include "fcgi/master_state.h"
#include "fcgi/parking.h"
#include "fcgi/readiness.h"
#include "fcgi/reindex_task.h"
#include "fcgi/worker.h"
#include "handlers/router.h"

namespace supportcrm {
namespace {

using Clock = std::chrono::steady_clock;

// A worker that dies within this long of starting is failing at start-up (say the config
// points at a missing socket): respawn it no faster than this, not in a tight loop.
constexpr auto kFastFailure = std::chrono::seconds(1);

// RELOADING=1 with the time it began, as systemd's notify-reload protocol asks.
std::string reloading_message() {
    timespec now{};
    clock_gettime(CLOCK_MONOTONIC, &now);
    const unsigned long long usec = static_cast<unsigned long long>(now.tv_sec) * 1000000ULL +
                                    static_cast<unsigned long long>(now.tv_nsec) / 1000ULL;
    return "RELOADING=1\nMONOTONIC_USEC=" + std::to_string(usec);
}

// Waits for a signal, a worker's report, a parked connection's (or a newly parked one's) event,
// or the deadline, whichever comes first.
void wait_until(std::optional<Clock::time_point> deadline, int ready_fd, int parking_fd) {
    timespec ts{};
    timespec* timeout = nullptr;
    if (deadline) {
        auto left = std::max(Clock::duration::zero(), *deadline - Clock::now());
        auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(left).count();
        ts.tv_sec = static_cast<time_t>(ns / 1'000'000'000);
        ts.tv_nsec = static_cast<long>(ns % 1'000'000'000);
        timeout = &ts;
    }
    pollfd fds[2] = {{ready_fd, POLLIN, 0}, {parking_fd, POLLIN, 0}};
    ppoll(fds, 2, timeout, &signals::wait_mask());
}

std::optional<Clock::time_point> earliest(std::optional<Clock::time_point> a,
                                          std::optional<Clock::time_point> b) {
    if (a && b) {
        return std::min(*a, *b);
    }
    return a ? a : b;
}

// Room for two pools: during a reload (re-exec failed, the new pool starts in this image) the
// old workers serve until the new ones are ready. A worker that finds no slot still serves,
// unseen by /status.
std::size_t scoreboard_capacity(const Config& config) {
    return std::max<std::size_t>(2 * std::size_t{config.workers}, 4);
}

const char* const kStateNames[] = {"starting", "running", "reloading", "stopping",
                                   "failing",  "killing", "stopped"};

// The hand-off channel of the previous image (re-exec), else a new one.
HandoffChannel make_channel(const MasterStart& start) {
    if (start.handover && start.handover->handoff_master_end >= 0) {
        return HandoffChannel(start.handover->handoff_master_end, start.handover->handoff_pool_end);
    }
    return HandoffChannel();
}

std::vector<int> adopted_parked(const MasterStart& start) {
    return start.handover ? start.handover->parked : std::vector<int>{};
}

class Master {
  public:
    Master(const ListenSocket& socket, Config config, const ConfigLoader& reload_config,
           MasterStart start)
        : socket_(socket),
          config_(std::move(config)),
          reload_config_(reload_config),
          start_(std::move(start)),
          scoreboard_(scoreboard_capacity(config_)),
          channel_(make_channel(start_)),
          parking_(channel_.master_end(), adopted_parked(start_)),
          children_([this] {
              close(readiness_.read_fd());
              parking_.close_in_child();
              WorkerSlot* slot = spawning_slot_ < 0 ? nullptr : &scoreboard_.slot(spawning_slot_);
              return run_worker(
                  {socket_.fd(), readiness_.write_fd(), channel_.pool_end(), channel_.master_end()},
                  config_, slot);
          }) {
        raise_open_files_limit();
        // Before any fork: every worker inherits the board and reads it for /status, /metrics.
        Scoreboard::attach(&scoreboard_);
        scoreboard_.set_listen_fd(socket_.fd());
        scoreboard_.set_handoff_fd(channel_.pool_end());
        if (start_.handover) {
            children_.adopt(start_.handover->children);
            state_ = MasterState::reloading;  // entered (RELOADING=1) by the previous image
        }
    }

    int run() {
        // Idle workers wait in epoll and then accept; non-blocking so that the ones that lose
        // the race for a connection go back to waiting instead of blocking in accept(2).
        fcntl(socket_.fd(), F_SETFL, fcntl(socket_.fd(), F_GETFL) | O_NONBLOCK);
        if (start_.handover) {
            log::info("supportcrm-fcgi " + build_info::describe() + " re-executed from " +
                      executable_path() + ", listening on " + socket_.description() + "; " +
                      std::to_string(children_.count()) + " workers and " +
                      std::to_string(parking_.count()) + " parked connections handed over");
            on_children_exited();  // any that exited while the exec was under way
            const std::string& bound = start_.handover->listen_path;
            if (!bound.empty() && config_.listen != bound) {
                log::warning("reload: a new listen address needs a restart; still listening on " +
                             bound);
                config_.listen = bound;
            }
            log::info("reloading: " + describe(config_));
        } else {
            log::info("supportcrm-fcgi " + build_info::describe() + " listening on " +
                      socket_.description() + " " + describe(config_));
        }
        begin_pool();
        while (state_ != MasterState::stopped) {
            wait_until(next_deadline(), readiness_.read_fd(), parking_.fd());
            parking_.service();
            publish_parking();
            read_reports();
            if (signals::child_exited) {
                signals::child_exited = 0;
                on_children_exited();
            }
            // Left set: once stopping, a repeated stop request changes nothing.
            if (signals::stop_requested) {
                on(MasterEvent::stop_requested);
            }
            if (signals::reload_requested) {
                signals::reload_requested = 0;
                request_reload();
            }
            if (awaiting_pool(state_) && Clock::now() >= ready_deadline_ &&
                !waiting_for_migrate()) {
                on(MasterEvent::ready_timeout);
            }
            if (Clock::now() >= next_watch_) {
                watch_workers();
            }
            if (shutting_down(state_)) {
                watch_shutdown();
            } else {
                fill_pool();
                start_reindex_task_when_due();
                start_indexer_when_due();
            }
        }
        return exit_status_;
    }

  private:
    // The one place the state changes: kMasterTransitions says whether `event` leads anywhere
    // from here, and entering the new state does the rest.
    void on(MasterEvent event) {
        std::optional<MasterState> next = next_state(state_, event);
        if (!next) {
            return;
        }
        state_ = *next;
        enter(*next, event);
    }

    // Each entry writes the transition's one log line. Running is entered when the new pool
    // serves, or (from reloading) when it is abandoned and the old one goes on serving.
    void enter(MasterState state, MasterEvent via) {
        switch (state) {
            case MasterState::starting:  // the initial state only; run() logs it
                break;
            case MasterState::running:
                via == MasterEvent::pool_ready ? announce_ready() : abandon_reload();
                break;
            case MasterState::reloading:
                reexecute();
                break;
            case MasterState::stopping:
                stop_workers();
                break;
            case MasterState::failing:
                fail_start();
                break;
            case MasterState::killing:
                kill_workers();
                break;
            case MasterState::stopped:
                log::info(exit_status_ == 0 ? "stopped" : "stopped; exiting with status 1");
                break;
        }
    }

    std::optional<Clock::time_point> next_deadline() const {
        if (state_ == MasterState::stopping || state_ == MasterState::failing) {
            return std::min(stop_deadline_, next_watch_);
        }
        // SIGCHLD wakes the loop when the killed workers are gone; the second is a safety net.
        if (state_ == MasterState::killing) {
            return Clock::now() + std::chrono::seconds(1);
        }
        std::optional<Clock::time_point> deadline;
        if (awaiting_pool(state_)) {
            deadline = ready_deadline_;
        }
        if (children_.count_current() < config_.workers) {
            deadline = earliest(deadline, respawn_not_before_);
        }
        return earliest(deadline, next_watch_);
    }

    // A new pool of the current config: it has ready-timeout to connect.
    void begin_pool() {
        children_.next_generation();
        respawn_not_before_ = Clock::time_point{};
        ready_deadline_ = Clock::now() + std::chrono::seconds(config_.ready_timeout);
        last_failure_.clear();
        told_waiting_for_migrate_ = false;
        reindex_task_due_ = true;
        fill_pool();
    }

    // The re-index task (fcgi/reindex_task.h): once per pool, when it serves and every worker
    // of an older pool, the previous binary's after a re-exec, has exited.
    void start_reindex_task_when_due() {
        if (!reindex_task_due_ || !config_.search_reindex_task || state_ != MasterState::running ||
            children_.count_older() != 0) {
            return;
        }
        reindex_task_due_ = false;
        children_.spawn_task("re-index task", [this] {
            close(readiness_.read_fd());
            close(readiness_.write_fd());
            parking_.close_in_child();
            return run_reindex_task(config_);
        });
    }

    // The search indexer task (fcgi/indexer_task.h): one while the master serves, started again
    // whenever it exits (a crash, or the SIGTERM of an older pool's retirement), kFastFailure
    // later when it lived shorter than that.
    void start_indexer_when_due() {
        if (!config_.search_indexer || indexer_pid_ != 0 || state_ != MasterState::running ||
            Clock::now() < indexer_not_before_) {
            return;
        }
        indexer_pid_ = children_.spawn_task("search indexer", [this] {
            close(readiness_.read_fd());
            close(readiness_.write_fd());
            parking_.close_in_child();
            return run_indexer_task(config_);
        });
        if (indexer_pid_ == 0) {  // fork failed (logged): the next turn of the loop tries again
            indexer_not_before_ = Clock::now() + kFastFailure;
        }
    }

    void on_task_exited(const Children::Exit& e) {
        if (e.pid != indexer_pid_) {
            return;
        }
        indexer_pid_ = 0;
        if (e.uptime < kFastFailure) {
            indexer_not_before_ = Clock::now() + kFastFailure;
        }
    }

    // Each worker gets a scoreboard slot, reserved before the fork so that the child finds it
    // ready (spawning_slot_ is read by the child, in its copy of this object).
    void fill_pool() {
        if (Clock::now() < respawn_not_before_) {
            return;
        }
        while (children_.count_current() < config_.workers) {
            spawning_slot_ = scoreboard_.reserve();
            const pid_t pid = children_.spawn();
            scoreboard_.assign(spawning_slot_, pid);
            if (pid == 0) {
                break;
            }
        }
    }

    void on_children_exited() {
        for (const Children::Exit& e : children_.reap()) {
            if (e.task) {
                on_task_exited(e);  // not a worker: no slot, no restart count
                continue;
            }
            // Its counters stay in the totals; a worker that died unasked is a restart.
            scoreboard_.release(e.pid);
            const bool terminated = terminated_.erase(e.pid) > 0;
            const bool clean = WIFEXITED(e.status) && WEXITSTATUS(e.status) == 0;
            if (!clean && !terminated && !shutting_down(state_)) {
                auto& restarts = scoreboard_.header().worker_restarts;
                restarts.store(restarts.load(std::memory_order_relaxed) + 1,
                               std::memory_order_relaxed);
            }
            if (!shutting_down(state_) && e.current_generation && e.uptime < kFastFailure) {
                respawn_not_before_ = Clock::now() + kFastFailure;
            }
        }
    }

    // The parked connections as /status and /metrics show them (the master alone writes them).
    void publish_parking() {
        ScoreboardHeader& h = scoreboard_.header();
        h.parked_connections.store(parking_.idle(), std::memory_order_relaxed);
        h.handoff_held.store(parking_.held(), std::memory_order_relaxed);
    }

    // Every second: the longest listen queue seen (maxListenQueue of /status), and
    // request-terminate-timeout: a worker busy on one request longer than that is killed
    // (SIGKILL: SIGTERM would let it finish the very request that is stuck). nginx then
    // answers the client 503 (its 502 page), and the reaped worker is replaced. A route that
    // streams (an export) has its own, longer stream-terminate-timeout: the scoreboard names
    // the route, and the route table says which timer is its.
    void watch_workers() {
        next_watch_ = Clock::now() + std::chrono::seconds(1);
        parking_.expire();
        publish_parking();
        const long queue = listen_queue_length(socket_.fd());
        auto& max_queue = scoreboard_.header().max_listen_queue;
        if (queue > 0 &&
            static_cast<std::uint64_t>(queue) > max_queue.load(std::memory_order_relaxed)) {
            max_queue.store(static_cast<std::uint64_t>(queue), std::memory_order_relaxed);
        }
        for (std::size_t i = 0; i < scoreboard_.capacity(); ++i) {
            const WorkerView w = scoreboard_.worker(i);
            const Timer timer = timer_of(w.route);
            if (w.state == WorkerState::busy && w.pid > 0 && timer.seconds != 0 &&
                w.elapsed_ms > std::int64_t{timer.seconds} * 1000 &&
                terminated_.count(w.pid) == 0) {
                terminate(w, timer);
            }
        }
    }

    // The terminate timer of a route (0: off) and its key, for the log line.
    struct Timer {
        unsigned seconds;
        const char* key;
    };
    Timer timer_of(std::size_t route) const {
        if (route_streams(route)) {
            return {config_.stream_terminate_timeout, "stream-terminate-timeout"};
        }
        return {config_.request_terminate_timeout, "request-terminate-timeout"};
    }

    void terminate(const WorkerView& w, const Timer& timer) {
        const std::string_view route = route_label(w.route);
        std::string message = "slow request terminated: worker pid=" + std::to_string(w.pid) +
                              " busy " + std::to_string(w.elapsed_ms) + "ms on " +
                              scoreboard::method_name(w.method) + " " +
                              (route.empty() ? std::string("(no route)") : std::string(route)) +
                              " (request id=" + w.request_id;
        if (w.statement >= 0 && static_cast<std::size_t>(w.statement) < Db::statement_count()) {
            message += ", in statement " + std::string(Db::name(static_cast<Stmt>(w.statement))) +
                       " for " + std::to_string(w.statement_ms) + "ms";
        }
        message += std::string(") exceeded ") + timer.key + " (" + std::to_string(timer.seconds) +
                   "s): killing it (SIGKILL); a new worker replaces it";
        log::warning(message);
        if (kill(w.pid, SIGKILL) == 0) {
            terminated_.insert(w.pid);
            auto& count = scoreboard_.header().requests_terminated;
            count.store(count.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
        } else {
            log::error_errno("kill worker pid=" + std::to_string(w.pid), errno);
        }
    }

    // Workers' reports: the reason of the latest failure is kept for the log line of a pool
    // that does not become ready; pool_ready is offered on every pass once enough of the new
    // pool serve (the table takes it only while a pool waits to be announced).
    void read_reports() {
        for (const ReadinessReport& r : readiness_.drain()) {
            if (r.serving) {
                children_.mark_serving(r.pid);
            } else {
                last_failure_ = "worker pid=" + std::to_string(r.pid) + ": " + r.reason;
            }
        }
        if (children_.count_current_serving() >= config_.workers) {
            on(MasterEvent::pool_ready);
        }
    }

    // Stopping ends when the last worker is reaped, or is escalated at shutdown-timeout.
    void watch_shutdown() {
        if (children_.count() == 0) {
            on(MasterEvent::workers_gone);
        } else if (Clock::now() >= stop_deadline_) {
            on(MasterEvent::shutdown_timeout);
        }
    }

    // READY=1 (at start and after a reload) once a whole pool has connected to the database;
    // only then is the old pool told to finish the request in hand and exit.
    void announce_ready() {
        children_.retire_others();
        log::info("ready: " + std::to_string(config_.workers) + " workers serving");
        daemon::notify("READY=1");
    }

    // A reload whose new workers find the schema older than their binary (an upgrade installed
    // before `supportcrm-admin migrate`) is not abandoned at ready-timeout: the old workers go
    // on serving and the new pool takes over as soon as the migrate has added what its
    // statements need (docs/operations.md, "4. Schema"). Logged once per reload.
    bool waiting_for_migrate() {
        if (state_ != MasterState::reloading ||
            last_failure_.find(kSchemaNotMigrated) == std::string::npos) {
            return false;
        }
        ready_deadline_ = Clock::now() + std::chrono::seconds(config_.ready_timeout);
        if (!told_waiting_for_migrate_) {
            told_waiting_for_migrate_ = true;
            log::warning("reload waits for supportcrm-admin migrate: " + last_failure_ +
                         "; the previous workers keep serving until the new ones can start");
        }
        return true;
    }

    std::string why_not_ready() const {
        return "only " + std::to_string(children_.count_current_serving()) + " of " +
               std::to_string(config_.workers) + " workers connected within ready-timeout (" +
               std::to_string(config_.ready_timeout) + "s); " +
               (last_failure_.empty() ? "no worker reported why" : last_failure_);
    }

    // The new pool did not connect: it is stopped and the old one goes on serving.
    void abandon_reload() {
        log::error("reload abandoned: " + why_not_ready() +
                   "; the previous workers keep serving; fix the configuration and reload again");
        children_.abandon_current();
        // The pool that serves is the previous binary's: a walk now would leave its writes
        // behind again (fcgi/reindex_task.h); the next pool that takes over runs the task.
        reindex_task_due_ = false;
        daemon::notify("READY=1");
    }

    // SIGHUP is taken only where the table has a reload, and only once the binary now at
    // our path accepts the config: a master that could not become it keeps running as it is.
    void request_reload() {
        if (!next_state(state_, MasterEvent::reload_requested)) {
            log::info(std::string("SIGHUP ignored while ") + kStateNames[static_cast<int>(state_)]);
            return;
        }
        const NewBinary next = check_new_binary(executable_path(), start_.args);
        if (!next.refused.empty()) {
            log::error("reload refused, the running workers and config stay: " + next.refused);
            return;
        }
        next_takes_parked_ = next.takes_parked;
        on(MasterEvent::reload_requested);
    }

    // The master becomes the binary installed at its path now (same pid), handing over the
    // listen socket and the workers; the new image starts the new pool (run()). Should the
    // exec itself fail, this image reloads on its own: new workers of its own binary.
    void reexecute() {
        daemon::notify(reloading_message());
        const std::string exe = executable_path();
        log::info("reload: re-executing " + exe);
        // The task stops at its next batch; the new image's own task goes on from there.
        children_.stop_tasks();
        Handover handover{socket_.fd(),          socket_.unix_path(), children_.workers(),
                          channel_.master_end(), channel_.pool_end(), parking_.fds()};
        if (!next_takes_parked_) {
            // A binary from before parking (a downgrade) would neither watch nor close them:
            // they close at the exec (close-on-exec), and what the old workers park on the
            // channel closes with it when they exit. nginx retries an idempotent request that
            // meets such a close; this one time a POST or PATCH may fail (502).
            log::warning("reload: " + exe +
                         " does not take parked connections over (an older "
                         "binary): closing " +
                         std::to_string(parking_.count()) + " idle kept connections");
            handover.handoff_master_end = -1;
            handover.handoff_pool_end = -1;
            handover.parked.clear();
        }
        const std::string failed = reexec(exe, start_.args, handover);
        log::error("reload: " + failed + "; reloading without re-executing");
        reread_config();
        log::info("reloading: " + describe(config_));
        begin_pool();
    }

    // A config that does not load is logged and the running one kept.
    void reread_config() {
        try {
            Config fresh = reload_config_();
            if (fresh.listen != config_.listen) {
                log::warning("reload: a new listen address needs a restart; keeping " +
                             config_.listen);
                fresh.listen = config_.listen;
            }
            config_ = std::move(fresh);
            log::set_level(config_.log_level);
        } catch (const std::exception& e) {
            log::error(std::string("reload: keeping the running config: ") + e.what());
        }
    }

    void stop_workers() {
        log::info("stopping: workers finish their requests in hand (shutdown-timeout " +
                  std::to_string(config_.shutdown_timeout) + "s)");
        tell_workers_to_stop();
    }

    // The first pool cannot serve: the service does not pretend to have started.
    void fail_start() {
        exit_status_ = 1;
        log::error("start failed: " + why_not_ready() + "; exiting with status 1");
        tell_workers_to_stop();
    }

    // Every worker finishes the request in hand (if any) and exits; shutdown-timeout from now
    // the rest are killed.
    void tell_workers_to_stop() {
        daemon::notify("STOPPING=1");
        stop_deadline_ = Clock::now() + std::chrono::seconds(config_.shutdown_timeout);
        children_.stop_all();
    }

    void kill_workers() {
        log::warning("shutdown-timeout reached; killing the remaining workers");
        children_.kill_all();
    }

    const ListenSocket& socket_;
    Config config_;
    ReadinessPipe readiness_;
    const ConfigLoader& reload_config_;
    MasterStart start_;
    Scoreboard scoreboard_;
    // Idle kept connections the workers gave up (fcgi/parking.h); both survive a re-exec.
    HandoffChannel channel_;
    Parking parking_;
    // Whether the binary the next re-exec runs takes the channel and the parked connections.
    bool next_takes_parked_ = true;
    int spawning_slot_ = -1;
    bool reindex_task_due_ = false;  // set by begin_pool, cleared once the task is started
    pid_t indexer_pid_ = 0;          // the search indexer task; 0: none runs
    Clock::time_point indexer_not_before_{};
    bool told_waiting_for_migrate_ = false;
    std::set<pid_t> terminated_;  // killed for request-terminate-timeout, not yet reaped
    Clock::time_point next_watch_{};
    Children children_;
    MasterState state_ = MasterState::starting;
    Clock::time_point stop_deadline_{};
    Clock::time_point respawn_not_before_{};
    Clock::time_point ready_deadline_{};
    std::string last_failure_;
    int exit_status_ = 0;  // 1 once a start has failed
};

}  // namespace

int run_master(const ListenSocket& socket, Config config, const ConfigLoader& reload_config,
               MasterStart start) {
    signals::install_master_handlers();
    Master master(socket, std::move(config), reload_config, std::move(start));
    return master.run();
}

}  // namespace supportcrm
