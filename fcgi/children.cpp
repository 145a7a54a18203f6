#include "fcgi/children.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include "common/log.h"

namespace supportcrm {
namespace {

std::string describe_status(int status) {
    if (WIFEXITED(status)) {
        return "exited with status " + std::to_string(WEXITSTATUS(status));
    }
    if (WIFSIGNALED(status)) {
        return "killed by signal " + std::to_string(WTERMSIG(status)) + " (" +
               strsignal(WTERMSIG(status)) + ")";
    }
    return "ended with raw status " + std::to_string(status);
}

}  // namespace

pid_t Children::spawn() {
    pid_t pid = fork();
    if (pid < 0) {
        log::error_errno("fork", errno);
        return 0;
    }
    if (pid == 0) {
        int status = worker_main_();
        // _exit: the master's atexit handlers and buffers are not the worker's to run.
        _exit(status);
    }
    children_.push_back({pid, Phase::connecting, Clock::now(), generation_});
    log::info("started worker pid=" + std::to_string(pid));
    return pid;
}

pid_t Children::spawn_task(const char* name, const WorkerMain& task) {
    pid_t pid = fork();
    if (pid < 0) {
        log::error_errno(std::string("fork ") + name, errno);
        return 0;
    }
    if (pid == 0) {
        _exit(task());
    }
    children_.push_back({pid, Phase::serving, Clock::now(), generation_, true});
    log::info(std::string("started ") + name + " pid=" + std::to_string(pid));
    return pid;
}

void Children::stop_tasks() {
    for (Child& c : children_) {
        if (c.task) {
            stop(c);
        }
    }
}

std::vector<Children::Child> Children::workers() const {
    std::vector<Child> out;
    for (const Child& c : children_) {
        if (!c.task) {
            out.push_back(c);
        }
    }
    return out;
}

std::vector<Children::Exit> Children::reap() {
    std::vector<Exit> exits;
    while (true) {
        int status = 0;
        pid_t pid = waitpid(-1, &status, WNOHANG);
        if (pid <= 0) {
            break;
        }
        for (auto it = children_.begin(); it != children_.end(); ++it) {
            if (it->pid != pid) {
                continue;
            }
            Exit e{pid, status, it->generation == generation_, it->task,
                   Clock::now() - it->started};
            children_.erase(it);
            double uptime = std::chrono::duration<double>(e.uptime).count();
            char up[32];
            std::snprintf(up, sizeof up, "%.1fs", uptime);
            std::string message = std::string(e.task ? "task" : "worker") +
                                  " pid=" + std::to_string(pid) + " " + describe_status(status) +
                                  " after " + up;
            bool clean = WIFEXITED(status) && WEXITSTATUS(status) == 0;
            clean ? log::info(message) : log::warning(message);
            exits.push_back(e);
            break;
        }
    }
    return exits;
}

void Children::adopt(const std::vector<Child>& children) {
    for (Child c : children) {
        c.generation = 0;
        children_.push_back(c);
    }
}

bool Children::mark_serving(pid_t pid) {
    for (Child& c : children_) {
        if (c.pid == pid && c.phase == Phase::connecting) {
            c.phase = Phase::serving;
            return true;
        }
    }
    return false;
}

void Children::stop_all() {
    for (Child& c : children_) {
        stop(c);
    }
}

void Children::kill_all() {
    for (const Child& c : children_) {
        kill(c.pid, SIGKILL);
    }
}

void Children::stop(Child& c) {
    if (c.phase != Phase::stopping) {
        kill(c.pid, SIGTERM);
        c.phase = Phase::stopping;
    }
}

void Children::retire_others() {
    for (Child& c : children_) {
        if (c.generation != generation_) {
            stop(c);
        }
    }
}

void Children::abandon_current() {
    for (Child& c : children_) {
        if (c.generation == generation_ || c.phase != Phase::serving) {
            stop(c);
        } else {
            c.generation = generation_;
        }
    }
}

std::size_t Children::count_current() const {
    std::size_t n = 0;
    for (const Child& c : children_) {
        n += c.generation == generation_ && c.phase != Phase::stopping && !c.task;
    }
    return n;
}

std::size_t Children::count_older() const {
    std::size_t n = 0;
    for (const Child& c : children_) {
        n += c.generation != generation_;
    }
    return n;
}

std::size_t Children::count_current_serving() const {
    std::size_t n = 0;
    for (const Child& c : children_) {
        n += c.generation == generation_ && c.phase == Phase::serving && !c.task;
    }
    return n;
}

}  // namespace supportcrm
