// The route table: every operation of the API at a glance (router.cpp).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "api/route.h"

namespace supportcrm {

RouteMatch route(std::string_view method, std::string_view path);

// Every route as method and path pattern ("{name}" for the path id), in table order: what the
// OpenAPI description (docs/openapi.yaml) must describe, no more and no less.
struct RouteName {
    std::string_view method;
    std::string_view pattern;
    unsigned scope = 0;  // the key's scope it needs (extensions.md §E12)
    bool needs_key = false;
};
std::vector<RouteName> route_names();

// The pattern of a RouteMatch's label ("" for 0, no route): what /status and /metrics show.
std::string_view route_label(std::size_t label);

// Whether the route of a label is timed by stream-terminate-timeout rather than
// request-terminate-timeout (the exports: false for 0, no route). The label is of the path,
// whatever the method; every path with a streaming route has no other method.
bool route_streams(std::size_t label);

}  // namespace supportcrm
