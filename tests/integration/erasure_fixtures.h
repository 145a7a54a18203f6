// What an erasure (extensions.md E9) left of a ticket's comments, counted in the database: the
// checks the erasure tests and the write-safety tests share.
#pragma once

#include <cstdint>
#include <string>

#include "harness.h"

namespace it::erasure {

// Comments of the ticket that still hold personal data.
inline int64_t unscrubbed(Db& db, const std::string& ticket) {
    return db.count(
        "SELECT COUNT(*) FROM messages WHERE conversation_id = ? AND (text <> '' OR "
        "subject IS NOT NULL OR from_email IS NOT NULL OR to_emails <> '[]')",
        {ticket});
}

// Comments of the ticket neither whole nor scrubbed: a batch half applied.
inline int64_t half_scrubbed(Db& db, const std::string& ticket) {
    return db.count(
        "SELECT COUNT(*) FROM messages WHERE conversation_id = ? AND NOT ("
        "(text = '' AND subject IS NULL AND from_email IS NULL AND to_emails = '[]') "
        "OR (text <> '' AND subject IS NOT NULL AND from_email IS NOT NULL AND "
        "to_emails <> '[]'))",
        {ticket});
}

}  // namespace it::erasure
