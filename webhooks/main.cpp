// supportcrm-webhooks: delivers the webhook events the API writes (extensions.md §E5). A
// process of its own, so that the API's latency never depends on a receiver.
#include <boost/program_options.hpp>
#include <string>

#include "common/build_info.h"
#include "common/config.h"
#include "common/daemon.h"
#include "common/log.h"
#include "common/signals.h"
#include "db/db.h"
#include "webhooks/deliverer.h"
#include "webhooks/sender.h"

namespace po = boost::program_options;
using namespace supportcrm;

namespace {

// Connects, waiting for the database as long as it takes (or until SIGTERM).
bool connect_when_possible(Db& db) {
    while (!signals::stop_requested) {
        try {
            db.connect();
            db.prepare_all();
            return true;
        } catch (const DbUnavailable& e) {
            log::error(std::string(e.what()) + "; trying again in 2 s");
            db.disconnect();
            signals::pause_ms(2000);
        }
    }
    return false;
}

int run(const Config& config) {
    webhooks::init_http();
    signals::install_stop_handlers();
    Db db(config.db);
    if (!connect_when_possible(db)) {
        return 0;
    }
    log::info("supportcrm-webhooks " + build_info::describe() +
              " delivering: " + "batch=" + std::to_string(config.webhooks.batch) +
              " poll-ms=" + std::to_string(config.webhooks.poll_ms) +
              " retention-days=" + std::to_string(config.webhooks.retention_days) +
              " allow-private=" + (config.webhooks.allow_private ? "true" : "false"));
    daemon::notify("READY=1");
    webhooks::Deliverer deliverer(db, config.webhooks, signals::stop_requested);
    while (!signals::stop_requested) {
        try {
            if (!db.connected() && !connect_when_possible(db)) {
                break;
            }
            webhooks::Deliverer::Round round = deliverer.run_once();
            if (round.idle()) {
                signals::pause_ms(config.webhooks.poll_ms);
            }
        } catch (const DbUnavailable& e) {
            log::error(std::string(e.what()) + "; reconnecting");
            db.disconnect();
            signals::pause_ms(1000);
        } catch (const std::exception& e) {
            // A refused COMMIT, a deadlock, a bad row: nothing of the round was committed; its
            // deliveries are due again.
            log::error(std::string("delivery round failed: ") + e.what());
            signals::pause_ms(config.webhooks.poll_ms);
        }
    }
    daemon::notify("STOPPING=1");
    try {
        deliverer.finish_in_flight();  // the attempts in flight end and are recorded
    } catch (const std::exception& e) {
        log::error(std::string("recording the last attempts failed: ") + e.what());
    }
    log::info("supportcrm-webhooks stopped");
    return 0;
}

std::string allow_private(const Config& config) {
    return std::string(" webhook-allow-private=") +
           (config.webhooks.allow_private ? "true" : "false");
}

}  // namespace

int main(int argc, char** argv) {
    po::variables_map command_line;
    Config config;
    if (std::optional<int> done = daemon::start(
            argc, argv, {"supportcrm-webhooks", nullptr, &allow_private}, command_line, config)) {
        return *done;
    }
    try {
        return run(config);
    } catch (const std::exception& e) {
        log::error(e.what());
        return 1;
    }
}
