// The changes feed (extensions.md §E11): numbering a shop's committed events and reading them
// by number. The only SQL that touches seq and change_sequences.
//
// Why a reader that follows its cursor sees every event exactly once, none skipped:
// - A write inserts its event in its own transaction, unnumbered (seq NULL). Ids are taken at
//   insert, so events commit out of id order; the feed never reads by id.
// - Numbers are given only to COMMITTED events, by sequence_changes(), one numbering at a time
//   per shop: each holds the shop's change_sequences row locked (FOR UPDATE) from reading the
//   last number to its COMMIT, and numbers on from it (1, 2, 3, ... no gap). A locking read
//   reads the latest committed row whatever the isolation level, so a numbering starts where
//   the one before committed. The numbers and the counter commit in one transaction: a
//   numbering is seen whole or not at all.
// - Numberings commit in number order (the next waits for the row lock the last one holds until
//   its commit, and InnoDB makes a commit visible before it releases its locks), so every
//   snapshot holds numbers 1..n with no hole: a reader that read up to n and asks for "seq > n"
//   later can only find numbers given after its read, never one below n that appeared late.
// - An event committed after a numbering ran keeps seq NULL until the next numbering (the next
//   read of the feed, within one poll), which gives it a number above every number given
//   before: late committers come after, never behind the cursor.
// - Galera: the node's local row lock does not reach other nodes, but two numberings of one
//   shop on two nodes both write the counter row, so certification fails one of them (it is run
//   again, on the data the first committed); write sets commit on every node in the cluster's
//   one order, so each node's snapshot holds a prefix of the numberings too. A node that has not
//   yet applied a numbering another host read from answers "nothing after n" until it has: late,
//   never skipped. (docs/scale-out.md, "The changes feed".)
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/time_util.h"
#include "db/db.h"

namespace supportcrm {

struct ChangeRow {
    std::uint64_t seq = 0;
    std::uint64_t id = 0;  // the event id: E5's webhook-id
    unsigned type = 0;     // webhook_event bits
    std::string payload;
    std::optional<std::string> changes;  // E8's "changes", E9's mergedId
    timeutil::Millis created_at = 0;
};

// Numbers the shop's committed unnumbered events (and sets their feed_at, sql/015), up to `batch`
// of them per transaction until none is left (or `rounds` transactions ran), each its own short
// READ COMMITTED transaction, run again when the server rolls it back (a deadlock, a Galera
// certification failure). Returns how many it numbered. Nothing to do costs one index lookup.
std::uint64_t sequence_changes(Db& db, std::uint64_t shop_id, unsigned batch = 1000,
                               unsigned rounds = 4);

// Up to `limit` entries numbered above `after`, in number order (one consistent read).
std::vector<ChangeRow> read_changes(Db& db, std::uint64_t shop_id, std::uint64_t after,
                                    std::uint64_t limit);

// Where a reader starting at `since` continues from: the number before the first event written
// at or after it, else the shop's last number. One index dive (feed_at, sql/015), plus a range
// over the events numbered before that migration while retention has not deleted them.
std::uint64_t changes_start_since(Db& db, std::uint64_t shop_id, timeutil::Millis since);

}  // namespace supportcrm
