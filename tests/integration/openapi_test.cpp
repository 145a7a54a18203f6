// GET /api/v1/openapi.json (extensions.md §E7): the OpenAPI 3.1 description, no key, served
// by the pool from the JSON the build generated from docs/openapi.yaml, cached by nginx.
#include "harness.h"

namespace {

using it::http;
using it::HttpResponse;

const std::string kPath = "/api/v1/openapi.json";

TEST(OpenApiRoute, ServesTheBuildsDescriptionWithoutAKey) {
    const HttpResponse r = http("GET", kPath);
    ASSERT_TRUE(it::has_status(r, 200));
    EXPECT_EQ(it::to_lower(r.header("content-type").value_or("")), it::kJsonContentType);
    EXPECT_FALSE(r.header("x-request-id").value_or("").empty());
    EXPECT_EQ(r.body, it::read_file(SUPPORTCRM_OPENAPI_JSON))
        << "the pool serves another document than the build generated";
    const Json::Value& doc = r.json();
    EXPECT_TRUE(it::starts_with(doc["openapi"].asString(), "3.1.")) << doc["openapi"];
    EXPECT_TRUE(doc["paths"].isMember("/api/v1/tickets/{ticketId}/comments"));
    EXPECT_TRUE(doc["paths"].isMember(kPath));
}

TEST(OpenApiRoute, NeedsNoKeyAndIgnoresABadOne) {
    EXPECT_TRUE(it::has_status(http("GET", kPath, {{"x-api-key", "not-a-key"}}), 200));
    EXPECT_TRUE(it::has_status(http("GET", kPath, {{"Authorization", "Bearer nope"}}), 200));
}

TEST(OpenApiRoute, IsCacheableAndCachedByNginx) {
    const HttpResponse first = http("GET", kPath);
    ASSERT_TRUE(it::has_status(first, 200));
    EXPECT_EQ(first.header("cache-control").value_or(""), "public, max-age=300");
    const std::string etag = first.header("etag").value_or("");
    ASSERT_FALSE(etag.empty()) << first.describe();

    const HttpResponse again = http("GET", kPath);
    ASSERT_TRUE(it::has_status(again, 200));
    EXPECT_EQ(again.header("x-cache-status").value_or(""), "HIT")
        << "the second GET should come from nginx's cache";
    EXPECT_EQ(again.body, first.body);
    EXPECT_EQ(again.header("etag").value_or(""), etag);
}

TEST(OpenApiRoute, ACachedCopyCarriesTheRequestsOwnId) {
    http("GET", kPath);  // fills the cache
    const std::string id = "openapi-" + it::unique_suffix();
    const HttpResponse r = http("GET", kPath, {{"X-Request-Id", id}});
    ASSERT_TRUE(it::has_status(r, 200));
    EXPECT_EQ(r.header("x-request-id").value_or(""), id);
    const HttpResponse other = http("GET", kPath);
    EXPECT_NE(other.header("x-request-id").value_or(""), id);
    EXPECT_FALSE(other.header("x-request-id").value_or("").empty());
}

TEST(OpenApiRoute, IfNoneMatchWithTheEtagIs304) {
    const HttpResponse first = http("GET", kPath);
    ASSERT_TRUE(it::has_status(first, 200));
    const std::string etag = first.header("etag").value_or("");
    ASSERT_FALSE(etag.empty());
    const HttpResponse r = it::http_any_body("GET", kPath, {{"If-None-Match", etag}});
    EXPECT_EQ(r.status, 304) << r.describe();
    EXPECT_TRUE(r.body.empty());
    const HttpResponse stale = http("GET", kPath, {{"If-None-Match", "\"0000\""}});
    EXPECT_TRUE(it::has_status(stale, 200));
}

TEST(OpenApiRoute, OtherMethodsAre405AllowGet) {
    for (const char* method : {"HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"}) {
        const HttpResponse r = http(method, kPath, {{"x-api-key", "whatever"}});
        EXPECT_EQ(r.status, 405) << method << ": " << r.describe();
        EXPECT_EQ(r.header("allow").value_or(""), "GET") << method;
        if (std::string(method) != "HEAD") {
            EXPECT_TRUE(it::is_error(r, 405, "method_not_allowed", "Method not allowed"));
        }
    }
}

}  // namespace
