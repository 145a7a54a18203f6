// sql/002_set_aside_invalid_json.sql against rows the lenient reader of earlier versions let in:
// the invalid value moves to invalid_json_archive, the column gets its empty value, and the lists
// that held it are JSON again. The migration is written to be re-run, so the test runs its
// statements once more on the test database after planting the rows.
#include <optional>
#include <string>
#include <vector>

#include "csat_fixtures.h"
#include "harness.h"
#include "tickets_fixtures.h"

#ifndef SUPPORTCRM_SQL_DIR
#error "SUPPORTCRM_SQL_DIR must name the repository's sql/ directory"
#endif

namespace {

using it::HttpResponse;

// The migration's statements. Its statements end at a ';' that ends a line, and no comment or
// literal in it holds one, so a plain split is exact here (the admin uses the full splitter).
std::vector<std::string> migration_statements() {
    const std::string text =
        it::read_file(std::string(SUPPORTCRM_SQL_DIR) + "/002_set_aside_invalid_json.sql");
    std::vector<std::string> out;
    size_t start = 0;
    for (size_t end; (end = text.find(";\n", start)) != std::string::npos; start = end + 2) {
        out.push_back(text.substr(start, end - start));
    }
    return out;
}

void run_migration_again() {
    const std::vector<std::string> statements = migration_statements();
    ASSERT_EQ(statements.size(), 7u) << "the migration changed: update this test";
    it::Db db;
    for (const std::string& statement : statements) {
        ASSERT_EQ(db.execute(statement, {}), 0) << statement;
    }
}

std::optional<std::string> archived(const std::string& table, const std::string& id,
                                    const std::string& column) {
    it::Db db;
    return db.scalar(
        "SELECT original FROM invalid_json_archive WHERE table_name = ? AND row_id = "
        "CAST(? AS UNSIGNED) AND column_name = ?",
        {table, id, column});
}

TEST(StoredJsonRepair, InvalidAttachmentsMoveToTheArchiveAndTheListIsJsonAgain) {
    const it::tickets::World w = it::tickets::make_world();
    const std::string ticket = it::tickets::create_ticket_id(w);
    const std::string good = R"([{"url":"https://x.example/a.png"}])";
    it::tickets::PlantedMessage bad;
    bad.conversation_id = ticket;
    bad.attachments = "[01,-,1.]";
    const std::string bad_id = it::tickets::plant_message(bad);
    it::tickets::PlantedMessage fine;
    fine.conversation_id = ticket;
    fine.attachments = good;
    const std::string fine_id = it::tickets::plant_message(fine);
    EXPECT_FALSE(it::is_strict_json(
        it::http_any_body("GET", it::tickets::comments_path(ticket), it::key_header(w.shop)).body))
        << "the planted row should break the list before the repair";

    run_migration_again();

    const Json::Value list = it::tickets::list_comments(w.shop, ticket);
    ASSERT_EQ(list["comments"].size(), 2u);
    for (const Json::Value& c : list["comments"]) {
        if (c["id"].asString() == bad_id) {
            EXPECT_TRUE(c["attachments"].isNull()) << it::to_json(c);
        } else {
            EXPECT_EQ(c["id"].asString(), fine_id);
            EXPECT_EQ(c["attachments"], it::parse_json(good)) << it::to_json(c);
        }
    }
    EXPECT_EQ(archived("messages", bad_id, "attachments"), "[01,-,1.]");
    EXPECT_EQ(archived("messages", fine_id, "attachments"), std::nullopt);
}

TEST(StoredJsonRepair, InvalidGraphNodesAndNodeIdsMoveToTheArchive) {
    const it::csat::CsatShop s = it::csat::make_csat_shop(it::make_brand());
    const std::string id = it::csat::add_survey(s, 4, it::csat::now_ms())["id"].asString();
    const std::string cut = R"(s":{"node":"ab","x":1})";  // a BOM-shifted slice
    {
        it::Db db;
        ASSERT_EQ(db.execute("UPDATE surveys SET graph_nodes = ?, node_ids = ? WHERE id = ?",
                             {cut, std::string("[1,2"), id}),
                  0);
    }
    EXPECT_FALSE(it::is_strict_json(
        it::http_any_body("GET", it::csat::csat_path({{"scope", "brand"}}), it::key_header(s.shop))
            .body));

    run_migration_again();

    const Json::Value body = it::csat::list(s.shop, {{"scope", "brand"}});
    ASSERT_EQ(body["surveys"].size(), 1u);
    EXPECT_EQ(body["surveys"][0]["graphNodes"], Json::Value(Json::objectValue));
    EXPECT_EQ(body["surveys"][0]["nodeIds"], Json::Value(Json::arrayValue));
    EXPECT_EQ(archived("surveys", id, "graph_nodes"), cut);
    EXPECT_EQ(archived("surveys", id, "node_ids"), "[1,2");
}

}  // namespace
