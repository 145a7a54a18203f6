// One HTTP request as the worker sees it: what nginx passed as FastCGI params, and the body,
// which is read only when a handler asks for it (after routing and authentication, in the
// contract's order of checks).
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace supportcrm {

class BodySource {
  public:
    virtual ~BodySource() = default;
    // Appends the body to out; false (and stops reading) once it would exceed max bytes.
    virtual bool read(std::string& out, std::size_t max) = 0;
    // Up to size bytes of the body into buffer; 0 at its end (an upload, api/files.h).
    virtual std::size_t read_some(char* buffer, std::size_t size) = 0;
};

// A body already in memory (tests, and nothing else).
class StringBody : public BodySource {
  public:
    explicit StringBody(std::string body) : body_(std::move(body)) {}
    bool read(std::string& out, std::size_t max) override;
    std::size_t read_some(char* buffer, std::size_t size) override;

  private:
    std::string body_;
    std::size_t offset_ = 0;
};

struct SpooledUpload;  // api/files.h

struct Request {
    std::string method;
    std::string path;   // raw path of REQUEST_URI, without the query string
    std::string query;  // raw query string, without '?'
    std::string content_type;
    std::optional<std::size_t> content_length;  // as announced; nullopt when absent
    std::optional<std::string> x_api_key;
    std::optional<std::string> authorization;
    std::optional<std::string> idempotency_key;  // as sent (extensions.md §E2), even if empty
    std::optional<std::string> if_match;         // extensions.md §E8; repeated headers joined
    std::optional<std::string> if_none_match;    // by ", " (one list, as RFC 9110 reads them)
    std::string request_id;  // the client's X-Request-Id when acceptable, else generated

    BodySource* body_source = nullptr;
    // An upload's body, received on disk (api/files.h: spool_upload), instead of body().
    std::shared_ptr<SpooledUpload> upload;
    // What an Idempotency-Key binds instead of the body bytes, when set (an upload's query
    // and digest: extensions.md §E13).
    std::optional<std::string> body_identity;

    enum class BodyState { unread, ok, too_large };
    // Reads the body once (later calls return the cached outcome); body holds it when ok.
    BodyState load_body(std::size_t max_bytes);
    const std::string& body() const { return body_; }

  private:
    BodyState body_state_ = BodyState::unread;
    std::string body_;
};

// Splits REQUEST_URI into path and query.
void split_request_uri(std::string_view uri, std::string& path, std::string& query);

// The client's X-Request-Id when it is 1..128 characters of [A-Za-z0-9._:-] (anything else
// could forge log lines or headers); nullopt otherwise.
std::optional<std::string> acceptable_request_id(std::string_view client_value);

// A fresh 16-hex-digit request id.
std::string generate_request_id();

}  // namespace supportcrm
