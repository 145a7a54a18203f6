// The upkeep of the search data of extensions.md §E10 (sql/012: ticket_words, ticket_tags,
// customer_words): the one place every write of a searched record reaches it.
//
// A repository that writes a searched record describes what the write changed — a TicketWrite,
// a CommentWrite or a CustomerWrite — and hands it to upkeep() in the write's own transaction,
// so the words commit (or roll back) with the text they describe. Handlers never touch the
// search data. What upkeep() does with a change is its own business: a ticket's name and tags
// and a changed customer's fields are written at once; a comment's words and a new customer's
// are written after the commit by the search indexer (db/search/indexer.h, sql/023, sql/024),
// within E10 v1.3's second.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "db/customer_repo.h"
#include "db/db.h"

namespace supportcrm::search {

// A ticket written: new (created; its id may be an earlier record's, left by a restore into
// the existing database, whose rows go first) or changed. nullopt: that field is unchanged.
struct TicketWrite {
    std::uint64_t shop_id = 0;
    std::uint64_t ticket_id = 0;
    bool created = false;
    std::optional<std::optional<std::string>> name;  // the name as written (null: none)
    std::optional<std::string> tags_json;            // conversations.tags as written
};

// A comment added to a ticket: its words are the search indexer's, after the commit
// (db/search/indexer.h; the comment's insert queued it, sql/023).
struct CommentWrite {
    std::uint64_t shop_id = 0;
    std::uint64_t ticket_id = 0;
    std::uint64_t comment_id = 0;
};

// A customer written: new (created: its words are the indexer's), changed (`fields`: its searched
// fields as written; nullopt: none of them changed), or merged into another (unlisted: it is no
// longer listed, its words go).
struct CustomerWrite {
    std::uint64_t shop_id = 0;
    std::uint64_t customer_id = 0;
    bool created = false;
    bool unlisted = false;
    std::optional<CustomerFields> fields;
};

void upkeep(Db& db, const TicketWrite& write);
void upkeep(Db& db, const CommentWrite& write);
void upkeep(Db& db, const CustomerWrite& write);

// Whether two versions of a customer differ in a searched field (email, phone_number,
// first_name, last_name, full_name).
bool searched_fields_differ(const CustomerFields& a, const CustomerFields& b);

// --- Erasure (extensions.md §E9): the rows go with the personal data ------------------------

// The words of the customer and of those merged into it.
void erase_customer_words(Db& db, std::uint64_t customer_id);
// Every word row (the known-words lists too) of the customer's tickets with ids in
// (after, through], in the caller's transaction: the batch that clears those tickets.
void erase_tickets_words(Db& db, std::uint64_t customer_id, std::uint64_t after,
                         std::uint64_t through);
// One bounded batch of one ticket's word rows (a ticket of many comments): the rows it deleted.
unsigned erase_ticket_words_batch(Db& db, std::uint64_t ticket_id, unsigned batch);

}  // namespace supportcrm::search
