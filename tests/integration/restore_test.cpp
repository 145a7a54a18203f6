// Backup and restore (docs/operations.md), issue 43: a dump of an older schema restored into the
// existing database, rather than a new one, leaves the tables of later migrations with rows of
// records the dump does not have; `supportcrm-admin migrate` refuses such a database instead of
// keeping them, and the documented restore (drop and create the database, load the dump,
// migrate) gives a consistent one. On a scratch database of the stack's MariaDB, reached as its
// root over the socket (the stacks' root has no password), with mariadb-dump and mariadb.
#include <sys/wait.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "harness.h"

#ifndef SUPPORTCRM_SQL_DIR
#error "SUPPORTCRM_SQL_DIR must name the repository's sql/ directory"
#endif

namespace {

namespace fs = std::filesystem;

struct Shell {
    int status = -1;
    std::string out;  // stdout and stderr
};

Shell shell(const std::string& command) {
    Shell r;
    FILE* p = popen((command + " 2>&1").c_str(), "r");
    if (p == nullptr) {
        throw std::runtime_error("popen failed: " + command);
    }
    char buf[512];
    while (fgets(buf, sizeof buf, p) != nullptr) {
        r.out += buf;
    }
    const int rc = pclose(p);
    r.status = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
    return r;
}

std::string trimmed(std::string s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) {
        s.pop_back();
    }
    return s;
}

std::string quoted(const std::string& s) {
    std::string out = "'";
    for (char c : s) {
        out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    }
    return out + "'";
}

// The stack's MariaDB as root, on a scratch database named after the test, dropped (with the
// application user's grant on it) at the end.
class ScratchDatabase {
  public:
    ScratchDatabase() : name_("supportcrm_restore_" + alnum(it::unique_suffix())) {
        const auto ini = it::read_ini(it::env().config);
        user_ = ini.count("db-user") ? ini.at("db-user") : "supportcrm";
        root_without_database("CREATE DATABASE " + name_ +
                              " CHARACTER SET utf8mb4 COLLATE utf8mb4_bin");
        root_without_database("GRANT ALL PRIVILEGES ON " + name_ + ".* TO '" + user_ +
                              "'@'localhost'");
    }
    ~ScratchDatabase() {
        shell(client() + " -e " + quoted("DROP DATABASE IF EXISTS " + name_));
        shell(client() + " -e " +
              quoted("REVOKE ALL PRIVILEGES ON " + name_ + ".* FROM '" + user_ + "'@'localhost'"));
    }
    ScratchDatabase(const ScratchDatabase&) = delete;
    ScratchDatabase& operator=(const ScratchDatabase&) = delete;

    const std::string& name() const { return name_; }

    // Runs SQL as root in the scratch database; returns what it printed (tab-separated rows).
    std::string root(const std::string& sql) const {
        const Shell r = shell(client() + " --database=" + name_ + " -e " + quoted(sql));
        if (r.status != 0) {
            throw std::runtime_error("mariadb as root: " + sql + ": " + r.out);
        }
        return r.out;
    }
    std::string root_without_database(const std::string& sql) const {
        const Shell r = shell(client() + " -e " + quoted(sql));
        if (r.status != 0) {
            throw std::runtime_error("mariadb as root: " + sql + ": " + r.out);
        }
        return r.out;
    }
    void dump_to(const std::string& file) const {
        const Shell r = shell("mariadb-dump --no-defaults --socket=" + quoted(it::db_socket()) +
                              " --user=root --single-transaction --routines --triggers " + name_ +
                              " > " + quoted(file));
        if (r.status != 0) {
            throw std::runtime_error("mariadb-dump: " + r.out);
        }
    }
    void load(const std::string& file) const {
        const Shell r = shell(client() + " --database=" + name_ + " < " + quoted(file));
        if (r.status != 0) {
            throw std::runtime_error("loading the dump: " + r.out);
        }
    }
    // supportcrm-admin with the stack's configuration (its user, password, socket) on this
    // database and the migrations of `dir`.
    it::AdminResult admin(const std::string& dir, const std::vector<std::string>& args) const {
        std::vector<std::string> all{"--db-name", name_, "--migrations-dir", dir};
        all.insert(all.end(), args.begin(), args.end());
        return it::admin_raw(all);
    }

  private:
    static std::string alnum(const std::string& s) {
        std::string out;
        for (char c : s) {
            if (std::isalnum(static_cast<unsigned char>(c))) {
                out.push_back(c);
            }
        }
        return out;
    }
    static std::string client() {
        return "mariadb --no-defaults --socket=" + quoted(it::db_socket()) +
               " --user=root --batch --skip-column-names";
    }

    std::string name_;
    std::string user_;
};

// A directory holding the shipped migrations up to `last_version` (an older release's), with
// `text` in place of the file of the migration named `replaced`, if any. Removed at the end.
class MigrationsDir {
  public:
    explicit MigrationsDir(int last_version, const std::string& replaced = "",
                           const std::string& text = "")
        : path_(fs::temp_directory_path() / ("supportcrm-restore-" + it::unique_suffix())) {
        fs::create_directories(path_);
        for (const fs::directory_entry& e : fs::directory_iterator(SUPPORTCRM_SQL_DIR)) {
            const std::string file = e.path().filename().string();
            if (e.path().extension() != ".sql" || std::stoi(file.substr(0, 3)) > last_version) {
                continue;
            }
            if (e.path().stem() == replaced) {
                std::ofstream(path_ / file) << text;
            } else {
                fs::copy_file(e.path(), path_ / file);
            }
        }
    }
    ~MigrationsDir() {
        std::error_code ec;
        fs::remove_all(path_, ec);
    }
    MigrationsDir(const MigrationsDir&) = delete;
    MigrationsDir& operator=(const MigrationsDir&) = delete;
    std::string path() const { return path_.string(); }

