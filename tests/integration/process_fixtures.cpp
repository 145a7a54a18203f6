#include "process_fixtures.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "harness.h"

extern char** environ;

namespace it::proc {
namespace {

using Clock = std::chrono::steady_clock;

std::string errno_text(int err) {
    return std::string(std::strerror(err)) + " (errno " + std::to_string(err) + ")";
}

int open_output(const std::string& path) {
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    if (fd < 0) {
        throw std::runtime_error("open " + path + ": " + errno_text(errno));
    }
    return fd;
}

// Async-signal-safe: writes the decimal digits of `n` and a NUL into `out`.
void write_decimal(char* out, long n) {
    char digits[24];
    int len = 0;
    do {
        digits[len++] = static_cast<char>('0' + n % 10);
        n /= 10;
    } while (n > 0 && len < 23);
    for (int i = 0; i < len; ++i) {
        out[i] = digits[len - 1 - i];
    }
    out[len] = '\0';
}

// Variables by which systemd talks to a service: a test's child must only see its own.
bool is_systemd_variable(const char* entry) {
    return std::strncmp(entry, "LISTEN_PID=", 11) == 0 ||
           std::strncmp(entry, "LISTEN_FDS=", 11) == 0 ||
           std::strncmp(entry, "LISTEN_FDNAMES=", 15) == 0 ||
           std::strncmp(entry, "NOTIFY_SOCKET=", 14) == 0;
}

}  // namespace

std::string fcgi_binary() {
    const std::string& admin = it::env().admin;
    const size_t slash = admin.rfind('/');
    const std::string dir = slash == std::string::npos ? "." : admin.substr(0, slash);
    return dir + "/supportcrm-fcgi";
}

// ---------------------------------------------------------------------------------------------
// TempDir.

TempDir::TempDir() {
    std::string base = "/tmp";
    // Unix socket paths must stay short (108 bytes): a long $TMPDIR is not used.
    if (const char* t = std::getenv("TMPDIR"); t != nullptr && *t == '/' && std::strlen(t) < 60) {
        base = t;
    }
    std::string templ = base + "/scrm-proc-XXXXXX";
    if (mkdtemp(templ.data()) == nullptr) {
        throw std::runtime_error("mkdtemp " + templ + ": " + errno_text(errno));
    }
    path_ = templ;
}

TempDir::~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
}

// ---------------------------------------------------------------------------------------------
// Process.

std::string ExitStatus::describe() const {
    if (signal != 0) {
        return "killed by signal " + std::to_string(signal) + " (" + strsignal(signal) + ")";
    }
    return "exit " + std::to_string(code);
}

