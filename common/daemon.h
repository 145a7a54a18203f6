// What the two daemons, supportcrm-fcgi and supportcrm-webhooks, share before and around their
// own work: the command line sequence (--help, --version, the configuration, --test-config)
// and telling systemd how they are (sd_notify). Their signals: common/signals.h.
#pragma once

#include <optional>
#include <string>

#include "common/config.h"

namespace supportcrm::daemon {

struct Program {
    const char* name;  // "supportcrm-fcgi": --help's title, the prefix of every message
    // --test-config: checks beyond load_config's (may throw ConfigError), and what the summary
    // line adds after describe(); either may be null.
    void (*test_config_checks)(const Config& config) = nullptr;
    std::string (*test_config_summary)(const Config& config) = nullptr;
};

// The command line up to the daemon's own work: a bad command line is exit 2, --help and
// --version print and exit 0, a bad configuration is kExitConfig (78) with its message on
// stderr, --test-config prints "<name>: configuration OK: …" and exits 0. Returns that exit
// status, or nullopt with `command_line` and `config` filled (and the log level set) when the
// daemon should run.
std::optional<int> start(int argc, char** argv, const Program& program,
                         boost::program_options::variables_map& command_line, Config& config);

// sd_notify(3) when built with systemd ("READY=1", "STOPPING=1", …); nothing otherwise.
void notify(const std::string& state);

}  // namespace supportcrm::daemon
