// Every file of nst/JSONTestSuite's test_parsing/ corpus as a whole request body, through nginx
// and the pool, to every POST route, with extensions.md §E1's expectations: n_ files are 400
// invalid_json, y_ files never are (an object goes on to validation, anything else is 400
// invalid_body), y_object_duplicated_key* are invalid_json, the 0-byte n_structure_no_data is an
// empty body (treated as {}), and nothing is ever a 5xx.

#include "tests/json_corpus.h"

#include <string>
#include <vector>

#include "harness.h"
#include "tickets_fixtures.h"

namespace {

using it::HttpResponse;
using supportcrm::corpus::Case;
using supportcrm::corpus::Expect;

constexpr size_t kCorpusFiles = 318;  // 95 y_, 188 n_, 35 i_: a missing file fails the count

std::string code_of(const HttpResponse& r) {
    const Json::Value& j = r.json();
    return j.isObject() && j["code"].isString() ? j["code"].asString() : "";
}

// What E1 asks of the answer to one corpus file; `braces` is the route's answer to "{}".
::testing::AssertionResult answers_as_e1_says(const Case& c, const HttpResponse& r,
                                              const HttpResponse& braces) {
    if (r.status >= 500) {
        return ::testing::AssertionFailure() << c.name << ": 5xx " << r.describe();
    }
    if (c.body.empty()) {  // n_structure_no_data: an empty body is {} (contract §7)
        if (r.status == braces.status && r.body == braces.body) {
            return ::testing::AssertionSuccess();
        }
        return ::testing::AssertionFailure()
               << c.name << ": not answered like \"{}\": " << r.describe() << " vs "
               << braces.describe();
    }
    const std::string code = code_of(r);
    switch (c.expect) {
        case Expect::refuse:
            if (it::is_error(r, 400, "invalid_json", "Invalid JSON body")) {
                return ::testing::AssertionSuccess();
            }
            return ::testing::AssertionFailure()
                   << c.name << ": not invalid_json: " << r.describe();
        case Expect::accept: {
            const Json::Value parsed = it::parse_json(c.body);
            if (!parsed.isObject()) {
                if (it::is_error(r, 400, "invalid_body", "Request body must be a JSON object")) {
                    return ::testing::AssertionSuccess();
                }
                return ::testing::AssertionFailure()
                       << c.name << ": not invalid_body: " << r.describe();
            }
            if (code == "invalid_json" || code == "invalid_body") {
                return ::testing::AssertionFailure()
                       << c.name << ": an object refused as " << code << ": " << r.describe();
            }
            return ::testing::AssertionSuccess();
        }
        case Expect::either:
            return ::testing::AssertionSuccess();  // anything below 500
    }
    return ::testing::AssertionFailure() << c.name << ": unknown expectation";
}

void post_every_file(const std::string& path, const it::Shop& shop) {
    const std::vector<Case> cases = supportcrm::corpus::load();
    ASSERT_EQ(cases.size(), kCorpusFiles) << "corpus at " << supportcrm::corpus::directory();
    const HttpResponse braces = it::post_raw(path, shop, "{}");
    ASSERT_LT(braces.status, 500) << braces.describe();
    for (const Case& c : cases) {
        const HttpResponse r = it::post_raw(path, shop, c.body);
        EXPECT_TRUE(answers_as_e1_says(c, r, braces));
    }
}

TEST(JsonCorpus, EveryFileAsACustomerBody) {
    post_every_file("/api/v1/customers", it::make_shop());
}

TEST(JsonCorpus, EveryFileAsATicketBody) {
    post_every_file(it::tickets::kTicketsPath, it::make_shop());
}

TEST(JsonCorpus, EveryFileAsACommentBody) {
    const it::tickets::World w = it::tickets::make_world();
    const std::string ticket = it::tickets::create_ticket_id(w);
    post_every_file(it::tickets::comments_path(ticket), w.shop);
    // Nothing in the corpus is a valid comment: the ticket still has none.
    EXPECT_EQ(it::tickets::list_comments(w.shop, ticket)["comments"].size(), 0u);
}

TEST(JsonCorpus, EveryFileAsASurveyBody) {
    post_every_file("/api/v1/csat", it::make_shop());
}

}  // namespace
