// supportcrm-fcgi: the FastCGI master and its pre-forked workers.
#include <unistd.h>

#include <boost/program_options.hpp>

#include "common/config.h"
#include "common/daemon.h"
#include "common/log.h"
#include "fcgi/listen_socket.h"
#include "fcgi/master.h"
#include "fcgi/reexec.h"

namespace po = boost::program_options;
using namespace supportcrm;

int main(int argc, char** argv) {
    po::variables_map command_line;
    Config config;
    if (std::optional<int> done = daemon::start(
            argc, argv, {"supportcrm-fcgi", &check_listen_directory, &takes_parked_summary},
            command_line, config)) {
        return *done;
    }
    // The master forks the workers as they are: nothing here changes user (systemd's User=
    // does, or whoever starts it), so as root every request would be served as root.
    if (geteuid() == 0) {
        log::warning(
            "running as root: the workers will serve requests as root; run it as an "
            "unprivileged user (supportcrm.service has User=supportcrm; by hand: runuser -u "
            "supportcrm -- supportcrm-fcgi)");
    }
    try {
        MasterStart start{std::vector<std::string>(argv, argv + argc), take_handover()};
        ListenSocket socket = start.handover ? ListenSocket::adopt(start.handover->listen_fd,
                                                                   start.handover->listen_path)
                                             : ListenSocket::open(config);
        ConfigLoader reload = [&command_line] { return load_config(command_line); };
        return run_master(socket, std::move(config), reload, std::move(start));
    } catch (const std::exception& e) {
        log::error(e.what());
        return 1;
    }
}