Process::Process(const SpawnOptions& o) : stderr_path_(o.stderr_path), stdout_path_(o.stdout_path) {
    // Everything the child needs is prepared before fork: between fork and exec only
    // async-signal-safe calls are made (the test process may have threads).
    std::vector<std::string> argv_strings{o.program};
    argv_strings.insert(argv_strings.end(), o.args.begin(), o.args.end());
    std::vector<char*> argv;
    for (std::string& s : argv_strings) {
        argv.push_back(s.data());
    }
    argv.push_back(nullptr);

    std::vector<std::string> env_strings;
    for (char** e = environ; *e != nullptr; ++e) {
        if (!is_systemd_variable(*e)) {
            env_strings.emplace_back(*e);
        }
    }
    size_t listen_pid_index = 0;
    if (o.listen_fd >= 0) {
        env_strings.emplace_back("LISTEN_FDS=1");
        if (!o.listen_fdnames.empty()) {
            env_strings.push_back("LISTEN_FDNAMES=" + o.listen_fdnames);
        }
        listen_pid_index = env_strings.size();
        env_strings.push_back("LISTEN_PID=" + std::string(24, '0'));  // digits written by the child
    }
    if (!o.notify_socket.empty()) {
        env_strings.push_back("NOTIFY_SOCKET=" + o.notify_socket);
    }
    std::vector<char*> envp;
    for (std::string& s : env_strings) {
        envp.push_back(s.data());
    }
    envp.push_back(nullptr);
    char* listen_pid_value = o.listen_fd >= 0 ? envp[listen_pid_index] + 11 : nullptr;

    const int err_fd = open_output(o.stderr_path);
    const int out_fd = open_output(o.stdout_path);
    const int null_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    long max_fd = sysconf(_SC_OPEN_MAX);
    max_fd = max_fd <= 0 || max_fd > 65536 ? 65536 : max_fd;
    const int keep_below = o.listen_fd >= 0 ? 4 : 3;

    const pid_t pid = fork();
    if (pid < 0) {
        const int err = errno;
        ::close(err_fd);
        ::close(out_fd);
        ::close(null_fd);
        throw std::runtime_error("fork: " + errno_text(err));
    }
    if (pid == 0) {
        setpgid(0, 0);
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, nullptr);
        struct sigaction dfl;
        std::memset(&dfl, 0, sizeof dfl);
        dfl.sa_handler = SIG_DFL;
        for (int sig : {SIGPIPE, SIGHUP, SIGTERM, SIGINT, SIGQUIT, SIGCHLD}) {
            sigaction(sig, &dfl, nullptr);
        }
        if (null_fd >= 0) {
            dup2(null_fd, 0);
        }
        dup2(out_fd, 1);
        dup2(err_fd, 2);
        if (o.listen_fd >= 0) {
            if (o.listen_fd != 3) {
                dup2(o.listen_fd, 3);
            }
            fcntl(3, F_SETFD, 0);  // dup2 onto itself would keep FD_CLOEXEC
            write_decimal(listen_pid_value, static_cast<long>(getpid()));
        }
        if (close_range(static_cast<unsigned>(keep_below), ~0U, 0) != 0) {
            for (int fd = keep_below; fd < max_fd; ++fd) {
                ::close(fd);
            }
        }
        execve(argv[0], argv.data(), envp.data());
        const char msg[] = "process_fixtures: execve failed\n";
        ssize_t ignored = ::write(2, msg, sizeof msg - 1);
        (void)ignored;
        _exit(127);
    }
    setpgid(pid, pid);  // also here, so signalling the group cannot race the child's setpgid
    pid_ = pid;
    ::close(err_fd);
    ::close(out_fd);
    if (null_fd >= 0) {
        ::close(null_fd);
    }
}

Process::~Process() {
    kill_group();
}

bool Process::running() const {
    if (reaped_) {
        return false;
    }
    siginfo_t info;
    std::memset(&info, 0, sizeof info);
    if (waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOHANG | WNOWAIT) != 0) {
        return false;
    }
    return info.si_pid == 0;
}

void Process::signal(int sig) const {
    if (!reaped_) {
        ::kill(pid_, sig);
    }
}

std::optional<ExitStatus> Process::wait_exit(Millis timeout) {
    if (status_) {
        return status_;
    }
    const auto deadline = Clock::now() + timeout;
    while (running()) {
        if (Clock::now() >= deadline) {
            return std::nullopt;
        }
        std::this_thread::sleep_for(Millis(10));
    }
    // The leader has exited but is not reaped yet, so its pid (= the group id) cannot be reused:
    // the group can be inspected and cleared safely.
    for (const ProcStat& p : all_processes()) {
        if (p.pgrp == pid_ && p.pid != pid_ && p.state != 'Z' && p.state != 'X') {
            leftovers_.push_back(p.pid);
        }
    }
    if (!leftovers_.empty()) {
        ::kill(-pid_, SIGKILL);
    }
    int st = 0;
    while (waitpid(pid_, &st, 0) < 0 && errno == EINTR) {
    }
    reaped_ = true;
    ExitStatus s;
    if (WIFEXITED(st)) {
        s.code = WEXITSTATUS(st);
    } else if (WIFSIGNALED(st)) {
        s.signal = WTERMSIG(st);
    }
    status_ = s;
    return status_;
}

void Process::kill_group() {
    if (pid_ <= 0 || reaped_) {
        return;
    }
    ::kill(-pid_, SIGKILL);
    ::kill(pid_, SIGKILL);
    int st = 0;
    while (waitpid(pid_, &st, 0) < 0 && errno == EINTR) {
    }
    reaped_ = true;
    if (!status_) {
        ExitStatus s;
        if (WIFEXITED(st)) {
            s.code = WEXITSTATUS(st);
        } else if (WIFSIGNALED(st)) {
            s.signal = WTERMSIG(st);
        }
        status_ = s;
    }
}

