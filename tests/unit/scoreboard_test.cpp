// The scoreboard (common/scoreboard.h): what a worker writes is what a reader sees, a dead
// worker's counts move into the totals exactly once, and the listen queue is read from the
// kernel for both kinds of listen socket.
#include "common/scoreboard.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace supportcrm {
namespace {

// An fd closed at scope exit.
struct Fd {
    int fd;
    explicit Fd(int f) : fd(f) {}
    ~Fd() {
        if (fd >= 0) {
            close(fd);
        }
    }
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;
};

const std::size_t kGet = scoreboard::method_index("GET");
const std::size_t kPost = scoreboard::method_index("POST");

TEST(Scoreboard, ABusyWorkerShowsItsRequestAndAnIdleOneNone) {
    Scoreboard board(4);
    const int slot = board.reserve();
    ASSERT_EQ(slot, 0);
    board.assign(slot, 4242);
    SlotWriter writer(&board.slot(slot));
    EXPECT_EQ(board.view().workers.at(0).state, WorkerState::starting);
    writer.idle();
    EXPECT_EQ(board.view().workers.at(0).state, WorkerState::idle);

    const std::int64_t started = scoreboard::monotonic_ns() - 1'500'000'000;  // 1.5 s ago
    writer.begin(kPost, 3, "req-123", started);
    const WorkerView w = board.view().workers.at(0);
    EXPECT_EQ(w.pid, 4242);
    EXPECT_EQ(w.state, WorkerState::busy);
    EXPECT_EQ(w.method, kPost);
    EXPECT_EQ(w.route, 3U);
    EXPECT_EQ(w.request_id, "req-123");
    EXPECT_GE(w.elapsed_ms, 1500);
    EXPECT_LT(w.elapsed_ms, 60'000);

    writer.end(kPost, 3, 201, 2'000'000, false, 0);
    EXPECT_EQ(board.view().workers.at(0).state, WorkerState::idle);
}

TEST(Scoreboard, AShorterRequestIdAfterALongerOneReadsBackWhole) {
    Scoreboard board(1);
    const int slot = board.reserve();
    SlotWriter writer(&board.slot(slot));
    writer.begin(kGet, 1, std::string(128, 'x'), scoreboard::monotonic_ns());
    EXPECT_EQ(board.worker(0).request_id, std::string(128, 'x'));
    writer.end(kGet, 1, 200, 1000, false, 0);
    writer.begin(kGet, 1, "short", scoreboard::monotonic_ns());
    EXPECT_EQ(board.worker(0).request_id, "short");
}

TEST(Scoreboard, CountsByRouteMethodStatusAndBucket) {
    Scoreboard board(2);
    SlotWriter writer(&board.slot(board.reserve()));
    writer.begin(kGet, 2, "a", scoreboard::monotonic_ns());
    writer.end(kGet, 2, 200, 3'000'000, false, 0);  // 3 ms
    writer.begin(kGet, 2, "b", scoreboard::monotonic_ns());
    writer.end(kGet, 2, 404, 2'000'000'000, true, 2);  // 2 s, slow, two DB errors
    const PoolView v = board.view();
    EXPECT_EQ(v.accepted, 2U);
    EXPECT_EQ(v.slow, 1U);
    EXPECT_EQ(v.db_errors, 2U);
    EXPECT_EQ(v.request_count(2, kGet, scoreboard::status_index(200)), 1U);
    EXPECT_EQ(v.request_count(2, kGet, scoreboard::status_index(404)), 1U);
    EXPECT_EQ(v.duration_buckets[2 * scoreboard::kBuckets + scoreboard::bucket_index(3'000'000)],
              1U);
    EXPECT_EQ(v.duration_sum_us[2], 2'003'000U);
    EXPECT_EQ(scoreboard::bucket_index(3'000'000), 2U);        // le 0.005
    EXPECT_EQ(scoreboard::bucket_index(20'000'000'000), 13U);  // +Inf
    EXPECT_EQ(std::string(scoreboard::status_label(scoreboard::status_index(418))), "other");
    EXPECT_EQ(std::string(scoreboard::method_name(scoreboard::method_index("BREW"))), "other");
}

TEST(Scoreboard, ADeadWorkersCountsMoveToTheTotalsOnceAndItsSlotIsReused) {
    Scoreboard board(1);
    const int slot = board.reserve();
    board.assign(slot, 100);
    {
        SlotWriter writer(&board.slot(slot));
        for (int i = 0; i < 5; ++i) {
            writer.begin(kGet, 1, "x", scoreboard::monotonic_ns());
            writer.end(kGet, 1, 200, 1000, false, 0);
        }
    }
    EXPECT_EQ(board.reserve(), -1) << "the only slot is taken";
    EXPECT_TRUE(board.release(100));
    EXPECT_FALSE(board.release(100)) << "released twice";
    PoolView v = board.view();
    EXPECT_TRUE(v.workers.empty());
    EXPECT_EQ(v.accepted, 5U);

    const int again = board.reserve();
    ASSERT_EQ(again, slot);
    board.assign(again, 101);
    SlotWriter writer(&board.slot(again));
    writer.begin(kGet, 1, "y", scoreboard::monotonic_ns());
    writer.end(kGet, 1, 200, 1000, false, 0);
    v = board.view();
    EXPECT_EQ(v.accepted, 6U);
    EXPECT_EQ(v.workers.at(0).requests, 1U) << "the new worker's own count starts at 0";
    EXPECT_EQ(v.request_count(1, kGet, scoreboard::status_index(200)), 6U);
}

TEST(Scoreboard, AForkedWorkerWritesWhatTheParentReads) {
    Scoreboard board(2);
    const int slot = board.reserve();
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        SlotWriter writer(&board.slot(slot));
        writer.begin(kGet, 1, "child", scoreboard::monotonic_ns());
        writer.end(kGet, 1, 200, 1000, false, 0);
        writer.begin(kPost, 2, "still-busy", scoreboard::monotonic_ns());
        _exit(0);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    board.assign(slot, pid);
    const PoolView v = board.view();
    ASSERT_EQ(v.workers.size(), 1U);
    EXPECT_EQ(v.workers[0].state, WorkerState::busy);
    EXPECT_EQ(v.workers[0].request_id, "still-busy");
    EXPECT_EQ(v.accepted, 1U);
}

TEST(Scoreboard, AWorkerWithoutASlotWritesWhereNobodyReads) {
    SlotWriter writer(nullptr);
    writer.begin(kGet, 1, "x", scoreboard::monotonic_ns());
    writer.end(kGet, 1, 200, 1000, false, 0);
    SUCCEED();
}

// Polls: the kernel completes a loopback handshake asynchronously to connect() returning.
long queue_reaches(int fd, long n) {
    long seen = -1;
    for (int i = 0; i < 100 && seen != n; ++i) {
        seen = listen_queue_length(fd);
        if (seen != n) {
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
    }
    return seen;
}

TEST(ListenQueue, AUnixSocketsQueueIsTheConnectionsNotYetAccepted) {
    const std::string path = std::string(std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp") +
                             "/sb-test-" + std::to_string(getpid()) + ".sock";
    unlink(path.c_str());
    Fd listener(socket(AF_UNIX, SOCK_STREAM, 0));
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    path.copy(addr.sun_path, sizeof addr.sun_path - 1);
    ASSERT_EQ(bind(listener.fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    ASSERT_EQ(listen(listener.fd, 16), 0);
    EXPECT_EQ(listen_queue_length(listener.fd), 0);
    std::vector<std::unique_ptr<Fd>> clients;
    for (int i = 0; i < 3; ++i) {
        clients.push_back(std::make_unique<Fd>(socket(AF_UNIX, SOCK_STREAM, 0)));
        ASSERT_EQ(connect(clients.back()->fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    }
    EXPECT_EQ(queue_reaches(listener.fd, 3), 3);
    Fd accepted(accept(listener.fd, nullptr, nullptr));
    EXPECT_EQ(queue_reaches(listener.fd, 2), 2);
    unlink(path.c_str());
}

TEST(ListenQueue, ATcpSocketsQueueIsTheConnectionsNotYetAccepted) {
    Fd listener(socket(AF_INET, SOCK_STREAM, 0));
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ASSERT_EQ(bind(listener.fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    ASSERT_EQ(listen(listener.fd, 16), 0);
    socklen_t len = sizeof addr;
    getsockname(listener.fd, reinterpret_cast<sockaddr*>(&addr), &len);
    EXPECT_EQ(listen_queue_length(listener.fd), 0);
    std::vector<std::unique_ptr<Fd>> clients;
    for (int i = 0; i < 2; ++i) {
        clients.push_back(std::make_unique<Fd>(socket(AF_INET, SOCK_STREAM, 0)));
        ASSERT_EQ(connect(clients.back()->fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    }
    EXPECT_EQ(queue_reaches(listener.fd, 2), 2);
}

TEST(ListenQueue, NotASocketIsUnknown) {
    EXPECT_EQ(listen_queue_length(0 > 1 ? 0 : -1), -1);
}

}  // namespace
}  // namespace supportcrm
