// The search indexer's plan of a batch (db/search/indexer.h, plan_comment_words): which
// ticket_words rows the comments of one batch write.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "db/search/indexer.h"

namespace {

using supportcrm::search::comment_word_rows_json;
using supportcrm::search::CommentWordRow;
using supportcrm::search::plan_comment_words;
using supportcrm::search::QueuedComment;

std::vector<std::string> words_of(const std::vector<CommentWordRow>& rows, std::uint64_t ticket) {
    std::vector<std::string> out;
    for (const CommentWordRow& r : rows) {
        if (r.ticket == ticket && r.known.empty()) {
            out.push_back(r.word);
        }
    }
    return out;
}

TEST(CommentWordsPlan, OnlyWordsMissingFromTheKnownListAreWritten) {
    const std::vector<QueuedComment> batch{{11, 5, 1, "Parcel late, parcel LOST"}};
    const auto rows = plan_comment_words(batch, {{5, "late"}});
    EXPECT_EQ(words_of(rows, 5), (std::vector<std::string>{"lost", "parcel"}));
    ASSERT_EQ(rows.size(), 3u);
    EXPECT_EQ(rows[0].word,
              "\x01"
              "11")
        << "the list row sorts first (a control character)";
    EXPECT_EQ(rows[0].known, "lost parcel") << "it lists just the new words";
}

TEST(CommentWordsPlan, ATicketsCommentsInOneBatchShareOneListRowKeyedByTheLast) {
    const std::vector<QueuedComment> batch{
        {30, 7, 2, "gamma alpha"}, {12, 9, 2, "other"}, {31, 7, 2, "alpha beta"}};
    const auto rows = plan_comment_words(batch, {});
    EXPECT_EQ(words_of(rows, 7), (std::vector<std::string>{"alpha", "beta", "gamma"}))
        << "each word once, though two comments have it";
    std::vector<std::string> lists;
    for (const CommentWordRow& r : rows) {
        if (!r.known.empty()) {
            lists.push_back(std::to_string(r.ticket) + ":" + r.word.substr(1) + "=" + r.known);
        }
    }
    EXPECT_EQ(lists, (std::vector<std::string>{"7:31=alpha beta gamma", "9:12=other"}));
    for (std::size_t i = 1; i < rows.size(); ++i) {
        EXPECT_TRUE(rows[i - 1].ticket < rows[i].ticket ||
                    (rows[i - 1].ticket == rows[i].ticket && rows[i - 1].word < rows[i].word))
            << "sorted by the primary key (ticket, word): row " << i;
    }
}

TEST(CommentWordsPlan, AScrubbedOrWordlessCommentWritesNothing) {
    EXPECT_TRUE(plan_comment_words({{1, 2, 3, ""}, {4, 2, 3, "ok ?!"}}, {}).empty());
    EXPECT_TRUE(plan_comment_words({{1, 2, 3, "known words"}}, {{2, "words known"}}).empty())
        << "every word listed already";
}

TEST(CommentWordsPlan, AFullListTakesNoRowButTheWordsAreStillWritten) {
    std::string full;
    while (full.size() < 1020) {
        full += "w" + std::to_string(full.size()) + "x ";
    }
    const auto rows = plan_comment_words({{8, 3, 1, "brandnew"}}, {{3, full}});
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_EQ(rows[0].word, "brandnew");
    EXPECT_TRUE(rows[0].known.empty());
}

TEST(CommentWordsPlan, TheRowsAreTheJsonTheStatementReads) {
    const auto rows = plan_comment_words({{11, 5, 1, "hello"}}, {});
    EXPECT_EQ(comment_word_rows_json(rows),
              "[{\"t\":5,\"s\":1,\"w\":\"\\u000111\",\"k\":\"hello\"},"
              "{\"t\":5,\"s\":1,\"w\":\"hello\"}]");
    EXPECT_EQ(comment_word_rows_json({}), "[]");
}

}  // namespace
