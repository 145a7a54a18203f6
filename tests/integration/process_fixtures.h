// Helpers for the process tests: a temporary directory per test, and supportcrm-fcgi masters
// started with fork/exec (no shell) in their own process group, with stderr in a log file.
//
// A Process that is destroyed while its process group still has members SIGKILLs the whole
// group and reaps the leader: a failing test leaves no master or worker behind.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace it::proc {

using Millis = std::chrono::milliseconds;

// $SUPPORTCRM_ADMIN's directory + "/supportcrm-fcgi".
std::string fcgi_binary();

// A fresh directory under $TMPDIR (or /tmp), removed with its contents on destruction.
class TempDir {
  public:
    TempDir();
    ~TempDir();
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;

    const std::string& path() const { return path_; }
    std::string file(std::string_view name) const { return path_ + "/" + std::string(name); }

  private:
    std::string path_;
};

struct SpawnOptions {
    std::string program;            // path of the executable
    std::vector<std::string> args;  // argv[1..]
    std::string stderr_path;        // the child's stderr (created/appended)
    std::string stdout_path;        // the child's stdout (created/appended)
    // When >= 0: passed to the child as fd 3 with LISTEN_FDS=1 and LISTEN_PID=<the child's
    // pid>, the way systemd passes a socket. LISTEN_* and NOTIFY_SOCKET of the test's own
    // environment are never passed on.
    int listen_fd = -1;
    std::string listen_fdnames;  // LISTEN_FDNAMES, when not empty (and listen_fd >= 0)
    std::string notify_socket;   // NOTIFY_SOCKET, when not empty (sd_notify's datagram socket)
};

struct ExitStatus {
    int code = -1;   // exit code, -1 when killed by a signal
    int signal = 0;  // the signal that killed it, 0 when it exited
    std::string describe() const;
    bool clean() const { return code == 0; }
};

// One spawned process (the leader of its own process group).
class Process {
  public:
    explicit Process(const SpawnOptions& options);
    ~Process();
    Process(const Process&) = delete;
    Process& operator=(const Process&) = delete;

    pid_t pid() const { return pid_; }
    // False once the process has exited (it is not reaped by this check).
    bool running() const;
    void signal(int sig) const;
    // Waits up to `timeout` for the process to exit; reaps it and returns how it ended.
    // Members of its process group still alive at that moment are recorded (leftovers())
    // and SIGKILLed. nullopt on timeout (the process is left running).
    std::optional<ExitStatus> wait_exit(Millis timeout);
    // Group members that were alive when the leader exited (should be empty).
    const std::vector<pid_t>& leftovers() const { return leftovers_; }
    // SIGKILLs the whole process group and reaps the leader.
    void kill_group();

    std::string log() const;  // the stderr file
    std::string out() const;  // the stdout file
    // Polls the stderr file (every 20 ms) until it contains `needle` `times` times.
    bool wait_for_log(std::string_view needle, Millis timeout, size_t times = 1) const;
    // Live (non-zombie) children of this process, e.g. a master's workers (not its re-index task,
    // kTaskName, which comes and goes on its own).
    std::vector<pid_t> children() const;
    // Polls until exactly `n` live children exist.
    bool wait_for_children(size_t n, Millis timeout) const;

  private:
    pid_t pid_ = -1;
    bool reaped_ = false;
    std::optional<ExitStatus> status_;
    std::vector<pid_t> leftovers_;
    std::string stderr_path_;
    std::string stdout_path_;
};

// Reads a whole file ("" when it does not exist).
std::string read_file(const std::string& path);
// Number of (non-overlapping) occurrences of `needle` in `text`.
size_t count(std::string_view text, std::string_view needle);
// The lines of `text` that contain `needle`.
std::vector<std::string> lines_with(std::string_view text, std::string_view needle);

struct ProcStat {
    pid_t pid = 0;
    char state = '?';
    pid_t ppid = 0;
    pid_t pgrp = 0;
    std::string comm;  // the name (/proc/<pid>/comm): the master's re-index task is kTaskName
};
// The name supportcrm-fcgi's re-index task gives itself (fcgi/reindex_task.cpp): a child of the
// master that is not a worker.
inline constexpr std::string_view kTaskName = "scrm-reindex";
// Every process visible in /proc (from /proc/<pid>/stat).
std::vector<ProcStat> all_processes();

// Creates a unix stream socket bound to `path` and listening; returns its fd (throws).
int listen_unix(const std::string& path, int backlog = 64);

}  // namespace it::proc
