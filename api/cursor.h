// Page cursors (extensions.md §E3): keyset cursors — the last row's sort key — opaque to
// clients and tamper-evident.
//
// A cursor is base64url (no padding) of 33 bytes: a version byte, the sort key (time in
// milliseconds and id, 8 bytes each, big-endian) and the first 16 bytes of an HMAC-SHA256 over
// the version, the scope (shop, list, parent id, filters) and the sort key, keyed with the
// installation's secret (Db::cursor_secret(), sql/003). A cursor is valid only in the scope it
// was made in: another shop's, another list's or another filter's cursor, an edited or a
// truncated one all fail to verify. Nothing about a row is readable by the client but what the
// page itself showed (its last id and time).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace supportcrm {

// Where a cursor is valid. `filters` is the canonical text of the list's filters (as compared:
// a trimmed, lower-cased email, say), so that equal filters written differently share cursors.
struct CursorScope {
    std::uint64_t shop_id = 0;
    std::string_view list;        // "customers", "tickets", "comments"
    std::uint64_t parent_id = 0;  // the ticket of a comment list, else 0
    std::string filters;
};

// The last row of a page: lists by id use only id.
struct SortKey {
    std::int64_t time = 0;
    std::uint64_t id = 0;
    bool operator==(const SortKey&) const = default;
};

std::string encode_cursor(std::string_view secret, const CursorScope& scope, const SortKey& key);

// The sort key of a cursor made by encode_cursor with the same secret and scope; nullopt for
// anything else.
std::optional<SortKey> decode_cursor(std::string_view secret, const CursorScope& scope,
                                     std::string_view cursor);

}  // namespace supportcrm

namespace supportcrm {

// A page read with limit + 1 rows: drops the row beyond the page and returns the cursor of the
// page's last row, or nullopt when no row follows (also when the page is exactly full).
template <typename Row, typename KeyOf>
std::optional<std::string> finish_page(std::vector<Row>& rows, std::uint64_t limit,
                                       std::string_view secret, const CursorScope& scope,
                                       KeyOf key_of) {
    if (rows.size() <= limit) {
        return std::nullopt;
    }
    rows.resize(limit);
    return encode_cursor(secret, scope, key_of(rows.back()));
}

}  // namespace supportcrm
