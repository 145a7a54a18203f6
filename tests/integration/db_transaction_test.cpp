// Db's nested transactions against the stack's MariaDB (db/db.h): an inner scope joins the
// outer transaction, only the outermost commit sends COMMIT, and an inner rollback makes the
// whole transaction rollback-only. Idempotency-Key relies on this: the handler's own
// transaction joins the one that holds the key's claim, so the write and its stored answer
// commit together or not at all.
#include <gtest/gtest.h>

#include <fstream>
#include <stdexcept>
#include <string>

#include "db/db.h"
#include "harness.h"

namespace {

supportcrm::DbSettings stack_settings() {
    const auto ini = it::read_ini(it::env().config);
    auto value = [&](const char* key, const char* fallback) {
        const auto found = ini.find(key);
        return found == ini.end() ? std::string(fallback) : found->second;
    };
    supportcrm::DbSettings s;
    s.socket = it::db_socket();
    s.name = value("db-name", "supportcrm");
    s.user = value("db-user", "supportcrm");
    std::ifstream password_file(value("db-password-file", ""));
    std::getline(password_file, s.password);
    return s;
}

class DbTransactions : public ::testing::Test {
  protected:
    DbTransactions() : db_(stack_settings()) { db_.connect(); }

    // A brand row only this test's name finds.
    void insert_brand(const std::string& name) {
        db_.execute(
            "INSERT INTO brands (name, created_at) VALUES ('" + name + "', UTC_TIMESTAMP(3))",
            "insert brand");
    }
    // Seen from another connection: what is committed.
    static int64_t committed(const std::string& name) {
        it::Db other;
        return other.count("SELECT COUNT(*) FROM brands WHERE name = ?", {name});
    }

    supportcrm::Db db_;
};

TEST_F(DbTransactions, AnInnerCommitWaitsForTheOutermost) {
    const std::string name = "nested-commit-" + it::unique_suffix();
    supportcrm::Transaction outer(db_);
    {
        supportcrm::Transaction inner(db_);
        insert_brand(name);
        inner.commit();
    }
    EXPECT_EQ(committed(name), 0) << "the inner commit sent COMMIT";
    outer.commit();
    EXPECT_EQ(committed(name), 1);
}

TEST_F(DbTransactions, AnInnerRollbackMakesTheWholeTransactionRollBack) {
    const std::string outer_name = "nested-outer-" + it::unique_suffix();
    const std::string inner_name = "nested-inner-" + it::unique_suffix();
    {
        supportcrm::Transaction outer(db_);
        insert_brand(outer_name);
        {
            supportcrm::Transaction inner(db_);
            insert_brand(inner_name);
        }  // not committed: rolls back
        EXPECT_TRUE(db_.rollback_only());
        EXPECT_THROW(outer.commit(), std::logic_error);
    }
    EXPECT_EQ(committed(outer_name), 0);
    EXPECT_EQ(committed(inner_name), 0);
    EXPECT_FALSE(db_.rollback_only()) << "the next transaction starts clean";

    const std::string after = "nested-after-" + it::unique_suffix();
    supportcrm::Transaction next(db_);
    insert_brand(after);
    next.commit();
    EXPECT_EQ(committed(after), 1);
}

TEST_F(DbTransactions, AnOuterRollbackUndoesACommittedInnerScope) {
    const std::string name = "nested-undone-" + it::unique_suffix();
    {
        supportcrm::Transaction outer(db_);
        supportcrm::Transaction inner(db_);
        insert_brand(name);
        inner.commit();
    }  // outer not committed
    EXPECT_EQ(committed(name), 0);
}

}  // namespace
