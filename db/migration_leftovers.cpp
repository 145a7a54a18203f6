#include "db/migration_leftovers.h"

#include <algorithm>
#include <string_view>
#include <tuple>

#include "common/text.h"
#include "common/time_util.h"

namespace supportcrm {
namespace {

// The words of a statement's head, up to its first '(' (a CREATE TABLE's columns, a trigger's
// body): split at white space and commas (DROP TABLE a, b), backquotes taken off the names.
std::vector<std::string> head_words(std::string_view statement) {
    std::vector<std::string> out;
    std::string word;
    for (char c : statement) {
        if (c == '(' || c == ',' || c == ' ' || c == '\t' || c == '\n' || c == '\r') {
            if (!word.empty()) {
                out.push_back(std::move(word));
                word.clear();
            }
            if (c == '(') {
                return out;
            }
        } else if (c != '`') {
            word.push_back(c);
        }
    }
    if (!word.empty()) {
        out.push_back(std::move(word));
    }
    return out;
}

// Moves `at` past the keywords `seq` when the words there are they (case-insensitive).
bool skip(const std::vector<std::string>& w, std::size_t& at,
          std::initializer_list<std::string_view> seq) {
    std::size_t i = at;
    for (std::string_view k : seq) {
        if (i >= w.size() || !text::iequals(w[i], k)) {
            return false;
        }
        ++i;
    }
    at = i;
    return true;
}

// The table a CREATE TABLE statement creates and keeps, or "" (not one, OR REPLACE, TEMPORARY).
std::string created_table(const std::vector<std::string>& w) {
    std::size_t at = 0;
    if (!skip(w, at, {"CREATE"}) || skip(w, at, {"OR", "REPLACE"}) || skip(w, at, {"TEMPORARY"}) ||
        !skip(w, at, {"TABLE"})) {
        return "";
    }
    skip(w, at, {"IF", "NOT", "EXISTS"});
    return at < w.size() ? w[at] : "";
}

// The tables a DROP TABLE statement drops.
std::vector<std::string> dropped_tables(const std::vector<std::string>& w) {
    std::size_t at = 0;
    if (!skip(w, at, {"DROP"})) {
        return {};
    }
    skip(w, at, {"TEMPORARY"});
    if (!skip(w, at, {"TABLE"})) {
        return {};
    }
    skip(w, at, {"IF", "EXISTS"});
    return {w.begin() + static_cast<std::ptrdiff_t>(at), w.end()};
}

// The new names of a RENAME TABLE a TO b, c TO d.
std::vector<std::string> renamed_to(const std::vector<std::string>& w) {
    std::size_t at = 0;
    if (!skip(w, at, {"RENAME", "TABLE"})) {
        return {};
    }
    std::vector<std::string> out;
    for (; at + 2 < w.size(); at += 3) {
        if (text::iequals(w[at + 1], "TO")) {
            out.push_back(w[at + 2]);
        }
    }
    return out;
}

}  // namespace

std::vector<std::string> tables_created(const std::string& script) {
    std::set<std::string> dropped;
    std::vector<std::string> out;
    auto keep = [&](const std::string& table) {
        if (!table.empty() && !dropped.count(table) &&
            std::find(out.begin(), out.end(), table) == out.end()) {
            out.push_back(table);
        }
    };
    for (const std::string& statement : split_sql(script)) {
        const std::vector<std::string> w = head_words(statement);
        for (const std::string& t : dropped_tables(w)) {
            dropped.insert(t);
        }
        keep(created_table(w));
        for (const std::string& t : renamed_to(w)) {
            keep(t);
        }
    }
    return out;
}

std::map<std::string, Migration> table_owners(const std::vector<Migration>& migrations) {
    std::map<std::string, Migration> out;
    for (const Migration& m : migrations) {
        for (const std::string& table : tables_created(read_migration(m))) {
            out.emplace(table, m);  // the first creator stays
        }
    }
    return out;
}

namespace {

std::set<std::string> tables_of_database(sql::Connection& con) {
    std::unique_ptr<sql::Statement> st(con.createStatement());
    ResultSetPtr rs(st->executeQuery(
        "SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE()"));
    std::set<std::string> out;
    while (rs->next()) {
        out.insert(rs->getString(1));
    }
    return out;
}

std::set<int> started_migrations(sql::Connection& con) {
    std::unique_ptr<sql::Statement> st(con.createStatement());
    ResultSetPtr rs(st->executeQuery("SELECT -version FROM schema_migrations WHERE version < 0"));
    std::set<int> out;
    while (rs->next()) {
        out.insert(rs->getInt(1));
    }
    return out;
}

bool holds_rows(sql::Connection& con, const std::string& table) {
    std::unique_ptr<sql::Statement> st(con.createStatement());
    // The names come from the migration files: letters, digits and '_'.
    ResultSetPtr rs(st->executeQuery("SELECT EXISTS (SELECT 1 FROM `" + table + "`)"));
    return rs->next() && rs->getBoolean(1);
}

// (the migration's version, the table, the migration's name)
using Leftover = std::tuple<int, std::string, std::string>;

std::string refusal(const std::vector<Leftover>& found) {
    std::string tables;
    for (const auto& [version, table, migration] : found) {
        tables += (tables.empty() ? "" : ", ") + table + " (" + migration + ")";
    }
    return "refusing to migrate: " + std::string(found.size() == 1 ? "table " : "tables ") +
           tables +
           " already hold rows, but the migrations in parentheses, which create them, are not "
           "applied to this database: a dump of an older schema was restored into the existing "
           "database, whose later tables kept rows of records the dump does not have (they "
           "would answer searches and filters for new records). Nothing was applied. Restore "
           "into a new, empty database: drop and create it, load the dump, then run migrate "
           "(docs/operations.md, \"Backup and restore\").";
}

}  // namespace

void refuse_leftover_tables(sql::Connection& con, const std::vector<Migration>& migrations,
                            const std::set<int>& done) {
    const std::set<std::string> existing = tables_of_database(con);
    const std::set<int> started = started_migrations(con);
    std::vector<Leftover> found;
    for (const auto& [table, owner] : table_owners(migrations)) {
        if (!done.count(owner.version) && !started.count(owner.version) && existing.count(table) &&
            holds_rows(con, table)) {
            found.emplace_back(owner.version, table, owner.name);
        }
    }
    if (!found.empty()) {
        std::sort(found.begin(), found.end());
        throw std::runtime_error(refusal(found));
    }
}

void mark_started(sql::Connection& con, const Migration& m) {
    std::unique_ptr<sql::PreparedStatement> st(con.prepareStatement(
        "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?) "
        "ON DUPLICATE KEY UPDATE name = VALUES(name)"));
    st->setInt(1, -m.version);
    st->setString(2, m.name);
    st->setString(3, timeutil::format_db(timeutil::now_ms()));
    st->execute();
}

void unmark_started(sql::Connection& con, const Migration& m) {
    std::unique_ptr<sql::PreparedStatement> st(
        con.prepareStatement("DELETE FROM schema_migrations WHERE version = ?"));
    st->setInt(1, -m.version);
    st->execute();
}

}  // namespace supportcrm
