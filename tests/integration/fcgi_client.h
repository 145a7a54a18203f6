// A small FastCGI client for the process tests: talks to a supportcrm-fcgi listen socket
// directly (no nginx), one request per connection (role RESPONDER, no FCGI_KEEP_CONN).
//
// Every operation is bounded by a timeout (non-blocking socket + poll); nothing here can hang.
// Failures throw fcgi::Error, whose kind() tells a timeout from a closed connection.
#pragma once

#include <json/json.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace it::fcgi {

using Millis = std::chrono::milliseconds;

inline constexpr Millis kDefaultTimeout{10000};

class Error : public std::runtime_error {
  public:
    enum class Kind {
        connect,   // could not connect (refused, no such socket, backlog full until the deadline)
        timeout,   // the deadline passed while sending or waiting for the answer
        closed,    // the server closed (or reset) the connection before FCGI_END_REQUEST
        protocol,  // the server sent something that is not valid FastCGI / CGI
    };
    Error(Kind kind, const std::string& what) : std::runtime_error(what), kind_(kind) {}
    Kind kind() const { return kind_; }

  private:
    Kind kind_;
};

struct Request {
    std::string method = "GET";
    std::string uri = "/";     // path and optional "?query" (REQUEST_URI; QUERY_STRING is derived)
    std::string body;          // CONTENT_LENGTH is its size (also when sent in parts)
    std::string content_type;  // CONTENT_TYPE, sent when not empty
    std::optional<std::string> api_key;                             // HTTP_X_API_KEY
    std::optional<std::string> request_id;                          // HTTP_X_REQUEST_ID
    std::vector<std::pair<std::string, std::string>> extra_params;  // e.g. HTTP_AUTHORIZATION

    // The name-value pairs sent as FCGI_PARAMS, in order.
    std::vector<std::pair<std::string, std::string>> params() const;
    // "POST /api/v1/customers" for messages.
    std::string describe() const;
};

struct Response {
    int status = 0;                                   // from "Status:", 200 when absent
    std::multimap<std::string, std::string> headers;  // names lowercased, values trimmed
    std::string body;
    std::string stderr_text;  // FCGI_STDERR content, if any
    uint32_t app_status = 0;  // of FCGI_END_REQUEST
    uint8_t protocol_status = 0;

    std::optional<std::string> header(std::string_view name) const;
    // True when the response is complete: FCGI_REQUEST_COMPLETE and a Content-Length header
    // that matches the body.
    bool complete() const;
    // The body parsed as JSON; throws when it is not JSON.
    Json::Value json() const;
    // "201 {...}" for failure messages.
    std::string describe() const;
};

// Encodes one FastCGI name-value pair (1- or 4-byte lengths). Exposed for completeness.
std::string encode_name_value(std::string_view name, std::string_view value);
// Splits a CGI response ("Status: 201 Created\r\n...\r\n\r\nbody") into `out`.
// Throws Error(protocol) when there is no header block.
void parse_cgi_response(const std::string& raw, Response& out);

// One connection carrying one request (or several in turn, with keep_conn). Use request() for the
// usual case; the parts below let a test hold a request in flight (head and part of the body now,
// the rest later).
class Connection {
  public:
    // Connects to the unix socket at `socket_path` (retrying only while the backlog is full).
    explicit Connection(const std::string& socket_path, Millis timeout = kDefaultTimeout);
    ~Connection();
    Connection(Connection&& other) noexcept;
    Connection& operator=(Connection&&) = delete;
    Connection(const Connection&) = delete;
    Connection& operator=(const Connection&) = delete;

    // FCGI_BEGIN_REQUEST (RESPONDER) + FCGI_PARAMS records + the empty PARAMS. With
    // keep_conn (FCGI_KEEP_CONN, what nginx's fastcgi_keep_conn sends) the server leaves the
    // connection open after the answer, and read_response does too: the next request may
    // follow on it.
    void send_head(const Request& request, Millis timeout = kDefaultTimeout,
                   bool keep_conn = false);
    // FCGI_STDIN records carrying `data` (nothing is sent for empty data).
    void send_stdin(std::string_view data, Millis timeout = kDefaultTimeout);
    // The empty FCGI_STDIN record that ends the body.
    void end_stdin(Millis timeout = kDefaultTimeout);
    // Reads records until FCGI_END_REQUEST and parses the CGI response.
    Response read_response(Millis timeout = kDefaultTimeout);

    void close();
    int fd() const { return fd_; }

  private:
    void send_all(std::string_view bytes, Millis timeout);

    int fd_ = -1;
    std::string socket_path_;
    bool keep_conn_ = false;
};

// Connects, sends the whole request, reads the whole response; one overall timeout.
Response request(const std::string& socket_path, const Request& request,
                 Millis timeout = kDefaultTimeout);

}  // namespace it::fcgi
