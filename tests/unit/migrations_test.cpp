#include "db/migrations.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "db/migration_leftovers.h"

using namespace supportcrm;

TEST(Migrations, SplitsAtSemicolonsOutsideQuotesAndComments) {
    auto parts = split_sql(
        "-- a comment; with a semicolon\nCREATE TABLE a (x INT);\n"
        "INSERT INTO a VALUES ('semi;colon'), (\"q;\");  -- trailing; comment\n"
        "SELECT 'it''s;' ;\n\n");
    ASSERT_EQ(parts.size(), 3u);
    EXPECT_EQ(parts[0], "CREATE TABLE a (x INT)");
    EXPECT_EQ(parts[1], "INSERT INTO a VALUES ('semi;colon'), (\"q;\")");
    EXPECT_EQ(parts[2], "SELECT 'it''s;'");
}

TEST(Migrations, ListsNumberedFilesInVersionOrder) {
    namespace fs = std::filesystem;
    fs::path dir = fs::temp_directory_path() / ("mig-" + std::to_string(getpid()));
    fs::create_directories(dir);
    for (const char* name :
         {"010_later.sql", "002_second.sql", "001_first.sql", "README.md", "x_not_numbered.sql"}) {
        std::ofstream(dir / name) << "SELECT 1;";
    }
    auto list = list_migrations(dir.string());
    ASSERT_EQ(list.size(), 3u);
    EXPECT_EQ(list[0].name, "001_first");
    EXPECT_EQ(list[1].name, "002_second");
    EXPECT_EQ(list[2].version, 10);
    std::ofstream(dir / "002_clash.sql") << "SELECT 1;";
    EXPECT_THROW(list_migrations(dir.string()), std::runtime_error);
    fs::remove_all(dir);
}

TEST(Migrations, TheShippedSchemaParses) {
    auto list = list_migrations(SUPPORTCRM_SOURCE_DIR "/sql");
    ASSERT_FALSE(list.empty());
    EXPECT_EQ(list.front().name, "001_initial");
}

// db/migration_leftovers.h: which tables a migration creates, so that migrate can tell the rows
// a restore into the existing database left in later migrations' tables.
TEST(Migrations, TablesCreatedSkipScratchReplacedAndTemporaryTables) {
    EXPECT_EQ(tables_created("-- CREATE TABLE in_a_comment (x INT);\n"
                             "CREATE TABLE IF NOT EXISTS kept (x INT);\n"
                             "create table `quoted`(x INT);\n"
                             "CREATE TABLE plain LIKE kept;\n"
                             "DROP TABLE IF EXISTS scratch, other;\n"
                             "CREATE TABLE scratch (x INT);\n"
                             "CREATE OR REPLACE TABLE replaced (x INT);\n"
                             "CREATE TEMPORARY TABLE temp (x INT);\n"
                             "CREATE INDEX IF NOT EXISTS ix ON kept (x);\n"
                             "INSERT INTO kept SELECT 1 FROM plain;\n"
                             "RENAME TABLE kept TO kept_old, scratch TO renamed;\n"),
              (std::vector<std::string>{"kept", "quoted", "plain", "kept_old", "renamed"}));
}

TEST(Migrations, TheShippedMigrationsOwnTheirTables) {
    const auto owners = table_owners(list_migrations(SUPPORTCRM_SOURCE_DIR "/sql"));
    auto owner = [&](const std::string& table) {
        const auto it = owners.find(table);
        return it == owners.end() ? std::string("none") : it->second.name;
    };
    EXPECT_EQ(owner("conversations"), "001_initial");
    EXPECT_EQ(owner("ticket_words"), "012_search");
    EXPECT_EQ(owner("customer_words"), "012_search");
    EXPECT_EQ(owner("change_sequences"), "013_changes_feed");
    EXPECT_EQ(owner("ticket_tags"), "014_search_tags_status")
        << "019 builds it anew and renames it in: 014 still creates it";
    EXPECT_EQ(owner("search_reindex"), "018_words_nfkc_casefold");
    EXPECT_EQ(owner("ticket_tags_nopad"), "none") << "019 drops it before it builds it";
    EXPECT_EQ(owner("ticket_tags_pad"), "none");
}
