// Numbered schema migrations (sql/NNN_name.sql), applied in order, each recorded in
// schema_migrations so that `supportcrm-admin migrate` is idempotent.
#pragma once

#include <string>
#include <vector>

#include "db/db.h"

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

// Applies the migrations not yet recorded; returns their names. Serialized across concurrent
// runs with a named lock.
std::vector<std::string> apply_migrations(Db& db, const std::string& dir);

}  // namespace supportcrm
