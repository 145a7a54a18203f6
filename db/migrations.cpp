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

// One batch of a backfill. The service writes the same rows meanwhile: a batch the server
// chose as a deadlock's victim (or whose lock wait timed out) was rolled back whole, and runs
// again; the service's request got its rows.
void run_batch(sql::Statement& st, const std::string& statement) {
    constexpr int kAttempts = 20;
    for (int attempt = 1;; ++attempt) {
        try {
            st.execute(statement);
            return;
        } catch (const sql::SQLException& e) {
            if (attempt >= kAttempts || !Db::is_rerunnable_conflict(e.getErrorCode())) {
                throw;
            }
        }
    }
}

// A backfill over a big table is written for the ids `BETWEEN @batch_lo AND @batch_hi` of the
// table a statement before it names (SET @batch_table = 'conversations', @batch_size = 2000,
// @batch_lo = 0, @batch_hi = 18446744073709551615: the whole range, so that the file also runs
// by hand, in one statement). Here it runs once per @batch_size ids up to the table's largest,
// each run its own autocommit transaction: no row it writes stays locked longer than a batch
// (a write to a ticket waited seconds behind one UPDATE of every ticket), and on Galera each
// batch is a write set of its own.
void run_in_batches(sql::Statement& st, const std::string& statement) {
    std::string table;
    std::uint64_t size = 0;
    {
        ResultSetPtr rs(st.executeQuery("SELECT @batch_table, @batch_size"));
        if (rs->next() && !rs->isNull(1) && !rs->isNull(2)) {
            table = rs->getString(1);
            size = rs->getUInt64(2);
        }
    }
    const bool plain_name =
        !table.empty() &&
        table.find_first_not_of("abcdefghijklmnopqrstuvwxyz_") == std::string::npos;
    if (!plain_name || size == 0) {
        throw std::runtime_error(
            "a statement with @batch_hi needs @batch_table (a table name) and "
            "@batch_size set before it");
    }
    std::uint64_t largest = 0;
    {
        ResultSetPtr rs(st.executeQuery("SELECT COALESCE(MAX(id), 0) FROM " + table));
        largest = rs->next() ? rs->getUInt64(1) : 0;
    }
    for (std::uint64_t lo = 0; lo <= largest; lo += size) {
        st.execute("SET @batch_lo = " + std::to_string(lo) +
                   ", @batch_hi = " + std::to_string(lo + size - 1));
        run_batch(st, statement);
    }
}

// One file's statements, then its row in schema_migrations.
void apply_file(sql::Statement& st, sql::PreparedStatement& record, const Migration& m) {
    // A backfill's INSERT ... SELECT (or UPDATE ... JOIN) reads what committed, without the
    // shared lock REPEATABLE READ puts on every row it reads: the service's writes to those
    // rows go on meanwhile instead of waiting for the whole statement. Before each file, since
    // a file may set its own.
    st.execute("SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED");
    // MariaDB commits DDL implicitly, so a migration is not atomic: keep each file to
    // statements that can be re-run by hand if one fails midway.
    for (const std::string& statement : split_sql(read_file(m.path))) {
        if (statement.find("BETWEEN @batch_lo AND @batch_hi") != std::string::npos) {
            run_in_batches(st, statement);
        } else {
            st.execute(statement);
        }
    }
    record.setInt(1, m.version);
    record.setString(2, m.name);
    record.setString(3, timeutil::format_db(timeutil::now_ms()));
    record.execute();
}

// sql/018 adds search_reindex, whose walk every migrate after it finishes; sql/020 its recheck.
constexpr int kReindexTableVersion = 18;
constexpr int kRecheckColumnVersion = 20;

// SQL cannot fold words as the service does (ICU's NFKC_Casefold): sql/018 leaves the re-index
// to this step, which every migrate runs until it is finished, so that one cut short goes on
// from where it stopped (a no-op of one statement per table after that). A walk that did
// anything asks the pool to walk again once its own workers are the only ones: the previous
// release may have been serving meanwhile (sql/020).
void finish_reindex(Db& db, const std::set<int>& done, MigrateResult& result) {
    if (!done.count(kReindexTableVersion)) {
        return;  // a migrations dir that stops before sql/018 (a test's older schema)
    }
    result.reindexed = reindex_search_words(db);
    if (result.reindexed.tickets + result.reindexed.customers > 0 &&
        done.count(kRecheckColumnVersion)) {
        request_recheck(db);
    }
}

}  // namespace

bool wait_while_migrating(Db& db, const KeepGoing& keep_going, bool& waited) {
    std::unique_ptr<sql::Statement> st(db.connection().createStatement());
    waited = false;
    while (keep_going()) {
        // A second at a time, so that a stop is seen; released at once: a barrier, not a hold
        // (a migrate that starts next interleaves its batches with ours, each locked).
        ResultSetPtr rs(st->executeQuery("SELECT GET_LOCK('supportcrm_migrate', 1)"));
        if (rs->next() && !rs->isNull(1) && rs->getInt(1) == 1) {
            ResultSetPtr released(st->executeQuery("SELECT RELEASE_LOCK('supportcrm_migrate')"));
            return true;
        }
        waited = true;
    }
    return false;
}

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
            apply_file(*st, *record, m);
            unmark_started(con, m);
            applied.push_back(m.name);
            done.insert(m.version);
        }
        step = "018_words_nfkc_casefold (the re-index)";
        finish_reindex(db, done, result);
    } catch (const sql::SQLException& e) {
        throw std::runtime_error(std::string("migration ") + step + " failed: " + e.what() +
                                 " (code " + std::to_string(e.getErrorCode()) + ")");
    } catch (const DbError& e) {
        throw std::runtime_error(std::string("migration ") + step + " failed: " + e.what());
    }
    return result;
}

}  // namespace supportcrm
