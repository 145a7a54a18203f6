// GET /healthz (contract §6): outside /api/v1, no key, 200 {"status":"ok"} while the database
// answers.
#include "harness.h"

namespace {

using it::http;
using it::HttpResponse;

TEST(Healthz, AnswersOkWithoutKey) {
    const HttpResponse r = http("GET", "/healthz");
    ASSERT_TRUE(it::has_status(r, 200));
    EXPECT_EQ(it::to_lower(r.header("content-type").value_or("")), it::kJsonContentType);
    const Json::Value& j = r.json();
    ASSERT_TRUE(j.isObject()) << r.describe();
    EXPECT_EQ(j["status"], Json::Value("ok")) << r.describe();
}

TEST(Healthz, CarriesRequestId) {
    const HttpResponse r = http("GET", "/healthz");
    ASSERT_TRUE(it::has_status(r, 200));
    EXPECT_FALSE(r.header("x-request-id").value_or("").empty()) << r.describe();
}

TEST(Healthz, IgnoresAnInvalidKey) {
    const HttpResponse r = http("GET", "/healthz", {{"x-api-key", "not-a-key"}});
    ASSERT_TRUE(it::has_status(r, 200));
    EXPECT_EQ(r.json()["status"], Json::Value("ok")) << r.describe();
}

}  // namespace
