// Tickets (conversations) and their HumanTickets: the only SQL that writes or reads them whole.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/time_util.h"
#include "db/auth_repo.h"
#include "db/db.h"
#include "db/rows.h"

namespace supportcrm {

struct NewTicket {
    std::uint64_t customer_id = 0;
    std::string channel;
    std::optional<std::string> name, thread_id, email_used, last_message, contact_reason,
        language_code, via;
    timeutil::Millis date = 0;
    timeutil::Millis last_message_time = 0;
    std::optional<std::uint64_t> assigned_to;
    bool is_opened_ticket = false;
    std::int64_t unread_chat_count = 0;
    std::string tags_json = "[]";  // a JSON array of strings
    timeutil::Millis created_at = 0;
};

// Whether a ticket may name the customer: a live customer of the shop, one that was erased (its
// tickets take no new personal data: 410), or none (404; a merged one too).
enum class TicketCustomer { live, erased, missing };
TicketCustomer ticket_customer(Db& db, std::uint64_t shop_id, std::uint64_t customer_id);
bool user_in_shop(Db& db, std::uint64_t shop_id, std::uint64_t user_id);

// Inserts the conversation, and its OPEN HumanTicket when is_opened_ticket, in the caller's
// transaction, after a change of the customer's row (customer_attach: what orders it against a
// merge or erasure, also across Galera nodes); returns the conversation id (0, nothing
// written, when the customer was merged or erased since it was checked: extensions.md §E9)
// and the customer's version, which the new ticket's ETag names.
struct InsertedTicket {
    std::uint64_t id = 0;
    std::uint64_t customer_version = 0;
};
InsertedTicket insert_ticket(Db& db, std::uint64_t shop_id, const NewTicket& ticket);

// A stored ticket, in the fields POST /api/v1/tickets answers with (its created_at unread).
struct TicketRow {
    std::uint64_t id = 0;
    NewTicket ticket;
};

// GET /api/v1/tickets: the filters combine (extensions.md §E3, §E10); absent ones are nullopt
// or empty.
struct TicketFilter {
    std::optional<std::uint64_t> customer_id;
    std::optional<timeutil::Millis> updated_since;  // lastMessageTime at or after
    // E10. status: the statuses wanted as a comma list in the order OPEN, PENDING, SOLVED,
    // CLOSED, none; assigned_to 0 is `none`; tags all of which a ticket carries (distinct,
    // sorted); words of `q` (words::query()).
    std::optional<std::string> status;
    std::optional<std::uint64_t> assigned_to;
    std::optional<std::string> channel;
    std::vector<std::string> tags;
    std::vector<std::string> words;
    // A value no ticket can hold (a tag over 255 characters, text that is not UTF-8): the
    // answer is an empty list without asking the database.
    bool matches_nothing = false;
    // Whether a filter of E10 is given (the statements of db/search/sql.h read the page).
    bool searching() const {
        return status || assigned_to || channel || !tags.empty() || !words.empty();
    }
};

// Up to `rows` tickets of the shop matching the filter with an id below `before_id`, newest
// first.
std::vector<TicketRow> read_tickets_page(Db& db, std::uint64_t shop_id, const TicketFilter& filter,
                                         std::uint64_t before_id, std::uint64_t rows);

struct HumanTicketRow {
    std::uint64_t id = 0;
    std::string status;
    std::string opened_at;                 // ISO 8601
    std::optional<std::string> closed_at;  // ISO 8601
};

struct TicketDetail {
    std::uint64_t id = 0;
    std::string channel;
    std::optional<std::string> name;
    PersonRow customer;
    std::optional<PersonRow> user;
    std::optional<HumanTicketRow> human_ticket;
    std::uint64_t version = 1;  // what its ETag names (extensions.md §E8), with:
    std::uint64_t customer_version = 1;
};

// extensions.md §E8: a ticket in the full shape (the create shape, its HumanTicket, updatedAt)
// with the version its ETag names.
struct HumanTicketState {
    std::uint64_t id = 0;
    std::string status;  // OPEN, PENDING, SOLVED, CLOSED
    timeutil::Millis opened_at = 0;
    std::optional<timeutil::Millis> closed_at;
};

struct FullTicket {
    std::uint64_t id = 0;
    NewTicket ticket;  // the create shape's fields (ticket.created_at unread)
    std::optional<HumanTicketState> human_ticket;
    timeutil::Millis updated_at = 0;
    std::uint64_t version = 1;
    std::uint64_t customer_version = 1;  // the ETag names it too (api/etag.h)
};

// What a PATCH reads first, with the key's shop, in one statement: the ticket, and whether
// `user_id` (when given: the body's assigned_to) is a user of the shop.
struct TicketForPatch {
    FullTicket ticket;
    bool user_found = false;
};
Keyed<TicketForPatch> find_ticket_for_patch(Db& db, const std::string& key_digest,
                                            std::uint64_t ticket_id,
                                            const std::optional<std::uint64_t>& user_id);

// The ticket after its PATCH, in one statement that also checks its version: when the stored
// version is no longer `before`'s (another change won) nothing is written and version_changed()
// (db.h) is raised. The ticket's version becomes before.version + 1; a HumanTicket that exists
// takes `after`'s status and closedAt (one that does not is opened by open_human_ticket()). A
// new name or new tags reach the search data (db/search/upkeep.h) in the caller's transaction.
void update_ticket(Db& db, std::uint64_t shop_id, const FullTicket& before,
                   const FullTicket& after);

// Opens the ticket's HumanTicket (OPEN, closedAt null) in the ticket's shop; returns its id.
std::uint64_t open_human_ticket(Db& db, std::uint64_t shop_id, std::uint64_t ticket_id,
                                timeutil::Millis opened_at);

// The ticket with the key's shop, in one statement. Neither key nor value when no row came back
// (an unknown key or no such ticket in a live shop): resolve the key, then 404.
Keyed<TicketDetail> find_ticket(Db& db, const std::string& key_digest, std::uint64_t ticket_id);

// GET /api/v1/customers/{id}/export (extensions.md §E9): up to `rows` ids of the customer's
// tickets above `after_id`, ascending.
std::vector<std::uint64_t> customer_ticket_ids(Db& db, std::uint64_t customer_id,
                                               std::uint64_t after_id, std::uint64_t rows);

}  // namespace supportcrm
