// supportcrm-fcgi: the FastCGI master and its pre-forked workers.
#include <unistd.h>

#include <iostream>

#include "common/config.h"
#include "common/log.h"
#include "fcgi/listen_socket.h"
#include "fcgi/master.h"

namespace po = boost::program_options;
using namespace supportcrm;

int main(int argc, char** argv) {
    po::options_description options = daemon_command_line("supportcrm-fcgi");
    po::variables_map command_line;
    try {
        po::store(po::parse_command_line(argc, argv, options), command_line);
    } catch (const po::error& e) {
        std::cerr << "supportcrm-fcgi: " << e.what() << " (see --help)\n";
        return 2;
    }
    if (command_line.count("help")) {
        std::cout << options << "\n";
        return 0;
    }
    if (command_line.count("version")) {
        std::cout << "supportcrm-fcgi " << SUPPORTCRM_VERSION << "\n";
        return 0;
    }
    const bool test_only = command_line.count("test-config") > 0;
    Config config;
    try {
        config = load_config(command_line);
        if (test_only) {
            check_listen_directory(config);
        }
    } catch (const ConfigError& e) {
        std::cerr << "supportcrm-fcgi: " << e.what() << "\n";
        return kExitConfig;
    }
    if (test_only) {
        std::cout << "supportcrm-fcgi: configuration OK: " << describe(config) << "\n";
        return 0;
    }
    log::set_level(config.log_level);
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
