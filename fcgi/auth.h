// Authentication, its own step before dispatch: the request's API key resolved to its shop,
// or the contract's 401 / 404 answer. Keys and their digests never reach a log line.
#pragma once

#include <optional>
#include <string_view>

#include "fcgi/request.h"
#include "handlers/handler.h"

namespace supportcrm {

// The key a request carries: x-api-key when present and non-empty (it wins), else the token
// of "Authorization: Bearer <key>" (scheme case-insensitive). nullopt when neither.
std::optional<std::string_view> api_key_of(const Request& request);

struct AuthOutcome {
    std::optional<Shop> shop;
    std::optional<Response> error;
};

AuthOutcome authenticate(const Request& request, Db& db);

}  // namespace supportcrm
