// The search indexer's plan of a batch (db/search/indexer.h, plan_comment_words): which
// ticket_words rows the comments of one batch write.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "db/search/indexer.h"

namespace {

using supportcrm::search::comment_word_rows_json;
using supportcrm::search::CommentWordRow;
using supportcrm::search::plan_comment_words;
using supportcrm::search::QueuedComment;
using supportcrm::search::settle_customers;

std::vector<std::string> words_of(const std::vector<CommentWordRow>& rows, std::uint64_t ticket) {
    std::vector<std::string> out;
    for (const CommentWordRow& r : rows) {
        if (r.ticket == ticket) {
            out.push_back(r.word);
        }
    }
    return out;
}

TEST(CommentWordsPlan, EachWordOfACommentOnceFolded) {
    const auto rows = plan_comment_words({{11, 5, 1, "Parcel late, parcel LOST"}});
    EXPECT_EQ(words_of(rows, 5), (std::vector<std::string>{"late", "lost", "parcel"}));
    for (const CommentWordRow& r : rows) {
        EXPECT_EQ(r.shop, 1u) << r.word;
    }
}

TEST(CommentWordsPlan, ATicketsCommentsInOneBatchWriteEachWordOnceSortedByKey) {
    const std::vector<QueuedComment> batch{
        {30, 7, 2, "gamma alpha"}, {12, 9, 3, "other alpha"}, {31, 7, 2, "alpha beta"}};
    const auto rows = plan_comment_words(batch);
    EXPECT_EQ(words_of(rows, 7), (std::vector<std::string>{"alpha", "beta", "gamma"}))
        << "each word once, though two comments have it";
    EXPECT_EQ(words_of(rows, 9), (std::vector<std::string>{"alpha", "other"}))
        << "another ticket's same word is its own row";
    ASSERT_EQ(rows.size(), 5u);
    for (std::size_t i = 1; i < rows.size(); ++i) {
        EXPECT_TRUE(rows[i - 1].ticket < rows[i].ticket ||
                    (rows[i - 1].ticket == rows[i].ticket && rows[i - 1].word < rows[i].word))
            << "sorted by the primary key (ticket, word): row " << i;
    }
    EXPECT_EQ(rows.back().shop, 3u) << "each row has its ticket's shop";
}

TEST(CommentWordsPlan, AScrubbedOrWordlessCommentWritesNothing) {
    EXPECT_TRUE(plan_comment_words({{1, 2, 3, ""}, {4, 2, 3, "ok ?!"}}).empty());
    EXPECT_TRUE(plan_comment_words({}).empty());
}

TEST(CommentWordsPlan, TheRowsAreTheJsonTheStatementReads) {
    const auto rows = plan_comment_words({{11, 5, 1, "hello Zo\u00eb"}});
    EXPECT_EQ(comment_word_rows_json(rows),
              "[{\"t\":5,\"s\":1,\"w\":\"hello\"},{\"t\":5,\"s\":1,\"w\":\"zo\u00eb\"}]");
    EXPECT_EQ(comment_word_rows_json({}), "[]");
}

}  // namespace

namespace {

using supportcrm::search::customer_word_rows_json;
using supportcrm::search::CustomerWordRow;
using supportcrm::search::plan_customer_words;
using supportcrm::search::QueuedCustomer;

TEST(CustomerWordsPlan, AListedCustomersFieldsWordsOnceSortedByKey) {
    const auto rows = plan_customer_words(
        {{9, 2, true, {"Ann.Lee@Example.com", "Ann", "LEE"}}, {4, 3, true, {"zed"}}});
    std::vector<std::string> got;
    for (const CustomerWordRow& r : rows) {
        got.push_back(std::to_string(r.customer) + ":" + std::to_string(r.shop) + ":" + r.word);
    }
    EXPECT_EQ(
        got, (std::vector<std::string>{"4:3:zed", "9:2:ann", "9:2:com", "9:2:example", "9:2:lee"}));
}

TEST(CustomerWordsPlan, AMergedOrErasedCustomerWritesNone) {
    EXPECT_TRUE(plan_customer_words({{9, 2, false, {"Ann Lee"}}}).empty());
    EXPECT_TRUE(plan_customer_words({{9, 2, true, {}}}).empty()) << "no searched field";
    EXPECT_EQ(customer_word_rows_json(plan_customer_words({{9, 2, true, {"ann"}}})),
              "[{\"t\":9,\"s\":2,\"w\":\"ann\"}]");
}

// A customer batch (settle_customers): entries {queue row, customer}; the customers its locking
// read returned; of the others, those that exist (a writer holds them).
TEST(CustomerSettlement, ReadAndGoneCustomersAreSettledHeldOnesStayQueued) {
    const auto s = settle_customers({{10, 7}, {11, 5}, {12, 9}, {13, 8}}, {9, 5}, {8});
    EXPECT_EQ(s.entries, (std::vector<std::uint64_t>{10, 11, 12})) << "read: 5, 9; gone: 7";
    EXPECT_EQ(s.customers, (std::vector<std::uint64_t>{5, 7, 9}));
}

TEST(CustomerSettlement, AllHeldSettlesNothing) {
    const auto s = settle_customers({{10, 7}, {11, 5}}, {}, {5, 7});
    EXPECT_TRUE(s.entries.empty());
    EXPECT_TRUE(s.customers.empty());
}

TEST(CustomerSettlement, TwoQueueRowsOfOneIdGoTogether) {
    // An id handed out again after a restore (issue 43) may be queued twice.
    const auto s = settle_customers({{3, 4}, {6, 4}, {8, 2}}, {4}, {2});
    EXPECT_EQ(s.entries, (std::vector<std::uint64_t>{3, 6}));
    EXPECT_EQ(s.customers, (std::vector<std::uint64_t>{4}));
}

}  // namespace
