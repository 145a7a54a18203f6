// What the server may already have made durable of a request: the WriteLedger Db keeps.
#pragma once

namespace supportcrm {

// What the server may already have made durable of the current request's writes. A request
// that failed may be run again only while nothing of it can have been committed: a write whose
// autocommit statement or COMMIT reached the server may have been applied even though its
// answer never came back, and running it again would apply it twice. Inside an open transaction
// nothing is durable before COMMIT: the server rolls the transaction back when the connection
// goes. Pure bookkeeping, no I/O: Db drives it.
class WriteLedger {
  public:
    // The ledger as it was before a statement; restore() it when the server answers that the
    // statement took no effect.
    using Mark = const char*;

    // A new request: nothing of it has been sent.
    void start_request() { *this = WriteLedger(); }
    Mark mark() const { return durable_; }
    void restore(Mark before) { durable_ = before; }

    // START TRANSACTION succeeded.
    void transaction_opened() {
        in_transaction_ = true;
        transaction_wrote_ = false;
    }
    // ROLLBACK, or the connection is gone: the server keeps nothing of the transaction.
    void transaction_abandoned() {
        in_transaction_ = false;
        transaction_wrote_ = false;
    }

    // Statement `name` is about to be sent; `writes` as its SQL text says (db/statements.h).
    void sending(const char* name, bool writes) {
        if (!writes) {
            return;
        }
        if (in_transaction_) {
            transaction_wrote_ = true;
        } else if (durable_ == nullptr) {
            durable_ = name;
        }
    }
    // COMMIT is about to be sent: from now on the transaction's writes may be durable (a
    // read-only transaction has none). The transaction is over whatever the answer.
    void sending_commit() {
        if (transaction_wrote_ && durable_ == nullptr) {
            durable_ = "commit";
        }
        transaction_abandoned();
    }

    // The first statement ("commit" for a COMMIT) that may have made a write of this request
    // durable, or nullptr when nothing of it can have been committed.
    const char* durable() const { return durable_; }
    bool in_transaction() const { return in_transaction_; }

  private:
    const char* durable_ = nullptr;
    bool in_transaction_ = false;
    bool transaction_wrote_ = false;
};

}  // namespace supportcrm
