// The search indexer (E10 v1.3, db/search/indexer.h, fcgi/indexer_task.h): comments' words are
// written after the commit, by a task of the pool's master. What the spec asks of it: nothing
// committed is missed (a crash mid-batch is caught up), an erasure wins over a comment still
// waiting to be indexed, and /status and /metrics show the lag.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <fstream>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "harness.h"
#include "row_lock.h"
#include "tickets_fixtures.h"

namespace {

using Clock = std::chrono::steady_clock;

// The pid of a stack's search indexer, as its master's log named it last (the master starts
// it again after it exits: the newest line is the live one).
long indexer_pid(const std::string& log_path = it::env().fcgi_log) {
    const std::string log = it::read_file(log_path);
    const std::string mark = "started search indexer pid=";
    const std::size_t at = log.rfind(mark);
    return at == std::string::npos ? 0 : std::stol(log.substr(at + mark.size()));
}

std::vector<std::string> ticket_ids(const it::Shop& shop, const std::string& q) {
    const it::HttpResponse r = it::get("/api/v1/tickets?q=" + q, shop);
    EXPECT_TRUE(it::is_success(r, 200)) << r.describe();
    std::vector<std::string> out;
    for (const Json::Value& t : r.json()["tickets"]) {
        out.push_back(t["id"].isString() ? t["id"].asString() : std::to_string(t["id"].asInt64()));
    }
    return out;
}

// Every search indexer alive that a pool's log names ("started search indexer pid=N", whose
// process is still an indexer: /proc/N/comm is scrm-indexer). With a second host (Galera) both
// masters may write one log file (scripts/test --galera links host B's to host A's), so the
// newest line alone may be either host's.
std::set<long> live_indexer_pids() {
    std::set<long> pids;
    const std::string mark = "started search indexer pid=";
    for (const std::string* path : {&it::env().fcgi_log, &it::env().second_fcgi_log}) {
        if (path->empty()) {
            continue;
        }
        const std::string log = it::read_file(*path);
        for (std::size_t at = log.find(mark); at != std::string::npos;
             at = log.find(mark, at + 1)) {
            const long pid = std::stol(log.substr(at + mark.size()));
            std::ifstream comm("/proc/" + std::to_string(pid) + "/comm");
            std::string name;
            if (std::getline(comm, name) && name == "scrm-indexer") {
                pids.insert(pid);
            }
        }
    }
    return pids;
}

// Stops (SIGSTOP) every live indexer of the stack for the scope, with a second host's (Galera),
// which would otherwise take the queue: comments and customers stay queued.
class PausedIndexer {
  public:
    PausedIndexer() {
        for (long pid : live_indexer_pids()) {
            if (kill(static_cast<pid_t>(pid), SIGSTOP) == 0) {
                pids_.push_back(pid);
            }
        }
        EXPECT_FALSE(pids_.empty()) << "no live 'started search indexer' in the pool's log";
        const std::size_t hosts = it::env().second_base_url.empty() ? 1 : 2;
        EXPECT_EQ(pids_.size(), hosts) << "one indexer a host";
    }
    ~PausedIndexer() {
        for (long pid : pids_) {
            kill(static_cast<pid_t>(pid), SIGCONT);
        }
    }
    PausedIndexer(const PausedIndexer&) = delete;
    PausedIndexer& operator=(const PausedIndexer&) = delete;

