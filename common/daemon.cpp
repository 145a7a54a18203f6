#include "common/daemon.h"

#include <boost/program_options.hpp>
#include <iostream>

#include "common/build_info.h"

#ifdef SUPPORTCRM_HAVE_SYSTEMD
#include <systemd/sd-daemon.h>
#endif

namespace supportcrm::daemon {
namespace po = boost::program_options;

std::optional<int> start(int argc, char** argv, const Program& program,
                         po::variables_map& command_line, Config& config) {
    const po::options_description options = daemon_command_line(program.name);
    try {
        po::store(po::parse_command_line(argc, argv, options), command_line);
    } catch (const po::error& e) {
        std::cerr << program.name << ": " << e.what() << " (see --help)\n";
        return 2;
    }
    if (command_line.count("help")) {
        std::cout << options << "\n";
        return 0;
    }
    if (command_line.count("version")) {
        std::cout << program.name << " " << build_info::describe() << "\n";
        return 0;
    }
    const bool test_only = command_line.count("test-config") > 0;
    try {
        config = load_config(command_line);
        if (test_only && program.test_config_checks != nullptr) {
            program.test_config_checks(config);
        }
    } catch (const ConfigError& e) {
        std::cerr << program.name << ": " << e.what() << "\n";
        return kExitConfig;
    }
    if (test_only) {
        std::cout << program.name << ": configuration OK: " << describe(config)
                  << (program.test_config_summary != nullptr ? program.test_config_summary(config)
                                                             : std::string())
                  << "\n";
        return 0;
    }
    log::set_level(config.log_level);
    return std::nullopt;
}

void notify(const std::string& state) {
#ifdef SUPPORTCRM_HAVE_SYSTEMD
    sd_notify(0, state.c_str());
#else
    (void)state;
#endif
}

}  // namespace supportcrm::daemon
