#include "common/log.h"

#include <pwd.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>

namespace supportcrm::log {
namespace {

Level g_level = Level::info;
std::string g_request_id;

// Each level's spelling in the config (level_key) and on a log line, by Level's value.
struct LevelNames {
    Level level;
    std::string_view key;
    const char* label;
    std::string_view journal;  // syslog priority: LOG_DEBUG 7, LOG_INFO 6, LOG_WARNING 4, LOG_ERR 3
};
constexpr LevelNames kLevels[] = {{Level::debug, "debug", "DEBUG", "<7>"},
                                  {Level::info, "info", "INFO", "<6>"},
                                  {Level::warning, "warning", "WARNING", "<4>"},
                                  {Level::error, "error", "ERROR", "<3>"}};
constexpr bool indexed_by_level() {
    for (int i = 0; i < 4; ++i) {
        if (static_cast<int>(kLevels[i].level) != i) {
            return false;
        }
    }
    return true;
}
static_assert(indexed_by_level(), "kLevels[i] is the level whose value is i");

const LevelNames& names_of(Level level) {
    return kLevels[static_cast<int>(level)];
}

const char* level_name(Level level) {
    return names_of(level).label;
}

}  // namespace

void set_level(Level level) {
    g_level = level;
}
Level level() {
    return g_level;
}

std::string_view level_key(Level level) {
    return names_of(level).key;
}

bool parse_level(std::string_view text, Level& out) {
    for (const LevelNames& names : kLevels) {
        if (text == names.key) {
            out = names.level;
            return true;
        }
    }
    return false;
}

void set_request_id(std::string_view request_id) {
    g_request_id.assign(request_id);
}

std::string_view journal_prefix(Level level) {
    return names_of(level).journal;
}

bool stderr_is_journal() {
    const char* stream = std::getenv("JOURNAL_STREAM");
    if (stream == nullptr) {
        return false;
    }
    unsigned long long device = 0;
    unsigned long long inode = 0;
    if (std::sscanf(stream, "%llu:%llu", &device, &inode) != 2) {
        return false;
    }
    struct stat st {};
    return fstat(STDERR_FILENO, &st) == 0 && st.st_dev == device && st.st_ino == inode;
}

std::string format_line(Level level, std::string_view message, bool journal) {
    timeval tv{};
    gettimeofday(&tv, nullptr);
    tm utc{};
    gmtime_r(&tv.tv_sec, &utc);
    char stamp[64];
    std::snprintf(stamp, sizeof stamp, "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ", utc.tm_year + 1900,
                  utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec,
                  static_cast<long>(tv.tv_usec / 1000));
    std::string line;
    line.reserve(100 + message.size());
    if (journal) {
        line.append(journal_prefix(level));
    }
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
    return line;
}

void write(Level level, std::string_view message) {
    if (level < g_level) {
        return;
    }
    // Decided once per process: stderr does not change hands (workers inherit it).
    static const bool journal = stderr_is_journal();
    std::string line = format_line(level, message, journal);
    // One write(2) per line so lines from concurrent workers never interleave.
    ssize_t ignored = ::write(STDERR_FILENO, line.data(), line.size());
    (void)ignored;
}

std::string Throttle::admit(std::string_view message, Clock::time_point now) {
    if (in_run_ && now - last_written_ < every_) {
        ++held_back_;
        return "";
    }
    std::string line(message);
    if (held_back_ > 0) {
        line += " (" + std::to_string(held_back_) + " more like it in the last " +
                std::to_string(
                    std::chrono::duration_cast<std::chrono::seconds>(now - last_written_).count()) +
                " s not logged)";
    }
    in_run_ = true;
    last_written_ = now;
    held_back_ = 0;
    return line;
}

std::size_t Throttle::success() {
    const std::size_t held_back = held_back_;
    in_run_ = false;
    held_back_ = 0;
    return held_back;
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

std::string effective_user() {
    const uid_t uid = geteuid();
    passwd entry{};
    passwd* found = nullptr;
    char buffer[1024];
    if (getpwuid_r(uid, &entry, buffer, sizeof buffer, &found) == 0 && found != nullptr) {
        return found->pw_name;
    }
    return "uid " + std::to_string(uid);
}

std::string errno_as_user(int err) {
    return std::string(std::strerror(err)) + " (errno " + std::to_string(err) + ", as user " +
           effective_user() + " uid " + std::to_string(geteuid()) + ")";
}

}  // namespace supportcrm::log
