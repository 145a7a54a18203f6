// The edges nginx itself answers (issue 10, item 7), through the stack's real nginx: errors it
// raises before a location applies get the API's JSON error body, its own pages echo only a
// sane X-Request-Id, HEAD /healthz answers like GET without a body, every answer carries
// X-Content-Type-Options: nosniff, the access log holds no query strings, and the optional
// rate limit puts every spelling of one key in one bucket.
//
// Requests curl would normalise (a broken request line, `%00`, odd whitespace in headers, a
// HEAD whose body must be absent on the wire) go over a raw TCP socket.
#include <chrono>
#include <cstdlib>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "fcgi_client.h"
#include "harness.h"
#include "raw_socket.h"

namespace {

using it::Headers;
using it::http;
using it::HttpResponse;

// ---------------------------------------------------------------------------------------------
// Raw HTTP.

using it::endpoint_of;
using it::Socket;

std::string env_or_throw(const char* name) {
    const char* v = std::getenv(name);
    if (v == nullptr || *v == '\0') {
        throw std::runtime_error(std::string(name) + " is not set (scripts/test sets it)");
    }
    return v;
}

// The answer as the harness's HttpResponse (so it::is_error applies), plus the bytes after the
// head exactly as they came.
struct RawReply {
    HttpResponse response;
    std::string raw;
};

std::string trim(std::string s) {
    const auto not_space = s.find_first_not_of(" \t");
    s.erase(0, not_space == std::string::npos ? s.size() : not_space);
    s.erase(s.find_last_not_of(" \t") + 1);
    return s;
}

RawReply parse_reply(const std::string& request_line, const std::string& raw) {
    RawReply r{{}, raw};
    const size_t space = request_line.find(' ');
    r.response.method = request_line.substr(0, space);
    r.response.path = space == std::string::npos ? "" : request_line.substr(space + 1, 200);
    const size_t head_end = raw.find("\r\n\r\n");
    if (raw.compare(0, 5, "HTTP/") != 0 || head_end == std::string::npos) {
        throw std::runtime_error("not an HTTP/1.x answer to " + r.response.path + ": " + raw);
    }
    std::istringstream head(raw.substr(0, head_end));
    std::string line;
    std::getline(head, line);
    r.response.status = std::stol(line.substr(line.find(' ') + 1, 3));
    while (std::getline(head, line)) {
        if (!line.empty() && line.back() == '\r') {
            line.pop_back();
        }
        const size_t colon = line.find(':');
        if (colon != std::string::npos) {
            r.response.headers.emplace(it::to_lower(trim(line.substr(0, colon))),
                                       trim(line.substr(colon + 1)));
        }
    }
    r.response.body = raw.substr(head_end + 4);
    it::expect_json_body(r.response);
    return r;
}

// Sends `bytes` as they are on a fresh connection to `url` and reads the answer to the end.
RawReply raw_http(const std::string& bytes, const std::string& url = it::env().base_url) {
    Socket s(endpoint_of(url));
    s.send_all(bytes);
    return parse_reply(bytes.substr(0, bytes.find('\r')),
                       s.read_to_close(std::chrono::seconds(10)));
}

// A complete HTTP/1.1 request with `extra` header lines (each ending in \r\n).
std::string request(const std::string& method, const std::string& target,
                    const std::string& extra = "") {
    return method + " " + target + " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n" + extra +
           "\r\n";
}

// ---------------------------------------------------------------------------------------------
// Checks shared by every answer.

const std::regex kSaneRequestId("^[A-Za-z0-9._:-]{1,128}$");

::testing::AssertionResult has_nosniff(const HttpResponse& r) {
    if (r.header("x-content-type-options").value_or("") == "nosniff") {
        return ::testing::AssertionSuccess();
    }
    return ::testing::AssertionFailure()
           << "no X-Content-Type-Options: nosniff on " << r.describe();
}

// The contract's error answer (it::is_error: status, JSON content type, X-Request-Id, a body
// that parses strictly with success/code/message) and nosniff.
::testing::AssertionResult is_json_error(const HttpResponse& r, long status, std::string_view code,
                                         std::string_view message) {
    ::testing::AssertionResult shape = it::is_error(r, status, code, message);
    return shape ? has_nosniff(r) : shape;
}

// ---------------------------------------------------------------------------------------------
// Errors nginx raises before a location applies.

TEST(NginxEdges, UnparsableRequestLineGetsJson400) {
    for (const std::string& bytes :
         {std::string("GARBAGE\r\n\r\n"), std::string("GET /api/v1/customers/1 HTTP/1.1 x\r\n\r\n"),
          std::string("get /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n")}) {
        const RawReply r = raw_http(bytes);
        EXPECT_TRUE(is_json_error(r.response, 400, "bad_request", "Bad request")) << r.raw;
    }
}

TEST(NginxEdges, PercentZeroInThePathGetsJson400) {
    for (const char* target : {"/api/v1/customers/%00", "/healthz%00", "/nope/%00?x=1"}) {
        const RawReply r = raw_http(request("GET", target));
        EXPECT_TRUE(is_json_error(r.response, 400, "bad_request", "Bad request")) << target;
    }
}

TEST(NginxEdges, MissingHostGetsJson400) {
    const RawReply r = raw_http("GET /api/v1/customers/1 HTTP/1.1\r\nConnection: close\r\n\r\n");
    EXPECT_TRUE(is_json_error(r.response, 400, "bad_request", "Bad request"));
}

TEST(NginxEdges, MalformedChunkedBodyGetsJson400) {
    // Raised while nginx reads the body for the pool, inside the /api/v1 location.
    const RawReply r = raw_http(request("POST", "/api/v1/customers",
                                        "Content-Type: application/json\r\n"
                                        "Transfer-Encoding: chunked\r\n") +
                                "zz\r\n{}\r\n0\r\n\r\n");
    EXPECT_TRUE(is_json_error(r.response, 400, "bad_request", "Bad request"));
}

// nginx refuses a Transfer-Encoding other than chunked (501) and a request line naming an HTTP
// version it does not speak on this port (505) before it picks a location: the site's
// server-level error pages answer both in JSON, on every path.
TEST(NginxEdges, UnknownTransferEncodingGetsJson501) {
    for (const char* path : {"/api/v1/customers", "/healthz", "/nope"}) {
        for (const char* coding : {"gzip", "gzip, chunked", "identity"}) {
            const RawReply r = raw_http(request("POST", path,
                                                "Content-Type: application/json\r\n"
                                                "Transfer-Encoding: " +
                                                    std::string(coding) + "\r\n") +
                                        "{}");
            EXPECT_TRUE(is_json_error(r.response, 501, "not_implemented",
                                      "Transfer-Encoding not supported"))
                << path << " with " << coding << ": " << r.raw;
        }
    }
}

TEST(NginxEdges, HttpTwoOnThePlainRequestLineGetsJson505) {
    for (const char* line : {"GET /api/v1/customers/1 HTTP/2.0", "GET /healthz HTTP/2.0",
                             "POST /nope?x=1 HTTP/3.0", "GET /healthz HTTP/9.9"}) {
        const RawReply r = raw_http(std::string(line) + "\r\nHost: localhost\r\n\r\n");
        EXPECT_TRUE(is_json_error(r.response, 505, "http_version_not_supported",
                                  "HTTP version not supported"))
            << line << ": " << r.raw;
    }
}

// The pages nginx reaches by URI are not `internal`: asked for directly, they answer the same
// JSON error rather than nginx's HTML 404.
TEST(NginxEdges, ErrorPageUrisAskedForDirectlyAnswerTheirJsonError) {
    EXPECT_TRUE(
        is_json_error(http("GET", "/.supportcrm/bad-request"), 400, "bad_request", "Bad request"));
    EXPECT_TRUE(is_json_error(http("POST", "/.supportcrm/uri-too-long"), 414, "uri_too_long",
                              "Request URI too long"));
    EXPECT_TRUE(is_json_error(http("GET", "/.supportcrm/header-too-large"), 431, "header_too_large",
                              "Request header too large"));
    // 5xx: it::http would call them a server failure.
    EXPECT_TRUE(is_json_error(it::http_unchecked("GET", "/.supportcrm/not-implemented"), 501,
                              "not_implemented", "Transfer-Encoding not supported"));
    EXPECT_TRUE(is_json_error(it::http_unchecked("GET", "/.supportcrm/http-version-not-supported"),
                              505, "http_version_not_supported", "HTTP version not supported"));
}

// large_client_header_buffers is 4 x 32k (nginx/supportcrm.conf): a longer request line is
// 414, a longer header line 431; a path stays at most 8k (414 over it), so that nginx's one
// FastCGI record of parameters (64 KiB) always holds the request line and the path (header lines
// that together overflow it are 431 too, below).
constexpr std::size_t kOverTheBuffer = 33 * 1024;

TEST(NginxEdges, UriOverThirtyTwoKilobytesOrPathOverEightGetsJson414) {
    for (const std::string& path :
         {"/api/v1/customers/" + std::string(kOverTheBuffer, '1'),
          "/healthz?" + std::string(kOverTheBuffer, 'q'), "/" + std::string(kOverTheBuffer, 'x'),
          "/api/v1/customers/" + std::string(9000, '1'), "/" + std::string(9000, 'x')}) {
        const HttpResponse r = http("GET", path);
        EXPECT_TRUE(is_json_error(r, 414, "uri_too_long", "Request URI too long"));
    }
    // A long query under the line's 32k reaches the pool (its own JSON: no key here).
    for (const std::string& path :
         {"/api/v1/tickets?q=" + std::string(31000, 'q'), "/healthz?" + std::string(31000, 'q'),
          "/api/v1/customers/" + std::string(8000, '1')}) {
        const HttpResponse r = http("GET", path);
        EXPECT_NE(r.status, 414) << r.describe();
        EXPECT_LT(r.status, 500) << r.describe();
    }
}

TEST(NginxEdges, HeaderLineOverThirtyTwoKilobytesGetsJson431) {
    const RawReply r = raw_http(request("GET", "/api/v1/customers/1",
                                        "X-Padding: " + std::string(kOverTheBuffer, 'p') + "\r\n"));
    EXPECT_TRUE(is_json_error(r.response, 431, "header_too_large", "Request header too large"));
}

// Lines each under the buffer but together over the 64 KiB of nginx's one FastCGI record of
// parameters: nginx never reaches the pool (its own HTML 500, "fastcgi request record is too
// big") unless the snippet answers it like any oversized header, no key needed.
std::string header_lines(int count, std::size_t value_bytes) {
    std::string lines;
    for (int i = 0; i < count; ++i) {
        lines += "X-Padding-" + std::to_string(i) + ": " + std::string(value_bytes, 'p') + "\r\n";
    }
    return lines;
}

TEST(NginxEdges, HeadersOverTheFastcgiRecordTogetherGetJson431) {
    for (const char* path : {"/api/v1/customers/1", "/api/v1/tickets?q=x", "/healthz"}) {
        const RawReply r = raw_http(request("GET", path, header_lines(100, 1024)));
        EXPECT_TRUE(is_json_error(r.response, 431, "header_too_large", "Request header too large"))
            << path << ": " << r.raw.substr(0, 300);
    }
    // Under the record, as many lines reach the pool: its own answer (401: no key).
    const RawReply under = raw_http(request("GET", "/api/v1/customers/1", header_lines(50, 1024)));
    EXPECT_TRUE(is_json_error(under.response, 401, "missing_api_key", "API key is required"))
        << under.raw.substr(0, 300);
}

TEST(NginxEdges, TraceGetsJson405OnEveryPath) {
    for (const char* path : {"/api/v1/customers", "/api/v1/customers/1", "/healthz", "/nope"}) {
        const HttpResponse r = http("TRACE", path);
        EXPECT_TRUE(is_json_error(r, 405, "method_not_allowed", "Method not allowed"));
    }
}

// client_max_body_size is 2m in the API's locations; nginx's 1m default elsewhere.
TEST(NginxEdges, BodyOverTheLimitGetsJson413AlsoOutsideTheApi) {
    const Headers json{{"Content-Type", "application/json"}};
    const HttpResponse api = http("POST", "/api/v1/customers", json, std::string(3 << 20, ' '));
    EXPECT_TRUE(is_json_error(api, 413, "body_too_large", "Request body too large"));
    const HttpResponse other = http("POST", "/nope", json, std::string(3 << 20, ' '));
    EXPECT_TRUE(is_json_error(other, 413, "body_too_large", "Request body too large"));
}

// ---------------------------------------------------------------------------------------------
// X-Request-Id on nginx's own pages: the application's rule (api/request.cpp).

// One request per kind of nginx page that has read the headers (a `%00` or an overlong URI is
// refused before, so no client id can be echoed there), and one the application answers, for
// comparison; each carries `id` as X-Request-Id.
std::vector<HttpResponse> pages_with_request_id(const std::string& id) {
    const std::string header = "X-Request-Id: " + id + "\r\n";
    return {
        raw_http(request("TRACE", "/api/v1/customers", header)).response,          // 405
        raw_http(request("GET", "/nope", header)).response,                        // 404
        raw_http("GET /nope HTTP/1.1\r\n" + header + "Connection: close\r\n\r\n")  // 400
            .response,
        raw_http(request("GET", "/nope",
                         header + "X-Padding: " + std::string(kOverTheBuffer, 'p') + "\r\n"))
            .response,  // 431
        http("POST", "/api/v1/customers", {{"X-Request-Id", id}}, std::string(3 << 20, ' ')),
        raw_http(request("GET", "/api/v1/customers/1", header)).response,  // 401, the pool
    };
}

TEST(NginxEdges, SaneRequestIdIsEchoedByNginxPages) {
    const std::string id = "Sane-id_1.2:" + it::unique_suffix();
    const std::string longest = std::string(128 - id.size(), 'x') + id;
    for (const std::string& sent : {id, longest}) {
        for (const HttpResponse& r : pages_with_request_id(sent)) {
            EXPECT_EQ(r.header("x-request-id").value_or(""), sent) << r.describe();
            EXPECT_TRUE(has_nosniff(r));
            EXPECT_NO_THROW(r.json()) << r.describe();
        }
    }
}

TEST(NginxEdges, InsaneRequestIdIsReplacedByNginxPages) {
    const std::string tag = it::unique_suffix();
    for (const std::string& sent :
         {"two words " + tag, std::string(129, 'a'), "semi;colon" + tag, "quote\"" + tag,
          "caf\xc3\xa9" + tag, "<b>" + tag, "a/b" + tag, "tab\tinside" + tag}) {
        for (const HttpResponse& r : pages_with_request_id(sent)) {
            const std::string got = r.header("x-request-id").value_or("");
            EXPECT_NE(got, sent) << r.describe();
            EXPECT_TRUE(std::regex_match(got, kSaneRequestId))
                << "X-Request-Id \"" << got << "\" on " << r.describe();
            EXPECT_NO_THROW(r.json()) << r.describe();
        }
    }
}

// ---------------------------------------------------------------------------------------------
// HEAD /healthz.

TEST(NginxEdges, HeadHealthzAnswersLikeGetWithoutABody) {
    const RawReply get = raw_http(request("GET", "/healthz"));
    const RawReply head = raw_http(request("HEAD", "/healthz"));
    ASSERT_EQ(get.response.status, 200) << get.raw;
    EXPECT_EQ(get.response.json()["status"], "ok");
    EXPECT_EQ(head.response.status, 200) << head.raw;
    EXPECT_EQ(head.response.body, "") << "HEAD /healthz sent a body: " << head.raw;
    for (const char* name :
         {"content-type", "content-length", "cache-control", "x-content-type-options"}) {
        EXPECT_EQ(head.response.header(name), get.response.header(name)) << name;
    }
    EXPECT_TRUE(head.response.header("x-request-id")) << head.raw;
}

// nginx drops a body from any answer to HEAD; the pool must not write one in the first place.
TEST(NginxEdges, ThePoolWritesNoBodyForHeadHealthz) {
    const std::string socket = it::read_ini(it::env().config).at("listen");
    it::fcgi::Request head;
    head.method = "HEAD";
    head.uri = "/healthz";
    const it::fcgi::Response r = it::fcgi::request(socket, head);
    EXPECT_EQ(r.status, 200) << r.describe();
    EXPECT_EQ(r.body, "") << r.describe();
    EXPECT_EQ(r.header("content-length").value_or(""),
              std::to_string(std::string(R"({"status":"ok"})").size()));
}

TEST(NginxEdges, OnlyHealthzTakesHead) {
    const HttpResponse post = http("POST", "/healthz");
    EXPECT_TRUE(is_json_error(post, 405, "method_not_allowed", "Method not allowed"));
    EXPECT_EQ(post.header("allow").value_or(""), "GET, HEAD");
    const RawReply api = raw_http(request("HEAD", "/api/v1/customers/1"));
    EXPECT_EQ(api.response.status, 405) << api.raw;
    // extensions.md §E8 (PATCH), §E9 (DELETE)
    EXPECT_EQ(api.response.header("allow").value_or(""), "GET, PATCH, DELETE");
    EXPECT_EQ(api.response.body, "");
}

// ---------------------------------------------------------------------------------------------
// nosniff on the application's answers (nginx's pages are checked above).

TEST(NginxEdges, ApplicationAnswersCarryNosniff) {
    const it::Shop shop = it::make_shop();
    const Json::Value customer = it::object({{"email", it::unique_email()}});
    for (const HttpResponse& r : {
             http("GET", "/healthz"), it::post_json("/api/v1/customers", shop, customer),  // 201
             it::get("/api/v1/customers/0", shop),                                         // 404
             http("GET", "/api/v1/customers/1"),                                           // 401
             http("GET", "/api/v1/no-such-route"),                                         // 404
             http("PUT", "/api/v1/customers/1"),                                           // 405
             it::post_raw("/api/v1/customers", shop, "{"),                                 // 400
         }) {
        EXPECT_TRUE(has_nosniff(r));
        EXPECT_NO_THROW(r.json()) << r.describe();
    }
}

// ---------------------------------------------------------------------------------------------
// Access log.

std::string read_access_log() {
    return it::read_file(env_or_throw("SUPPORTCRM_NGINX_ACCESS_LOG"));
}

// nginx writes a request's line after it has sent the answer: wait for every marker.
std::string wait_for_access_log(const std::vector<std::string>& markers) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    for (;;) {
        std::string log = read_access_log();
        bool all = true;
        for (const std::string& m : markers) {
            all = all && log.find(m) != std::string::npos;
        }
        if (all || std::chrono::steady_clock::now() >= deadline) {
            return log;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
}

TEST(NginxEdges, AccessLogHoldsNoQueryStrings) {
    const std::string secret = "sk" + it::unique_suffix() + "SECRET";
    const std::string tag = "qs-" + it::unique_suffix();
    const std::string query = "?api_key=" + secret + "&x=" + secret;
    const std::vector<std::string> paths{
        "/api/v1/customers/1-" + tag,   // the pool: 401
        "/nope-" + tag,                 // location /: 404
        "/api/v1/customers/%00" + tag,  // 400 before any location
        "/api/v1/customers/unparsable-" + tag,
    };
    raw_http(request("GET", paths[0] + query));
    raw_http(request("GET", paths[1] + query));
    raw_http(request("TRACE", paths[1] + query));
    raw_http(request("GET", paths[2] + query));
    raw_http("GET " + paths[3] + query + " HTTP/1.1 junk\r\n\r\n");
    const std::string log =
        wait_for_access_log({paths[0], paths[1], "TRACE /nope-" + tag, paths[2], paths[3]});
    for (const std::string& p : paths) {
        EXPECT_NE(log.find(p), std::string::npos) << "no access log line for " << p;
    }
    EXPECT_EQ(log.find(secret), std::string::npos)
        << "a query string reached the access log:\n"
        << log.substr(log.size() > 4000 ? log.size() - 4000 : 0);
}

// ---------------------------------------------------------------------------------------------
// The optional rate limit: one bucket per key as the application reads it.

// Header lines that all carry `key` for the application (api/auth.cpp api_key_of).
std::vector<std::string> spellings_of(const std::string& key) {
    return {
        "Authorization: Bearer " + key + "\r\n",
        "Authorization: bearer   " + key + "  \r\n",
        "x-api-key:  " + key + " \r\n",
        "x-api-key: \x0b" + key + "\x0c\r\n",
        "Authorization: BEARER\t" + key + "\x0b\r\n",
        "x-api-key: \x0b\r\nAuthorization: bEaReR " + key + "\r\n",
    };
}

TEST(NginxEdges, EverySpellingOfAKeyIsThatKeyForThePool) {
    const it::Shop shop = it::make_shop();
    for (const std::string& header : spellings_of(shop.key)) {
        const RawReply r = raw_http(request("GET", "/api/v1/customers/0", header));
        EXPECT_TRUE(is_json_error(r.response, 404, "customer_not_found", "Customer not found"))
            << it::printable(header);
    }
}

// One round on a fresh key: use up its burst with the first spelling, then try each other
// spelling once. Separate buckets would let each of them through (a fresh bucket always
// admits its first request), so a 429 for every one proves a shared bucket. The other
// spellings must follow within one token interval (50 ms at 20 r/s) of the first one's last
// admitted request; on a machine too busy for that, the round is repeated.
bool other_spellings_limited_in_one_round(std::string& trace) {
    const std::string url = env_or_throw("SUPPORTCRM_RATE_LIMITED_URL");
    const std::vector<std::string> spellings = spellings_of(it::make_shop().key);
    const std::string path = "/api/v1/customers/0";
    bool limited = false;
    for (int i = 0; i < 20 && !limited; ++i) {
        limited = raw_http(request("GET", path, spellings[0]), url).response.status == 429;
    }
    if (!limited) {
        trace += "the first spelling never got 429; ";
        return false;
    }
    bool all = true;
    for (size_t i = 1; i < spellings.size(); ++i) {
        const RawReply r = raw_http(request("GET", path, spellings[i]), url);
        trace += it::printable(spellings[i]) + " -> " + std::to_string(r.response.status) + "; ";
        if (r.response.status == 429) {
            EXPECT_TRUE(is_json_error(r.response, 429, "rate_limited", "Too many requests"));
        }
        all = all && r.response.status == 429;
    }
    return all;
}

TEST(NginxEdges, EverySpellingOfAKeySharesOneRateLimitBucket) {
    std::string trace;
    bool shared = false;
    for (int round = 0; round < 5 && !shared; ++round) {
        trace += "round " + std::to_string(round) + ": ";
        shared = other_spellings_limited_in_one_round(trace);
    }
    EXPECT_TRUE(shared) << trace;
}

}  // namespace
