// Every COMMIT is checked and no request is applied twice (issue 10, items 4 and 5;
// docs/operations.md "When the database fails"). Each test starts a private supportcrm-fcgi master
// (one worker) whose database socket is a DbFaultProxy in front of the stack's MariaDB, and injects
// a real fault: the proxy drops the connection at an exact point (COMMIT never forwarded,
// COMMIT's answer lost, an autocommit INSERT's answer lost, the request's first statement lost),
// MariaDB itself is made to hold a COMMIT (BACKUP STAGE BLOCK_COMMIT) that a second connection
// then KILLs, or two transactions really deadlock. The production binary runs as it ships; rows are
// counted in the database to prove "nothing written" or "written once", and the pool must serve the
// next request.
//
// BACKUP STAGE needs the RELOAD privilege, and KILL of any thread a privileged account: those
// statements run as the private stack's MariaDB root (password-less, socket only, as
// scripts/lib/stack.sh creates it).
#include <cppconn/driver.h>
#include <cppconn/exception.h>
#include <cppconn/resultset.h>
#include <cppconn/statement.h>
#include <mysql_driver.h>

#include <chrono>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "csat_fixtures.h"
#include "db_fault_proxy.h"
#include "erasure_fixtures.h"
#include "fcgi_client.h"
#include "harness.h"
#include "process_fixtures.h"
#include "tickets_fixtures.h"

namespace {

using Clock = std::chrono::steady_clock;
using it::faults::Action;
using it::faults::Command;
using it::proc::Millis;

// Bounds of waits for conditions (a log line, a connection, an answer): reached only when the
// condition never comes, so generous enough for a busy machine.
constexpr Millis kStartTimeout{60000};
constexpr Millis kRequestTimeout{60000};
constexpr Millis kWaitTimeout{30000};

const char kUnavailableBody[] =
    R"({"success":false,"code":"unavailable","message":"Service temporarily unavailable"})";

// Statements of db/db.cpp, by the start of their SQL.
const char kShopByKeyHash[] =
    "SELECT ks.id, ks.domain, ks.brand_id, CONCAT_WS(',', ks.deleted_at IS NOT NULL, `k`.`id`, "
    "k.scopes + 0, IFNULL(TIMESTAMPDIFF(MICROSECOND, '1970-01-01', k.expires_at) DIV 1000, ''), "
    "IFNULL(k.rate_count, ''), IFNULL(k.rate_period, '')) AS key_terms, ks.webhook_events "
    "FROM api_keys";
const char kHumanTicketInsert[] = "INSERT INTO human_tickets";
const char kCustomerInsert[] = "INSERT INTO customers";
const char kCustomerUpdate[] = "UPDATE customers SET email = ?";

// A text-protocol session as the private MariaDB's root, for what the application's account
// may not do (BACKUP STAGE, KILL) and for a second transaction of our own.
class RootSession {
  public:
    RootSession() {
        sql::ConnectOptionsMap opts;
        opts["hostName"] = sql::SQLString("localhost");
        opts["socket"] = sql::SQLString(it::db_socket());
        opts["userName"] = sql::SQLString("root");
        opts["password"] = sql::SQLString("");
        opts["OPT_READ_TIMEOUT"] = 20;  // nothing below may hang the test
        try {
            conn_.reset(sql::mysql::get_mysql_driver_instance()->connect(opts));
            stmt_.reset(conn_->createStatement());
            const auto ini = it::read_ini(it::env().config);
            const auto name = ini.find("db-name");
            stmt_->execute("USE " + (name == ini.end() ? std::string("supportcrm") : name->second));
            stmt_->execute("SET SESSION innodb_lock_wait_timeout = 5, lock_wait_timeout = 5");
        } catch (const sql::SQLException& e) {
            throw std::runtime_error(std::string("cannot connect as the stack's MariaDB root: ") +
                                     e.what());
        }
    }

