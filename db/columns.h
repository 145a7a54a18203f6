// Result-column positions that follow from the SQL text, checked at compile time.
//
// A reader must not index a row by numbers written down in another file: a column added to a
// shared list would shift them silently. Instead every column list is a macro whose size is
// counted from its own text (count_columns), every statement's row is described as consecutive
// runs of such lists (ColumnRun), and a SUPPORTCRM_LAYOUT_CHECK (a static_assert) beside the
// statement checks that the runs add up to the columns the statement selects (result_columns).
// Readers index by the runs and by named offsets inside them.
#pragma once

#include <string_view>

namespace supportcrm {

namespace columns_detail {

// Whether sql has word at index i.
constexpr bool word_at(std::string_view sql, std::size_t i, std::string_view word) {
    return sql.substr(i, word.size()) == word;
}

// Top-level commas of sql[from, to) + 1, and `to` moved to the first top-level `stop` (or the
// end when stop is empty or absent).
struct Count {
    unsigned columns;
    std::size_t end;
};
constexpr Count count_until(std::string_view sql, std::size_t from, std::string_view stop) {
    unsigned commas = 0;
    int depth = 0;
    char quote = 0;
    for (std::size_t i = from; i < sql.size(); ++i) {
        const char c = sql[i];
        if (quote != 0) {
            if (c == quote) {
                quote = 0;
            }
        } else if (c == '\'' || c == '"' || c == '`') {
            quote = c;
        } else if (c == '(') {
            ++depth;
        } else if (c == ')') {
            --depth;
        } else if (depth == 0 && c == ',') {
            ++commas;
        } else if (depth == 0 && !stop.empty() && word_at(sql, i, stop)) {
            return {commas + 1, i};
        }
    }
    return {commas + 1, sql.size()};
}

// The first top-level occurrence of word in sql, or npos.
constexpr std::size_t find_top_level(std::string_view sql, std::string_view word) {
    const Count c = count_until(sql, 0, word);
    return c.end == sql.size() ? std::string_view::npos : c.end;
}

}  // namespace columns_detail

// The number of expressions in a bare column list ("a, f(b, c) AS x, d" is 3).
constexpr unsigned count_columns(std::string_view list) {
    return columns_detail::count_until(list, 0, {}).columns;
}

// The number of columns a statement's rows have: its top-level SELECT list, or what an
// INSERT/UPDATE … RETURNING returns; 0 for a statement that returns no rows.
constexpr unsigned result_columns(std::string_view sql) {
    using namespace columns_detail;
    constexpr std::string_view kReturning = " RETURNING ";
    if (const std::size_t r = find_top_level(sql, kReturning); r != std::string_view::npos) {
        return count_until(sql, r + kReturning.size(), {}).columns;
    }
    constexpr std::string_view kSelect = "SELECT ";
    if (!word_at(sql, 0, kSelect)) {
        return 0;
    }
    return count_until(sql, kSelect.size(), " FROM ").columns;
}

namespace columns_detail {

constexpr bool identifier_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// Whether one expression of a column list is column `name`: its alias (`… AS name`), or it reads
// `<table>.name` (so `SUPPORTCRM_MILLIS("t.date")` is `date`, `t.id` is `id`); a qualified
// name (`s.id`) must appear as such.
constexpr bool names(std::string_view item, std::string_view name) {
    if (name.find('.') != std::string_view::npos) {  // qualified: `s.id`, not `cu.id`
        for (std::size_t at = item.find(name); at != std::string_view::npos;
             at = item.find(name, at + 1)) {
            const std::size_t end = at + name.size();
            if ((at == 0 || !identifier_char(item[at - 1])) &&
                (end == item.size() || !identifier_char(item[end]))) {
                return true;
            }
        }
        return false;
    }
    constexpr std::string_view kAs = " AS ";
    if (const std::size_t as = item.rfind(kAs); as != std::string_view::npos) {
        if (item.substr(as + kAs.size()) == name) {
            return true;
        }
    }
    for (std::size_t at = item.find('.'); at != std::string_view::npos;
         at = item.find('.', at + 1)) {
        const std::size_t end = at + 1 + name.size();
        if (item.substr(at + 1, name.size()) == name &&
            (end == item.size() || !identifier_char(item[end]))) {
            return true;
        }
    }
    return false;
}

// The index of the first top-level comma of list at or after from, or list.size().
constexpr std::size_t next_column(std::string_view list, std::size_t from) {
    int depth = 0;
    char quote = 0;
    for (std::size_t i = from; i < list.size(); ++i) {
        const char c = list[i];
        if (quote != 0) {
            quote = c == quote ? 0 : quote;
        } else if (c == '\'' || c == '"' || c == '`') {
            quote = c;
        } else if (c == '(' || c == ')') {
            depth += c == '(' ? 1 : -1;
        } else if (depth == 0 && c == ',') {
            return i;
        }
    }
    return list.size();
}

}  // namespace columns_detail

// The 0-based position of column `name` in a bare column list (see columns_detail::names). Not
// a constant expression — so a compile error where it initialises a constexpr — when no
// column, or more than one, has that name: row offsets are looked up in the list the SQL is
// made of, never counted by hand, and cannot fall out of order with it.
constexpr unsigned column_of(std::string_view list, std::string_view name) {
    unsigned found = 0, matches = 0;
    std::size_t from = 0;
    for (unsigned position = 0; from <= list.size(); ++position) {
        const std::size_t end = columns_detail::next_column(list, from);
        std::string_view item = list.substr(from, end - from);
        while (!item.empty() && item.front() == ' ') {
            item.remove_prefix(1);
        }
        if (columns_detail::names(item, name)) {
            found = position;
            ++matches;
        }
        from = end + 1;
    }
    if (matches != 1) {
        throw "column_of: the list has no column, or more than one, of this name";
    }
    return found;
}

// `count` consecutive result columns starting at `first` (1-based, as sql::ResultSet counts).
struct ColumnRun {
    unsigned first;
    unsigned count;
    // The column `offset` places into the run.
    constexpr unsigned operator[](unsigned offset) const { return first + offset; }
    // The first column after the run.
    constexpr unsigned next() const { return first + count; }
    // The run that follows this one.
    constexpr ColumnRun then(unsigned n) const { return {next(), n}; }
    // The last column of the run.
    constexpr unsigned last() const { return first + count - 1; }
};

namespace layout::returned_id {  // INSERT … RETURNING id
constexpr unsigned id = 1;
}

// Shared pieces of the SQL vocabulary (db/statements.h gathers every statement; each statement's
// text sits in the <resource>_sql.h its repository includes).
//
// The SQL is laid out by hand: clang-format splits string literals around macro calls in ways
// that make the statements hard to read.
// clang-format off

// A DATETIME(3) as milliseconds since the epoch (BIGINT; session time zone is UTC): read with
// iso_datetime(), no text formatted and parsed back on either side of the connection.
// Expressions get short aliases: Connector/C++ upper-cases every column name of every result.
#define SUPPORTCRM_MILLIS(column) SUPPORTCRM_MILLIS_VALUE(column) " AS ms"
// The same expression without the alias (inside another expression: JSON_ARRAY(...)).
#define SUPPORTCRM_MILLIS_VALUE(column) "TIMESTAMPDIFF(MICROSECOND, '1970-01-01', " column ") DIV 1000"

// Defines sql_text::<name>, the text of one entry S(name, (params), SQL) of a statement list
// (each <resource>_sql.h applies it to its own list), for the layouts' static_asserts.
#define SUPPORTCRM_SQL_TEXT(name, params, ...) inline constexpr char name[] = __VA_ARGS__;

// clang-format on

}  // namespace supportcrm

// A static_assert on a statement's layout, compiled in one file: db/statements.cpp defines
// SUPPORTCRM_CHECK_STATEMENT_LAYOUTS before its first include, and includes every statement
// list. Evaluating all the checks (result_columns over each statement's text) took about 2 s of
// compile time in each of the ~20 files of db/ that include a list; elsewhere a check is an
// empty declaration.
#ifdef SUPPORTCRM_CHECK_STATEMENT_LAYOUTS
#define SUPPORTCRM_LAYOUT_CHECK(...) static_assert(__VA_ARGS__)
#else
#define SUPPORTCRM_LAYOUT_CHECK(...) static_assert(true)
#endif
