// Customer erasure (DELETE /api/v1/customers/{id}, extensions.md §E9): the only SQL that
// scrubs a customer's personal data. db/erasure_sql.h says what each statement clears.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "common/time_util.h"
#include "db/db.h"
#include "db/erasure_plan.h"

namespace supportcrm {

// The first transaction's writes, in the caller's transaction: the customer row (and the rows
// merged into it) lose every personal field and their duplicate-detection keys, erased_at is
// set. False when the shop has no live (unmerged, unerased) customer with this id.
bool erase_customer_row(Db& db, std::uint64_t shop_id, std::uint64_t id, timeutil::Millis now);

bool erasure_done(Db& db, std::uint64_t id);

// The rest, as far as `budget` goes, each batch of at most kErasureBatch rows its own short
// transaction: the tickets from where the last batch left them (sql/021), a group of small
// ones with their comments and words, or a large one's comments, then words, a batch at a
// time; then surveys, stored Idempotency-Key answers, events (their pending deliveries
// cancelled); then erasure_done_at. True when all is done; false when the budget ran out with
// work left, which the next call (the next DELETE) carries on. Safe to run again and beside
// another run: each batch finds only rows still holding the data, the progress only rises.
// First of all the files of its comments (extensions.md §E13): their rows, then `remove_bytes`
// for each one's sha256 after its batch committed (the caller removes the bytes no row names).
bool finish_erasure(Db& db, std::uint64_t shop_id, std::uint64_t id, ErasureBudget& budget,
                    const std::function<void(const std::string& sha256)>& remove_bytes);

struct ErasureTotals {
    std::uint64_t tickets = 0, comments = 0, surveys = 0;
};
ErasureTotals erasure_totals(Db& db, std::uint64_t id);

}  // namespace supportcrm
