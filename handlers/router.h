// The route table: every operation of the API at a glance (router.cpp).
#pragma once

#include <string>
#include <string_view>

#include "api/route.h"

namespace supportcrm {

RouteMatch route(std::string_view method, std::string_view path);

}  // namespace supportcrm
