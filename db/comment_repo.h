// Comments (messages) of a ticket, and the conversation fields a new comment updates.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/time_util.h"
#include "db/db.h"
#include "db/file_repo.h"
#include "db/ticket_repo.h"

namespace supportcrm {

struct NewComment {
    std::string text;
    timeutil::Millis time = 0;
    std::optional<std::string> channel;  // nullopt: the conversation's
    bool is_from_shop = true;
    std::optional<std::string> subject, from_email;
    std::string to_emails_json = "[]";            // JSON array of strings
    std::optional<std::string> attachments_json;  // any JSON value, as text
    std::string tags_json = "[]";
    timeutil::Millis created_at = 0;
    // extensions.md §E13: the shop's files it references, as a JSON array of ids; empty: none.
    std::string file_ids_json;
    std::size_t file_count = 0;
};

// A ticket a customer's comment reopened (extensions.md §E8), as the comment's transaction
// leaves it: what the feed's ticket.updated carries.
struct ReopenedTicket {
    std::string from;   // the status it was reopened from (PENDING or SOLVED): the "changes"
    FullTicket ticket;  // its version is not read (the full shape does not show it)
    std::string shop_domain;
};

struct AddedComment {
    std::uint64_t id = 0;
    std::string channel;  // the one stored (given or inherited)
    std::uint64_t shop_id = 0;
    unsigned shop_webhook_events = 0;  // the shop's, as the touch read it with the key (Shop)
    // A comment with isFromShop false that reopened the ticket's HumanTicket: the ticket.
    std::optional<ReopenedTicket> reopened;
    // An id of file_ids_json that is not a file of the shop: nothing of the comment may commit
    // (the caller's transaction rolls back), the answer is 400 "Unknown file: <id>".
    std::optional<std::uint64_t> unknown_file;
};

// In one transaction: sets the ticket's lastMessage, lastMessageTime and, for a message not
// from the shop, unReadChatCount = 1 (locking the ticket's row; its version goes up), then
// inserts the message; a message not from the shop reopens a PENDING or SOLVED ticket (and
// returns it, read with those two statements). The comment's words join its ticket's search
// data (E10) after the commit: the insert queues it for the search indexer (sql/023,
// db/search/indexer.h), which writes them within the second.
// nullopt, with nothing written, when the key with this digest has no live shop with that
// ticket, or the ticket's customer was erased (ticket_of_erased_customer tells; else resolve
// the key to tell which). The customer's row is changed too (attach_seq): what orders a comment
// against an erasure, also across Galera nodes.
std::optional<AddedComment> add_comment(Db& db, const std::string& key_digest,
                                        std::uint64_t ticket_id, const NewComment& comment);
bool ticket_of_erased_customer(Db& db, const std::string& key_digest, std::uint64_t ticket_id);

struct CommentRow {
    std::uint64_t id = 0;
    std::string text;
    std::string time;              // ISO 8601
    timeutil::Millis time_ms = 0;  // the same instant: the sort key a page cursor carries
    std::string channel;
    bool is_from_shop = true;
    std::optional<std::string> subject, from_email;
    std::string to_emails_json, tags_json;
    std::optional<std::string> attachments_json;
    std::optional<PersonRow> user;
    std::vector<FileRow> files;  // extensions.md §E13, in the comment's order
};

struct TicketComments {
    PersonRow customer;
    std::vector<CommentRow> comments;  // time ascending, then id ascending
};

// The ticket's comments with the key's shop, in one statement when the ticket has comments.
// No rows tell neither the key nor the ticket apart: key and value are then both nullopt;
// resolve the key, then ask ticket_without_comments().
// With a page: up to page->rows comments in the same order, after page->after when given.
struct CommentPage {
    struct After {
        timeutil::Millis time = 0;
        std::uint64_t id = 0;
    };
    std::optional<After> after;
    std::uint64_t rows = 0;
};
Keyed<TicketComments> list_comments(Db& db, const std::string& key_digest, std::uint64_t ticket_id,
                                    const std::optional<CommentPage>& page = std::nullopt);

// The ticket's customer and no comments; nullopt when the ticket is not in the shop.
std::optional<TicketComments> ticket_without_comments(Db& db, std::uint64_t shop_id,
                                                      std::uint64_t ticket_id);

}  // namespace supportcrm
