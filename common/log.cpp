#include "common/log.h"

#include <sys/time.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <ctime>
#include <string>

namespace supportcrm::log {
namespace {

Level g_level = Level::info;
std::string g_request_id;

const char* level_name(Level level) {
    switch (level) {
        case Level::debug:
            return "DEBUG";
        case Level::info:
            return "INFO";
        case Level::warning:
            return "WARNING";
        case Level::error:
            return "ERROR";
    }
    return "?";
}

}  // namespace

void set_level(Level level) {
    g_level = level;
}
Level level() {
    return g_level;
}

bool parse_level(std::string_view text, Level& out) {
    if (text == "debug") {
        out = Level::debug;
    } else if (text == "info") {
        out = Level::info;
    } else if (text == "warning") {
        out = Level::warning;
    } else if (text == "error") {
        out = Level::error;
    } else {
        return false;
    }
    return true;
}

void set_request_id(std::string_view request_id) {
    g_request_id.assign(request_id);
}

void write(Level level, std::string_view message) {
    if (level < g_level) {
        return;
    }
    timeval tv{};
    gettimeofday(&tv, nullptr);
    tm utc{};
    gmtime_r(&tv.tv_sec, &utc);
    char stamp[64];
    std::snprintf(stamp, sizeof stamp, "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ", utc.tm_year + 1900,
                  utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec,
                  static_cast<long>(tv.tv_usec / 1000));
    std::string line;
    line.reserve(96 + message.size());
    line.append(stamp).append(" ").append(level_name(level));
    line.append(" pid=").append(std::to_string(getpid()));
    if (!g_request_id.empty()) {
        line.append(" req=").append(g_request_id);
    }
    line.append(" ").append(message);
    // Newlines inside a message would forge extra log lines; keep one event per line.
    for (char& c : line) {
        if (c == '\n' || c == '\r') {
            c = ' ';
        }
    }
    line.push_back('\n');
    // One write(2) per line so lines from concurrent workers never interleave.
    ssize_t ignored = ::write(STDERR_FILENO, line.data(), line.size());
    (void)ignored;
}

void error_errno(std::string_view what, int err) {
    std::string m(what);
    m.append(": ")
        .append(std::strerror(err))
        .append(" (errno ")
        .append(std::to_string(err))
        .append(")");
    write(Level::error, m);
}

}  // namespace supportcrm::log
