// A second database session of the test's own (as root, on the stack's socket) that holds a
// row lock: how a test keeps a request of the pool waiting inside the database, without a
// test-only sleeping route.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

namespace sql {
class Connection;
class Statement;
}  // namespace sql

namespace it {

class RowLock {
  public:
    // Opens a transaction and runs select_for_update in it ("SELECT ... FOR UPDATE").
    explicit RowLock(const std::string& select_for_update);
    ~RowLock();
    RowLock(const RowLock&) = delete;
    RowLock& operator=(const RowLock&) = delete;

    // ROLLBACK: whoever waits for the lock goes on. Idempotent.
    void release();
    // Transactions waiting for a lock now (InnoDB refreshes INNODB_TRX at most every 100 ms
    // when read).
    int64_t waiting();
    // Transactions waiting for a lock now in a statement that starts with `statement_start`.
    int64_t waiting_in(const std::string& statement_start);
    // Polls until some transaction waits for a lock, up to timeout.
    bool someone_waits(std::chrono::milliseconds timeout);

  private:
    std::unique_ptr<sql::Connection> conn_;
    std::unique_ptr<sql::Statement> stmt_;
};

}  // namespace it
