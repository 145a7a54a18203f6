// Numbered schema migrations (sql/NNN_name.sql), applied in order, each recorded in
// schema_migrations so that `supportcrm-admin migrate` is idempotent.
#pragma once

#include <string>
#include <vector>

#include "db/db.h"
#include "db/search_reindex.h"

namespace supportcrm {

struct Migration {
    int version;
    std::string name;  // file name without ".sql", e.g. "001_initial"
    std::string path;
};

// The NNN_*.sql files of dir in version order. Throws std::runtime_error on an unreadable
// directory or two files with one version.
std::vector<Migration> list_migrations(const std::string& dir);

// Splits a migration into statements at semicolons outside quotes and comments.
std::vector<std::string> split_sql(const std::string& script);

struct MigrateResult {
    std::vector<std::string> applied;  // the migrations' names
    ReindexTotals reindexed;
};

// Applies the migrations not yet recorded, then the work they leave to C++ that is not done
// yet (sql/018's re-index: db/search_reindex.h). Serialized across concurrent runs with a
// named lock.
MigrateResult apply_migrations(Db& db, const std::string& dir);

}  // namespace supportcrm
