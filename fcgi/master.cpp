#include "fcgi/master.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>

#include <chrono>
#include <optional>

#include "fcgi/children.h"
#include "fcgi/log.h"
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

// Waits for a signal or until the deadline, whichever comes first.
void wait_until(std::optional<Clock::time_point> deadline) {
    timespec ts{};
    timespec* timeout = nullptr;
    if (deadline) {
        auto left = std::max(Clock::duration::zero(), *deadline - Clock::now());
        auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(left).count();
        ts.tv_sec = static_cast<time_t>(ns / 1'000'000'000);
        ts.tv_nsec = static_cast<long>(ns % 1'000'000'000);
        timeout = &ts;
    }
    ppoll(nullptr, 0, timeout, &signals::wait_mask());
}

class Master {
  public:
    Master(const ListenSocket& socket, Config config, const ConfigLoader& reload_config)
        : socket_(socket),
          config_(std::move(config)),
          reload_config_(reload_config),
          children_([this] { return run_worker(socket_.fd(), config_); }) {}

    int run() {
        // Idle workers wait in epoll and then accept; non-blocking so that the ones that lose
        // the race for a connection go back to waiting instead of blocking in accept(2).
        fcntl(socket_.fd(), F_SETFL, fcntl(socket_.fd(), F_GETFL) | O_NONBLOCK);
        log::info(std::string("supportcrm-fcgi ") + SUPPORTCRM_VERSION + " listening on " +
                  socket_.description() + " " + describe(config_));
        fill_pool();
        notify("READY=1");
        while (true) {
            wait_until(next_deadline());
            if (signals::child_exited) {
                signals::child_exited = 0;
                on_children_exited();
            }
            if (signals::stop_requested && !stopping_) {
                begin_stop();
            }
            if (signals::reload_requested) {
                signals::reload_requested = 0;
                if (!stopping_) {
                    reload();
                }
            }
            if (stopping_) {
                if (children_.count() == 0) {
                    break;
                }
                if (!killed_ && Clock::now() >= stop_deadline_) {
                    log::warning("shutdown-timeout reached; killing the remaining workers");
                    children_.signal_all(SIGKILL);
                    killed_ = true;
                }
            } else {
                fill_pool();
            }
        }
        log::info("stopped");
        return 0;
    }

  private:
    std::optional<Clock::time_point> next_deadline() const {
        if (stopping_) {
            return killed_ ? Clock::now() + std::chrono::seconds(1) : stop_deadline_;
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
            if (!stopping_ && e.current_generation && e.uptime < kFastFailure) {
                respawn_not_before_ = Clock::now() + kFastFailure;
            }
        }
    }

    void begin_stop() {
        stopping_ = true;
        notify("STOPPING=1");
        log::info("stopping: workers finish their requests in hand (shutdown-timeout " +
                  std::to_string(config_.shutdown_timeout) + "s)");
        stop_deadline_ = Clock::now() + std::chrono::seconds(config_.shutdown_timeout);
        children_.signal_all(SIGTERM);
    }

    // New workers (with the re-read config) start first; then the old ones finish the request
    // in hand and exit. The listen socket stays open throughout, so no connection is refused.
    void reload() {
        notify("RELOADING=1");
        try {
            Config fresh = reload_config_();
            if (fresh.listen != config_.listen) {
                log::warning("reload: a new listen address needs a restart; keeping " +
                             config_.listen);
                fresh.listen = config_.listen;
            }
            config_ = std::move(fresh);
            log::set_level(config_.log_level);
            log::info("reloading: " + describe(config_));
        } catch (const std::exception& e) {
            log::error(std::string("reload: keeping the running config: ") + e.what());
        }
        unsigned old_generation = children_.next_generation();
        respawn_not_before_ = Clock::time_point{};
        fill_pool();
        children_.signal_generation(old_generation, SIGTERM);
        notify("READY=1");
    }

    const ListenSocket& socket_;
    Config config_;
    const ConfigLoader& reload_config_;
    Children children_;
    bool stopping_ = false;
    bool killed_ = false;
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
