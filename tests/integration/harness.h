// Integration test harness: talks to a running supportcrm stack (nginx -> supportcrm-fcgi ->
// MariaDB) over real HTTP, provisions data with supportcrm-admin, and peeks at the database
// directly where the API cannot show a fact (e.g. "exactly one row").
//
// Every helper that cannot do its job throws std::runtime_error with a message that says why;
// GoogleTest turns an exception escaping a test body into a failure that carries the message.
// Nothing here ever skips a test: a missing environment variable is a failure.
#pragma once

#include <json/json.h>

#include <chrono>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gtest/gtest.h"

namespace sql {
class Connection;
}

namespace it {

// ---------------------------------------------------------------------------------------------
// Environment (set by scripts/test, see docs/INTERFACES.md).

struct Env {
    std::string base_url;  // SUPPORTCRM_BASE_URL, without a trailing slash
    std::string admin;     // SUPPORTCRM_ADMIN
    std::string config;    // SUPPORTCRM_CONFIG
    std::string fcgi_log;  // SUPPORTCRM_FCGI_LOG
    // SUPPORTCRM_SECOND_BASE_URL (optional, without a trailing slash): a second app host of the
    // same database (scripts/test --galera: pool B on another Galera node). When set, it::http
    // and its siblings alternate between the two hosts request by request.
    std::string second_base_url;
    std::string second_fcgi_log;  // SUPPORTCRM_SECOND_FCGI_LOG: that host's pool's log, when set
};

// Reads the four variables once; throws naming every missing one.
const Env& env();

// ---------------------------------------------------------------------------------------------
// HTTP.

// Request headers in the order they are sent. A header with an empty value is sent empty.
using Headers = std::vector<std::pair<std::string, std::string>>;

struct HttpResponse {
    std::string method;  // of the request, for messages
    std::string path;    // of the request, for messages
    long status = 0;
    std::multimap<std::string, std::string> headers;  // names lowercased, values trimmed
    std::string body;

    // First value of a header (name case-insensitive), if present.
    std::optional<std::string> header(std::string_view name) const;
    // All values of a header, in order.
    std::vector<std::string> header_values(std::string_view name) const;
    // The body parsed as JSON (strict). Throws with the body quoted if it does not parse.
    const Json::Value& json() const;
    // "POST /api/v1/customers -> 400 {...}" for failure messages.
    std::string describe() const;

