// Numbered schema migrations (sql/NNN_name.sql), applied in order, each recorded in
// schema_migrations so that `supportcrm-admin migrate` is idempotent.
#pragma once

#include <string>
#include <vector>

#include "db/db.h"
#include "db/search/reindex.h"

namespace supportcrm {

struct Migration {
    int version;
    std::string name;  // file name without ".sql", e.g. "001_initial"
    std::string path;
};

// The NNN_*.sql files of dir in version order. Throws std::runtime_error on an unreadable
// directory or two files with one version.
std::vector<Migration> list_migrations(const std::string& dir);

// The text of a migration's file. Throws std::runtime_error when it cannot be read.
std::string read_migration(const Migration& m);

// Splits a migration into statements at semicolons outside quotes and comments.
std::vector<std::string> split_sql(const std::string& script);

struct MigrateResult {
    std::vector<std::string> applied;  // the migrations' names
    ReindexTotals reindexed;
};

// `supportcrm-admin migrate --status`: what schema_migrations records (none on a database never
// migrated) and the files of dir it does not, in version order. Reads only.
struct AppliedMigration {
    int version = 0;
    std::string name;
    std::string applied_at;  // as recorded, "YYYY-MM-DD HH:MM:SS.mmm" UTC
};
struct MigrationStatus {
    std::vector<AppliedMigration> applied;
    std::vector<Migration> pending;
};
MigrationStatus migration_status(Db& db, const std::string& dir);

// Returns once no `supportcrm-admin migrate` runs (none holds its lock): true, or false when
// keep_going said stop first. `waited` tells whether one was running.
bool wait_while_migrating(Db& db, const KeepGoing& keep_going, bool& waited);

// Applies the migrations not yet recorded, then the work they leave to C++ that is not done
// yet (sql/018's re-index: db/search/reindex.h). Serialized across concurrent runs with a
// named lock.
MigrateResult apply_migrations(Db& db, const std::string& dir);

}  // namespace supportcrm
