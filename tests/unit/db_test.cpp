// Db's bookkeeping that needs no server: which statements write, how error codes are read, and
// the WriteLedger that tells the request boundary whether a failed request may run again. The
// faults themselves (a lost connection at COMMIT, a deadlock, a refused COMMIT) are injected
// for real in tests/integration/write_safety_test.cpp.
#include "db/db.h"

#include <gtest/gtest.h>

#include "db/statement_params.h"
#include "db/statements.h"

using supportcrm::Db;
using supportcrm::DbSettings;
using supportcrm::Stmt;
using supportcrm::WriteLedger;

TEST(DbStatements, WritesAreMarkedInTheStatementTable) {
    for (Stmt id : {Stmt::customer_insert, Stmt::conversation_insert, Stmt::human_ticket_insert,
                    Stmt::conversation_touch, Stmt::conversation_touch_by_shop,
                    Stmt::message_insert, Stmt::survey_insert, Stmt::survey_day_count_bump,
                    Stmt::shop_soft_delete, Stmt::key_revoke}) {
        EXPECT_TRUE(Db::writes(id)) << Db::name(id);
    }
    for (Stmt id : {Stmt::ping, Stmt::shop_by_key_hash, Stmt::customer_by_id, Stmt::customer_exists,
                    Stmt::ticket_detail, Stmt::comments_of_ticket, Stmt::survey_conversation,
                    Stmt::csat_page_for_key}) {
        EXPECT_FALSE(Db::writes(id)) << Db::name(id);
    }
}

TEST(DbStatements, KeyedReadsAreMarkedAndTheirKeyPlacedByTheGenerator) {
    using supportcrm::is_keyed;
    for (Stmt id : {Stmt::customer_by_id, Stmt::ticket_detail, Stmt::ticket_for_patch,
                    Stmt::comments_of_ticket, Stmt::comments_page_first, Stmt::comments_page_after,
                    Stmt::csat_page_for_key, Stmt::idempotency_answer_for_key}) {
        EXPECT_TRUE(is_keyed(id)) << Db::name(id);
    }
    // The key's own statement, the keyed writes (written out: db/auth_sql.h) and the rest.
    for (Stmt id : {Stmt::ping, Stmt::shop_by_key_hash, Stmt::conversation_touch,
                    Stmt::customer_insert, Stmt::idempotency_claim, Stmt::ticket_customer}) {
        EXPECT_FALSE(is_keyed(id)) << Db::name(id);
    }
    // Key follows the placeholders of the columns and joins, before the tail's.
    namespace param = supportcrm::param;
    static_assert(
        std::is_same_v<
            supportcrm::StatementParams<Stmt::comments_page_after>::type,
            param::List<param::Id, param::Time, param::Time, param::Id, param::Key, param::Id>>);
    static_assert(std::is_same_v<supportcrm::StatementParams<Stmt::ticket_for_patch>::type,
                                 param::List<param::OptId, param::Id, param::Key>>);
}

TEST(DbErrors, OnlyAWriteThatFailedIsKnownNotToHaveBeenSent) {
    EXPECT_TRUE(Db::is_connection_lost(2006));
    EXPECT_TRUE(Db::is_not_sent(2006));  // CR_SERVER_GONE_ERROR: libmariadb could not write it
    for (int code : {2013, 2055, 1927, 1053, 4031}) {
        EXPECT_TRUE(Db::is_connection_lost(code)) << code;
        EXPECT_FALSE(Db::is_not_sent(code)) << code << ": sent, its outcome is unknown";
    }
    EXPECT_FALSE(Db::is_connection_lost(1062));
    EXPECT_FALSE(Db::is_connection_lost(1213));
}

TEST(DbErrors, ServerErrorsAreToldFromClientLibraryErrors) {
    for (int code : {1062, 1213, 1317, 1927, 4031}) {
        EXPECT_TRUE(Db::is_server_error(code)) << code;
    }
    for (int code : {0, 2006, 2013, 2014, 2055}) {
        EXPECT_FALSE(Db::is_server_error(code)) << code;
    }
}

TEST(DbErrors, ADeadlockRollsTheTransactionBackAndNothingElseIsAssumedTo) {
    EXPECT_TRUE(Db::rolls_back_transaction(1213));
    for (int code : {1205, 1180, 1047, 1062, 1644, 2013}) {
        EXPECT_FALSE(Db::rolls_back_transaction(code)) << code;
    }
}

