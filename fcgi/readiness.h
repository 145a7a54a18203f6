// How workers tell the master whether they can serve: one line per report on a pipe the master
// reads, each written with one write(2) of less than PIPE_BUF bytes (so never interleaved):
//   "serving <pid>\n"           connected to the database with its config; now accepting
//   "failing <pid> <reason>\n"  cannot connect (the server's message); retrying every second
// A pool is ready once as many of its workers as configured said "serving"; the reasons are
// what the master logs when it gives up on a pool (fcgi/master.cpp).
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace supportcrm {

// How a failing report's reason begins when the worker connected but could not prepare its
// statements: the database's schema is not this binary's. While a reload's new pool fails so,
// the master waits for `supportcrm-admin migrate` instead of giving up at ready-timeout.
inline constexpr std::string_view kSchemaNotMigrated = "the schema is not migrated: ";

struct ReadinessReport {
    pid_t pid = 0;
    bool serving = false;
    std::string reason;  // of a "failing" report
};

// The line for a report (a reason is cut to fit one atomic write; newlines become spaces).
std::string readiness_line(const ReadinessReport& report);

// Writes a report from a worker; false (errno set) when it could not be sent, e.g. because
// the master re-executed since the worker started and no longer reads that pipe.
bool send_readiness(int fd, const ReadinessReport& report);

// The master's end: a non-blocking close-on-exec pipe, and the reports read from it.
class ReadinessPipe {
  public:
    ReadinessPipe();
    ~ReadinessPipe();
    ReadinessPipe(const ReadinessPipe&) = delete;
    ReadinessPipe& operator=(const ReadinessPipe&) = delete;

    int read_fd() const { return fds_[0]; }
    int write_fd() const { return fds_[1]; }
    // Every complete report waiting in the pipe (a partial line is kept for the next call).
    std::vector<ReadinessReport> drain();

  private:
    int fds_[2];
    std::string pending_;
};

// Parses one line (without its newline); nullopt for anything else.
std::optional<ReadinessReport> parse_readiness_line(std::string_view line);

}  // namespace supportcrm
