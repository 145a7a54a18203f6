#include "fcgi/master.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <optional>
#include <stdexcept>

#include "common/log.h"
#include "fcgi/children.h"
#include "fcgi/master_state.h"
#include "fcgi/signals.h"
#include "fcgi/worker.h"

#ifdef SUPPORTCRM_HAVE_SYSTEMD
#include <systemd/sd-daemon.h>
#endif

namespace supportcrm {
namespace {

using Clock = std::chrono::steady_clock;

// A worker that dies within this long of starting is failing at start-up (say the config
// points at a missing socket): respawn it no faster than this, not in a tight loop.
constexpr auto kFastFailure = std::chrono::seconds(1);

void notify(const char* state) {
#ifdef SUPPORTCRM_HAVE_SYSTEMD
    sd_notify(0, state);
#else
    (void)state;
#endif
}

// Workers report "ready" with one byte each on this pipe; systemd hears READY=1 only once the
// whole pool can serve.
class ReadinessPipe {
  public:
    ReadinessPipe() {
        if (pipe2(fds_, O_CLOEXEC | O_NONBLOCK) != 0) {
            throw std::runtime_error("pipe2 failed");
        }
    }
    ~ReadinessPipe() {
        close(fds_[0]);
        close(fds_[1]);
    }
    ReadinessPipe(const ReadinessPipe&) = delete;
    ReadinessPipe& operator=(const ReadinessPipe&) = delete;

    int read_fd() const { return fds_[0]; }
    int write_fd() const { return fds_[1]; }
    // Bytes (ready workers) waiting in the pipe.
    std::size_t drain() {
        std::size_t n = 0;
        char buf[64];
        ssize_t got;
        while ((got = ::read(fds_[0], buf, sizeof buf)) > 0) {
            n += static_cast<std::size_t>(got);
        }
        return n;
    }

  private:
    int fds_[2];
};

// Waits for a signal, a ready worker, or the deadline, whichever comes first.
void wait_until(std::optional<Clock::time_point> deadline, int ready_fd) {
    timespec ts{};
    timespec* timeout = nullptr;
    if (deadline) {
        auto left = std::max(Clock::duration::zero(), *deadline - Clock::now());
        auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(left).count();
        ts.tv_sec = static_cast<time_t>(ns / 1'000'000'000);
        ts.tv_nsec = static_cast<long>(ns % 1'000'000'000);
        timeout = &ts;
    }
    pollfd ready{ready_fd, POLLIN, 0};
    ppoll(&ready, 1, timeout, &signals::wait_mask());
}

class Master {
  public:
    Master(const ListenSocket& socket, Config config, const ConfigLoader& reload_config)
        : socket_(socket),
          config_(std::move(config)),
          reload_config_(reload_config),
          children_([this] {
              close(readiness_.read_fd());
              return run_worker(socket_.fd(), readiness_.write_fd(), config_);
          }) {}

    int run() {
        // Idle workers wait in epoll and then accept; non-blocking so that the ones that lose
        // the race for a connection go back to waiting instead of blocking in accept(2).
        fcntl(socket_.fd(), F_SETFL, fcntl(socket_.fd(), F_GETFL) | O_NONBLOCK);
        log::info(std::string("supportcrm-fcgi ") + SUPPORTCRM_VERSION + " listening on " +
                  socket_.description() + " " + describe(config_));
        fill_pool();
        while (state_ != MasterState::stopped) {
            wait_until(next_deadline(), readiness_.read_fd());
            count_ready_workers();
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
                on(MasterEvent::reload_requested);
            }
            if (shutting_down(state_)) {
                watch_shutdown();
            } else {
                fill_pool();
            }
        }
        return 0;
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
        enter(*next);
    }

    // Each entry writes the transition's one log line.
    void enter(MasterState state) {
        switch (state) {
            case MasterState::starting:  // the initial state only; run() logs it
                break;
            case MasterState::running:
                announce_ready();
                break;
            case MasterState::reloading:
                replace_workers();
                break;
            case MasterState::stopping:
                stop_workers();
                break;
            case MasterState::killing:
                kill_workers();
                break;
            case MasterState::stopped:
                log::info("stopped");
                break;
        }
    }

    std::optional<Clock::time_point> next_deadline() const {
        if (state_ == MasterState::stopping) {
            return stop_deadline_;
        }
        // SIGCHLD wakes the loop when the killed workers are gone; the second is a safety net.
        if (state_ == MasterState::killing) {
            return Clock::now() + std::chrono::seconds(1);
        }
        if (children_.count_current() < config_.workers) {
            return respawn_not_before_;
        }
        return std::nullopt;
    }

    void fill_pool() {
        if (Clock::now() < respawn_not_before_) {
            return;
        }
        while (children_.count_current() < config_.workers && children_.spawn()) {
        }
    }

    void on_children_exited() {
        for (const Children::Exit& e : children_.reap()) {
            if (!shutting_down(state_) && e.current_generation && e.uptime < kFastFailure) {
                respawn_not_before_ = Clock::now() + kFastFailure;
            }
        }
    }

    // pool_ready is offered on every pass once enough workers have said so; the table takes it
    // only while a pool waits to be announced (starting, reloading).
    void count_ready_workers() {
        ready_workers_ += readiness_.drain();
        if (ready_workers_ >= config_.workers) {
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

    // READY=1 (at start and after a reload) once a whole pool of workers has said it can serve.
    void announce_ready() {
        log::info("ready: " + std::to_string(config_.workers) + " workers serving");
        notify("READY=1");
    }

    // New workers (with the re-read config) start first; then the old ones finish the request
    // in hand and exit. The listen socket stays open throughout, so no connection is refused.
    void replace_workers() {
        notify("RELOADING=1");
        reread_config();
        log::info("reloading: " + describe(config_));
        unsigned old_generation = children_.next_generation();
        respawn_not_before_ = Clock::time_point{};
        ready_workers_ = 0;
        fill_pool();
        children_.signal_generation(old_generation, SIGTERM);
    }

    // A config that does not load is logged and the running one kept; the workers are
    // replaced all the same.
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
        notify("STOPPING=1");
        log::info("stopping: workers finish their requests in hand (shutdown-timeout " +
                  std::to_string(config_.shutdown_timeout) + "s)");
        stop_deadline_ = Clock::now() + std::chrono::seconds(config_.shutdown_timeout);
        children_.signal_all(SIGTERM);
    }

    void kill_workers() {
        log::warning("shutdown-timeout reached; killing the remaining workers");
        children_.signal_all(SIGKILL);
    }

    const ListenSocket& socket_;
    Config config_;
    ReadinessPipe readiness_;
    std::size_t ready_workers_ = 0;
    const ConfigLoader& reload_config_;
    Children children_;
    MasterState state_ = MasterState::starting;
    Clock::time_point stop_deadline_{};
    Clock::time_point respawn_not_before_{};
};

}  // namespace

int run_master(const ListenSocket& socket, Config config, const ConfigLoader& reload_config) {
    signals::install_master_handlers();
    Master master(socket, std::move(config), reload_config);
    return master.run();
}

}  // namespace supportcrm
