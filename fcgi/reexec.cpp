#include "fcgi/reexec.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <thread>

#include "fcgi/parking.h"

namespace supportcrm {
namespace {

constexpr const char* kListenFd = "SUPPORTCRM_LISTEN_FD";
constexpr const char* kListenPath = "SUPPORTCRM_LISTEN_PATH";
constexpr const char* kChildren = "SUPPORTCRM_CHILDREN";
constexpr const char* kHandoffFds = "SUPPORTCRM_HANDOFF_FDS";
constexpr const char* kParkedFds = "SUPPORTCRM_PARKED_FDS";

std::string take_variable(const char* name) {
    const char* value = std::getenv(name);
    std::string out = value == nullptr ? "" : value;
    unsetenv(name);
    return out;
}

long long to_number(const std::string& text, const char* what) {
    char* end = nullptr;
    errno = 0;
    const long long n = std::strtoll(text.c_str(), &end, 10);
    if (text.empty() || *end != '\0' || errno != 0 || n < 0) {
        throw std::runtime_error(std::string("re-exec handover: bad ") + what + " '" + text + "'");
    }
    return n;
}

std::vector<char*> c_strings(std::vector<std::string>& strings) {
    std::vector<char*> out;
    for (std::string& s : strings) {
        out.push_back(s.data());
    }
    out.push_back(nullptr);
    return out;
}

// An inherited descriptor must be open; it is close-on-exec again (the workers exec nothing,
// and a later re-exec clears the flag itself).
int adopt_fd(int fd, const char* what) {
    if (fcntl(fd, F_GETFD) < 0) {
        throw std::runtime_error(std::string("re-exec handover: ") + what + " " +
                                 std::to_string(fd) + " is not open");
    }
    fcntl(fd, F_SETFD, FD_CLOEXEC);
    return fd;
}

// The descriptors the new image inherits: every other fd of the master is close-on-exec.
std::vector<int> inherited(const Handover& h) {
    std::vector<int> fds = h.parked;
    fds.push_back(h.listen_fd);
    if (h.handoff_master_end >= 0) {
        fds.push_back(h.handoff_master_end);
        fds.push_back(h.handoff_pool_end);
    }
    return fds;
}

}  // namespace

std::string encode_children(const std::vector<Children::Child>& children) {
    std::string out;
    for (const Children::Child& c : children) {
        auto ns =
            std::chrono::duration_cast<std::chrono::nanoseconds>(c.started.time_since_epoch());
        out += (out.empty() ? "" : ",") + std::to_string(c.pid) + ":" + static_cast<char>(c.phase) +
               ":" + std::to_string(ns.count());
    }
    return out;
}

std::vector<Children::Child> decode_children(const std::string& text) {
    std::vector<Children::Child> out;
    std::size_t at = 0;
    while (at < text.size()) {
        std::size_t comma = text.find(',', at);
        comma = comma == std::string::npos ? text.size() : comma;
        const std::string item = text.substr(at, comma - at);
        const std::size_t first = item.find(':');
        const std::size_t second = item.find(':', first + 1);
        if (first == std::string::npos || second != first + 2) {
            throw std::runtime_error("re-exec handover: bad child '" + item + "'");
        }
        const char phase = item[first + 1];
        if (phase != 'c' && phase != 's' && phase != 't') {
            throw std::runtime_error("re-exec handover: bad phase in '" + item + "'");
        }
        Children::Child c{};
        c.pid = static_cast<pid_t>(to_number(item.substr(0, first), "pid"));
        c.phase = static_cast<Children::Phase>(phase);
        c.started = Children::Clock::time_point(
            std::chrono::nanoseconds(to_number(item.substr(second + 1), "start time")));
        out.push_back(c);
        at = comma + 1;
    }
    return out;
}

std::optional<Handover> take_handover() {
    const std::string fd = take_variable(kListenFd);
    const std::string path = take_variable(kListenPath);
    const std::string children = take_variable(kChildren);
    const std::string handoff = take_variable(kHandoffFds);
    const std::string parked = take_variable(kParkedFds);
    if (fd.empty()) {
        return std::nullopt;
    }
    Handover h;
    h.listen_fd = static_cast<int>(to_number(fd, "listen fd"));
    if (fcntl(h.listen_fd, F_GETFD) < 0) {
        throw std::runtime_error("re-exec handover: listen fd " + fd + " is not open");
    }
    fcntl(h.listen_fd, F_SETFD, FD_CLOEXEC);  // not for the workers' own execs (there are none)
    h.listen_path = path;
    h.children = decode_children(children);
    const std::vector<int> ends = decode_fds(handoff);
    if (ends.size() == 2) {
        h.handoff_master_end = adopt_fd(ends[0], "hand-off channel fd");
        h.handoff_pool_end = adopt_fd(ends[1], "hand-off channel fd");
    } else if (!ends.empty()) {
        throw std::runtime_error("re-exec handover: bad hand-off channel '" + handoff + "'");
    }
    for (int p : decode_fds(parked)) {
        h.parked.push_back(adopt_fd(p, "parked connection fd"));
    }
    return h;
}

std::string executable_path() {
    char buf[4096];
    const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n <= 0) {
        return "";
    }
    std::string path(buf, static_cast<std::size_t>(n));
    const std::string deleted = " (deleted)";
    if (path.size() > deleted.size() &&
        path.compare(path.size() - deleted.size(), deleted.size(), deleted) == 0) {
        path.resize(path.size() - deleted.size());
    }
    return path;
}

