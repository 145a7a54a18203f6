#include "db/migrations.h"

#include <cppconn/exception.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "common/log.h"
#include "common/text.h"
#include "common/time_util.h"
#include "db/migration_leftovers.h"

namespace supportcrm {
namespace fs = std::filesystem;

std::vector<Migration> list_migrations(const std::string& dir) {
    std::error_code ec;
    fs::directory_iterator it(dir, ec);
    if (ec) {
        throw std::runtime_error("cannot read migrations-dir " + dir + ": " +
                                 log::errno_as_user(ec.value()));
    }
    std::vector<Migration> out;
    for (const fs::directory_entry& entry : it) {
        std::string file = entry.path().filename().string();
        auto underscore = file.find('_');
        if (entry.path().extension() != ".sql" || underscore == std::string::npos ||
            !text::is_digits(std::string_view(file).substr(0, underscore))) {
            continue;
        }
        out.push_back({std::stoi(file.substr(0, underscore)), entry.path().stem().string(),
                       entry.path().string()});
    }
    std::sort(out.begin(), out.end(),
              [](const Migration& a, const Migration& b) { return a.version < b.version; });
    for (std::size_t i = 1; i < out.size(); ++i) {
        if (out[i].version == out[i - 1].version) {
            throw std::runtime_error("two migrations share version " +
                                     std::to_string(out[i].version));
        }
    }
    return out;
}

std::vector<std::string> split_sql(const std::string& script) {
    std::vector<std::string> out;
    std::string current;
    char quote = 0;
    for (std::size_t i = 0; i < script.size(); ++i) {
        char c = script[i];
        if (quote != 0) {
            current.push_back(c);
            if (c == '\\' && i + 1 < script.size()) {
                current.push_back(script[++i]);
            } else if (c == quote) {
                quote = 0;
            }
            continue;
        }
        if (c == '-' && i + 1 < script.size() && script[i + 1] == '-') {
            while (i < script.size() && script[i] != '\n') {
                ++i;
            }
            current.push_back('\n');
            continue;
        }
        if (c == '\'' || c == '"' || c == '`') {
            quote = c;
        }
        if (c == ';') {
            if (!text::trim(current).empty()) {
                out.emplace_back(text::trim(current));
            }
            current.clear();
            continue;
        }
        current.push_back(c);
    }
    if (!text::trim(current).empty()) {
        out.emplace_back(text::trim(current));
    }
    return out;
}

namespace {

std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        const int err = errno;
        throw std::runtime_error("cannot read " + path + ": " + log::errno_as_user(err));
    }
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

constexpr int kErNoSuchTable = 1146;

// The recorded migrations, in version order; none when schema_migrations does not exist yet.
// Not the marks of migrations running (version -N, db/migration_leftovers.h).
std::vector<AppliedMigration> recorded_migrations(sql::Connection& con) {
    std::vector<AppliedMigration> out;
    try {
        std::unique_ptr<sql::Statement> st(con.createStatement());
        ResultSetPtr rs(st->executeQuery(
            "SELECT version, name, DATE_FORMAT(applied_at, '%Y-%m-%d %H:%i:%s.%f') "
            "FROM schema_migrations WHERE version > 0 ORDER BY version"));
        while (rs->next()) {
            std::string at = rs->getString(3);
            at.resize(std::min<std::size_t>(at.size(), 23));  // milliseconds, as recorded
            out.push_back({rs->getInt(1), rs->getString(2), at});
        }
    } catch (const sql::SQLException& e) {
        if (e.getErrorCode() != kErNoSuchTable) {
            throw;
        }
    }
    return out;
}

std::set<int> versions_of(const std::vector<AppliedMigration>& applied) {
    std::set<int> out;
    for (const AppliedMigration& m : applied) {
        out.insert(m.version);
    }
    return out;
}

// Serializes concurrent `migrate` runs (two deploy hosts, say) on one database.
class MigrationLock {
  public:
    explicit MigrationLock(sql::Connection& con) : st_(con.createStatement()) {
        ResultSetPtr rs(st_->executeQuery("SELECT GET_LOCK('supportcrm_migrate', 60)"));
        if (!rs->next() || rs->isNull(1) || rs->getInt(1) != 1) {
            throw std::runtime_error("another migrate holds the lock; try again");
        }
    }
    ~MigrationLock() {
        try {
            ResultSetPtr rs(st_->executeQuery("SELECT RELEASE_LOCK('supportcrm_migrate')"));
        } catch (const sql::SQLException&) {
            // The lock dies with the connection anyway.
        }
    }

  private:
    std::unique_ptr<sql::Statement> st_;
};

}  // namespace

std::string read_migration(const Migration& m) {
    return read_file(m.path);
}

MigrationStatus migration_status(Db& db, const std::string& dir) {
    MigrationStatus out;
    try {
        out.applied = recorded_migrations(db.connection());
    } catch (const sql::SQLException& e) {
        throw std::runtime_error(std::string("reading schema_migrations failed: ") + e.what() +
                                 " (code " + std::to_string(e.getErrorCode()) + ")");
    }
    const std::set<int> done = versions_of(out.applied);
    for (Migration& m : list_migrations(dir)) {
        if (!done.count(m.version)) {
            out.pending.push_back(std::move(m));
        }
    }
    return out;
}

MigrateResult apply_migrations(Db& db, const std::string& dir) {
    std::vector<Migration> migrations = list_migrations(dir);
    MigrateResult result;
    std::vector<std::string>& applied = result.applied;
    sql::Connection& con = db.connection();
    const char* step = "schema_migrations";
    try {
        MigrationLock lock(con);
        std::unique_ptr<sql::Statement> st(con.createStatement());
        st->execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations (version INT NOT NULL PRIMARY KEY, "
            "name VARCHAR(255) NOT NULL, applied_at DATETIME(3) NOT NULL) "
            "ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin");
        std::set<int> done = versions_of(recorded_migrations(con));
        refuse_leftover_tables(con, migrations, done);  // before anything is applied
        std::unique_ptr<sql::PreparedStatement> record(con.prepareStatement(
            "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)"));
        for (const Migration& m : migrations) {
            if (done.count(m.version)) {
                continue;
            }
            step = m.name.c_str();
            mark_started(con, m);  // its own tables' rows are its work if it is cut short
            // MariaDB commits DDL implicitly, so a migration is not atomic: keep each file to
            // statements that can be re-run by hand if one fails midway.
            for (const std::string& statement : split_sql(read_file(m.path))) {
                st->execute(statement);
            }
            record->setInt(1, m.version);
            record->setString(2, m.name);
            record->setString(3, timeutil::format_db(timeutil::now_ms()));
            record->execute();
            unmark_started(con, m);
            applied.push_back(m.name);
        }
        // SQL cannot fold words as the service does (ICU's NFKC_Casefold): sql/018 leaves the
        // re-index to this step, which every migrate runs until it is finished, so that one cut
        // short goes on from where it stopped (a no-op of one statement per table after that).
        step = "018_words_nfkc_casefold (the re-index)";
        result.reindexed = reindex_search_words(db);
    } catch (const sql::SQLException& e) {
        throw std::runtime_error(std::string("migration ") + step + " failed: " + e.what() +
                                 " (code " + std::to_string(e.getErrorCode()) + ")");
    } catch (const DbError& e) {
        throw std::runtime_error(std::string("migration ") + step + " failed: " + e.what());
    }
    return result;
}

}  // namespace supportcrm
