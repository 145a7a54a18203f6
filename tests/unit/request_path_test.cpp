// Routing, key extraction and the shared handler steps (path ids, JSON bodies).
#include <gtest/gtest.h>

#include "api/auth.h"
#include "api/handler.h"
#include "api/request.h"
#include "handlers/router.h"

using namespace supportcrm;

TEST(Router, MatchesOperationsAndCapturesTheId) {
    RouteMatch m = route("GET", "/api/v1/tickets/42/comments");
    ASSERT_EQ(m.kind, RouteMatch::Kind::found);
    EXPECT_EQ(m.handler, &list_ticket_comments);
    EXPECT_EQ(m.path_id, "42");
    EXPECT_EQ(m.id_name, "ticketId");
    EXPECT_TRUE(m.needs_key);
    EXPECT_EQ(route("POST", "/api/v1/tickets/42/comments").handler, &create_comment);
    EXPECT_EQ(route("GET", "/api/v1/customers/7").handler, &get_customer);
    EXPECT_FALSE(route("GET", "/healthz").needs_key);
    EXPECT_EQ(route("GET", "/api/v1/csat").id_name, "");
}

TEST(Router, EmptyIdSegmentStillMatchesSoDispatchCanSayItIsRequired) {
    RouteMatch m = route("GET", "/api/v1/customers/");
    ASSERT_EQ(m.kind, RouteMatch::Kind::found);
    EXPECT_EQ(m.path_id, "");
    EXPECT_EQ(m.id_name, "customerId");
    RouteMatch c = route("GET", "/api/v1/tickets//comments");
    ASSERT_EQ(c.kind, RouteMatch::Kind::found);
    EXPECT_EQ(c.path_id, "");
}

TEST(Router, KnownPathWithOtherMethodListsAllowedMethods) {
    RouteMatch m = route("PUT", "/api/v1/customers");
    EXPECT_EQ(m.kind, RouteMatch::Kind::method_not_allowed);
    EXPECT_EQ(m.allow, "GET, POST");  // extensions.md §E3
    EXPECT_EQ(route("DELETE", "/api/v1/tickets").allow, "GET, POST");
    RouteMatch c = route("DELETE", "/api/v1/tickets/1/comments");
    EXPECT_EQ(c.allow, "GET, POST");
}

TEST(Router, HealthzAlsoAnswersHeadAndOnlyHealthzDoes) {
    RouteMatch head = route("HEAD", "/healthz");
    ASSERT_EQ(head.kind, RouteMatch::Kind::found);
    EXPECT_EQ(head.handler, &healthz);
    EXPECT_FALSE(head.needs_key);
    EXPECT_EQ(route("POST", "/healthz").allow, "GET, HEAD");
    RouteMatch api = route("HEAD", "/api/v1/customers/1");
    EXPECT_EQ(api.kind, RouteMatch::Kind::method_not_allowed);
    EXPECT_EQ(api.allow, "GET, PATCH, DELETE");  // extensions.md §E8, §E9
    EXPECT_EQ(route("DELETE", "/api/v1/tickets/1").allow, "GET, PATCH");
    EXPECT_EQ(route("PATCH", "/api/v1/tickets/1").handler, &patch_ticket);
    EXPECT_EQ(route("PATCH", "/api/v1/customers/1").handler, &patch_customer);
    EXPECT_EQ(route("DELETE", "/api/v1/customers/1").handler, &delete_customer);
    EXPECT_EQ(route("PATCH", "/api/v1/tickets/1/comments").allow, "GET, POST");
}

TEST(Router, UnknownPathsAreNotFound) {
    for (const char* path : {"/api/v1", "/api/v1/", "/api/v1/customers/1/x", "/api/v1/customersx",
                             "/api/v2/customers", "/"}) {
        EXPECT_EQ(route("GET", path).kind, RouteMatch::Kind::not_found) << path;
    }
}

TEST(ApiKey, XApiKeyWinsOverBearer) {
    Request r;
    r.x_api_key = "k1";
    r.authorization = "Bearer k2";
    EXPECT_EQ(api_key_of(r), "k1");
}

TEST(ApiKey, BearerSchemeIsCaseInsensitive) {
    Request r;
    for (const char* header : {"Bearer abc", "bearer abc", "BEARER   abc "}) {
        r.authorization = header;
        EXPECT_EQ(api_key_of(r), "abc") << header;
    }
}

