// One log line per event on stderr (journald adds the timestamp when run by systemd; we add
// our own so a plain file is readable too). Every line carries the pid, and the request id
// when there is one. Never pass API keys, digests or bodies to these functions.
#pragma once

#include <string_view>

namespace supportcrm::log {

enum class Level { debug = 0, info = 1, warning = 2, error = 3 };

void set_level(Level level);
Level level();
// "debug", "info", "warning" or "error": how the log-level key spells a level.
std::string_view level_key(Level level);
// The inverse of level_key; false on anything else.
bool parse_level(std::string_view text, Level& out);

// The request id to stamp on lines written while a request is in hand (empty: none).
void set_request_id(std::string_view request_id);

void write(Level level, std::string_view message);
inline void debug(std::string_view m) {
    write(Level::debug, m);
}
inline void info(std::string_view m) {
    write(Level::info, m);
}
inline void warning(std::string_view m) {
    write(Level::warning, m);
}
inline void error(std::string_view m) {
    write(Level::error, m);
}

// "<what>: <strerror(errno)> (errno N)", for system-call failures.
void error_errno(std::string_view what, int err);

}  // namespace supportcrm::log
