// What a handler answers: a status, a JSON body and the few extra headers the contract names.
// The front (api/response_writer.cpp) adds Content-Type, Content-Length, X-Request-Id and the
// headers every answer carries (Cache-Control, X-Content-Type-Options).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace supportcrm {

// Where a streamed body goes (the FastCGI stdout stream): bytes are passed on as they are
// written, nothing accumulates.
class BodySink {
  public:
    virtual ~BodySink() = default;
    virtual void write(std::string_view bytes) = 0;
};

// A body too large to hold (the CSAT export): produced after the head is sent, piece by
// piece. write_to() never throws; false when it stopped early (the reason logged), in which
// case the front aborts the connection so the client sees a truncated answer, never a short
// one that looks complete.
class BodyStream {
  public:
    virtual ~BodyStream() = default;
    virtual bool write_to(BodySink& sink) = 0;
};

struct Response {
    int status = 200;
    std::string body;
    std::vector<std::pair<std::string, std::string>> headers;
    // API answers are never cached; only a document that changes with the binary says otherwise.
    const char* cache_control = "no-store";
    // Every answer is JSON but two: the Prometheus text of GET /metrics (extensions.md §E6) and
    // the CSV export (§E4). nullptr: no Content-Type (a 304 has no body, extensions.md §E8).
    const char* content_type = "application/json; charset=utf-8";
    // When set, the body is this stream (sent without Content-Length) and `body` is unused.
    std::shared_ptr<BodyStream> stream;
};

}  // namespace supportcrm
