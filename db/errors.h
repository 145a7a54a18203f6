// The exceptions Db raises: what the request boundary (api/dispatch.cpp) tells apart, and a
// repository that expects a duplicate key catches. db/errors.cpp turns connector exceptions
// into these.
#pragma once

#include <stdexcept>
#include <string>

namespace sql {
class SQLException;
}

namespace supportcrm {

// The database cannot be reached, or the connection was lost mid-request: answer 503.
struct DbUnavailable : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// Any other database error. The message carries the statement's name, the MySQL error code
// and SQLSTATE — never bound values — and is for the log, not for clients.
struct DbError : std::runtime_error {
    DbError(const std::string& what, int code) : std::runtime_error(what), error_code(code) {}
    int error_code;
};

// The server answered COMMIT with an error: the client must not be told the write succeeded.
// (A connection lost at COMMIT is DbUnavailable, like anywhere else.)
struct CommitFailed : DbError {
    using DbError::DbError;
};

// The server refused a write that would duplicate a unique key (ER_DUP_ENTRY): raised by
// Db::run wherever that happens, so a repository that expects it catches just this type.
struct UniqueViolation : DbError {
    using DbError::DbError;
};

constexpr int kErDupEntry = 1062;
constexpr int kErLockDeadlock = 1213;
constexpr int kErLockWaitTimeout = 1205;
constexpr int kErAutoincReadFailed = 1467;

// For the log: the statement's name, the MySQL error code and SQLSTATE, never bound values.
std::string describe(const sql::SQLException& e, const char* what);

}  // namespace supportcrm
