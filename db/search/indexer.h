// The search indexer (extensions.md §E10 v1.3: "Changes are found within 1 s of their
// commit"; sql/023): a comment's words are written after its commit, in batches, instead of in
// the comment's own transaction.
//
// A comment's insert queues it (comment_words_pending, by trigger, in the comment's
// transaction). index_comment_batch() takes the oldest queued comments, writes the words of the
// whole batch in one statement sorted by key, and deletes what it took, in one transaction:
// whatever stops it (a crash, the database going, a deadlock, a Galera certification conflict)
// rolls the batch back with its queue rows, and the next batch does it again. It is safe to run
// on every host of a cluster at once: SKIP LOCKED hands each batch different rows on one
// server, certification sends one of two hosts' batches back on Galera, and the words are a
// set (a batch done twice writes nothing new).
//
// The supportcrm-fcgi master runs it as a task of its own (fcgi/indexer_task.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "db/db.h"

namespace supportcrm::search {

// Queued comments a batch takes at most: at S5's saturation (~1,600 comments/s) a batch every
// 50-100 ms holds ~100-200; more are left to the next batch at once (no pause).
constexpr unsigned kIndexBatch = 500;

// A claimed comment's text, with its ticket and shop (comment_words_texts).
struct QueuedComment {
    std::uint64_t comment = 0;
    std::uint64_t ticket = 0;
    std::uint64_t shop = 0;
    std::string text;
};

// One ticket_words row as comment_words_add writes it: a comment word of a ticket.
struct CommentWordRow {
    std::uint64_t ticket = 0;
    std::uint64_t shop = 0;
    std::string word;
};

// The rows a batch writes (pure): each ticket's distinct words over its comments in the batch,
// sorted by (ticket, word), the primary key's order, so that two batches that share a ticket
// lock its rows in the same order. Words the ticket has already are among them: the upsert
// finds them in the primary key it visits anyway, cheaper than a statement a ticket that reads
// which ones it has (docs/performance.md, "Search indexer").
std::vector<CommentWordRow> plan_comment_words(const std::vector<QueuedComment>& comments);

// The JSON array comment_words_add binds (words hold only letters, marks and digits).
std::string comment_word_rows_json(const std::vector<CommentWordRow>& rows);

// A claimed customer as it is now (customer_words_rows): listed (neither merged nor erased),
// and its searched fields that are not null (email, phone_number, first_name, last_name,
// full_name).
struct QueuedCustomer {
    std::uint64_t customer = 0;
    std::uint64_t shop = 0;
    bool listed = false;
    std::vector<std::string> fields;
};

// One customer_words row.
struct CustomerWordRow {
    std::uint64_t customer = 0;
    std::uint64_t shop = 0;
    std::string word;
};

// The rows a batch of customers writes (pure): each listed customer's distinct words over its
// fields, sorted by (customer, word), the primary key's order; none for one merged or erased.
std::vector<CustomerWordRow> plan_customer_words(const std::vector<QueuedCustomer>& customers);

// The JSON array customer_words_write binds.
std::string customer_word_rows_json(const std::vector<CustomerWordRow>& rows);

// A claimed queue row: its id and the customer (or comment) it names.
struct QueueEntry {
    std::uint64_t entry = 0;
    std::uint64_t subject = 0;
};

// What a customer batch settles (pure): the customers its locking read returned and those that
// no longer exist, with their queue rows. A customer a writer holds (skipped by the read, yet
// present) is not settled: its queue rows stay for a later batch, its words are not touched.
struct CustomerSettlement {
    std::vector<std::uint64_t> entries;    // queue rows done, ascending
    std::vector<std::uint64_t> customers;  // ids whose words the batch rewrites, ascending
};
CustomerSettlement settle_customers(const std::vector<QueueEntry>& claimed,
                                    const std::vector<std::uint64_t>& read,
                                    const std::vector<std::uint64_t>& present);

struct IndexedBatch {
    unsigned entries = 0;         // queue rows taken (and deleted)
    unsigned rows = 0;            // word rows written
    std::int64_t oldest_ms = -1;  // age of the oldest entry taken; -1: none was queued
};

// One batch in its own transaction (the session must be READ COMMITTED: prepare_indexer_session).
// Throws DbError / DbUnavailable; nothing of a failed batch is kept.
IndexedBatch index_comment_batch(Db& db, unsigned batch = kIndexBatch);

// One batch of queued customers (sql/024) in its own transaction: whatever words their ids
// have go, the words of their rows as they are now come. As index_comment_batch otherwise.
IndexedBatch index_customer_batch(Db& db, unsigned batch = kIndexBatch);

// The indexer's connection: READ COMMITTED, so that its reads take no gap locks a comment's
// queue insert would wait for, and each batch reads what committed before it.
void prepare_indexer_session(Db& db);

// The indexer's lag now: the age of the oldest queued comment or customer in ms (0: none),
// and how many are queued.
struct IndexerLag {
    std::int64_t oldest_ms = 0;
    std::uint64_t queued = 0;
};
IndexerLag comment_words_lag(Db& db);

}  // namespace supportcrm::search
