// Every keyed route of the table names the scope extensions.md §E12 gives it, and routes
// without a key name none: a route added later with another scope fails here.
#include <string>

#include "common/key_terms.h"
#include "gtest/gtest.h"
#include "handlers/router.h"

namespace supportcrm {
namespace {

unsigned scope_by_rule(std::string_view method, std::string_view pattern) {
    namespace scope = key_terms::scope;
    const bool is_export = pattern == "/api/v1/changes" ||
                           (pattern.size() >= 7 && pattern.substr(pattern.size() - 7) == "/export");
    if (method == "DELETE") {
        return scope::erase;
    }
    if (is_export) {
        return scope::export_;
    }
    return method == "GET" ? scope::read : scope::write;
}

TEST(RouteScopeTest, EveryKeyedRouteHasTheScopeOfE12) {
    for (const RouteName& r : route_names()) {
        const std::string name = std::string(r.method) + " " + std::string(r.pattern);
        if (!r.needs_key) {
            EXPECT_EQ(r.scope, 0u) << name;
            continue;
        }
        EXPECT_EQ(r.scope, scope_by_rule(r.method, r.pattern)) << name;
    }
}

TEST(RouteScopeTest, TheMatchCarriesTheRoutesScope) {
    EXPECT_EQ(route("GET", "/api/v1/customers/1").scope, key_terms::scope::read);
    EXPECT_EQ(route("PATCH", "/api/v1/tickets/1").scope, key_terms::scope::write);
    EXPECT_EQ(route("POST", "/api/v1/tickets/1/comments").scope, key_terms::scope::write);
    EXPECT_EQ(route("GET", "/api/v1/csat/export").scope, key_terms::scope::export_);
    EXPECT_EQ(route("DELETE", "/api/v1/customers/1").scope, key_terms::scope::erase);
    EXPECT_EQ(route("GET", "/healthz").scope, 0u);
}

// The master times the exports by stream-terminate-timeout (fcgi/master.cpp), every other
// route by request-terminate-timeout; the scoreboard gives it a route's label (1 + the table
// position of the first route of the path, route()).
TEST(RouteScopeTest, OnlyTheExportsAreTimedAsStreams) {
    for (const RouteName& r : route_names()) {
        const std::size_t label = route(r.method, r.pattern).label;
        const bool is_export =
            r.pattern.size() >= 7 && r.pattern.substr(r.pattern.size() - 7) == "/export";
        EXPECT_EQ(route_streams(label), is_export) << r.method << " " << r.pattern;
    }
    EXPECT_TRUE(route_streams(route("GET", "/api/v1/customers/7/export").label));
    EXPECT_TRUE(route_streams(route("GET", "/api/v1/csat/export").label));
    EXPECT_FALSE(route_streams(route("GET", "/api/v1/customers/7").label));
    EXPECT_FALSE(route_streams(route("GET", "/api/v1/changes").label));
    EXPECT_FALSE(route_streams(0));  // no route
    EXPECT_FALSE(route_streams(route_names().size() + 1));
}

}  // namespace
}  // namespace supportcrm