std::string Process::log() const {
    return read_file(stderr_path_);
}

std::string Process::out() const {
    return read_file(stdout_path_);
}

bool Process::wait_for_log(std::string_view needle, Millis timeout, size_t times) const {
    const auto deadline = Clock::now() + timeout;
    while (true) {
        if (count(log(), needle) >= times) {
            return true;
        }
        if (Clock::now() >= deadline) {
            return false;
        }
        std::this_thread::sleep_for(Millis(20));
    }
}

std::vector<pid_t> Process::children() const {
    std::vector<pid_t> out;
    for (const ProcStat& p : all_processes()) {
        if (p.ppid == pid_ && p.state != 'Z' && p.state != 'X' && p.comm != kTaskName) {
            out.push_back(p.pid);
        }
    }
    std::sort(out.begin(), out.end());
    return out;
}

bool Process::wait_for_children(size_t n, Millis timeout) const {
    const auto deadline = Clock::now() + timeout;
    while (true) {
        if (children().size() == n) {
            return true;
        }
        if (Clock::now() >= deadline) {
            return false;
        }
        std::this_thread::sleep_for(Millis(20));
    }
}

// ---------------------------------------------------------------------------------------------
// Files, text, /proc, sockets.

std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        return {};
    }
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

size_t count(std::string_view text, std::string_view needle) {
    if (needle.empty()) {
        return 0;
    }
    size_t n = 0;
    for (size_t at = text.find(needle); at != std::string_view::npos;
         at = text.find(needle, at + needle.size())) {
        ++n;
    }
    return n;
}

std::vector<std::string> lines_with(std::string_view text, std::string_view needle) {
    std::vector<std::string> out;
    size_t at = 0;
    while (at < text.size()) {
        size_t eol = text.find('\n', at);
        if (eol == std::string_view::npos) {
            eol = text.size();
        }
        std::string_view line = text.substr(at, eol - at);
        if (line.find(needle) != std::string_view::npos) {
            out.emplace_back(line);
        }
        at = eol + 1;
    }
    return out;
}

std::vector<ProcStat> all_processes() {
    std::vector<ProcStat> out;
    DIR* dir = opendir("/proc");
    if (dir == nullptr) {
        throw std::runtime_error("opendir /proc: " + errno_text(errno));
    }
    while (dirent* entry = readdir(dir)) {
        const char* name = entry->d_name;
        if (*name < '1' || *name > '9') {
            continue;
        }
        // "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses.
        std::string stat = read_file(std::string("/proc/") + name + "/stat");
        const size_t close_paren = stat.rfind(')');
        if (close_paren == std::string::npos) {
            continue;  // gone meanwhile
        }
        std::istringstream rest(stat.substr(close_paren + 1));
        ProcStat p;
        p.pid = static_cast<pid_t>(std::strtol(name, nullptr, 10));
        const size_t open_paren = stat.find('(');
        if (open_paren != std::string::npos && open_paren < close_paren) {
            p.comm = stat.substr(open_paren + 1, close_paren - open_paren - 1);
        }
        long ppid = 0;
        long pgrp = 0;
        if (rest >> p.state >> ppid >> pgrp) {
            p.ppid = static_cast<pid_t>(ppid);
            p.pgrp = static_cast<pid_t>(pgrp);
            out.push_back(p);
        }
    }
    closedir(dir);
    return out;
}

int listen_unix(const std::string& path, int backlog) {
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    if (path.size() >= sizeof addr.sun_path) {
        throw std::runtime_error("socket path too long: " + path);
    }
    std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        throw std::runtime_error("socket: " + errno_text(errno));
    }
    if (bind(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0 ||
        listen(fd, backlog) != 0) {
        const int err = errno;
        ::close(fd);
        throw std::runtime_error("bind/listen " + path + ": " + errno_text(err));
    }
    return fd;
}

}  // namespace it::proc
