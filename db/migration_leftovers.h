// `supportcrm-admin migrate` refuses a database holding rows in tables its pending migrations
// create (issue 43): what a dump of an older schema leaves when it is restored into the existing
// database rather than a new one. mysqldump's DROP TABLE covers only the dump's own tables, so
// the tables of later migrations (ticket_words, ticket_tags, search_reindex, ...) keep their
// rows; the restored schema_migrations lists those migrations as pending, their CREATE TABLE IF
// NOT EXISTS and INSERT IGNORE backfills keep the rows, and AUTO_INCREMENT hands their ids to new
// records: a new ticket is found by words of a ticket that no longer exists.
//
// A migrate cut short (a crash, Ctrl-C, a failed statement) leaves the same picture for the
// migration it was in: so each migration is marked in schema_migrations while it runs (a row of
// version -N, which the restore of a dump replaces with the dump's table), and the tables of a
// marked migration are its own work, not leftovers.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "db/db.h"
#include "db/migrations.h"

namespace supportcrm {

// The tables a migration's script creates and keeps, in order: CREATE TABLE [IF NOT EXISTS] x
// and RENAME TABLE ... TO x, except a table the script drops before (a scratch table built anew
// on every run, as 019 builds ticket_tags_nopad and renames it) and CREATE OR REPLACE or
// TEMPORARY tables (nothing of an earlier table survives them).
std::vector<std::string> tables_created(const std::string& script);

// Each table any of `migrations` (in version order) creates, with the first one that does: the
// one whose absence from schema_migrations means the table should not exist yet.
std::map<std::string, Migration> table_owners(const std::vector<Migration>& migrations);

// Throws std::runtime_error, naming each table and the migration that creates it and pointing at
// the documented restore, when a table created only by migrations not in `done` exists and holds
// a row, unless that migration is marked as started (mark_started). Reads only.
void refuse_leftover_tables(sql::Connection& con, const std::vector<Migration>& migrations,
                            const std::set<int>& done);

// The mark of a migration running (before its first statement) and its removal (after it is
// recorded): schema_migrations rows of version -N, which recorded_migrations leaves out.
void mark_started(sql::Connection& con, const Migration& m);
void unmark_started(sql::Connection& con, const Migration& m);

}  // namespace supportcrm
