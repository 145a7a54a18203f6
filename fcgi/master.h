// The master process: pre-forks the workers, replaces any that die, replaces all of them
// gracefully on SIGHUP (after re-reading the config), and on SIGTERM/SIGINT lets them finish
// the request in hand before it exits. Returns the process exit status. Its states and their
// transitions: fcgi/master_state.h.
#pragma once

#include <functional>

#include "common/config.h"
#include "fcgi/listen_socket.h"

namespace supportcrm {

using ConfigLoader = std::function<Config()>;

int run_master(const ListenSocket& socket, Config config, const ConfigLoader& reload_config);

}  // namespace supportcrm