    void exec(const std::string& text) {
        try {
            stmt_->execute(text);
        } catch (const sql::SQLException& e) {
            throw std::runtime_error(text + ": code " + std::to_string(e.getErrorCode()) + ": " +
                                     e.what());
        }
    }
    // The error code the statement failed with, 0 when it succeeded.
    int try_exec(const std::string& text) {
        try {
            stmt_->execute(text);
            return 0;
        } catch (const sql::SQLException& e) {
            return e.getErrorCode();
        }
    }
    std::optional<std::string> scalar(const std::string& text) {
        try {
            std::unique_ptr<sql::ResultSet> rs(stmt_->executeQuery(text));
            if (!rs->next() || rs->isNull(1)) {
                return std::nullopt;
            }
            return std::string(rs->getString(1));
        } catch (const sql::SQLException& e) {
            throw std::runtime_error(text + ": " + e.what());
        }
    }

  private:
    std::unique_ptr<sql::Connection> conn_;
    std::unique_ptr<sql::Statement> stmt_;
};

// Polls `query` (a COUNT) as root every `interval` until it is at least 1.
bool wait_until(RootSession& root, const std::string& query, Millis timeout,
                Millis interval = Millis(5)) {
    const auto deadline = Clock::now() + timeout;
    while (Clock::now() < deadline) {
        if (root.scalar(query).value_or("0") != "0") {
            return true;
        }
        std::this_thread::sleep_for(interval);
    }
    return false;
}

// InnoDB refreshes what information_schema.INNODB_TRX shows only once nobody has read it for
// 100 ms: polled faster, it would show its first snapshot for ever.
constexpr Millis kInnodbTrxInterval{150};

// A query counting the connection's COMMIT once MariaDB holds it (waiting for the backup lock):
// only then does a KILL or KILL QUERY meet the COMMIT itself.
std::string held_commit(const std::string& thread) {
    return "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE ID = " + thread +
           " AND INFO = 'COMMIT' AND STATE = 'Waiting for backup lock'";
}

// Counts 1 once the connection's COMMIT is over: the thread is gone (after KILL) or runs
// something else (after KILL QUERY). KILL only flags the thread: were the backup lock released
// before the flag is seen, the held COMMIT could still win the race and commit.
std::string commit_over(const std::string& thread) {
    return "SELECT COUNT(*) = 0 FROM information_schema.PROCESSLIST WHERE ID = " + thread +
           " AND INFO = 'COMMIT'";
}

// BACKUP STAGE BLOCK_COMMIT for the scope: MariaDB lets DML proceed and holds every COMMIT.
class CommitsHeld {
  public:
    explicit CommitsHeld(RootSession& root) : root_(root) {
        root_.exec("BACKUP STAGE START");
        root_.exec("BACKUP STAGE BLOCK_COMMIT");
    }
    ~CommitsHeld() { release(); }
    CommitsHeld(const CommitsHeld&) = delete;
    CommitsHeld& operator=(const CommitsHeld&) = delete;
    void release() {
        if (held_) {
            held_ = false;
            root_.try_exec("BACKUP STAGE END");
        }
    }

  private:
    RootSession& root_;
    bool held_ = true;
};

it::fcgi::Request post(const std::string& uri, const it::Shop& shop, const Json::Value& body) {
    it::fcgi::Request r;
    r.method = "POST";
    r.uri = uri;
    r.content_type = "application/json";
    r.api_key = shop.key;
    r.body = it::to_json(body);
    return r;
}

it::fcgi::Request new_ticket(const it::tickets::World& w) {
    return post(it::tickets::kTicketsPath, w.shop,
                it::object({{"customerId", Json::Int64(w.customer_id)}, {"Channel", "Mail"}}));
}

// A ticket with a HumanTicket: two INSERTs in one transaction.
it::fcgi::Request new_opened_ticket(const it::tickets::World& w) {
    return post(it::tickets::kTicketsPath, w.shop,
                it::object({{"customerId", Json::Int64(w.customer_id)},
                            {"Channel", "Mail"},
                            {"isOpenedTicket", true}}));
}

::testing::AssertionResult answered(const it::fcgi::Response& r, int status) {
    if (!r.complete()) {
        return ::testing::AssertionFailure() << "incomplete response: " << r.describe();
    }
    if (r.status != status) {
        return ::testing::AssertionFailure() << "expected " << status << ", got " << r.describe();
    }
    return ::testing::AssertionSuccess();
}

::testing::AssertionResult unavailable(const it::fcgi::Response& r) {
    ::testing::AssertionResult status = answered(r, 503);
    if (!status) {
        return status;
    }
    if (r.body != kUnavailableBody) {
        return ::testing::AssertionFailure() << "503 with body " << r.body;
    }
    return ::testing::AssertionSuccess();
}

class WriteSafety : public ::testing::Test {
  protected:
    void SetUp() override {
        proxy_ = std::make_unique<it::faults::DbFaultProxy>(dir_.file("db.sock"), it::db_socket());
        it::proc::SpawnOptions o;
        o.program = it::proc::fcgi_binary();
        // Without the re-index task: its connection through the proxy would be one more
        // than the tests count (fcgi/reindex_task.h; the process tests cover it).
        o.args = {"--config",
                  it::env().config,
                  "--listen",
                  dir_.file("s.sock"),
                  "--workers",
                  "1",
                  "--shutdown-timeout",
                  "5",
                  "--db-socket",
                  proxy_->path(),
                  "--search-reindex-task=false",
                  "--search-indexer=false"};
        o.stderr_path = dir_.file("fcgi.log");
        o.stdout_path = dir_.file("fcgi.out");
        master_ = std::make_unique<it::proc::Process>(o);
        ASSERT_TRUE(master_->wait_for_log("ready: 1 workers serving", kStartTimeout))
            << master_->log();
        // The worker connects and prepares its statements at start: wait for that session, so
        // that the proxy knows every statement id before a fault names one.
        const auto deadline = Clock::now() + kWaitTimeout;
        while (proxy_->thread_ids().empty() && Clock::now() < deadline) {
            std::this_thread::sleep_for(Millis(5));
        }
        ASSERT_EQ(proxy_->thread_ids().size(), 1u)
            << "the worker did not connect through the proxy";
        ASSERT_TRUE(wait_for_warm_worker());
        worker_ = master_->children();
    }

