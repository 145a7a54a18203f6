// The master process: pre-forks the workers, replaces any that die, and on SIGTERM/SIGINT/
// SIGQUIT lets them finish the request in hand before it exits. On SIGHUP it re-executes its
// binary in place (fcgi/reexec.h) and, as that new image, starts a new pool with the re-read
// config; the old pool is told to stop only once the new one serves, and keeps serving when
// the new one does not connect within ready-timeout. Returns the process exit status. Its
// states and their transitions: fcgi/master_state.h.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/config.h"
#include "fcgi/listen_socket.h"
#include "fcgi/reexec.h"

namespace supportcrm {

using ConfigLoader = std::function<Config()>;

struct MasterStart {
    std::vector<std::string> args;     // the command line, to re-execute with
    std::optional<Handover> handover;  // set when this image is the result of a reload
};

int run_master(const ListenSocket& socket, Config config, const ConfigLoader& reload_config,
               MasterStart start);

}  // namespace supportcrm