  private:
    fs::path path_;
};

std::string highest_version(const ScratchDatabase& db) {
    return trimmed(db.root("SELECT MAX(version), SUM(version < 0) FROM schema_migrations"));
}

// The database as a release whose last migration is 011 leaves it (the migrations up to 011;
// this binary's migrate then fails at 018's re-index, which has no table yet).
void at_011(const ScratchDatabase& db) {
    const MigrationsDir old_release(11);
    const it::AdminResult r = db.admin(old_release.path(), {"migrate"});
    ASSERT_EQ(highest_version(db), "11\t0") << r.out << r.err;
}

}  // namespace

// The operator's story: a dump taken at 011 (before the search tables), the upgrade to this
// release, records written since (their search rows), the dump restored into the existing
// database. migrate refuses, names each table and the migration that creates it, applies
// nothing; the documented restore (drop, create, load, migrate: the grant on the database
// outlives the drop) migrates cleanly and keeps none of those rows.
TEST(AdminMigrate, RefusesTheTablesADumpRestoredIntoTheExistingDatabaseLeft) {
    const ScratchDatabase db;
    const std::string all = SUPPORTCRM_SQL_DIR;
    at_011(db);
    const std::string dump =
        (fs::temp_directory_path() / ("supportcrm-restore-" + it::unique_suffix() + ".sql"))
            .string();
    db.dump_to(dump);

    it::AdminResult r = db.admin(all, {"migrate"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    db.root(
        "INSERT INTO ticket_words (conversation_id, word, shop_id) VALUES (1, 'trickle', 1);"
        "INSERT INTO ticket_tags (conversation_id, tag, shop_id) VALUES (1, 'vip', 1)");
    db.load(dump);  // into the existing database: its DROP TABLEs are 001-011's tables only
    ASSERT_EQ(highest_version(db), "11\t0") << "the dump's schema_migrations";

    r = db.admin(all, {"migrate"});
    EXPECT_NE(r.exit_code, 0) << r.out;
    EXPECT_EQ(r.out, "");
    for (const char* named : {"ticket_words (012_search)", "ticket_tags (014_search_tags_status)",
                              "search_reindex (018_words_nfkc_casefold)", "Nothing was applied",
                              "drop and create it, load the dump, then run migrate",
                              "docs/operations.md, \"Backup and restore\""}) {
        EXPECT_NE(r.err.find(named), std::string::npos) << named << "\n" << r.err;
    }
    EXPECT_EQ(r.err.find("customer_words"), std::string::npos) << "it holds no row: " << r.err;
    EXPECT_EQ(highest_version(db), "11\t0") << "nothing applied, nothing marked";
    EXPECT_EQ(trimmed(db.root("SELECT COUNT(*) FROM ticket_words")), "1") << "nothing changed";

    // The documented restore. The application user's grant stays through the DROP.
    db.root_without_database("DROP DATABASE " + db.name() + "; CREATE DATABASE " + db.name() +
                             " CHARACTER SET utf8mb4 COLLATE utf8mb4_bin");
    db.load(dump);
    r = db.admin(all, {"migrate"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const Json::Value done = it::parse_json(trimmed(r.out));
    EXPECT_EQ(done["applied"][0].asString(), "012_search") << r.out;
    EXPECT_EQ(trimmed(db.root("SELECT COUNT(*) FROM ticket_words")), "0");
    EXPECT_EQ(trimmed(db.root("SELECT COUNT(*) FROM ticket_tags")), "0");
    std::remove(dump.c_str());
}

// A migrate cut short in a migration leaves that migration's tables with rows, as a restore
// would: marked as running (schema_migrations version -N, not listed by --status), they are
// its own work, and the next migrate goes on.
TEST(AdminMigrate, GoesOnAfterAMigrateCutShortInAMigrationThatFilledItsTables) {
    const ScratchDatabase db;
    at_011(db);
    it::AdminResult r;
    const std::string search = it::read_file(std::string(SUPPORTCRM_SQL_DIR) + "/012_search.sql");
    const MigrationsDir cut_short(
        999, "012_search",
        search +
            "\nINSERT INTO ticket_words (conversation_id, word, shop_id) VALUES (1, 'x', 1);"
            "\nSELECT no_such_column FROM ticket_words;\n");
    r = db.admin(cut_short.path(), {"migrate"});
    ASSERT_NE(r.exit_code, 0) << r.out;
    EXPECT_NE(r.err.find("migration 012_search failed"), std::string::npos) << r.err;
    EXPECT_EQ(highest_version(db), "11\t1") << "012 marked as running";
    r = db.admin(SUPPORTCRM_SQL_DIR, {"migrate", "--status"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const Json::Value status = it::parse_json(trimmed(r.out));
    EXPECT_EQ(status["applied"].size(), 11u) << r.out;
    EXPECT_EQ(status["pending"][0].asString(), "012_search") << r.out;

    r = db.admin(SUPPORTCRM_SQL_DIR, {"migrate"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(it::parse_json(trimmed(r.out))["applied"][0].asString(), "012_search") << r.out;
    EXPECT_EQ(trimmed(db.root("SELECT COUNT(*) FROM schema_migrations WHERE version < 0")), "0");
}