    void TearDown() override {
        if (HasFailure() && master_) {
            std::string log = master_->log();
            if (log.size() > 6000) {
                log = "..." + log.substr(log.size() - 6000);
            }
            std::cerr << "---- stderr of the private master ----\n" << log << "---- end ----\n";
        }
        if (master_) {
            EXPECT_EQ(master_->children(), worker_) << "the worker died and was replaced";
        }
        master_.reset();  // SIGKILLs its group
        if (proxy_) {
            EXPECT_EQ(proxy_->problem(), "");
        }
        proxy_.reset();
    }

    // GET /healthz answers 200: the worker has connected and prepared every statement.
    bool wait_for_warm_worker() {
        it::fcgi::Request health;
        health.uri = "/healthz";
        return answered(send(health), 200);
    }

    it::fcgi::Response send(const it::fcgi::Request& r) {
        return it::fcgi::request(dir_.file("s.sock"), r, kRequestTimeout);
    }

    // The request sent whole, its answer read later (while the test acts on the database).
    it::fcgi::Connection start(const it::fcgi::Request& r) {
        it::fcgi::Connection c(dir_.file("s.sock"), kRequestTimeout);
        c.send_head(r, kRequestTimeout);
        c.send_stdin(r.body, kRequestTimeout);
        c.end_stdin(kRequestTimeout);
        return c;
    }

    // The worker's server-side thread id, as the proxy saw it in the greeting.
    uint64_t worker_thread() {
        const std::vector<uint64_t> ids = proxy_->thread_ids();
        if (ids.size() != 1) {
            throw std::runtime_error("expected one worker connection, found " +
                                     std::to_string(ids.size()));
        }
        return ids[0];
    }

    // A new ticket whose COMMIT MariaDB holds (BACKUP STAGE BLOCK_COMMIT) until `kill` (KILL or
    // KILL QUERY) of the worker's thread, sent as root, has ended it; the answer to the request.
    it::fcgi::Response ticket_with_commit_killed(const it::tickets::World& w,
                                                 const std::string& kill) {
        // The world's new customer taken by the test stack's indexer first: a batch holds it
        // under a shared lock until it commits, and held commits would hold it there, with the
        // ticket's customer_attach waiting behind it, never reaching its COMMIT.
        it::wait_for_search_index();
        RootSession root;
        CommitsHeld held(root);
        it::fcgi::Connection c = start(new_ticket(w));
        const std::string id = std::to_string(worker_thread());
        if (!wait_until(root, held_commit(id), kWaitTimeout)) {
            throw std::runtime_error("the worker's COMMIT was not seen waiting");
        }
        root.exec(kill + " " + id);
        if (!wait_until(root, commit_over(id), kWaitTimeout)) {
            throw std::runtime_error(kill + " did not end the worker's COMMIT");
        }
        held.release();
        return c.read_response(kRequestTimeout);
    }

