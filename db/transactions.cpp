// Nested transactions, a COMMIT whose answer is checked, a ROLLBACK that never throws, and the
// plain statements they send.
#include <cppconn/exception.h>

#include "common/log.h"
#include "db/db.h"

namespace supportcrm {

void Db::execute(const std::string& sql_text, const char* what) {
    const WriteLedger::Mark before = ledger_.mark();
    try {
        plain().execute(sql_text);
    } catch (const sql::SQLException& e) {
        failed(e, what, before);
    }
}

void Db::begin(bool read_only) {
    if (transaction_depth_ > 0) {
        ++transaction_depth_;  // joins the open transaction (read_only or not: it is one)
        return;
    }
    // A read-only transaction reads one snapshot from its start: a page and the counts beside
    // it can never disagree.
    execute(
        read_only ? "START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY" : "START TRANSACTION",
        "begin");
    ledger_.transaction_opened();
    transaction_depth_ = 1;
    rollback_only_ = false;
}

void Db::commit() {
    // COMMIT as a statement, not sql::Connection::commit(): Connector/C++ 1.1 drops the C API's
    // answer there (MySQL_Connection::commit() is `checkClosed(); proxy->commit();`), so a
    // COMMIT the server refused would look like success. The same one round trip either way
    // (mysql_commit() sends this very query).
    if (transaction_depth_ > 1) {
        --transaction_depth_;  // the outermost transaction commits, or not
        return;
    }
    if (rollback_only_) {
        throw std::logic_error("COMMIT of a transaction an inner scope rolled back");
    }
    transaction_depth_ = 0;
    const WriteLedger::Mark before = ledger_.mark();
    ledger_.sending_commit();
    try {
        plain().execute("COMMIT");
    } catch (const sql::SQLException& e) {
        const int code = e.getErrorCode();
        if (is_connection_lost(code)) {
            failed(e, "commit", before);
        }
        if (rolls_back_transaction(code)) {
            ledger_.restore(before);  // the server says nothing was committed
        }
        // Any other refusal (ER_ERROR_DURING_COMMIT 1180, Galera's 1047 "WSREP has not yet
        // prepared node") is not retried: the client is told 503 and may retry itself.
        throw CommitFailed(describe(e, "commit"), code);
    }
}

void Db::rollback() noexcept {
    if (transaction_depth_ > 1) {
        --transaction_depth_;
        rollback_only_ = true;  // the outermost rolls back what this scope did
        return;
    }
    transaction_depth_ = 0;
    rollback_only_ = false;
    ledger_.transaction_abandoned();
    if (!connection_ || lost_) {
        return;  // the server rolls back what it had when the connection went
    }
    // A transaction left open after a failed ROLLBACK would be committed by the next START
    // TRANSACTION (an implicit commit), writing a request that was answered with an error.
    // Closing the connection makes the server roll it back instead.
    try {
        plain_->execute("ROLLBACK");
        return;
    } catch (const sql::SQLException& e) {
        log::warning(describe(e, "rollback") + "; closing the connection");
    } catch (const std::exception& e) {
        log::warning(std::string("rollback failed: ") + e.what() + "; closing the connection");
    }
    disconnect();
}

}  // namespace supportcrm
