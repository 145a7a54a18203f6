// Error codes of the server and the client library, and how Db turns a connector exception into
// DbUnavailable, UniqueViolation or DbError while keeping the WriteLedger true.
#include <cppconn/exception.h>

#include "db/db.h"

namespace supportcrm {

bool Db::is_connection_lost(int code) {
    switch (code) {
        case 1053:  // ER_SERVER_SHUTDOWN
        case 1927:  // ER_CONNECTION_KILLED
        case 2002:  // CR_CONNECTION_ERROR
        case 2003:  // CR_CONN_HOST_ERROR
        case 2006:  // CR_SERVER_GONE_ERROR
        case 2013:  // CR_SERVER_LOST
        case 2055:  // CR_SERVER_LOST_EXTENDED
        case 4031:  // ER_CLIENT_INTERACTION_TIMEOUT
            return true;
        default:
            return false;
    }
}

bool Db::is_not_sent(int code) {
    // libmariadb sets CR_SERVER_GONE_ERROR only when it could not write the command (or had no
    // connection to write it to, with reconnection off); losing the connection while waiting
    // for the answer is CR_SERVER_LOST. A command that was not written whole cannot run.
    return code == 2006;
}

bool Db::is_node_not_ready(int code) {
    // ER_UNKNOWN_COM_ERROR, Galera's "WSREP has not yet prepared node for application use": the
    // node is outside the primary component (or still joining) and refused the statement.
    return code == 1047;
}

bool Db::is_server_error(int code) {
    return code >= 1000 && (code < 2000 || code >= 3000);
}

bool Db::rolls_back_transaction(int code) {
    return code == kErLockDeadlock;  // ER_LOCK_DEADLOCK (Galera: certification failure)
}

bool Db::is_rerunnable_conflict(int code) {
    switch (code) {
        case kErLockDeadlock:
        case kErLockWaitTimeout:
        case kErAutoincReadFailed:
            return true;
        default:
            return false;
    }
}

bool Db::is_unique_violation(int code) {
    return code == kErDupEntry;
}
std::string describe(const sql::SQLException& e, const char* what) {
    return std::string("database error in ") + what + ": code " + std::to_string(e.getErrorCode()) +
           ", SQLSTATE " + e.getSQLStateCStr();
}

void Db::failed(const sql::SQLException& e, const char* what, WriteLedger::Mark before) {
    const int code = e.getErrorCode();
    if (!is_unique_violation(code)) {
        ++error_count_;
    }
    if (is_connection_lost(code) || is_node_not_ready(code)) {
        // The server rolls back an open transaction when the connection goes; whether a
        // statement sent outside one (or COMMIT) took effect is unknown unless it was never sent
        // or the node refused it (a Galera node that is not ready runs nothing). The connection
        // is given up either way: a reconnect finds a ready node (db-hosts).
        if (is_not_sent(code) || is_node_not_ready(code)) {
            ledger_.restore(before);
        }
        ledger_.transaction_abandoned();
        lost_ = true;
        throw DbUnavailable(describe(e, what));
    }
    // The server answered with an error: the statement took no effect (InnoDB undoes a failed
    // statement; a deadlock undoes the whole transaction, which the caller then rolls back).
    // Client-side errors (2000-2999, or none) may come after the server's answer, e.g. while
    // a result is read, so they leave the ledger as it is.
    if (is_server_error(code)) {
        ledger_.restore(before);
    }
    if (is_unique_violation(code)) {
        throw UniqueViolation(describe(e, what), code);
    }
    throw DbError(describe(e, what), code);
}
}  // namespace supportcrm
