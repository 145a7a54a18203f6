// The master's book of workers: fork, reap, and who belongs to which pool. A reload starts a
// new pool (generation); the old one serves until the new one is ready, then is told to stop.
// Across the master's re-exec the book is handed over (fcgi/reexec.h) and adopted.
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

    // What the master knows of one worker.
    enum class Phase : char {
        connecting = 'c',  // started, has not said it serves yet
        serving = 's',     // said it serves (connected to the database)
        stopping = 't',    // told to finish its request and exit
    };
    struct Child {
        pid_t pid;
        Phase phase;
        Clock::time_point started;
        unsigned generation = 0;
        bool task = false;  // a task of the master's (spawn_task), not a worker
    };

    explicit Children(WorkerMain worker_main) : worker_main_(std::move(worker_main)) {}

    // Takes over workers forked by the master's previous image (same process, before exec):
    // they belong to the pool before the current one.
    void adopt(const std::vector<Child>& children);
    // Every worker, for the handover to the next image (a task is not handed over: stop_tasks).
    std::vector<Child> workers() const;

    // Forks one worker of the current generation; its pid, or 0 (and logs) when fork fails.
    pid_t spawn();
    // Forks a task of the master's: not a worker (it takes no connection, is not one of the
    // pool's `workers`), stopped with them. Its pid, or 0 when fork fails.
    pid_t spawn_task(const char* name, const WorkerMain& task);
    // SIGTERM to every task: finish the step in hand and exit.
    void stop_tasks();

    struct Exit {
        pid_t pid;
        int status;
        bool current_generation;
        bool task;
        Clock::duration uptime;
    };
    // Collects every exited child (waitpid WNOHANG) and logs each.
    std::vector<Exit> reap();

    // A worker said it serves; false when it is not one of ours.
    bool mark_serving(pid_t pid);

    // SIGTERM to every worker not told yet: finish the request in hand and exit.
    void stop_all();
    // SIGKILL to every worker.
    void kill_all();
    // Starts a new generation: spawn() then makes workers of the new one.
    void next_generation() { ++generation_; }
    // The new generation serves: every other worker is told (SIGTERM) to finish and exit.
    void retire_others();
    // The new generation failed: it is told to stop, and so is every older worker that never
    // said it serves; the workers that do serve become the current generation.
    void abandon_current();

    std::size_t count() const { return children_.size(); }
    std::size_t count_current() const;
    std::size_t count_current_serving() const;
    // Workers (and tasks) of the pools before the current one: the previous binary's, after a
    // re-exec, until they have finished their requests and exited.
    std::size_t count_older() const;

  private:
    void stop(Child& c);

    WorkerMain worker_main_;
    std::vector<Child> children_;
    unsigned generation_ = 1;  // adopted workers are generation 0
};

}  // namespace supportcrm