std::string takes_parked_summary(const Config&) {
    return kTakesParkedMarker;
}

namespace {

// Everything `fd` gives until its end (the child's summary line: a few hundred bytes).
std::string read_all(int fd) {
    std::string out;
    char buf[1024];
    ssize_t n;
    while ((n = read(fd, buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR)) {
        out.append(buf, static_cast<std::size_t>(std::max<ssize_t>(n, 0)));
    }
    return out;
}

}  // namespace

NewBinary check_new_binary(const std::string& exe, const std::vector<std::string>& args) {
    std::vector<std::string> argv = args;
    argv.push_back("--test-config");
    std::vector<char*> c_argv = c_strings(argv);
    int out[2];
    if (pipe2(out, O_CLOEXEC) != 0) {
        return {std::string("pipe: ") + std::strerror(errno)};
    }
    Fd summary(out[0]);
    Fd child_end(out[1]);
    const pid_t pid = fork();
    if (pid < 0) {
        return {std::string("fork: ") + std::strerror(errno)};
    }
    if (pid == 0) {
        dup2(child_end.get(), 1);  // the summary; a complaint goes to stderr, the journal
        execv(exe.c_str(), c_argv.data());
        _exit(127);
    }
    child_end.reset();
    fcntl(summary.get(), F_SETFL, O_NONBLOCK);
    std::string said;
    int status = 0;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    pid_t done;
    while ((done = waitpid(pid, &status, WNOHANG)) == 0) {
        said += read_all(summary.get());
        if (std::chrono::steady_clock::now() >= deadline) {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            return {exe + " --test-config did not finish within 10 s"};
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    if (done < 0) {
        return {std::string("waitpid: ") + std::strerror(errno)};
    }
    said += read_all(summary.get());
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
        return {"", said.find(kTakesParkedMarker) != std::string::npos};
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
        return {"cannot execute " + exe};
    }
    return {exe + " --test-config failed (" +
            (WIFEXITED(status) ? "exit " + std::to_string(WEXITSTATUS(status))
                               : "signal " + std::to_string(WTERMSIG(status))) +
            ")"};
}

std::string reexec(const std::string& exe, const std::vector<std::string>& args,
                   const Handover& handover) {
    std::vector<std::string> argv = args;
    std::vector<char*> c_argv = c_strings(argv);
    setenv(kListenFd, std::to_string(handover.listen_fd).c_str(), 1);
    if (!handover.listen_path.empty()) {
        setenv(kListenPath, handover.listen_path.c_str(), 1);
    }
    setenv(kChildren, encode_children(handover.children).c_str(), 1);
    if (handover.handoff_master_end >= 0) {
        setenv(kHandoffFds,
               encode_fds({handover.handoff_master_end, handover.handoff_pool_end}).c_str(), 1);
    }
    setenv(kParkedFds, encode_fds(handover.parked).c_str(), 1);
    const std::vector<int> fds = inherited(handover);
    for (int fd : fds) {
        fcntl(fd, F_SETFD, 0);
    }
    execv(exe.c_str(), c_argv.data());
    const int err = errno;
    for (int fd : fds) {
        fcntl(fd, F_SETFD, FD_CLOEXEC);
    }
    unsetenv(kListenFd);
    unsetenv(kListenPath);
    unsetenv(kChildren);
    unsetenv(kHandoffFds);
    unsetenv(kParkedFds);
    return "execv " + exe + ": " + std::strerror(err);
}

}  // namespace supportcrm