    bool logged(const std::string& needle) { return master_->wait_for_log(needle, kWaitTimeout); }

    int64_t tickets_of(const it::tickets::World& w) {
        return db_.count("SELECT COUNT(*) FROM conversations WHERE customer_id = ?",
                         {std::to_string(w.customer_id)});
    }

    it::proc::TempDir dir_;
    std::unique_ptr<it::faults::DbFaultProxy> proxy_;
    std::unique_ptr<it::proc::Process> master_;
    std::vector<pid_t> worker_;
    it::Db db_;
};

// ---------------------------------------------------------------------------------------------
// What may run again: nothing of the request can have been committed.

TEST_F(WriteSafety, FirstStatementLostIsRunAgainTransparently) {
    // POST /api/v1/tickets resolves the key first: the connection is lost before anything of
    // the request reached the server.
    const it::tickets::World w = it::tickets::make_world();
    proxy_->arm(Action::drop_before, Command::execute_of(kShopByKeyHash));
    EXPECT_TRUE(answered(send(new_ticket(w)), 201));
    EXPECT_TRUE(proxy_->fired());
    EXPECT_EQ(tickets_of(w), 1);
    EXPECT_TRUE(logged("nothing of the request was committed: reconnecting and running it again"));
    EXPECT_EQ(proxy_->accepted(), 2) << "one reconnection";
}

TEST_F(WriteSafety, LostInsideATransactionBeforeCommitIsRunAgainAndWrittenOnce) {
    // The ticket's second INSERT ran in the open transaction, then its answer was lost: MariaDB
    // rolls the transaction back when the connection goes, so the request may run again.
    const it::tickets::World w = it::tickets::make_world();
    const it::fcgi::Request opened = new_opened_ticket(w);
    proxy_->arm(Action::drop_after_answer, Command::execute_of(kHumanTicketInsert));
    EXPECT_TRUE(answered(send(opened), 201));
    EXPECT_TRUE(proxy_->fired());
    EXPECT_EQ(tickets_of(w), 1);
    EXPECT_EQ(db_.count("SELECT COUNT(*) FROM human_tickets h JOIN conversations c ON "
                        "c.id = h.conversation_id WHERE c.customer_id = ?",
                        {std::to_string(w.customer_id)}),
              1);
}

TEST_F(WriteSafety, StaleConnectionIsReopenedAndAnAutocommitWriteRunsOnce) {
    // The server closed the idle connection (KILL from a second connection, as after a restart
    // or wait_timeout): the INSERT cannot be written to it (CR_SERVER_GONE_ERROR), so the
    // server never saw it and the request runs again on a new connection.
    const it::Shop shop = it::make_shop();
    const uint64_t thread = worker_thread();
    RootSession root;
    root.exec("KILL " + std::to_string(thread));
    const auto deadline = Clock::now() + kWaitTimeout;
    while (!proxy_->thread_ids().empty() && Clock::now() < deadline) {
        std::this_thread::sleep_for(Millis(5));
    }
    ASSERT_TRUE(proxy_->thread_ids().empty()) << "the killed connection is still open";

    const std::string email = it::unique_email("stale");
    EXPECT_TRUE(
        answered(send(post("/api/v1/customers", shop, it::object({{"email", email}}))), 201));
    EXPECT_EQ(db_.count("SELECT COUNT(*) FROM customers WHERE shop_id = ? AND email_key = ?",
                        {std::to_string(shop.id), email}),
              1);
    // The first statement meets the dead connection: the key's own (extensions.md E12: a
    // keyed write first reads the key's terms when this worker has none from the last second,
    // as here) or, with the terms known, the insert itself. Either way nothing reached the
    // server and the request ran once more.
    EXPECT_TRUE(logged(": code 2006, SQLSTATE HY000; nothing of the request was committed"));
}

// Issue 25: while the database is down every request fails to reconnect; the worker logs the
// first failure as an ERROR, then at most one line per 5 s saying how many it held back, not
// one line per request.
TEST_F(WriteSafety, ADatabaseThatIsDownIsLoggedOnceAWhileNotOncePerRequest) {
    const it::Shop shop = it::make_shop();
    proxy_.reset();  // the database is gone: the connection closes, reconnecting is refused
    constexpr int kRequests = 40;
    const auto started = Clock::now();
    for (int i = 0; i < kRequests; ++i) {
        EXPECT_TRUE(unavailable(send(
            post("/api/v1/customers", shop, it::object({{"email", it::unique_email("down")}})))));
    }
    const auto seconds =
        std::chrono::duration_cast<std::chrono::seconds>(Clock::now() - started).count();
    const std::string log = master_->log();
    std::size_t errors = 0;
    for (auto at = log.find(" ERROR "); at != std::string::npos; at = log.find(" ERROR ", at + 1)) {
        ++errors;
    }
    EXPECT_GE(errors, 1u) << log;
    // The first, then one per 5 s at most (however slow this machine is today).
    EXPECT_LE(errors, 1u + static_cast<std::size_t>(seconds) / 5 + 1) << log;
    EXPECT_LT(errors, static_cast<std::size_t>(kRequests) / 2) << log;
}

// ---------------------------------------------------------------------------------------------
// COMMIT is checked: a COMMIT that failed, or whose answer never came, is never a 201.

TEST_F(WriteSafety, CommitThatNeverReachedTheServerIs503AndWritesNothing) {
    const it::tickets::World w = it::tickets::make_world();
    proxy_->arm(Action::drop_before, Command::query_text("COMMIT"));
    EXPECT_TRUE(unavailable(send(new_ticket(w))));
    EXPECT_TRUE(proxy_->fired());
    EXPECT_EQ(tickets_of(w), 0);
    EXPECT_TRUE(logged("not run again: the outcome of commit is unknown"));

    EXPECT_TRUE(answered(send(new_ticket(w)), 201)) << "the pool serves the next request";
    EXPECT_EQ(tickets_of(w), 1);
}

TEST_F(WriteSafety, CommitWhoseAnswerWasLostIs503AndWritesOnce) {
    const it::tickets::World w = it::tickets::make_world();
    proxy_->arm(Action::drop_after_answer, Command::query_text("COMMIT"));
    EXPECT_TRUE(unavailable(send(new_ticket(w))));
    EXPECT_TRUE(proxy_->fired());
    EXPECT_EQ(tickets_of(w), 1) << "committed once, never run again";
    EXPECT_TRUE(logged("not run again: the outcome of commit is unknown"));

    EXPECT_TRUE(answered(send(new_ticket(w)), 201));
    EXPECT_EQ(tickets_of(w), 2);
}

TEST_F(WriteSafety, SurveyWhoseCommitAnswerWasLostIsRecordedAndCountedOnce) {
    const it::csat::CsatShop s = it::csat::make_csat_shop();
    const Json::Value body = it::object({{"conversationId", s.conversation_id}, {"mark", 5}});
    auto surveys = [&] {
        return db_.count("SELECT COUNT(*) FROM surveys WHERE conversation_id = ?",
                         {s.conversation_id});
    };
    auto counted = [&] {
        return db_.count(
            "SELECT COALESCE(SUM(count), 0) FROM survey_daily_counts WHERE shop_id = ?",
            {std::to_string(s.shop.id)});
    };
    proxy_->arm(Action::drop_after_answer, Command::query_text("COMMIT"));
    EXPECT_TRUE(unavailable(send(post(it::csat::kCsatPath, s.shop, body))));
    EXPECT_TRUE(proxy_->fired());
    EXPECT_EQ(surveys(), 1);
    EXPECT_EQ(counted(), 1);

    EXPECT_TRUE(answered(send(post(it::csat::kCsatPath, s.shop, body)), 201));
    EXPECT_EQ(surveys(), 2);
    EXPECT_EQ(counted(), 2);
}

// A customer's PATCH writes its change event (extensions.md E11: every shop records every
// change) in the UPDATE's transaction: an UPDATE whose answer was lost committed nothing, so the
// request runs again, and writes once.
TEST_F(WriteSafety, CustomerUpdateWhoseAnswerWasLostRunsAgainAndWritesOnce) {
    const it::Shop shop = it::make_shop();
    const int64_t id =
        it::create_customer(shop, it::object({{"email", it::unique_email("lost")}}))["id"]
            .asInt64();
    it::fcgi::Request patch = post("/api/v1/customers/" + std::to_string(id), shop,
                                   it::object({{"storefront_id", "sf-lost"}}));
    patch.method = "PATCH";
    auto version = [&] {
        return db_.count("SELECT version FROM customers WHERE id = ?", {std::to_string(id)});
    };
    proxy_->arm(Action::drop_after_answer, Command::execute_of(kCustomerUpdate));
    EXPECT_TRUE(answered(send(patch), 200));
    EXPECT_TRUE(proxy_->fired());
    EXPECT_EQ(version(), 2);
    EXPECT_TRUE(logged("nothing of the request was committed: reconnecting and running it again"));

    // The client's retry finds the value there: nothing changes again.
    EXPECT_TRUE(answered(send(patch), 200));
    EXPECT_EQ(version(), 2);
}

// A customer's create writes the row and its search words' queue row (sql/024) in one
// transaction: an INSERT whose answer was lost committed nothing, and the request runs again.
// The words follow by the test stack's indexer (this suite's master runs none).
TEST_F(WriteSafety, CustomerInsertWhoseAnswerWasLostRunsAgainAndWritesOnce) {
    const it::Shop shop = it::make_shop();
    const std::string email = it::unique_email("lost");
    const it::fcgi::Request create =
        post("/api/v1/customers", shop, it::object({{"email", email}}));
    auto customers = [&] {
        return db_.count("SELECT COUNT(*) FROM customers WHERE shop_id = ? AND email_key = ?",
                         {std::to_string(shop.id), email});
    };
    proxy_->arm(Action::drop_after_answer, Command::execute_of(kCustomerInsert));
    EXPECT_TRUE(answered(send(create), 201));
    EXPECT_TRUE(proxy_->fired());
    EXPECT_EQ(customers(), 1);
    it::wait_for_search_index();
    EXPECT_EQ(db_.count("SELECT COUNT(*) FROM customer_words w JOIN customers c ON c.id = "
                        "w.customer_id WHERE c.shop_id = ? AND c.email_key = ? AND w.word = 'lost'",
                        {std::to_string(shop.id), email}),
              1)
        << "the words came after the row, once";
}

TEST_F(WriteSafety, CommitKilledWhileTheServerHeldItIs503AndWritesNothing) {
    const it::tickets::World w = it::tickets::make_world();
    const it::fcgi::Response r = ticket_with_commit_killed(w, "KILL");
    EXPECT_TRUE(unavailable(r));
    EXPECT_EQ(tickets_of(w), 0);
    EXPECT_TRUE(logged("not run again: the outcome of commit is unknown"));

    EXPECT_TRUE(answered(send(new_ticket(w)), 201));
    EXPECT_EQ(tickets_of(w), 1);
}

TEST_F(WriteSafety, CommitRefusedByTheServerIs503AndWritesNothing) {
    // KILL QUERY interrupts the held COMMIT: MariaDB answers it with an error (1317) and rolls
    // the transaction back. The connection stays open and is used again.
    const it::tickets::World w = it::tickets::make_world();
    const it::fcgi::Response r = ticket_with_commit_killed(w, "KILL QUERY");
    EXPECT_TRUE(unavailable(r));
    EXPECT_EQ(tickets_of(w), 0);
    EXPECT_TRUE(logged("database error in commit: code 1317"));
    EXPECT_TRUE(logged("COMMIT failed, answering 503"));

    EXPECT_TRUE(answered(send(new_ticket(w)), 201));
    EXPECT_EQ(tickets_of(w), 1);
    EXPECT_EQ(proxy_->accepted(), 1) << "the connection was kept";
}

// ---------------------------------------------------------------------------------------------
// A transaction the server rolled back (deadlock) is run again: nothing of it was written.

TEST_F(WriteSafety, DeadlockedTransactionIsRunAgainAndWrittenOnce) {
    const it::tickets::World w = it::tickets::make_world();
    const std::string ticket = it::tickets::create_ticket_id(w);
    const std::string text = "deadlock-" + it::unique_suffix();
    auto comments = [&] {
        return db_.count("SELECT COUNT(*) FROM messages WHERE conversation_id = ?", {ticket});
    };

    // Our transaction: heavier than the worker's (50 rows inserted), so that InnoDB chooses the
    // worker's as the deadlock victim; it locks the end of messages' primary key (where the
    // comment's row goes) before the worker comes.
    RootSession other;
    other.exec("START TRANSACTION");
    other.exec(
        "INSERT INTO brands (name, created_at) SELECT CONCAT('deadlock-weight-', seq), NOW(3) "
        "FROM seq_1_to_50");
    other.scalar(
        "SELECT COUNT(*) FROM messages WHERE id >= (SELECT COALESCE(MAX(id), 0) FROM "
        "messages) FOR UPDATE");

    // The worker updates the ticket (locking its row), then waits for us on the insert.
    it::fcgi::Connection c =
        start(post(it::tickets::comments_path(ticket), w.shop, it::object({{"text", text}})));
    const std::string id = std::to_string(worker_thread());
    ASSERT_TRUE(wait_until(other,
                           "SELECT COUNT(*) FROM information_schema.INNODB_TRX WHERE "
                           "trx_mysql_thread_id = " +
                               id + " AND trx_state = 'LOCK WAIT'",
                           kWaitTimeout, kInnodbTrxInterval))
        << "the worker's insert was not seen waiting";
    // Now we want the ticket's row: a cycle, and the worker's transaction is rolled back.
    const int code = other.try_exec(
        "UPDATE conversations SET unread_chat_count = unread_chat_count + 1 WHERE "
        "id = " +
        ticket);
    ASSERT_EQ(code, 0) << "our transaction was chosen as the deadlock victim (code " << code
                       << "): the test cannot show the re-run";
    other.exec("ROLLBACK");

    const it::fcgi::Response r = c.read_response(kRequestTimeout);
    EXPECT_TRUE(answered(r, 201));
    EXPECT_EQ(comments(), 1);
    EXPECT_EQ(db_.scalar("SELECT last_message FROM conversations WHERE id = ?", {ticket}), text);
    EXPECT_TRUE(logged("database error in message_insert: code 1213"));
    EXPECT_TRUE(
        logged("the transaction met another and was rolled back: running the request again"));
}

// ---------------------------------------------------------------------------------------------
// Idempotency-Key (extensions.md §E2): the stored answer commits with the write, so a retry
// with the same key after a 503 whose COMMIT outcome was unknown never writes twice.

it::fcgi::Request keyed(it::fcgi::Request r, const std::string& idempotency_key) {
    r.extra_params.emplace_back("HTTP_IDEMPOTENCY_KEY", idempotency_key);
    return r;
}

bool is_replay(const it::fcgi::Response& r) {
    auto h = r.headers.find("idempotency-replayed");
    return h != r.headers.end() && h->second == "true";
}

TEST_F(WriteSafety, KeyedCommitWhoseAnswerWasLostIs503AndTheRetryGetsTheStoredAnswer) {
    const it::tickets::World w = it::tickets::make_world();
    const it::fcgi::Request request = keyed(new_ticket(w), "lost-" + it::unique_suffix());
    proxy_->arm(Action::drop_after_answer, Command::query_text("COMMIT"));
    EXPECT_TRUE(unavailable(send(request)));
    EXPECT_TRUE(proxy_->fired());
    EXPECT_EQ(tickets_of(w), 1) << "committed once, never run again";

    const it::fcgi::Response retry = send(request);
    ASSERT_TRUE(answered(retry, 201));
    EXPECT_TRUE(is_replay(retry)) << retry.describe();
    EXPECT_EQ(tickets_of(w), 1) << "the retry wrote nothing";
    const Json::Value ticket = it::parse_json(retry.body)["ticket"];
    EXPECT_EQ(db_.scalar("SELECT id FROM conversations WHERE customer_id = ?",
                         {std::to_string(w.customer_id)}),
              ticket["id"].asString())
        << "the stored answer names the ticket that was written";
    EXPECT_TRUE(answered(send(request), 201)) << "and again";
    EXPECT_EQ(tickets_of(w), 1);
}

TEST_F(WriteSafety, KeyedCommitThatNeverReachedTheServerIs503AndTheRetryIsProcessed) {
    const it::tickets::World w = it::tickets::make_world();
    const it::fcgi::Request request = keyed(new_ticket(w), "unsent-" + it::unique_suffix());
    proxy_->arm(Action::drop_before, Command::query_text("COMMIT"));
    EXPECT_TRUE(unavailable(send(request)));
    EXPECT_TRUE(proxy_->fired());
    EXPECT_EQ(tickets_of(w), 0);

    const it::fcgi::Response retry = send(request);
    ASSERT_TRUE(answered(retry, 201));
    EXPECT_FALSE(is_replay(retry)) << "nothing was stored: processed afresh";
    EXPECT_EQ(tickets_of(w), 1);
}

TEST_F(WriteSafety, KeyedRequestLostInsideItsTransactionIsRunAgainAndItsClaimDoesNotBlock) {
    // The connection holding the claim dies with the transaction; the re-run claims the key
    // again on the new connection (the server rolled the old claim back), writes once.
    const it::tickets::World w = it::tickets::make_world();
    const it::fcgi::Request opened = keyed(new_opened_ticket(w), "rerun-" + it::unique_suffix());
    proxy_->arm(Action::drop_after_answer, Command::execute_of(kHumanTicketInsert));
    const it::fcgi::Response first = send(opened);
    ASSERT_TRUE(answered(first, 201));
    EXPECT_FALSE(is_replay(first));
    EXPECT_TRUE(proxy_->fired());
    const it::fcgi::Response again = send(opened);
    ASSERT_TRUE(answered(again, 201));
    EXPECT_TRUE(is_replay(again));
    EXPECT_EQ(again.body, first.body);
    EXPECT_EQ(tickets_of(w), 1);
}

// ---------------------------------------------------------------------------------------------
// An erasure (extensions.md E9) runs in bounded transactions: a connection lost in the middle of
// its comment batches (what a database restart does to it) leaves the customer erased (410, from
// the first transaction), every comment whole (scrubbed or untouched), and a repeated DELETE
// finishes the work with the totals a whole erasure answers.

const char kEraseComments[] = "UPDATE messages SET text = ''";

TEST_F(WriteSafety, AnErasureWhoseConnectionIsLostInItsBatchesIsFinishedByARepeat) {
    const it::tickets::World w = it::tickets::make_world();
    const it::Shop eraser = it::with_erase_key(w.shop);
    const std::string ticket =
        it::tickets::create_ticket(w.shop, it::object({{"customerId", Json::Int64(w.customer_id)},
                                                       {"Channel", "Mail"}}))["id"]
            .asString();
    db_.execute(
        "INSERT INTO messages (conversation_id, text, time, channel, is_from_shop, subject, "
        "from_email, to_emails, tags, created_at) SELECT ?, CONCAT('secret ', seq), "
        "'2026-01-01' + INTERVAL seq SECOND, 'Mail', 0, 'Subj', 'a@example.test', "
        "'[\"b@example.test\"]', '[]', UTC_TIMESTAMP(3) FROM seq_1_to_2500",
        {ticket});
    it::fcgi::Request erase =
        post("/api/v1/customers/" + std::to_string(w.customer_id), eraser, Json::Value());
    erase.method = "DELETE";
    erase.body.clear();
    erase.content_type.clear();

    proxy_->arm(Action::drop_before, Command::execute_of(kEraseComments));
    const it::fcgi::Response cut = send(erase);
    EXPECT_TRUE(proxy_->fired());
    EXPECT_TRUE(cut.status == 200 || unavailable(cut)) << cut.status << " " << cut.body;
    it::fcgi::Request fetch = erase;
    fetch.method = "GET";
    fetch.api_key = w.shop.key;
    EXPECT_TRUE(answered(send(fetch), 410)) << "erased from the first transaction on";
    EXPECT_EQ(it::erasure::half_scrubbed(db_, ticket), 0);

    const it::fcgi::Response repeat = send(erase);
    ASSERT_TRUE(answered(repeat, 200));
    const Json::Value erased = it::parse_json(repeat.body)["erased"];
    EXPECT_EQ(erased["customerId"].asInt64(), w.customer_id);
    EXPECT_EQ(erased["tickets"].asInt(), 1);
    EXPECT_EQ(erased["comments"].asInt(), 2500);
    EXPECT_EQ(erased["surveys"].asInt(), 0);
    EXPECT_EQ(it::erasure::unscrubbed(db_, ticket), 0);
    EXPECT_EQ(db_.count("SELECT COUNT(*) FROM messages WHERE conversation_id = ?", {ticket}), 2500);
    EXPECT_TRUE(answered(send(erase), 200)) << "a third DELETE answers the same";
}

}  // namespace
