// supportcrm-admin's commands (contract §2): each prints one JSON object on one line.
#pragma once

#include <string>
#include <vector>

#include "common/config.h"

namespace supportcrm::admin {

// Usage errors (unknown command, missing --flag): exit 2.
struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// Runs `args` (the command words and their flags) and returns the JSON line to print.
// Throws UsageError, AdminError, DbUnavailable, DbError or std::runtime_error.
std::string run_command(const Config& config, const std::vector<std::string>& args);

std::string usage();

}  // namespace supportcrm::admin
