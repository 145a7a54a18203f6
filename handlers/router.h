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
};
std::vector<RouteName> route_names();

// The counters' name of the route a path is on, whatever the method (extensions.md §E6: the
// route's template, never a raw path): 1 + the position in the table of the first route
// whose pattern matches, 0 when none does. route_label gives the pattern back ("" for 0).
std::size_t route_label_index(std::string_view path);
std::string_view route_label(std::size_t index);

}  // namespace supportcrm
