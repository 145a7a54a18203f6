// A ticket created through host B (Galera node 2) while host A (node 1) merges the ticket's
// customer (issue 28; docs/scale-out.md). On one server the two meet on the customer's row lock;
// across nodes only certification can order them, and it certifies writes only: the create must
// change the customer's row (customer_attach), since the foreign key's reference key alone does
// not conflict with the merge's update of that row. Run only by `scripts/test --galera`
// (ctest -L galera): needs SUPPORTCRM_GALERA_DIR and SUPPORTCRM_SECOND_BASE_URL.
//
// Host B's pool must be on node 2, where the test holds its lock: this test runs before the
// node failure test (which leaves it on node 3; CMakeLists.txt lists this file first).
//
// The race is made to happen every time, not by chance: the create is held on node 2 after it
// has read the customer (live) and written the ticket, by a gap lock the test holds on
// human_tickets; node 1 then commits a large update of a ballast table (node 2's applier takes
// a while over it) and the merge, and the lock is let go. The create's COMMIT is then certified
// on node 2 before node 2 has applied the merge: exactly the window a real race has, widened.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <future>
#include <stdexcept>
#include <string>
#include <thread>

#include "tests/integration/harness.h"

namespace {

using namespace std::chrono_literals;

std::string host_b_config() {
    const char* dir = std::getenv("SUPPORTCRM_GALERA_DIR");  // <run dir>/cluster
    if (dir == nullptr || *dir == '\0') {
        throw std::runtime_error(
            "SUPPORTCRM_GALERA_DIR is not set (run through scripts/test --galera)");
    }
    return std::string(dir) + "/../b/supportcrm.conf";  // scripts/test start_galera_stacks
}

int64_t make_customer(const it::Shop& shop) {
    it::HttpResponse r = it::http_on(0, "POST", "/api/v1/customers", it::json_headers(shop),
                                     it::to_json(it::object({{"email", it::unique_email()}})));
    EXPECT_EQ(r.status, 201) << r.describe();
    return r.json()["customer"]["id"].asInt64();
}

// The pool's session (same database user: no PROCESS privilege needed) inserting the
// HumanTicket, i.e. waiting for the test's lock.
bool create_waits(it::Db& node, std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
        if (node.count("SELECT COUNT(*) FROM information_schema.PROCESSLIST "
                       "WHERE INFO LIKE 'INSERT INTO human_tickets%'") > 0) {
            return true;
        }
        std::this_thread::sleep_for(50ms);
    }
    return false;
}

}  // namespace

TEST(GaleraMergeRace, ATicketCertifiedOnNodeTwoAfterNodeOneMergedItsCustomerIsNotLeftOnIt) {
    ASSERT_EQ(it::hosts().size(), 2u) << "needs host B (SUPPORTCRM_SECOND_BASE_URL)";
    it::Db node1;
    it::Db node2(host_b_config());
    node1.execute(
        "CREATE TABLE IF NOT EXISTS galera_test_ballast "
        "(id INT UNSIGNED PRIMARY KEY, v INT NOT NULL) ENGINE=InnoDB",
        {});
    node1.execute("INSERT IGNORE INTO galera_test_ballast SELECT seq, 0 FROM seq_1_to_200000", {});

    const it::Shop shop = it::make_shop();
    for (int round = 0; round < 2; ++round) {
        const int64_t target = make_customer(shop);
        const int64_t source = make_customer(shop);
        // Seen on node 2 before the create starts (its own reads wait for that too).
        ASSERT_EQ(node2.count("SELECT COUNT(*) FROM customers WHERE id IN (?, ?)",
                              {std::to_string(target), std::to_string(source)}),
                  2);

        // Node 2: no new HumanTicket until released (next-key locks up to the supremum).
        node2.execute("SET autocommit = 0", {});
        const std::string last =
            node2.scalar("SELECT COALESCE(MAX(id), 0) FROM human_tickets").value_or("0");
        node2.count("SELECT COUNT(*) FROM (SELECT id FROM human_tickets WHERE id > ? FOR UPDATE) x",
                    {last});
        auto ticket = std::async(std::launch::async, [&] {
            return it::http_on(
                1, "POST", "/api/v1/tickets", it::json_headers(shop),
                it::to_json(it::object({{"customerId", Json::Value(Json::Int64(source))},
                                        {"Channel", "Mail"},
                                        {"isOpenedTicket", true}})));
        });
        if (!create_waits(node2, 20s)) {
            node2.execute("SET autocommit = 1", {});
            FAIL() << "the create did not reach its HumanTicket on node 2 (is host B on node 2?)";
        }

        // Node 1: work node 2's applier needs a while for, then the merge, ordered after it.
        node1.execute("UPDATE galera_test_ballast SET v = v + 1", {});
        it::HttpResponse merged =
            it::http_on(0, "POST", "/api/v1/customers/" + std::to_string(target) + "/merge",
                        it::json_headers(shop),
                        it::to_json(it::object({{"sourceId", Json::Value(Json::Int64(source))}})));
        ASSERT_EQ(merged.status, 200) << merged.describe();

        node2.execute("SET autocommit = 1", {});  // commits nothing, lets the create go on
        it::HttpResponse t = ticket.get();
        if (t.status == 201) {  // re-run after the merge and landed on the target: fine too
            EXPECT_EQ(node1.count("SELECT customer_id FROM conversations WHERE id = ?",
                                  {t.json()["ticket"]["id"].asString()}),
                      target)
                << t.describe();
        } else {
            EXPECT_TRUE(it::is_error(t, 404, "customer_not_found", "Customer not found"))
                << t.describe();
        }
        EXPECT_EQ(node1.count("SELECT COUNT(*) FROM conversations WHERE customer_id = ?",
                              {std::to_string(source)}),
                  0)
            << "round " << round << ": a ticket was left on the merged customer";
        EXPECT_EQ(node2.count("SELECT COUNT(*) FROM conversations WHERE customer_id = ?",
                              {std::to_string(source)}),
                  0);
    }
}
