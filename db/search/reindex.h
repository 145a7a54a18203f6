// The re-index of the search data (sql/018: E10 v1.3's words, after NFKC_Casefold): every
// ticket's and customer's words computed again with words::split, in bounded batches, each its
// own short transaction. Run by `supportcrm-admin migrate` after the migration files
// (db/migrations.cpp), until search_reindex says it is finished: a run cut short goes on from
// the last committed batch.
//
// Its statements are prepared here, not in the service's list (db/statements.h): a worker
// prepares that whole list before serving, and must not need sql/018's table to start (the
// package reloads the service before it migrates).
#pragma once

#include <cstdint>
#include <functional>

#include "db/db.h"

namespace supportcrm {

// Records per transaction: a batch locks its tickets (customers) while their words are
// rewritten, ~80 ms for 200 tickets of 5 comments on the busy 2-core machine (500 held them
// ~200 ms; docs/performance.md, "Migrations in batches"), so a live comment on one of them
// waits at most about that long.
constexpr unsigned kReindexBatch = 200;

struct ReindexTotals {
    std::uint64_t tickets = 0;
    std::uint64_t customers = 0;
};

// Asked before each batch: false stops the walk there (the task of a master that is stopping).
using KeepGoing = std::function<bool()>;

// Does what search_reindex has left, batch by batch; a batch the server rolls back (a
// deadlock with a live write, a lock wait timeout) is done again. Throws on other errors: what
// committed stays, the next run goes on from there.
ReindexTotals reindex_search_words(Db& db, unsigned batch = kReindexBatch,
                                   const KeepGoing& keep_going = {});

// After a migrate whose walk rewrote anything: the walk is to be done again once no worker of
// the previous binary is left (sql/020: what that binary wrote behind the walk is unindexed).
void request_recheck(Db& db);

// The pool's re-index task (fcgi/master.cpp), run when the master's workers are all of its own
// binary: a requested recheck restarts the walk from the first id, and whatever walk is
// unfinished is done. `rechecked` says whether a recheck was requested.
struct TakeoverReindex {
    bool rechecked = false;
    ReindexTotals totals;
};
TakeoverReindex reindex_after_takeover(Db& db, const KeepGoing& keep_going,
                                       unsigned batch = kReindexBatch);

}  // namespace supportcrm
