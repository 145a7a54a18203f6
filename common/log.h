// One log line per event on stderr (journald adds the timestamp when run by systemd; we add
// our own so a plain file is readable too). Every line carries the pid, and the request id
// when there is one. When stderr is the journal (JOURNAL_STREAM names it), each line starts
// with its syslog priority, <7> debug ... <3> error, so `journalctl -p warning` filters.
// Never pass API keys, digests or bodies to these functions.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>
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
// The line write() sends for message (newline included): "<N>" first when journal is true,
// then the time stamp, level, pid, request id and message.
std::string format_line(Level level, std::string_view message, bool journal);
// "<7>", "<6>", "<4>" or "<3>": the syslog priority journald reads at a line's start.
std::string_view journal_prefix(Level level);
// True when JOURNAL_STREAM ("device:inode") names the file stderr is (sd-daemon(3)).
bool stderr_is_journal();
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

// Holds back repeats of a line that could come once per request (the database is down: each
// request fails to reconnect): the first goes out, then at most one per `every`, saying how
// many were held back since the last one. success() ends the run.
class Throttle {
  public:
    using Clock = std::chrono::steady_clock;
    explicit Throttle(Clock::duration every) : every_(every) {}
    // The line to write now, or "" to hold this one back.
    std::string admit(std::string_view message, Clock::time_point now = Clock::now());
    // The run ended (the database answers again): how many lines were held back since the
    // last one written; the next failure is written at once.
    std::size_t success();

  private:
    Clock::duration every_;
    bool in_run_ = false;
    Clock::time_point last_written_{};
    std::size_t held_back_ = 0;
};

// "<what>: <strerror(errno)> (errno N)", for system-call failures.
void error_errno(std::string_view what, int err);

// "<strerror(err)> (errno N, as user NAME uid U)": for messages about a file or socket the
// process could not read or bind, which depend on who the process runs as.
std::string errno_as_user(int err);
// The effective user's name (or "uid N" when it has none).
std::string effective_user();

}  // namespace supportcrm::log