TEST(DbErrors, ADeadlockALockWaitTimeoutAndAFailedAutoIncLockAreConflictsToRunAgain) {
    // 1467: ER_AUTOINC_READ_FAILED, an INSERT ... SELECT's table-level AUTO-INC lock that
    // deadlocked or timed out (innodb_autoinc_lock_mode 1; issue 42).
    for (int code : {1213, 1205, 1467}) {
        EXPECT_TRUE(Db::is_rerunnable_conflict(code)) << code;
    }
    for (int code : {1180, 1047, 1062, 1644, 1264, 2013}) {
        EXPECT_FALSE(Db::is_rerunnable_conflict(code)) << code;
    }
}

TEST(DbErrors, OnlyADuplicateKeyIsAUniqueViolation) {
    EXPECT_TRUE(Db::is_unique_violation(1062));
    for (int code : {0, 1048, 1213, 1452, 2013}) {
        EXPECT_FALSE(Db::is_unique_violation(code)) << code;
    }
}

TEST(WriteLedger, ReadsNeverMakeARequestUnsafeToRunAgain) {
    WriteLedger l;
    l.sending("ping", false);
    l.sending("shop_by_key_hash", false);
    EXPECT_EQ(l.durable(), nullptr);
}

TEST(WriteLedger, AnAutocommitWriteIsDurableOnceSent) {
    WriteLedger l;
    l.sending("customer_insert", true);
    EXPECT_STREQ(l.durable(), "customer_insert");
    l.sending("key_insert", true);  // the first one is the one named
    EXPECT_STREQ(l.durable(), "customer_insert");
}

TEST(WriteLedger, AnErrorAnswerOrAnUnsentStatementTakesTheMarkBack) {
    WriteLedger l;
    WriteLedger::Mark before = l.mark();
    l.sending("customer_insert", true);
    l.restore(before);  // e.g. 1062 duplicate: the insert did nothing
    EXPECT_EQ(l.durable(), nullptr);

    l.sending("customer_insert", true);
    before = l.mark();
    l.sending("key_insert", true);
    l.restore(before);  // an earlier write stays durable
    EXPECT_STREQ(l.durable(), "customer_insert");
}

TEST(WriteLedger, WritesInATransactionAreDurableOnlyWhenCommitIsSent) {
    WriteLedger l;
    l.transaction_opened();
    EXPECT_TRUE(l.in_transaction());
    l.sending("conversation_insert", true);
    l.sending("human_ticket_insert", true);
    EXPECT_EQ(l.durable(), nullptr) << "the server rolls an open transaction back";
    const WriteLedger::Mark before = l.mark();
    l.sending_commit();
    EXPECT_STREQ(l.durable(), "commit");
    EXPECT_FALSE(l.in_transaction());
    l.restore(before);  // COMMIT answered with a deadlock: rolled back
    EXPECT_EQ(l.durable(), nullptr);
}

TEST(WriteLedger, AReadOnlyTransactionCommitsNothing) {
    WriteLedger l;
    l.transaction_opened();
    l.sending("csat_page_shop", false);
    l.sending_commit();
    EXPECT_EQ(l.durable(), nullptr);
}

TEST(WriteLedger, AnAbandonedTransactionLeavesNothingDurable) {
    WriteLedger l;
    l.transaction_opened();
    l.sending("conversation_touch", true);
    l.transaction_abandoned();  // ROLLBACK, or the connection went
    EXPECT_EQ(l.durable(), nullptr);
    l.transaction_opened();
    l.sending_commit();  // the new transaction wrote nothing
    EXPECT_EQ(l.durable(), nullptr);
}

TEST(WriteLedger, EachRequestStartsClean) {
    WriteLedger l;
    l.transaction_opened();
    l.sending("survey_insert", true);
    l.sending_commit();
    ASSERT_NE(l.durable(), nullptr);
    l.start_request();
    EXPECT_EQ(l.durable(), nullptr);
    EXPECT_FALSE(l.in_transaction());
}

TEST(WriteLedger, AnUnconnectedDbHasAnEmptyLedger) {
    Db db{DbSettings{}};
    EXPECT_EQ(db.ledger().durable(), nullptr);
    EXPECT_FALSE(db.ledger().in_transaction());
    db.rollback();  // nothing to roll back, no connection: neither throws nor connects
    EXPECT_FALSE(db.connected());
}
