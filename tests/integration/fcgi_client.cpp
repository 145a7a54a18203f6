#include "fcgi_client.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <thread>

#include "common/strict_json.h"
#include "harness.h"

namespace it::fcgi {
namespace {

using Clock = std::chrono::steady_clock;

// FastCGI 1.0 (fastcgi.h), spelled out here so the client stands on its own.
constexpr uint8_t kVersion = 1;
constexpr uint8_t kBeginRequest = 1;
constexpr uint8_t kEndRequest = 3;
constexpr uint8_t kParams = 4;
constexpr uint8_t kStdin = 5;
constexpr uint8_t kStdout = 6;
constexpr uint8_t kStderr = 7;
constexpr uint16_t kResponder = 1;
constexpr uint8_t kRequestComplete = 0;
constexpr uint16_t kRequestId = 1;
constexpr size_t kMaxContent = 65535;
constexpr size_t kHeaderLen = 8;

std::string lower(std::string_view s) {
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return out;
}

std::string trim(std::string_view s) {
    size_t b = 0;
    size_t e = s.size();
    while (b < e && (s[b] == ' ' || s[b] == '\t')) {
        ++b;
    }
    while (e > b && (s[e - 1] == ' ' || s[e - 1] == '\t' || s[e - 1] == '\r')) {
        --e;
    }
    return std::string(s.substr(b, e - b));
}

std::string errno_text(int err) {
    return std::string(std::strerror(err)) + " (errno " + std::to_string(err) + ")";
}

// Milliseconds left until `deadline` (0 when past), for poll(2).
int millis_left(Clock::time_point deadline) {
    auto left = std::chrono::duration_cast<Millis>(deadline - Clock::now()).count();
    if (left <= 0) {
        return 0;
    }
    return static_cast<int>(std::min<long long>(left, 1000 * 1000));
}

Millis remaining(Clock::time_point deadline) {
    return Millis(millis_left(deadline));
}

// Waits for `events` on `fd` until `deadline`; false on timeout.
bool wait_for(int fd, short events, Clock::time_point deadline) {
    while (true) {
        pollfd p{fd, events, 0};
        int n = poll(&p, 1, millis_left(deadline));
        if (n > 0) {
            return true;  // ready, or an error/hang-up the next call will report
        }
        if (n == 0) {
            return false;
        }
        if (errno != EINTR) {
            throw Error(Error::Kind::protocol, "poll: " + errno_text(errno));
        }
    }
}

std::string record(uint8_t type, std::string_view content) {
    std::string r;
    const size_t padding = (8 - content.size() % 8) % 8;
    r.reserve(kHeaderLen + content.size() + padding);
    r.push_back(static_cast<char>(kVersion));
    r.push_back(static_cast<char>(type));
    r.push_back(static_cast<char>(kRequestId >> 8));
    r.push_back(static_cast<char>(kRequestId & 0xff));
    r.push_back(static_cast<char>((content.size() >> 8) & 0xff));
    r.push_back(static_cast<char>(content.size() & 0xff));
    r.push_back(static_cast<char>(padding));
    r.push_back('\0');
    r.append(content);
    r.append(padding, '\0');
    return r;
}

// `data` as records of `type` (split at 65535 bytes); nothing for empty data.
std::string records(uint8_t type, std::string_view data) {
    std::string out;
    for (size_t at = 0; at < data.size(); at += kMaxContent) {
        out += record(type, data.substr(at, kMaxContent));
    }
    return out;
}

void append_length(std::string& out, size_t n) {
    if (n < 128) {
        out.push_back(static_cast<char>(n));
    } else {
        out.push_back(static_cast<char>(((n >> 24) & 0x7f) | 0x80));
        out.push_back(static_cast<char>((n >> 16) & 0xff));
        out.push_back(static_cast<char>((n >> 8) & 0xff));
        out.push_back(static_cast<char>(n & 0xff));
    }
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Request / Response.

std::vector<std::pair<std::string, std::string>> Request::params() const {
    std::vector<std::pair<std::string, std::string>> p;
    const size_t q = uri.find('?');
    p.emplace_back("REQUEST_METHOD", method);
    p.emplace_back("REQUEST_URI", uri);
    p.emplace_back("QUERY_STRING", q == std::string::npos ? std::string() : uri.substr(q + 1));
    if (!content_type.empty()) {
        p.emplace_back("CONTENT_TYPE", content_type);
    }
    p.emplace_back("CONTENT_LENGTH", std::to_string(body.size()));
    if (api_key) {
        p.emplace_back("HTTP_X_API_KEY", *api_key);
    }
    if (request_id) {
        p.emplace_back("HTTP_X_REQUEST_ID", *request_id);
    }
    for (const auto& extra : extra_params) {
        p.push_back(extra);
    }
    return p;
}

std::string Request::describe() const {
    return method + " " + uri;
}

std::optional<std::string> Response::header(std::string_view name) const {
    auto it = headers.find(lower(name));
    if (it == headers.end()) {
        return std::nullopt;
    }
    return it->second;
}

bool Response::complete() const {
    if (protocol_status != kRequestComplete || status == 0) {
        return false;
    }
    std::optional<std::string> length = header("content-length");
    return length && *length == std::to_string(body.size());
}

Json::Value Response::json() const {
    Json::Value v;
    if (!supportcrm::strict_json::parse(body, v)) {
        throw std::runtime_error("response body is not RFC 8259 JSON: " + printable(body));
    }
    return v;
}

std::string Response::describe() const {
    std::string d = std::to_string(status) + " " + printable(body);
    if (!stderr_text.empty()) {
        d += " (stderr: " + printable(stderr_text) + ")";
    }
    return d;
}

std::string encode_name_value(std::string_view name, std::string_view value) {
    std::string out;
    append_length(out, name.size());
    append_length(out, value.size());
    out.append(name);
    out.append(value);
    return out;
}

void parse_cgi_response(const std::string& raw, Response& out) {
    size_t end = raw.find("\r\n\r\n");
    size_t body_at = end == std::string::npos ? std::string::npos : end + 4;
    if (end == std::string::npos) {
        end = raw.find("\n\n");
        body_at = end == std::string::npos ? std::string::npos : end + 2;
    }
    if (end == std::string::npos) {
        throw Error(Error::Kind::protocol,
                    "CGI response without a header block: " + printable(raw));
    }
    out.status = 200;
    size_t at = 0;
    while (at < end) {
        size_t eol = raw.find('\n', at);
        if (eol == std::string::npos || eol > end) {
            eol = end;
        }
        std::string_view line(raw.data() + at, eol - at);
        at = eol + 1;
        if (!line.empty() && line.back() == '\r') {
            line.remove_suffix(1);
        }
        if (line.empty()) {
            continue;
        }
        size_t colon = line.find(':');
        if (colon == std::string_view::npos) {
            throw Error(Error::Kind::protocol,
                        "CGI header line without a colon: " + printable(line));
        }
        std::string name = lower(trim(line.substr(0, colon)));
        std::string value = trim(line.substr(colon + 1));
        if (name == "status") {
            char* parsed_end = nullptr;
            long status = std::strtol(value.c_str(), &parsed_end, 10);
            if (parsed_end == value.c_str() || status < 100 || status > 999) {
                throw Error(Error::Kind::protocol, "bad Status header: " + printable(value));
            }
            out.status = static_cast<int>(status);
        }
        out.headers.emplace(std::move(name), std::move(value));
    }
    out.body = raw.substr(body_at);
}

// ---------------------------------------------------------------------------------------------
// Connection.

Connection::Connection(const std::string& socket_path, Millis timeout) : socket_path_(socket_path) {
    const auto deadline = Clock::now() + timeout;
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    if (socket_path.size() >= sizeof addr.sun_path) {
        throw Error(Error::Kind::connect, "socket path too long: " + socket_path);
    }
    std::memcpy(addr.sun_path, socket_path.c_str(), socket_path.size() + 1);
    while (true) {
        fd_ = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        if (fd_ < 0) {
            throw Error(Error::Kind::connect, "socket: " + errno_text(errno));
        }
        if (connect(fd_, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0) {
            return;
        }
        const int err = errno;
        ::close(fd_);
        fd_ = -1;
        // A unix socket answers EAGAIN (not EINPROGRESS) while the listen backlog is full.
        if ((err == EAGAIN || err == EINTR) && Clock::now() < deadline) {
            std::this_thread::sleep_for(Millis(5));
            continue;
        }
        throw Error(err == EAGAIN ? Error::Kind::timeout : Error::Kind::connect,
                    "connect " + socket_path + ": " + errno_text(err));
    }
}

Connection::~Connection() {
    close();
}

Connection::Connection(Connection&& other) noexcept
    : fd_(other.fd_), socket_path_(std::move(other.socket_path_)), keep_conn_(other.keep_conn_) {
    other.fd_ = -1;
}

void Connection::close() {
    if (fd_ >= 0) {
        ::close(fd_);
        fd_ = -1;
    }
}

void Connection::send_all(std::string_view bytes, Millis timeout) {
    if (fd_ < 0) {
        throw Error(Error::Kind::closed, "send on a closed connection");
    }
    const auto deadline = Clock::now() + timeout;
    size_t sent = 0;
    while (sent < bytes.size()) {
        ssize_t n = ::send(fd_, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
        if (n > 0) {
            sent += static_cast<size_t>(n);
            continue;
        }
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            if (!wait_for(fd_, POLLOUT, deadline)) {
                throw Error(Error::Kind::timeout, "timed out sending to " + socket_path_ + " (" +
                                                      std::to_string(sent) + " of " +
                                                      std::to_string(bytes.size()) + " bytes)");
            }
            continue;
        }
        throw Error(Error::Kind::closed, "send to " + socket_path_ + ": " + errno_text(errno));
    }
}

void Connection::send_head(const Request& request, Millis timeout, bool keep_conn) {
    keep_conn_ = keep_conn;
    std::string begin;
    begin.push_back(static_cast<char>(kResponder >> 8));
    begin.push_back(static_cast<char>(kResponder & 0xff));
    begin.push_back(keep_conn ? '\1' : '\0');  // FCGI_KEEP_CONN: the server keeps it open
    begin.append(5, '\0');
    std::string params;
    for (const auto& [name, value] : request.params()) {
        params += encode_name_value(name, value);
    }
    std::string out = record(kBeginRequest, begin);
    out += records(kParams, params);
    out += record(kParams, {});
    send_all(out, timeout);
}

void Connection::send_stdin(std::string_view data, Millis timeout) {
    if (!data.empty()) {
        send_all(records(kStdin, data), timeout);
    }
}

void Connection::end_stdin(Millis timeout) {
    send_all(record(kStdin, {}), timeout);
}

Response Connection::read_response(Millis timeout) {
    if (fd_ < 0) {
        throw Error(Error::Kind::closed, "read on a closed connection");
    }
    const auto deadline = Clock::now() + timeout;
    std::string buffer;  // bytes received, not yet parsed
    std::string out;     // FCGI_STDOUT content
    Response response;
    char chunk[16384];
    while (true) {
        // Parse every whole record in the buffer.
        while (buffer.size() >= kHeaderLen) {
            const auto* h = reinterpret_cast<const unsigned char*>(buffer.data());
            const size_t content = (size_t{h[4]} << 8) | h[5];
            const size_t total = kHeaderLen + content + h[6];
            if (buffer.size() < total) {
                break;
            }
            const unsigned type = h[1];
            const unsigned id = (unsigned{h[2]} << 8) | h[3];
            if (h[0] != kVersion || id != kRequestId) {
                throw Error(Error::Kind::protocol,
                            "unexpected record (version " + std::to_string(h[0]) + ", type " +
                                std::to_string(type) + ", request id " + std::to_string(id) + ")");
            }
            std::string_view body(buffer.data() + kHeaderLen, content);
            if (type == kStdout) {
                out.append(body);
            } else if (type == kStderr) {
                response.stderr_text.append(body);
            } else if (type == kEndRequest) {
                if (content < 8) {
                    throw Error(Error::Kind::protocol, "short FCGI_END_REQUEST");
                }
                const auto* b = reinterpret_cast<const unsigned char*>(body.data());
                response.app_status =
                    (uint32_t{b[0]} << 24) | (uint32_t{b[1]} << 16) | (uint32_t{b[2]} << 8) | b[3];
                response.protocol_status = b[4];
                parse_cgi_response(out, response);
                if (!keep_conn_) {
                    close();
                }
                if (!response.body.empty()) {  // a HEAD answer has none
                    EXPECT_TRUE(is_strict_json(response.body)) << response.describe();
                }
                return response;
            } else {
                throw Error(Error::Kind::protocol,
                            "unexpected record type " + std::to_string(type));
            }
            buffer.erase(0, total);
        }
        if (!wait_for(fd_, POLLIN, deadline)) {
            throw Error(Error::Kind::timeout, "timed out after " + std::to_string(timeout.count()) +
                                                  " ms waiting for the answer on " + socket_path_ +
                                                  " (" + std::to_string(out.size()) +
                                                  " bytes of stdout so far)");
        }
        ssize_t n = ::recv(fd_, chunk, sizeof chunk, 0);
        if (n > 0) {
            buffer.append(chunk, static_cast<size_t>(n));
        } else if (n == 0) {
            throw Error(Error::Kind::closed, "connection closed before FCGI_END_REQUEST (" +
                                                 std::to_string(out.size()) +
                                                 " bytes of stdout: " + printable(out, 200) + ")");
        } else if (errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK) {
            throw Error(Error::Kind::closed,
                        "recv from " + socket_path_ + ": " + errno_text(errno));
        }
    }
}

Response request(const std::string& socket_path, const Request& request, Millis timeout) {
    const auto deadline = Clock::now() + timeout;
    Connection c(socket_path, timeout);
    c.send_head(request, remaining(deadline));
    c.send_stdin(request.body, remaining(deadline));
    c.end_stdin(remaining(deadline));
    return c.read_response(remaining(deadline));
}

}  // namespace it::fcgi
