// Routing errors common to all operations (contract §4, §7): unknown paths under /api/v1 are
// 404 not_found, known paths with another method are 405 method_not_allowed with Allow, and
// both come before the key check.
#include <cctype>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "harness.h"

namespace {

using it::Headers;
using it::http;
using it::HttpResponse;

// The methods listed in the Allow header(s), uppercased.
std::set<std::string> allowed(const HttpResponse& r) {
    std::set<std::string> out;
    for (const std::string& v : r.header_values("allow")) {
        std::stringstream ss(v);
        std::string item;
        while (std::getline(ss, item, ',')) {
            std::string t;
            for (char c : item) {
                if (c != ' ' && c != '\t') {
                    t += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
                }
            }
            if (!t.empty()) {
                out.insert(t);
            }
        }
    }
    return out;
}

std::string join(const std::set<std::string>& s) {
    std::string out;
    for (const auto& m : s) {
        out += (out.empty() ? "" : ",") + m;
    }
    return out;
}

// With no key, with a bogus key and with a valid key the answer is the same.
std::vector<Headers> key_variants(const it::Shop& shop) {
    return {{}, {{"x-api-key", "bogus-" + it::unique_suffix()}}, {{"x-api-key", shop.key}}};
}

// ---------------------------------------------------------------------------------------------
// 404 not_found.

TEST(Routing, UnknownPathUnderApiV1Is404NotFound) {
    const it::Shop shop = it::make_shop();
    const std::vector<std::string> paths{
        "/api/v1/no-such-route",
        "/api/v1",
        "/api/v1/",
        "/api/v1foo",
        "/api/v1customers",
        "/api/v1/customer",
        "/api/v1/customers/1/extra",
        "/api/v1/customers/1/comments",
        "/api/v1/tickets/1/comments/2",
        "/api/v1/tickets/1/other",
        "/api/v1/csat/1",
        "/api/v1/shops",
        "/api/v1/customers/1/",
    };
    for (const std::string& p : paths) {
        for (const Headers& h : key_variants(shop)) {
            EXPECT_TRUE(it::is_error(http("GET", p, h), 404, "not_found", "Not found"));
        }
        EXPECT_TRUE(it::is_error(
            http("POST", p, {{"x-api-key", shop.key}, {"Content-Type", "application/json"}}, "{}"),
            404, "not_found", "Not found"));
    }
}

TEST(Routing, UnknownPathWithQueryStringIs404NotFound) {
    EXPECT_TRUE(
        it::is_error(http("GET", "/api/v1/nothing?x=1&y=2"), 404, "not_found", "Not found"));
}

TEST(Routing, UnknownPathWithHostileCharactersIs404NotFound) {
    for (const std::string& p :
         {std::string("/api/v1/%00"), std::string("/api/v1/'%20OR%201=1"),
          std::string("/api/v1/%ff%fe"), std::string("/api/v1/") + std::string(3000, 'x')}) {
        const HttpResponse r = http("GET", p);
        EXPECT_TRUE(r.status == 404 || r.status == 400) << r.describe();
        EXPECT_LT(r.status, 500) << r.describe();
    }
}

// ---------------------------------------------------------------------------------------------
// 405 method_not_allowed.

struct MethodCase {
    std::string method;
    std::string path;
    std::set<std::string> must_allow;      // methods the Allow header must list
    std::set<std::string> must_not_allow;  // methods it must not list
};

std::vector<MethodCase> customer_method_cases() {
    return {
        {"PUT", "/api/v1/customers", {"GET", "POST"}, {"PUT"}},
        {"DELETE", "/api/v1/customers", {"GET", "POST"}, {"DELETE"}},
        {"PATCH", "/api/v1/customers", {"GET", "POST"}, {"PATCH"}},
        {"PUT", "/api/v1/customers/1", {"GET", "PATCH", "DELETE"}, {"PUT", "POST"}},
        {"POST", "/api/v1/customers/1", {"GET", "PATCH", "DELETE"}, {"POST"}},
        {"PUT", "/api/v1/customers/", {"GET"}, {"PUT"}},
    };
}

std::vector<MethodCase> ticket_and_csat_method_cases() {
    return {
        {"PUT", "/api/v1/tickets", {"GET", "POST"}, {"PUT"}},
        {"DELETE", "/api/v1/tickets", {"GET", "POST"}, {"DELETE"}},
        {"DELETE", "/api/v1/tickets/1", {"GET", "PATCH"}, {"DELETE"}},
        {"DELETE", "/api/v1/tickets/1/comments", {"GET", "POST"}, {"DELETE"}},
        {"PUT", "/api/v1/tickets/1/comments", {"GET", "POST"}, {"PUT"}},
        {"DELETE", "/api/v1/csat", {"GET", "POST"}, {"DELETE"}},
    };
}

// Every case answers 405 with an Allow header that lists what the path takes, whatever the key.
void expect_method_not_allowed(const std::vector<MethodCase>& cases, const it::Shop& shop) {
    for (const MethodCase& c : cases) {
        for (const Headers& h : key_variants(shop)) {
            const HttpResponse r = http(c.method, c.path, h);
            EXPECT_TRUE(it::is_error(r, 405, "method_not_allowed", "Method not allowed"));
            const std::set<std::string> allow = allowed(r);
            for (const std::string& m : c.must_allow) {
                EXPECT_TRUE(allow.count(m)) << c.method << " " << c.path << ": Allow is \""
                                            << join(allow) << "\", lacks " << m;
            }
            for (const std::string& m : c.must_not_allow) {
                EXPECT_FALSE(allow.count(m)) << c.method << " " << c.path << ": Allow is \""
                                             << join(allow) << "\", lists " << m;
            }
        }
    }
}

// 405 comes before the key check: no key, a bogus key and a valid key answer alike.
TEST(Routing, CustomerPathsWithOtherMethodAre405WithAllow) {
    expect_method_not_allowed(customer_method_cases(), it::make_shop());
}

TEST(Routing, TicketAndCsatPathsWithOtherMethodAre405WithAllow) {
    expect_method_not_allowed(ticket_and_csat_method_cases(), it::make_shop());
}

// extensions.md §E3: the collections list with GET now, so their Allow is "GET, POST".
TEST(Routing, CustomerAndTicketCollectionsAllowGetAndPost) {
    for (const char* path : {"/api/v1/customers", "/api/v1/tickets"}) {
        const HttpResponse r = http("DELETE", path);
        ASSERT_TRUE(it::is_error(r, 405, "method_not_allowed", "Method not allowed"));
        EXPECT_EQ(r.header("Allow").value_or(""), "GET, POST") << path;
    }
}

TEST(Routing, MethodIsCheckedBeforeBody) {
    // A body on a 405 route (even an invalid one or of another type) does not change the answer.
    const HttpResponse a =
        http("PUT", "/api/v1/customers/1", {{"Content-Type", "application/json"}}, "{not json");
    EXPECT_TRUE(it::is_error(a, 405, "method_not_allowed", "Method not allowed"));
    const HttpResponse b =
        http("PUT", "/api/v1/customers", {{"Content-Type", "text/plain"}}, "hello");
    EXPECT_TRUE(it::is_error(b, 405, "method_not_allowed", "Method not allowed"));
}

TEST(Routing, QueryStringDoesNotChangeTheRoute) {
    EXPECT_TRUE(it::is_error(http("DELETE", "/api/v1/customers?email=a@example.test"), 405,
                             "method_not_allowed", "Method not allowed"));
    EXPECT_TRUE(it::is_error(http("GET", "/api/v1/customers/1?x=y"), 401, "missing_api_key",
                             "API key is required"));
}

}  // namespace
