// The table Db prepares from: each statement's name, text and whether it writes (what the
// WriteLedger counts, read from its SQL text), checked at compile time.
//
// Only db/statements.cpp includes this: nothing else needs the statements' texts, and the
// files that only name a statement (db/statements.h) should not compile them. (The compile
// time that mattered was the layout checks of the statement lists: SUPPORTCRM_LAYOUT_CHECK,
// db/columns.h.)
#pragma once

#include <iterator>
#include <string_view>

#include "db/statements.h"

namespace supportcrm {

namespace statement_text {

// The statement proper of "SET STATEMENT var = value FOR <statement>" (MariaDB: a session
// variable for one statement), else the text itself.
constexpr std::string_view proper(std::string_view sql) {
    constexpr std::string_view kSetStatement = "SET STATEMENT ", kFor = " FOR ";
    if (sql.substr(0, kSetStatement.size()) != kSetStatement) {
        return sql;
    }
    const std::size_t f = sql.find(kFor);
    return f == std::string_view::npos ? sql : sql.substr(f + kFor.size());
}

constexpr bool starts_with(std::string_view sql, std::string_view word) {
    return sql.substr(0, word.size()) == word;
}

// Whether the statement changes data: INSERT, UPDATE, DELETE or REPLACE.
constexpr bool writes(std::string_view sql) {
    const std::string_view s = proper(sql);
    return starts_with(s, "INSERT") || starts_with(s, "UPDATE") || starts_with(s, "DELETE") ||
           starts_with(s, "REPLACE");
}

// Every statement either writes or is a SELECT: anything else (a CALL, a LOAD) could write
// without the ledger knowing, and a request could then be run twice after a lost connection.
constexpr bool writes_or_selects(std::string_view sql) {
    return writes(sql) || starts_with(proper(sql), "SELECT");
}

}  // namespace statement_text

struct StatementSpec {
    const char* name;
    const char* sql;
    bool writes;  // changes data: counted by the WriteLedger
};

// clang-format off
#define SUPPORTCRM_STMT_SPEC(name, params, ...) StatementSpec{#name, __VA_ARGS__, statement_text::writes(__VA_ARGS__)},
#define SUPPORTCRM_KEYED_SPEC(name, params, columns, joins, tail) StatementSpec{#name, SUPPORTCRM_KEYED_SQL(columns, joins, tail), false},
inline constexpr StatementSpec kStatements[] = {SUPPORTCRM_STATEMENTS(SUPPORTCRM_STMT_SPEC, SUPPORTCRM_KEYED_SPEC)};
#undef SUPPORTCRM_STMT_SPEC
#undef SUPPORTCRM_KEYED_SPEC
// clang-format on
static_assert(std::size(kStatements) == kStatementCount);

constexpr bool every_statement_writes_or_selects() {
    for (const StatementSpec& s : kStatements) {
        if (!statement_text::writes_or_selects(s.sql)) {
            return false;
        }
    }
    return true;
}
static_assert(every_statement_writes_or_selects(),
              "a statement must be a SELECT or INSERT/UPDATE/DELETE/REPLACE");

constexpr const StatementSpec& statement_spec(Stmt id) {
    return kStatements[static_cast<std::size_t>(id)];
}

}  // namespace supportcrm
