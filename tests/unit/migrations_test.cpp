#include "db/migrations.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

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
