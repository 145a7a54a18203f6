// What a handler answers: a status, a JSON body and the few extra headers the contract names.
// The front (api/response_writer.cpp) adds Content-Type, Content-Length, X-Request-Id and the
// headers every answer carries (Cache-Control, X-Content-Type-Options).
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace supportcrm {

struct Response {
    int status = 200;
    std::string body;
    std::vector<std::pair<std::string, std::string>> headers;
    // API answers are never cached; only a document that changes with the binary says otherwise.
    const char* cache_control = "no-store";
    // Every answer is JSON but one: the Prometheus text of GET /metrics (extensions.md §E6).
    const char* content_type = "application/json; charset=utf-8";
};

}  // namespace supportcrm
