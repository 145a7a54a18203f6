// supportcrm-webhooks: delivers the webhook events the API writes (extensions.md §E5). A
// process of its own, so that the API's latency never depends on a receiver.
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <iostream>
#include <thread>

#include "common/config.h"
#include "common/log.h"
#include "db/db.h"
#include "webhooks/deliverer.h"
#include "webhooks/sender.h"

#ifdef SUPPORTCRM_HAVE_SYSTEMD
#include <systemd/sd-daemon.h>
#endif

namespace po = boost::program_options;
using namespace supportcrm;

namespace {

std::atomic<bool> g_stopping{false};

void on_stop_signal(int) {
    g_stopping.store(true);
}

void notify(const char* state) {
#ifdef SUPPORTCRM_HAVE_SYSTEMD
    sd_notify(0, state);
#else
    (void)state;
#endif
}

void install_signal_handlers() {
    struct sigaction stop {};
    stop.sa_handler = on_stop_signal;
    sigemptyset(&stop.sa_mask);
    sigaction(SIGTERM, &stop, nullptr);
    sigaction(SIGINT, &stop, nullptr);
    struct sigaction ignore {};
    ignore.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &ignore, nullptr);
}

// Sleeps up to `ms`, waking early on SIGTERM.
void pause_ms(unsigned ms) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
    while (!g_stopping.load() && std::chrono::steady_clock::now() < until) {
        std::this_thread::sleep_for(std::chrono::milliseconds(std::min(ms, 50u)));
    }
}

// Connects, waiting for the database as long as it takes (or until SIGTERM).
bool connect_when_possible(Db& db) {
    while (!g_stopping.load()) {
        try {
            db.connect();
            db.prepare_all();
            return true;
        } catch (const DbUnavailable& e) {
            log::error(std::string(e.what()) + "; trying again in 2 s");
            db.disconnect();
            pause_ms(2000);
        }
    }
    return false;
}

int run(const Config& config) {
    webhooks::init_http();
    install_signal_handlers();
    Db db(config.db);
    if (!connect_when_possible(db)) {
        return 0;
    }
    log::info(std::string("supportcrm-webhooks ") + SUPPORTCRM_VERSION +
              " delivering: " + "batch=" + std::to_string(config.webhooks.batch) +
              " poll-ms=" + std::to_string(config.webhooks.poll_ms) +
              " retention-days=" + std::to_string(config.webhooks.retention_days) +
              " allow-private=" + (config.webhooks.allow_private ? "true" : "false"));
    notify("READY=1");
    webhooks::Deliverer deliverer(db, config.webhooks, g_stopping);
    while (!g_stopping.load()) {
        try {
            if (!db.connected() && !connect_when_possible(db)) {
                break;
            }
            webhooks::Deliverer::Round round = deliverer.run_once();
            if (round.idle()) {
                pause_ms(config.webhooks.poll_ms);
            }
        } catch (const DbUnavailable& e) {
            log::error(std::string(e.what()) + "; reconnecting");
            db.disconnect();
            pause_ms(1000);
        } catch (const std::exception& e) {
            // A refused COMMIT, a deadlock, a bad row: nothing of the round was committed; its
            // deliveries are due again.
            log::error(std::string("delivery round failed: ") + e.what());
            pause_ms(config.webhooks.poll_ms);
        }
    }
    notify("STOPPING=1");
    try {
        deliverer.finish_in_flight();  // the attempts in flight end and are recorded
    } catch (const std::exception& e) {
        log::error(std::string("recording the last attempts failed: ") + e.what());
    }
    log::info("supportcrm-webhooks stopped");
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    po::options_description options = daemon_command_line("supportcrm-webhooks");
    po::variables_map command_line;
    try {
        po::store(po::parse_command_line(argc, argv, options), command_line);
    } catch (const po::error& e) {
        std::cerr << "supportcrm-webhooks: " << e.what() << " (see --help)\n";
        return 2;
    }
    if (command_line.count("help")) {
        std::cout << options << "\n";
        return 0;
    }
    if (command_line.count("version")) {
        std::cout << "supportcrm-webhooks " << SUPPORTCRM_VERSION << "\n";
        return 0;
    }
    Config config;
    try {
        config = load_config(command_line);
    } catch (const ConfigError& e) {
        std::cerr << "supportcrm-webhooks: " << e.what() << "\n";
        return kExitConfig;
    }
    if (command_line.count("test-config")) {
        std::cout << "supportcrm-webhooks: configuration OK: " << describe(config)
                  << " webhook-allow-private=" << (config.webhooks.allow_private ? "true" : "false")
                  << "\n";
        return 0;
    }
    log::set_level(config.log_level);
    try {
        return run(config);
    } catch (const std::exception& e) {
        log::error(e.what());
        return 1;
    }
}
