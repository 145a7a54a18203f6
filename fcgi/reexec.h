// The master's reload re-executes its binary in place (same pid, so systemd's MAINPID holds):
// whatever is installed at the binary's path then runs the master and every new worker. What
// the new image needs of the old one crosses execve(2) in environment variables, read and
// removed again at start (docs/INTERFACES.md):
//   SUPPORTCRM_LISTEN_FD    the listening socket's fd, left open across the exec
//   SUPPORTCRM_LISTEN_PATH  the unix socket path the master bound itself and removes at exit
//   SUPPORTCRM_CHILDREN     the workers, pid:phase:start (phase of Children::Phase, start in
//                           CLOCK_MONOTONIC nanoseconds), comma-separated
//   SUPPORTCRM_HANDOFF_FDS  the hand-off channel's master and pool ends, "m,p"
//                           (fcgi/parking.h): the old and the new pool share it
//   SUPPORTCRM_PARKED_FDS   the idle kept connections the master holds, comma-separated: open
//                           across the exec, as closing one would race nginx's next request
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/config.h"
#include "fcgi/children.h"

namespace supportcrm {

struct Handover {
    int listen_fd = -1;
    std::string listen_path;  // empty: not ours to remove (systemd's, or TCP)
    std::vector<Children::Child> children;
    int handoff_master_end = -1;  // -1: none (an image from before parking)
    int handoff_pool_end = -1;
    std::vector<int> parked;
};

// The variables' values for `handover`, and back; decode throws std::runtime_error.
std::string encode_children(const std::vector<Children::Child>& children);
std::vector<Children::Child> decode_children(const std::string& text);

// The handover left by the previous image, removed from the environment (workers must not
// see it); nullopt on a first start.
std::optional<Handover> take_handover();

// The path this process was executed from, as the kernel knows it now ("/proc/self/exe"
// without the " (deleted)" a replaced file shows): where the new binary is after an upgrade.
std::string executable_path();

// What --test-config adds to its summary line: this binary adopts the hand-off channel and the
// parked connections (SUPPORTCRM_HANDOFF_FDS, SUPPORTCRM_PARKED_FDS). A binary from before
// parking does not say it, and is not handed them (check_new_binary).
constexpr char kTakesParkedMarker[] = " handover=parked-connections";
std::string takes_parked_summary(const Config& config);

struct NewBinary {
    std::string refused;        // "" when it accepts the config, else why not
    bool takes_parked = false;  // its summary carries kTakesParkedMarker
};

// Runs `exe args... --test-config` and waits (at most 10 s): the new binary's own verdict on
// the config before the master becomes it (a refusal's message went to stderr, i.e. the
// journal), and whether it takes parked connections over (its summary line on stdout).
NewBinary check_new_binary(const std::string& exe, const std::vector<std::string>& args);

// execve(exe, args) with the handover in the environment; returns only on failure, with the
// error (the fds' close-on-exec flags and the environment are as they were).
std::string reexec(const std::string& exe, const std::vector<std::string>& args,
                   const Handover& handover);

}  // namespace supportcrm