TEST(ApiKey, OtherSchemesAndEmptyValuesAreNoKey) {
    Request r;
    EXPECT_FALSE(api_key_of(r));
    r.authorization = "Basic abc";
    EXPECT_FALSE(api_key_of(r));
    r.authorization = "Bearer";
    EXPECT_FALSE(api_key_of(r));
    r.authorization = "Bearerabc";
    EXPECT_FALSE(api_key_of(r));
    r.x_api_key = "";
    r.authorization = "Bearer fallback";
    EXPECT_EQ(api_key_of(r), "fallback");
}

TEST(PathId, RequiredInvalidAndOutOfRange) {
    auto empty = parse_path_id("", "ticketId");
    ASSERT_TRUE(empty.error);
    EXPECT_EQ(empty.error->status, 400);
    EXPECT_NE(empty.error->body.find("ticketId is required"), std::string::npos);
    auto bad = parse_path_id("12a", "ticketId");
    ASSERT_TRUE(bad.error);
    EXPECT_NE(bad.error->body.find("\"invalid_id\""), std::string::npos);
    EXPECT_NE(bad.error->body.find("Invalid ticketId"), std::string::npos);
    EXPECT_EQ(parse_path_id("18446744073709551615", "ticketId").value, UINT64_MAX);
    EXPECT_EQ(parse_path_id("99999999999999999999999", "ticketId").value, UINT64_MAX);
    EXPECT_EQ(parse_path_id("9007199254740993", "ticketId").value, 9007199254740993ULL);
}

namespace {

struct BodyCase {
    std::string content_type;
    std::string body;
    int status;  // 0: parsed fine
    std::string code;
};

int status_of(const BodyCase& c, std::size_t max = 1024) {
    Request r;
    r.content_type = c.content_type;
    StringBody source(c.body);
    r.body_source = &source;
    Db unconnected{DbSettings{}};  // body parsing never touches the database
    Caller no_key;
    HandlerContext ctx{r, no_key, unconnected, 0, max};
    auto out = read_json_object(ctx);
    if (!out.error) {
        return 0;
    }
    EXPECT_NE(out.error->body.find("\"" + c.code + "\""), std::string::npos) << out.error->body;
    return out.error->status;
}

}  // namespace

TEST(JsonBody, ContractErrorsForBadBodies) {
    std::vector<BodyCase> cases = {
        {"application/json", R"({"a":1})", 0, ""},
        {"Application/JSON; charset=utf-8", R"({})", 0, ""},
        {"", "", 0, ""},  // an empty body is {}
        {"text/plain", R"({"a":1})", 415, "unsupported_media_type"},
        {"", R"({"a":1})", 415, "unsupported_media_type"},
        {"application/json", R"({"a":)", 400, "invalid_json"},
        {"application/json", R"({"a":1} trailing)", 400, "invalid_json"},
        {"application/json", R"([1])", 400, "invalid_body"},
        {"application/json", R"("x")", 400, "invalid_body"},
        {"application/json", "{\"a\":\"\xff\"}", 400, "invalid_json"},
        {"application/json", std::string(300, '[') + std::string(300, ']'), 400, "invalid_json"},
        {"application/json", "{\"a\":\"" + std::string(2000, 'x') + "\"}", 413, "body_too_large"},
    };
    for (const BodyCase& c : cases) {
        EXPECT_EQ(status_of(c), c.status) << c.content_type << " " << c.body.substr(0, 40);
    }
}

TEST(JsonBody, AnnouncedLengthOverTheLimitIsRefusedUnread) {
    Request r;
    r.content_length = 5000;
    StringBody source("{}");
    r.body_source = &source;
    EXPECT_EQ(r.load_body(1024), Request::BodyState::too_large);
}

TEST(RequestId, ClientValuesAreCheckedAndGeneratedOnesAreUnique) {
    EXPECT_EQ(acceptable_request_id("abc-123_x.y:z"), "abc-123_x.y:z");
    EXPECT_FALSE(acceptable_request_id("has space"));
    EXPECT_FALSE(acceptable_request_id("line\nbreak"));
    EXPECT_FALSE(acceptable_request_id(std::string(129, 'a')));
    EXPECT_FALSE(acceptable_request_id(""));
    std::string a = generate_request_id();
    std::string b = generate_request_id();
    EXPECT_EQ(a.size(), 16u);
    EXPECT_NE(a, b);
}

TEST(RequestUri, SplitsPathAndQuery) {
    std::string path, query;
    split_request_uri("/api/v1/csat?page=1&limit=2", path, query);
    EXPECT_EQ(path, "/api/v1/csat");
    EXPECT_EQ(query, "page=1&limit=2");
    split_request_uri("/healthz", path, query);
    EXPECT_EQ(path, "/healthz");
    EXPECT_EQ(query, "");
}
