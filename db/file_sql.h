// The statements of files (extensions.md §E13; sql/025) and the layout of their rows. Included
// by db/statements.h (which gathers every statement list) and file_repo.cpp (their reader).
#pragma once

#include "db/columns.h"

namespace supportcrm {

// clang-format off

// A file row as the file shape shows it (FileRow).
#define SUPPORTCRM_FILE_COLUMNS \
    "f.id, f.filename, f.content_type, f.size, f.sha256, " SUPPORTCRM_MILLIS("f.created_at")

namespace sql_text {
// The statements: one entry each, S(name, (params), SQL) (db/auth_sql.h); the line below
// defines sql_text::<name> for the layouts.
#define SUPPORTCRM_FILE_STATEMENTS(S, K)                                                           \
    S(file_insert, (Id, Text, Text, Id, Text, Time),                                               \
      "INSERT INTO files (shop_id, filename, content_type, size, sha256, created_at) "             \
      "VALUES (?, ?, ?, ?, ?, ?) RETURNING id")                                                    \
    /* The key's shop's file (GET /files/{id}, /meta): another shop's id reads as none. */         \
    S(file_of_shop, (Id, Id),                                                                      \
      "SELECT " SUPPORTCRM_FILE_COLUMNS " FROM files f WHERE f.id = ? AND f.shop_id = ?")          \
    /* A signed link's file: the signature, not a key, says which shop's. */                       \
    S(file_by_id, (Id),                                                                            \
      "SELECT " SUPPORTCRM_FILE_COLUMNS " FROM files f JOIN shops sh ON sh.id = f.shop_id "        \
      "WHERE f.id = ? AND sh.deleted_at IS NULL")                                                  \
    /* Whether any row names these bytes, before they are removed (an erasure, the sweep). A */    \
    /* locking read: it waits for an upload's inserted, uncommitted row and then sees it, so */    \
    /* bytes a row is about to name are never removed (common/file_store.h). */                    \
    S(file_sha_named, (Text),                                                                      \
      "SELECT 1 FROM files WHERE sha256 = ? LIMIT 1 LOCK IN SHARE MODE")                            \
    /* Erasure (extensions.md E9): files of the customer's comments, a batch at a time. The */    \
    /* shop's files bound too: the optimizer starts from them when the shop has fewer files */    \
    /* than the customer has comments (it walked every comment of the customer otherwise, a */    \
    /* batch). Not a locking read: FOR UPDATE locked every ticket and comment row the join */     \
    /* passed, so a batch held the customer's tickets while it waited for one comment's lock, */  \
    /* and a comment on such a ticket (its touch) waited behind it. file_delete locks what goes: */ \
    /* the file (a comment attaching it holds its shared lock: the delete waits for its commit). */ \
    S(erase_files_next, (Id, Id, UInt),                                                            \
      "SELECT f.id, f.sha256 FROM conversations c JOIN messages m ON m.conversation_id = c.id "    \
      "JOIN message_files mf ON mf.message_id = m.id JOIN files f ON f.id = mf.file_id "           \
      "WHERE f.shop_id = ? AND c.customer_id = ? LIMIT ?")                                         \
    /* Its message_files rows go with it (ON DELETE CASCADE, sql/025). */                          \
    S(file_delete, (Id), "DELETE FROM files WHERE id = ?")
SUPPORTCRM_FILE_STATEMENTS(SUPPORTCRM_SQL_TEXT, SUPPORTCRM_KEYED_SQL_TEXT)

}  // namespace sql_text
// clang-format on

namespace layout {
namespace file_row {  // file_of_shop, file_by_id
constexpr unsigned id = 1, filename = 2, content_type = 3, size = 4, sha256 = 5, created_at = 6;
SUPPORTCRM_LAYOUT_CHECK(created_at == result_columns(sql_text::file_of_shop));
SUPPORTCRM_LAYOUT_CHECK(created_at == result_columns(sql_text::file_by_id));
}  // namespace file_row
namespace erase_files_next {
constexpr unsigned id = 1, sha256 = 2;
SUPPORTCRM_LAYOUT_CHECK(sha256 == result_columns(sql_text::erase_files_next));
}  // namespace erase_files_next
namespace returned_id {  // file_insert
SUPPORTCRM_LAYOUT_CHECK(result_columns(sql_text::file_insert) == 1);
}
}  // namespace layout

}  // namespace supportcrm
