#include "row_lock.h"

#include <cppconn/driver.h>
#include <cppconn/exception.h>
#include <cppconn/prepared_statement.h>
#include <cppconn/resultset.h>
#include <cppconn/statement.h>
#include <mysql_driver.h>

#include <chrono>
#include <thread>

#include "harness.h"

namespace it {

RowLock::RowLock(const std::string& select_for_update) {
    sql::ConnectOptionsMap opts;
    opts["hostName"] = sql::SQLString("localhost");
    opts["socket"] = sql::SQLString(db_socket());
    opts["userName"] = sql::SQLString("root");
    opts["password"] = sql::SQLString("");
    conn_.reset(sql::mysql::get_mysql_driver_instance()->connect(opts));
    const auto ini = read_ini(env().config);
    const auto name = ini.find("db-name");
    conn_->setSchema(name == ini.end() ? std::string("supportcrm") : name->second);
    conn_->setAutoCommit(false);
    stmt_.reset(conn_->createStatement());
    // On a Galera node the row may still be being applied from another node (the test's data
    // was created through both hosts): the applier wins, our read is rolled back (1213).
    for (int attempt = 1;; ++attempt) {
        try {
            std::unique_ptr<sql::ResultSet> rs(stmt_->executeQuery(select_for_update));
            return;
        } catch (const sql::SQLException& e) {
            if (e.getErrorCode() != 1213 || attempt == 5) {
                throw;
            }
            stmt_->execute("ROLLBACK");
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
    }
}

RowLock::~RowLock() {
    release();
}

void RowLock::release() {
    if (stmt_) {
        stmt_->execute("ROLLBACK");
        stmt_.reset();
    }
}

int64_t RowLock::waiting() {
    std::unique_ptr<sql::Statement> probe(conn_->createStatement());
    std::unique_ptr<sql::ResultSet> rs(probe->executeQuery(
        "SELECT COUNT(*) FROM information_schema.INNODB_TRX WHERE trx_state = 'LOCK WAIT'"));
    return rs->next() ? rs->getInt64(1) : 0;
}

int64_t RowLock::waiting_in(const std::string& statement_start) {
    std::unique_ptr<sql::PreparedStatement> probe(conn_->prepareStatement(
        "SELECT COUNT(*) FROM information_schema.INNODB_TRX WHERE trx_state = 'LOCK WAIT' "
        "AND LEFT(trx_query, CHAR_LENGTH(?)) = ?"));
    probe->setString(1, statement_start);
    probe->setString(2, statement_start);
    std::unique_ptr<sql::ResultSet> rs(probe->executeQuery());
    return rs->next() ? rs->getInt64(1) : 0;
}

bool RowLock::someone_waits(std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
        if (waiting() > 0) {
            return true;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(150));
    }
    return false;
}

}  // namespace it
