// Customer erasure (DELETE /api/v1/customers/{id}, extensions.md §E9): the only SQL that
// scrubs a customer's personal data. db/erasure_sql.h says what each statement clears.
#pragma once

#include <cstdint>

#include "common/time_util.h"
#include "db/db.h"

namespace supportcrm {

// The first transaction's writes, in the caller's transaction: the customer row (and the rows
// merged into it) lose every personal field and their duplicate-detection keys, erased_at is
// set. False when the shop has no live (unmerged, unerased) customer with this id.
bool erase_customer_row(Db& db, std::uint64_t shop_id, std::uint64_t id, timeutil::Millis now);

bool erasure_done(Db& db, std::uint64_t id);

// The rest, each batch of at most `batch` rows its own short transaction: comments, tickets,
// surveys, stored Idempotency-Key answers, events (their pending deliveries cancelled); then
// erasure_done_at. Safe to run again: each batch finds only rows still holding the data.
void finish_erasure(Db& db, std::uint64_t shop_id, std::uint64_t id, unsigned batch);

struct ErasureTotals {
    std::uint64_t tickets = 0, comments = 0, surveys = 0;
};
ErasureTotals erasure_totals(Db& db, std::uint64_t id);

}  // namespace supportcrm
