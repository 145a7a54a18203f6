// The per-key bucket (common/rate_limit.h): a burst of one period's count, then the steady
// rate; the RateLimit-* numbers; and one budget however many processes and threads take from
// it at once (the CAS, no lock).
#include "common/rate_limit.h"

#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace supportcrm::rate_limit {
namespace {

constexpr std::int64_t kSecond = 1'000'000;
constexpr std::int64_t kStart = 1'000 * kSecond;

struct Table {
    std::atomic<std::uint64_t> slots[kSlots] = {};
};

TEST(RateLimitTest, BurstIsOnePeriodsCountThenRefused) {
    Table t;
    const Rate rate{5, 1};
    for (std::uint32_t i = 0; i < 5; ++i) {
        Decision d = take(t.slots, 7, rate, kStart);
        EXPECT_TRUE(d.allowed) << i;
        EXPECT_EQ(d.limit, 5u);
        EXPECT_EQ(d.remaining, 4 - i);
        EXPECT_EQ(d.reset_s, 1u);
    }
    Decision refused = take(t.slots, 7, rate, kStart);
    EXPECT_FALSE(refused.allowed);
    EXPECT_EQ(refused.remaining, 0u);
    EXPECT_EQ(refused.retry_after_s, 1u);
    // One emission interval (200 ms) later one token is back, and only one.
    EXPECT_TRUE(take(t.slots, 7, rate, kStart + kSecond / 5).allowed);
    EXPECT_FALSE(take(t.slots, 7, rate, kStart + kSecond / 5).allowed);
    // A full period of quiet fills the bucket again.
    EXPECT_EQ(peek(t.slots, 7, rate, kStart + 3 * kSecond).remaining, 5u);
}

TEST(RateLimitTest, PerMinuteRateTellsRetryAfterInSeconds) {
    Table t;
    const Rate rate{2, 60};
    EXPECT_TRUE(take(t.slots, 1, rate, kStart).allowed);
    EXPECT_TRUE(take(t.slots, 1, rate, kStart).allowed);
    Decision d = take(t.slots, 1, rate, kStart);
    EXPECT_FALSE(d.allowed);
    EXPECT_EQ(d.retry_after_s, 30u);  // the next token: one interval, 30 s
    EXPECT_EQ(d.reset_s, 60u);        // the whole burst back
}

TEST(RateLimitTest, PeekTakesNothing) {
    Table t;
    const Rate rate{3, 1};
    EXPECT_EQ(peek(t.slots, 9, rate, kStart).remaining, 3u);
    EXPECT_EQ(peek(t.slots, 9, rate, kStart).remaining, 3u);
    take(t.slots, 9, rate, kStart);
    EXPECT_EQ(peek(t.slots, 9, rate, kStart).remaining, 2u);
}

TEST(RateLimitTest, KeysHaveTheirOwnBuckets) {
    Table t;
    const Rate rate{1, 60};
    EXPECT_TRUE(take(t.slots, 1, rate, kStart).allowed);
    EXPECT_FALSE(take(t.slots, 1, rate, kStart).allowed);
    EXPECT_TRUE(take(t.slots, 2, rate, kStart).allowed);
    // Two keys on one slot: the newcomer gets a full bucket (more generous, never less).
    EXPECT_TRUE(take(t.slots, 1 + kSlots, rate, kStart).allowed);
}

TEST(RateLimitTest, ThreadsShareOneBudgetExactly) {
    Table t;
    const Rate rate{1000, 60};  // no token comes back within the test
    std::atomic<int> allowed{0};
    std::vector<std::thread> threads;
    for (int i = 0; i < 8; ++i) {
        threads.emplace_back([&] {
            for (int j = 0; j < 500; ++j) {
                allowed += take(t.slots, 3, rate, kStart).allowed ? 1 : 0;
            }
        });
    }
    for (auto& th : threads) {
        th.join();
    }
    EXPECT_EQ(allowed.load(), 1000);
}

TEST(RateLimitTest, ProcessesShareOneBudgetThroughSharedMemory) {
    // As the workers do: the table in a MAP_SHARED region mapped before the fork.
    void* region =
        mmap(nullptr, sizeof(Table), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    ASSERT_NE(region, MAP_FAILED);
    auto* t = new (region) Table;
    const Rate rate{700, 60};
    constexpr int kProcesses = 4, kEach = 400;
    std::vector<pid_t> children;
    int pipes[kProcesses][2];
    for (int p = 0; p < kProcesses; ++p) {
        ASSERT_EQ(pipe(pipes[p]), 0);
        pid_t pid = fork();
        ASSERT_GE(pid, 0);
        if (pid == 0) {
            int n = 0;
            for (int j = 0; j < kEach; ++j) {
                n += take(t->slots, 5, rate, monotonic_us()).allowed ? 1 : 0;
            }
            ssize_t w = write(pipes[p][1], &n, sizeof n);
            _exit(w == sizeof n ? 0 : 1);
        }
        children.push_back(pid);
    }
    int total = 0;
    for (int p = 0; p < kProcesses; ++p) {
        int n = 0;
        ASSERT_EQ(read(pipes[p][0], &n, sizeof n), static_cast<ssize_t>(sizeof n));
        total += n;
        close(pipes[p][0]);
        close(pipes[p][1]);
        int status = 0;
        waitpid(children[p], &status, 0);
        EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    munmap(region, sizeof(Table));
    // 700 of a burst, plus whatever came back while they ran (one per 86 ms).
    EXPECT_GE(total, 700);
    EXPECT_LE(total, 700 + 60);
}

}  // namespace
}  // namespace supportcrm::rate_limit