  private:
    mutable std::optional<Json::Value> json_;
};

// The app hosts under test: SUPPORTCRM_BASE_URL, then SUPPORTCRM_SECOND_BASE_URL if set.
std::vector<std::string> hosts();

// While one lives, it::http and its variants send every request to the first host only: for
// tests about one pool's own state (its scoreboard, its workers), which two hosts would split.
class OneHostOnly {
  public:
    OneHostOnly();
    ~OneHostOnly();
    OneHostOnly(const OneHostOnly&) = delete;
    OneHostOnly& operator=(const OneHostOnly&) = delete;
};

// Sends one request to SUPPORTCRM_BASE_URL + path on a fresh connection (with a second host
// set, every other request goes to SUPPORTCRM_SECOND_BASE_URL instead). `body` (any bytes,
// NUL included) is sent with any method, with exactly the Content-Type given in `headers`
// (none when `headers` has none). Throws on transport failure. Any 5xx answer is recorded as
// a test failure (ADD_FAILURE), because the service must never answer 5xx to these tests.
// Thread-safe.
HttpResponse http(const std::string& method, const std::string& path, const Headers& headers = {},
                  const std::optional<std::string>& body = std::nullopt);

// The pid of a worker that /status?full shows busy on `route` (its pattern), polled until
// `timeout`; 0 if none. For tests that kill a worker in the middle of a request.
long busy_worker(const std::string& route, std::chrono::milliseconds timeout);

// it::http to one chosen host: hosts()[host]. For tests that race two hosts on purpose.
HttpResponse http_on(std::size_t host, const std::string& method, const std::string& path,
                     const Headers& headers = {},
                     const std::optional<std::string>& body = std::nullopt);
// The same without the 5xx check (a node-failure test counts its 503s).
HttpResponse http_unchecked_on(std::size_t host, const std::string& method, const std::string& path,
                               const Headers& headers = {},
                               const std::optional<std::string>& body = std::nullopt);

// Same, without the 5xx check (for tests that expect a 5xx, e.g. a stopped database). Both
// check that the body is strict JSON (expect_json_body).
HttpResponse http_unchecked(const std::string& method, const std::string& path,
                            const Headers& headers = {},
                            const std::optional<std::string>& body = std::nullopt);

// The request as it is, with no check of the answer at all: only for tests that plant invalid
// stored data on purpose and show that it breaks a body. Everything else goes through
// http_unchecked or http.
HttpResponse http_any_body(const std::string& method, const std::string& path,
                           const Headers& headers = {},
                           const std::optional<std::string>& body = std::nullopt);

// it::http_any_body to another server of the same stack: base_url + path (e.g.
// SUPPORTCRM_NO_KEEPALIVE_URL's).
HttpResponse http_to(const std::string& base_url, const std::string& method,
                     const std::string& path, const Headers& headers = {},
                     const std::optional<std::string>& body = std::nullopt);

// GET /metrics's Prometheus text (extensions.md §E6); throws unless it answers 200.
std::string metrics();
// The value of one sample line ("name{labels} value") of that text, 0 when absent.
double metric_sample(const std::string& text, const std::string& name_and_labels);

// ---------------------------------------------------------------------------------------------
// JSON.

// Compact JSON text. With utf8 = true non-ASCII is written as raw UTF-8, else as \u escapes.
std::string to_json(const Json::Value& value, bool utf8 = true);
// Strict parse (RFC 8259, extensions.md §E1: the service's own reader). Throws with the text
// on failure.
Json::Value parse_json(std::string_view text);
// Every response body the suite sees goes through this: RFC 8259 JSON, no byte-order mark.
::testing::AssertionResult is_strict_json(std::string_view body);
// Adds a test failure unless r's body is strict JSON (a HEAD answer may have no body).
// it::http_unchecked calls it on every response, so a regression in any answer shows.
void expect_json_body(const HttpResponse& r);
// With SUPPORTCRM_OPENAPI_CHECK=1 (scripts/openapi check: Prism's validating proxy sits
// between the suite and nginx) adds a test failure when the proxy reports that r disagrees
// with docs/openapi.yaml, or that its request does while the service accepted it.
// it::http_unchecked calls it on every response.
void expect_described(const HttpResponse& r);
// True when the value is a JSON integer (not a string, not a number written with a fraction).
bool is_json_integer(const Json::Value& value);
// An object from name/value pairs: it::object({{"email", e}, {"first_name", "Ann"}}).
Json::Value object(std::initializer_list<std::pair<std::string, Json::Value>> members);
// Sorted member names of an object ([] for anything else).
std::vector<std::string> member_names(const Json::Value& value);

// ---------------------------------------------------------------------------------------------
// Admin CLI.

struct AdminResult {
    int exit_code = -1;  // -1 when killed by a signal
    std::string out;
    std::string err;
};

// Runs `$SUPPORTCRM_ADMIN --config $SUPPORTCRM_CONFIG args...` (no shell involved).
AdminResult admin_raw(const std::vector<std::string>& args);
// Same, requiring exit 0 and one JSON object on stdout; returns it. Throws otherwise.
Json::Value admin(const std::vector<std::string>& args);

// ---------------------------------------------------------------------------------------------
// Test data.

// Unique across processes and runs: "<pid>-<counter>-<random hex>".
std::string unique_suffix();
// `prefix` and unique_suffix()'s letters and digits: a word new to the database (a search
// word, a database name).
std::string unique_word(std::string_view prefix);
// A unique, lowercase email address ("<tag>.<suffix>@example.test").
std::string unique_email(std::string_view tag = "c");

struct Shop {
    std::string domain;
    std::string key;     // the API key (secret)
    int64_t id = 0;      // shop id
    int64_t key_id = 0;  // id of the key, for `key revoke --id`
};

// Creates a brand; returns its id.
int64_t make_brand();
// Creates a unique shop (optionally in a brand) and a key for it.
Shop make_shop(std::optional<int64_t> brand_id = std::nullopt);
// Creates one more key for an existing shop domain; returns {key id, key}.
std::pair<int64_t, std::string> make_key(const std::string& domain);
// The shop with a new key that also has the erase scope (DELETE of a customer, extensions.md
// §E9, §E12): read,write,export,erase.
Shop with_erase_key(const Shop& shop);

// ---------------------------------------------------------------------------------------------
// API shortcuts.

Headers key_header(const Shop& shop);    // {x-api-key: key}
Headers json_headers(const Shop& shop);  // {x-api-key: key, Content-Type: application/json}

HttpResponse get(const std::string& path, const Shop& shop);
HttpResponse post_json(const std::string& path, const Shop& shop, const Json::Value& body);
HttpResponse post_raw(const std::string& path, const Shop& shop, const std::string& body,
                      const std::string& content_type = "application/json");

// POST /api/v1/customers expecting 201; returns the "customer" object. Throws otherwise.
Json::Value create_customer(const Shop& shop, const Json::Value& body);
// GET /api/v1/customers/{id} expecting 200; returns the "customer" object. Throws otherwise.
Json::Value fetch_customer(const Shop& shop, int64_t id);

// ---------------------------------------------------------------------------------------------
// Assertions. Use as EXPECT_TRUE(it::is_error(r, 404, "not_found", "Not found")).

inline constexpr std::string_view kJsonContentType = "application/json; charset=utf-8";

// Status, Content-Type, X-Request-Id present, body {success:false, code, message}. An empty
// `message` means "any non-empty message".
::testing::AssertionResult is_error(const HttpResponse& r, long status, std::string_view code,
                                    std::string_view message = {});
// Status, Content-Type, X-Request-Id present, body an object with success: true.
::testing::AssertionResult is_success(const HttpResponse& r, long status);
// Status only plus a short description on failure.
::testing::AssertionResult has_status(const HttpResponse& r, long status);

// True when `text` starts with `prefix`.
bool starts_with(std::string_view text, std::string_view prefix);
std::string to_lower(std::string_view text);

// ---------------------------------------------------------------------------------------------
// Time.

// Parses "YYYY-MM-DDTHH:MM:SS.mmmZ" exactly; nullopt for anything else.
std::optional<std::chrono::system_clock::time_point> parse_utc_millis(const std::string& text);

// ---------------------------------------------------------------------------------------------
// Files and the FastCGI log.

// The whole file; throws when it cannot be read.
std::string read_file(const std::string& path);
// The whole of SUPPORTCRM_FCGI_LOG.
std::string read_fcgi_log();
// Polls the log (every 50 ms, up to `timeout`) until it contains `needle`.
bool wait_for_log(std::string_view needle,
                  std::chrono::milliseconds timeout = std::chrono::milliseconds(5000));

// Arbitrary bytes for a failure message: \r, \n and other control bytes escaped (\x01),
// cut after `max` bytes with the full length noted.
std::string printable(std::string_view bytes, size_t max = 1500);

// Lowercase hex SHA-256 of `data` (to check that a key's digest is not logged either).
std::string sha256_hex(std::string_view data);

// ---------------------------------------------------------------------------------------------
// Database (read-only checks; keep to a minimum, prefer asserting through the API).

class Db {
  public:
    // Connects with the db-* keys of SUPPORTCRM_CONFIG (or of another pool's configuration:
    // a Galera test reaches host B's node so). Throws on failure.
    Db();
    explicit Db(const std::string& config_path);
    ~Db();
    Db(const Db&) = delete;
    Db& operator=(const Db&) = delete;

