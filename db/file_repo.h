// Files' rows (extensions.md §E13; sql/025, db/file_sql.h). The bytes are common/file_store.h's.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/time_util.h"
#include "db/db.h"

namespace supportcrm {

struct FileRow {
    std::uint64_t id = 0;
    std::string filename;
    std::string content_type;
    std::uint64_t size = 0;
    std::string sha256;
    timeutil::Millis created_at = 0;
};

// The new row's id; inside the caller's transaction.
std::uint64_t insert_file(Db& db, std::uint64_t shop_id, const FileRow& file);

// The shop's file, or none (another shop's id reads as none).
std::optional<FileRow> find_shop_file(Db& db, std::uint64_t shop_id, std::uint64_t file_id);

// A file of any live shop (a signed link's: the signature says which).
std::optional<FileRow> find_file(Db& db, std::uint64_t file_id);

// Whether a row names these bytes (a locking read: see db/file_sql.h). Its own statement; in a
// transaction of the caller's or alone.
bool file_bytes_named(Db& db, const std::string& sha256);

// Erasure (extensions.md §E9): deletes up to `batch` files of the customer's comments in one
// transaction of its own; returns the rows it found (fewer than batch: none left) and, in
// `erased`, the sha256 of each file deleted (whose bytes the caller may remove once no row
// names them: file_bytes_named).
std::size_t erase_files_batch(Db& db, std::uint64_t shop_id, std::uint64_t customer_id,
                              unsigned batch, std::vector<std::string>& erased);

}  // namespace supportcrm
