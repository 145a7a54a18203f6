// supportcrm-admin: the operator's command-line tool (contract §2).
#include <boost/program_options.hpp>
#include <iostream>

#include "admin/commands.h"
#include "common/build_info.h"
#include "db/admin_repo.h"

namespace po = boost::program_options;
using namespace supportcrm;

int main(int argc, char** argv) {
    po::options_description options("supportcrm-admin options");
    options.add_options()("help,h", "show this help and exit")(
        "version", "print the version and git revision and exit")(
        "config,c", po::value<std::string>()->default_value(SUPPORTCRM_CONFIG_FILE),
        "config file (INI)");
    options.add(config_options());

    std::vector<std::string> command;
    po::variables_map command_line;
    try {
        // Global options come first; everything from the first word that is not one of them
        // is the command and its own flags.
        po::parsed_options parsed =
            po::command_line_parser(argc, argv).options(options).allow_unregistered().run();
        command = po::collect_unrecognized(parsed.options, po::include_positional);
        po::store(parsed, command_line);
    } catch (const po::error& e) {
        std::cerr << "supportcrm-admin: " << e.what() << "\n";
        return 2;
    }
    if (command_line.count("version")) {
        std::cout << "supportcrm-admin " << build_info::describe() << "\n";
        return 0;
    }
    if (command_line.count("help") || command.empty()) {
        std::cout << admin::usage() << "\n" << options << "\n";
        return command_line.count("help") ? 0 : 2;
    }
    try {
        Config config = load_config(command_line);
        std::cout << admin::run_command(config, command) << std::endl;
        return 0;
    } catch (const ConfigError& e) {
        std::cerr << "supportcrm-admin: " << e.what() << "\n";
        return kExitConfig;
    } catch (const admin::UsageError& e) {
        std::cerr << "supportcrm-admin: " << e.what() << " (see --help)\n";
        return 2;
    } catch (const std::exception& e) {
        std::cerr << "supportcrm-admin: " << e.what() << "\n";
        return 1;
    }
}
