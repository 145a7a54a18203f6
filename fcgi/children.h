// The master's book of workers: fork, reap, and who belongs to which generation (a reload
// starts a new generation and retires the old one).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <vector>

namespace supportcrm {

class Children {
  public:
    using Clock = std::chrono::steady_clock;
    // Runs in the forked child; its return value is the child's exit status.
    using WorkerMain = std::function<int()>;

    explicit Children(WorkerMain worker_main) : worker_main_(std::move(worker_main)) {}

    // Forks one worker of the current generation; false (and logs) when fork fails.
    bool spawn();

    struct Exit {
        pid_t pid;
        int status;
        bool current_generation;
        Clock::duration uptime;
    };
    // Collects every exited child (waitpid WNOHANG) and logs each.
    std::vector<Exit> reap();

    void signal_all(int sig);
    // Starts a new generation and returns the number of the old one; spawn() then makes
    // workers of the new generation.
    unsigned next_generation() { return generation_++; }
    void signal_generation(unsigned generation, int sig);

    std::size_t count() const { return children_.size(); }
    std::size_t count_current() const;

  private:
    struct Child {
        pid_t pid;
        unsigned generation;
        Clock::time_point started;
    };

    WorkerMain worker_main_;
    std::vector<Child> children_;
    unsigned generation_ = 0;
};

}  // namespace supportcrm
