// The request's API key, taken from its headers. Resolving it to a shop is api/caller.h's
// job. Keys and their digests never reach a log line.
#pragma once

#include <optional>
#include <string_view>

#include "api/request.h"

namespace supportcrm {

// The key a request carries: x-api-key when present and non-empty (it wins), else the token
// of "Authorization: Bearer <key>" (scheme case-insensitive). nullopt when neither.
std::optional<std::string_view> api_key_of(const Request& request);

}  // namespace supportcrm
