// Parking idle kept connections with the master (fcgi/parking.h), without forking: a unix
// socketpair stands for one nginx connection (one end nginx's, the other the pool's); what a
// worker does on the hand-off channel is done here on its pool end.
#include "fcgi/parking.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "common/scoreboard.h"

namespace {

using supportcrm::Fd;
using supportcrm::HandoffChannel;
using supportcrm::Parking;

struct Connection {
    Fd nginx, pool;
    Connection() {
        int ends[2];
        EXPECT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends), 0);
        nginx = Fd(ends[0]);
        pool = Fd(ends[1]);
    }
};

// A worker parks its connection: sends it and closes its own copy.
void park(const HandoffChannel& channel, Connection& c) {
    ASSERT_TRUE(supportcrm::send_fd(channel.pool_end(), c.pool.get()));
    c.pool.reset();
}

TEST(Parking, AConnectionWithARequestGoesBackToThePoolWithItsBytes) {
    HandoffChannel channel;
    Parking parking(channel.master_end(), {});
    Connection c;
    park(channel, c);
    parking.service();
    EXPECT_EQ(parking.count(), 1U);
    // Idle: nothing is handed on.
    EXPECT_FALSE(supportcrm::receive_fd(channel.pool_end()));

    ASSERT_EQ(write(c.nginx.get(), "req", 3), 3);
    parking.service();
    EXPECT_EQ(parking.count(), 0U);
    Fd taken = supportcrm::receive_fd(channel.pool_end());
    ASSERT_TRUE(taken);
    char buf[8] = {};
    EXPECT_EQ(read(taken.get(), buf, sizeof buf), 3);
    EXPECT_EQ(std::string(buf), "req");
    // The worker's answer reaches nginx: the master's copy closed, the connection did not.
    ASSERT_EQ(write(taken.get(), "ok", 2), 2);
    EXPECT_EQ(read(c.nginx.get(), buf, sizeof buf), 2);
}

TEST(Parking, AConnectionNginxClosedIsClosedAndNotHandedOn) {
    HandoffChannel channel;
    Parking parking(channel.master_end(), {});
    Connection c;
    park(channel, c);
    parking.service();
    ASSERT_EQ(parking.count(), 1U);
    c.nginx.reset();
    parking.service();
    EXPECT_EQ(parking.count(), 0U);
    EXPECT_FALSE(supportcrm::receive_fd(channel.pool_end()));
}

// More connections with a request than workers: they wait in the channel, none is lost; the
// queue of a socketpair is bounded by its buffer, not by net.unix.max_dgram_qlen (10).
TEST(Parking, ManyConnectionsWithARequestWaitForTheWorkers) {
    HandoffChannel channel;
    Parking parking(channel.master_end(), {});
    std::vector<Connection> cs(100);
    for (Connection& c : cs) {
        park(channel, c);
    }
    parking.service();
    ASSERT_EQ(parking.count(), cs.size());
    for (Connection& c : cs) {
        ASSERT_EQ(write(c.nginx.get(), "r", 1), 1);
    }
    parking.service();
    EXPECT_EQ(parking.count(), 0U);
    std::size_t taken = 0;
    while (Fd fd = supportcrm::receive_fd(channel.pool_end())) {
        ++taken;
    }
    EXPECT_EQ(taken, cs.size());
}

TEST(Parking, PendingTellsARequestFromNginxsCloseWithoutReadingIt) {
    using supportcrm::Pending;
    Connection idle, asked, closed;
    EXPECT_EQ(supportcrm::pending(idle.pool.get()), Pending::nothing);
    ASSERT_EQ(write(asked.nginx.get(), "r", 1), 1);
    EXPECT_EQ(supportcrm::pending(asked.pool.get()), Pending::request);
    EXPECT_EQ(supportcrm::pending(asked.pool.get()), Pending::request) << "peeked, not read";
    closed.nginx.reset();
    EXPECT_EQ(supportcrm::pending(closed.pool.get()), Pending::closed);
}

// What /status and /metrics show (parkedConnections, handoffQueue): the idle parked ones, and
// the ones with a request that wait in the channel until a worker takes them.
TEST(Parking, TheScoreboardCountsTheHandoffQueueUntilAWorkerTakesOne) {
    HandoffChannel channel;
    Parking parking(channel.master_end(), {});
    supportcrm::Scoreboard board(4);
    board.set_handoff_fd(channel.pool_end());
    std::vector<Connection> cs(3);
    for (Connection& c : cs) {
        park(channel, c);
    }
    parking.service();
    EXPECT_EQ(parking.idle(), 3U);
    EXPECT_EQ(parking.held(), 0U);
    EXPECT_EQ(board.view().handoff_queue, 0U);
    ASSERT_EQ(write(cs[0].nginx.get(), "r", 1), 1);
    ASSERT_EQ(write(cs[1].nginx.get(), "r", 1), 1);
    parking.service();
    EXPECT_EQ(parking.idle(), 1U);
    EXPECT_EQ(board.view().handoff_queue, 2U);
    ASSERT_TRUE(supportcrm::receive_fd(channel.pool_end()));
    EXPECT_EQ(board.view().handoff_queue, 1U);
}

// The hand-off and the listen queue take turns while both have a connection waiting; a queue
// whose connection another worker took first leaves the turn to the other.
TEST(Parking, TheTwoQueuesTakeTurnsWhenBothWait) {
    bool handoff_first = true;
    std::vector<bool> tried;
    auto take = [&tried](bool handoff) {
        tried.push_back(handoff);
        return true;
    };
    for (int i = 0; i < 4; ++i) {
        EXPECT_TRUE(supportcrm::take_in_turn(handoff_first, true, true, take));
    }
    EXPECT_EQ(tried, (std::vector<bool>{true, false, true, false}));
    tried.clear();
    EXPECT_TRUE(supportcrm::take_in_turn(handoff_first, false, true, take));
    EXPECT_TRUE(supportcrm::take_in_turn(handoff_first, false, true, take));
    EXPECT_EQ(tried, (std::vector<bool>{false, false})) << "only the queue with one waiting";
    tried.clear();
    auto handoff_taken = [&tried](bool handoff) {
        tried.push_back(handoff);
        return !handoff;
    };
    EXPECT_TRUE(supportcrm::take_in_turn(handoff_first, true, true, handoff_taken));
    EXPECT_EQ(tried, (std::vector<bool>{true, false}));
    EXPECT_FALSE(supportcrm::take_in_turn(handoff_first, false, false, take));
}

TEST(Parking, DescriptorListsRoundTripAndMalformedOnesAreRefused) {
    EXPECT_EQ(supportcrm::encode_fds({3, 7, 12}), "3,7,12");
    EXPECT_EQ(supportcrm::decode_fds("3,7,12"), (std::vector<int>{3, 7, 12}));
    EXPECT_TRUE(supportcrm::decode_fds("").empty());
    for (const char* bad : {"a", "3,", "3,,4", "-1", "3;4"}) {
        EXPECT_THROW(supportcrm::decode_fds(bad), std::runtime_error) << bad;
    }
}

}  // namespace
