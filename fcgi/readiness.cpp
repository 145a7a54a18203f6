#include "fcgi/readiness.h"

#include <fcntl.h>
#include <limits.h>
#include <unistd.h>

#include <cstdlib>
#include <stdexcept>

namespace supportcrm {
namespace {

constexpr std::string_view kServing = "serving ";
constexpr std::string_view kFailing = "failing ";
// Room for the word, a pid and the newline within one atomic write.
constexpr std::size_t kMaxReason = 512;
static_assert(kMaxReason + 64 < PIPE_BUF);

}  // namespace

std::string readiness_line(const ReadinessReport& report) {
    std::string line(report.serving ? kServing : kFailing);
    line += std::to_string(report.pid);
    if (!report.serving) {
        std::string reason = report.reason.substr(0, kMaxReason);
        for (char& c : reason) {
            c = c == '\n' || c == '\r' ? ' ' : c;
        }
        line += " " + reason;
    }
    return line + "\n";
}

bool send_readiness(int fd, const ReadinessReport& report) {
    const std::string line = readiness_line(report);
    return ::write(fd, line.data(), line.size()) == static_cast<ssize_t>(line.size());
}

std::optional<ReadinessReport> parse_readiness_line(std::string_view line) {
    ReadinessReport r;
    if (line.substr(0, kServing.size()) == kServing) {
        r.serving = true;
        line.remove_prefix(kServing.size());
    } else if (line.substr(0, kFailing.size()) == kFailing) {
        line.remove_prefix(kFailing.size());
    } else {
        return std::nullopt;
    }
    const std::size_t space = line.find(' ');
    const std::string pid(line.substr(0, space));
    char* end = nullptr;
    const long value = std::strtol(pid.c_str(), &end, 10);
    if (pid.empty() || *end != '\0' || value <= 0) {
        return std::nullopt;
    }
    r.pid = static_cast<pid_t>(value);
    if (!r.serving && space != std::string_view::npos) {
        r.reason = std::string(line.substr(space + 1));
    }
    return r;
}

ReadinessPipe::ReadinessPipe() {
    if (pipe2(fds_, O_CLOEXEC | O_NONBLOCK) != 0) {
        throw std::runtime_error("pipe2 failed");
    }
}

ReadinessPipe::~ReadinessPipe() {
    close(fds_[0]);
    close(fds_[1]);
}

std::vector<ReadinessReport> ReadinessPipe::drain() {
    char buf[4096];
    ssize_t got;
    while ((got = ::read(fds_[0], buf, sizeof buf)) > 0) {
        pending_.append(buf, static_cast<std::size_t>(got));
    }
    std::vector<ReadinessReport> reports;
    std::size_t eol;
    while ((eol = pending_.find('\n')) != std::string::npos) {
        if (auto r = parse_readiness_line(std::string_view(pending_).substr(0, eol))) {
            reports.push_back(std::move(*r));
        }
        pending_.erase(0, eol + 1);
    }
    return reports;
}

}  // namespace supportcrm