    // Runs a query whose first column of the first row is an integer (e.g. COUNT(*)).
    // `params` bind to the `?` placeholders as strings.
    int64_t count(const std::string& query, const std::vector<std::string>& params = {});
    // First column of the first row as text; nullopt when there is no row or it is NULL.
    std::optional<std::string> scalar(const std::string& query,
                                      const std::vector<std::string>& params = {});
    // Runs a statement (for fixtures that plant rows); NULL parameters are nullopt. Returns
    // 1062 on a duplicate-key failure and 0 on success; throws on every other failure. A
    // statement outside a transaction opened with execute("START TRANSACTION"/"BEGIN") that
    // the server rolls back as a deadlock victim runs again (a few times).
    int execute(const std::string& query, const std::vector<std::optional<std::string>>& params);

  private:
    std::unique_ptr<sql::Connection> conn_;
    bool in_transaction_ = false;
};

// Returns once every comment and every new customer committed before the call has its words in
// the search index (E10 v1.3: the pool's search indexer writes them after the commit,
// db/search/indexer.h): the indexer's queues (sql/023, sql/024) hold none of them. A condition, not
// a time: it polls the queue, and fails the test only if the indexer has not caught up after a
// minute.
void wait_for_search_index();

// Reads `key = value` lines of an INI file (comments with # or ;, [sections] ignored).
std::map<std::string, std::string> read_ini(const std::string& path);

// The stack's MariaDB unix socket (db-socket of SUPPORTCRM_CONFIG); throws when it has none.
std::string db_socket();

}  // namespace it