  private:
    std::vector<long> pids_;
};

// A batch cut by SIGKILL after it claimed its comments (held on one comment's row lock, inside
// the batch's transaction) rolls back with its queue rows; the master starts the indexer again
// and every comment's words are found, none missing.
TEST(SearchIndexer, AKillMidBatchLosesNoCommentsWords) {
    if (!it::env().second_base_url.empty()) {
        // Host B's indexer (another pool, another Galera node, where this row lock does not
        // hold it) takes the batch that host A's would be killed in.
        GTEST_SKIP() << "needs the only indexer to be the one killed: one app host";
    }
    const it::tickets::World w = it::tickets::make_world();
    const std::string tag = it::unique_word("kil");
    const std::string t = it::tickets::create_ticket_id(w);
    std::vector<std::string> comments;
    auto paused = std::make_optional<PausedIndexer>();  // all of them queued, for one batch
    for (int i = 0; i < 20; ++i) {
        comments.push_back(
            it::tickets::add_comment(
                w.shop, t,
                it::object(
                    {{"text", tag + "n" + std::string(1, static_cast<char>('a' + i))}}))["id"]
                .asString());
    }
    const long first = indexer_pid();
    {
        // Locked before the indexer goes on: otherwise it may index all twenty first.
        it::RowLock lock("SELECT id FROM messages WHERE id = " + comments[10] + " FOR UPDATE");
        paused.reset();
        ASSERT_TRUE(lock.someone_waits(std::chrono::seconds(20))) << "the batch reached it";
        ASSERT_EQ(kill(static_cast<pid_t>(first), SIGKILL), 0);
        // The master reaps it ("task pid=N killed by signal 9 ...") and starts another.
        ASSERT_TRUE(
            it::wait_for_log("task pid=" + std::to_string(first) + " ", std::chrono::seconds(20)));
    }
    it::wait_for_search_index();  // by the indexer the master started again
    EXPECT_NE(indexer_pid(), first) << "a new indexer took over";
    for (int i = 0; i < 20; ++i) {
        EXPECT_EQ(ticket_ids(w.shop, tag + "n" + std::string(1, static_cast<char>('a' + i))),
                  std::vector<std::string>{t})
            << i;
    }
    it::Db db;
    EXPECT_EQ(db.count("SELECT COUNT(*) FROM ticket_words WHERE conversation_id = ? "
                       "AND word >= '0' AND in_comments = 1",
                       {t}),
              20)
        << "each word once";
}

// A comment still queued when its customer is erased: the indexer reads the scrubbed text and
// writes no word of it (none comes back after the erasure removed the others).
TEST(SearchIndexer, AnErasureWinsOverACommentStillQueued) {
    it::OneHostOnly one_host;
    const it::tickets::World w = it::tickets::make_world();
    const it::Shop eraser = it::with_erase_key(w.shop);
    const std::string word = it::unique_word("gone");
    const std::string t = it::tickets::create_ticket_id(w);
    {
        PausedIndexer paused;
        it::tickets::add_comment(w.shop, t, it::object({{"text", "call " + word}}));
        it::Db db;
        ASSERT_EQ(db.count("SELECT COUNT(*) FROM comment_words_pending p JOIN messages m "
                           "ON m.id = p.comment_id WHERE m.conversation_id = ?",
                           {t}),
                  1)
            << "queued, not indexed";
        const it::HttpResponse r = it::http(
            "DELETE", "/api/v1/customers/" + std::to_string(w.customer_id), it::key_header(eraser));
        ASSERT_TRUE(it::is_success(r, 200)) << r.describe();
    }
    it::wait_for_search_index();
    EXPECT_EQ(ticket_ids(w.shop, word), std::vector<std::string>{});
    it::Db db;
    EXPECT_EQ(db.count("SELECT COUNT(*) FROM ticket_words WHERE conversation_id = ?", {t}), 0);
}

std::vector<std::string> customer_ids(const it::Shop& shop, const std::string& q) {
    const it::HttpResponse r = it::get("/api/v1/customers?q=" + q, shop);
    EXPECT_TRUE(it::is_success(r, 200)) << r.describe();
    std::vector<std::string> out;
    for (const Json::Value& c : r.json()["customers"]) {
        out.push_back(c["id"].isString() ? c["id"].asString() : std::to_string(c["id"].asInt64()));
    }
    return out;
}

// A new customer's words are the indexer's too (sql/024): queued with the row, written once the
// indexer runs, with whatever words an earlier record left under the id gone.
TEST(SearchIndexer, ANewCustomerIsFoundOnceTheIndexerHasTakenIt) {
    it::OneHostOnly one_host;
    const it::Shop shop = it::make_shop();
    const std::string name = it::unique_word("queued"), stale = it::unique_word("stale");
    std::string id;
    it::Db db;
    {
        PausedIndexer paused;
        id = std::to_string(it::create_customer(shop, it::object({{"email", it::unique_email("q")},
                                                                  {"first_name", name}}))["id"]
                                .asInt64());
        ASSERT_EQ(
            db.count("SELECT COUNT(*) FROM customer_words_pending WHERE customer_id = ?", {id}), 1)
            << "queued with the row";
        ASSERT_EQ(db.execute("INSERT INTO customer_words (customer_id, word, shop_id) "
                             "VALUES (?, ?, ?)",
                             {id, stale, std::to_string(shop.id)}),
                  0);  // as a restore into the database leaves them (issue 43)
        EXPECT_EQ(customer_ids(shop, name), std::vector<std::string>{}) << "not yet indexed";
    }
    it::wait_for_search_index();
    EXPECT_EQ(customer_ids(shop, name), std::vector<std::string>{id});
    EXPECT_EQ(customer_ids(shop, stale), std::vector<std::string>{}) << "the id's old words went";
    EXPECT_EQ(db.count("SELECT COUNT(*) FROM customer_words WHERE customer_id = ? AND word = ?",
                       {id, name}),
              1);
}

// A customer erased while its create is still queued: the indexer reads the scrubbed row and
// writes no word of it.
TEST(SearchIndexer, AnErasureWinsOverACustomerStillQueued) {
    it::OneHostOnly one_host;
    const it::Shop shop = it::make_shop();
    const it::Shop eraser = it::with_erase_key(shop);
    const std::string name = it::unique_word("erased");
    std::string id;
    {
        PausedIndexer paused;
        id = std::to_string(it::create_customer(shop, it::object({{"email", it::unique_email("e")},
                                                                  {"first_name", name}}))["id"]
                                .asInt64());
        const it::HttpResponse r =
            it::http("DELETE", "/api/v1/customers/" + id, it::key_header(eraser));
        ASSERT_TRUE(it::is_success(r, 200)) << r.describe();
    }
    it::wait_for_search_index();
    EXPECT_EQ(customer_ids(shop, name), std::vector<std::string>{});
    it::Db db;
    EXPECT_EQ(db.count("SELECT COUNT(*) FROM customer_words WHERE customer_id = ?", {id}), 0);
}

// Polls until the customer has no queue row (the indexer took it), up to a minute.
bool taken_by_indexer(it::Db& db, const std::string& customer) {
    const auto deadline = Clock::now() + std::chrono::minutes(1);
    while (db.count("SELECT COUNT(*) FROM customer_words_pending WHERE customer_id = ?",
                    {customer}) != 0) {
        if (Clock::now() >= deadline) {
            return false;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return true;
}

// A customer a writer holds is skipped by the batch, not waited for (a batch waiting would hold
// its other customers' locks meanwhile, and their writers would wait for it): the rest of the
// batch is indexed, the held one stays queued until the writer lets go.
TEST(SearchIndexer, ACustomerAWriterHoldsIsSkippedNotWaitedFor) {
    if (!it::env().second_base_url.empty()) {
        GTEST_SKIP() << "host B's indexer (another Galera node) does not see this row lock";
    }
    const it::Shop shop = it::make_shop();
    const std::string held_name = it::unique_word("held"), free_name = it::unique_word("free");
    auto create = [&](const std::string& name) {
        return std::to_string(
            it::create_customer(
                shop, it::object({{"email", it::unique_email("h")}, {"first_name", name}}))["id"]
                .asInt64());
    };
    it::Db db;
    auto paused = std::make_optional<PausedIndexer>();  // both queued, for one batch
    const std::string held = create(held_name), free = create(free_name);
    it::RowLock lock("SELECT id FROM customers WHERE id = " + held + " FOR UPDATE");
    paused.reset();
    ASSERT_TRUE(taken_by_indexer(db, free)) << "the batch went on past the held customer";
    EXPECT_EQ(customer_ids(shop, free_name), std::vector<std::string>{free});
    EXPECT_EQ(db.count("SELECT COUNT(*) FROM customer_words_pending WHERE customer_id = ?", {held}),
              1)
        << "the held one stays queued";
    EXPECT_EQ(customer_ids(shop, held_name), std::vector<std::string>{});
    EXPECT_EQ(lock.waiting(), 0) << "nobody waits for the writer";
    lock.release();
    it::wait_for_search_index();
    EXPECT_EQ(customer_ids(shop, held_name), std::vector<std::string>{held});
}

// /status shows this host's indexer (its last batch's lag, when it ran), /metrics the queue.
TEST(SearchIndexer, StatusAndMetricsShowTheLag) {
    it::OneHostOnly one_host;
    const it::tickets::World w = it::tickets::make_world();
    const std::string t = it::tickets::create_ticket_id(w);
    it::tickets::add_comment(w.shop, t, it::object({{"text", "lag check"}}));
    it::wait_for_search_index();
    const it::HttpResponse status = it::http("GET", "/status");
    ASSERT_EQ(status.status, 200) << status.describe();
    const Json::Value indexer = status.json()["searchIndexer"];
    EXPECT_TRUE(indexer["lagMs"].isInt64()) << status.body;
    EXPECT_TRUE(indexer["checkedAt"].isString()) << status.body;
    EXPECT_GE(indexer["indexedComments"].asUInt64(), 1u) << status.body;
    const it::HttpResponse metrics = it::http_any_body("GET", "/metrics");
    EXPECT_NE(metrics.body.find("\nsupportcrm_search_index_lag_seconds "), std::string::npos)
        << metrics.body;
    EXPECT_NE(metrics.body.find("\nsupportcrm_search_index_queue_depth "), std::string::npos);
    EXPECT_NE(metrics.body.find("\nsupportcrm_search_indexed_comments_total "), std::string::npos);
}

}  // namespace
