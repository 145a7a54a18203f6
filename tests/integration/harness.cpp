#include "harness.h"

#include <curl/curl.h>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <mutex>
#include <random>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "common/strict_json.h"

// Connector/C++ 1.1 headers are not warning-clean under -Wextra.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#include <cppconn/connection.h>
#include <cppconn/exception.h>
#include <cppconn/prepared_statement.h>
#include <cppconn/resultset.h>
#include <mysql_driver.h>
#pragma GCC diagnostic pop

extern char** environ;

namespace it {
namespace {

std::string trim(std::string_view s) {
    const auto is_space = [](char c) {
        return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v';
    };
    size_t b = 0;
    size_t e = s.size();
    while (b < e && is_space(s[b])) {
        ++b;
    }
    while (e > b && is_space(s[e - 1])) {
        --e;
    }
    return std::string(s.substr(b, e - b));
}

std::string getenv_or_empty(const char* name) {
    const char* v = std::getenv(name);
    return v ? std::string(v) : std::string();
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Environment.

const Env& env() {
    static const Env e = [] {
        Env r;
        r.base_url = getenv_or_empty("SUPPORTCRM_BASE_URL");
        r.admin = getenv_or_empty("SUPPORTCRM_ADMIN");
        r.config = getenv_or_empty("SUPPORTCRM_CONFIG");
        r.fcgi_log = getenv_or_empty("SUPPORTCRM_FCGI_LOG");
        r.second_base_url = getenv_or_empty("SUPPORTCRM_SECOND_BASE_URL");
        r.second_fcgi_log = getenv_or_empty("SUPPORTCRM_SECOND_FCGI_LOG");
        for (std::string* url : {&r.base_url, &r.second_base_url}) {
            while (!url->empty() && url->back() == '/') {
                url->pop_back();
            }
        }
        return r;
    }();
    std::string missing;
    for (const auto& [name, value] :
         {std::pair<const char*, const std::string*>{"SUPPORTCRM_BASE_URL", &e.base_url},
          {"SUPPORTCRM_ADMIN", &e.admin},
          {"SUPPORTCRM_CONFIG", &e.config},
          {"SUPPORTCRM_FCGI_LOG", &e.fcgi_log}}) {
        if (value->empty()) {
            missing += missing.empty() ? "" : ", ";
            missing += name;
        }
    }
    if (!missing.empty()) {
        throw std::runtime_error(
            "integration tests need a running stack; environment variable(s) not set: " + missing +
            " (run them through scripts/test, see docs/INTERFACES.md)");
    }
    return e;
}

// ---------------------------------------------------------------------------------------------
// Small string helpers.

bool starts_with(std::string_view text, std::string_view prefix) {
    return text.substr(0, prefix.size()) == prefix;
}

std::string to_lower(std::string_view text) {
    std::string out(text);
    std::transform(out.begin(), out.end(), out.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return out;
}

// ---------------------------------------------------------------------------------------------
// JSON.

std::string to_json(const Json::Value& value, bool utf8) {
    Json::StreamWriterBuilder b;
    b["indentation"] = "";
    b["emitUTF8"] = utf8;
    return Json::writeString(b, value);
}

Json::Value parse_json(std::string_view text) {
    Json::Value v;
    if (!supportcrm::strict_json::parse(text, v)) {
        throw std::runtime_error("not RFC 8259 JSON: " + printable(text));
    }
    return v;
}

::testing::AssertionResult is_strict_json(std::string_view body) {
    if (starts_with(body, "\xEF\xBB\xBF")) {
        return ::testing::AssertionFailure() << "body starts with a byte-order mark";
    }
    if (!supportcrm::strict_json::valid(body)) {
        return ::testing::AssertionFailure() << "body is not RFC 8259 JSON: " << printable(body);
    }
    return ::testing::AssertionSuccess();
}

void expect_json_body(const HttpResponse& r) {
    if (r.method == "HEAD" && r.body.empty()) {
        return;
    }
    EXPECT_TRUE(is_strict_json(r.body)) << r.method << " " << r.path << " -> " << r.status;
}

bool is_json_integer(const Json::Value& value) {
    return value.type() == Json::intValue || value.type() == Json::uintValue;
}

Json::Value object(std::initializer_list<std::pair<std::string, Json::Value>> members) {
    Json::Value v(Json::objectValue);
    for (const auto& [name, value] : members) {
        v[name] = value;
    }
    return v;
}

std::vector<std::string> member_names(const Json::Value& value) {
    if (!value.isObject()) {
        return {};
    }
    std::vector<std::string> names = value.getMemberNames();
    std::sort(names.begin(), names.end());
    return names;
}

// ---------------------------------------------------------------------------------------------
// HTTP.

std::optional<std::string> HttpResponse::header(std::string_view name) const {
    const auto it = headers.find(to_lower(name));
    if (it == headers.end()) {
        return std::nullopt;
    }
    return it->second;
}

std::vector<std::string> HttpResponse::header_values(std::string_view name) const {
    std::vector<std::string> out;
    const auto [b, e] = headers.equal_range(to_lower(name));
    for (auto it = b; it != e; ++it) {
        out.push_back(it->second);
    }
    return out;
}

const Json::Value& HttpResponse::json() const {
    if (!json_) {
        try {
            json_ = parse_json(body);
        } catch (const std::exception& e) {
            throw std::runtime_error("response body of " + method + " " + path + " (status " +
                                     std::to_string(status) + ") is " + e.what());
        }
    }
    return *json_;
}

std::string HttpResponse::describe() const {
    return method + " " + path + " -> " + std::to_string(status) + " " + printable(body);
}

namespace {

void curl_init_once() {
    static std::once_flag once;
    static CURLcode rc = CURLE_OK;
    std::call_once(once, [] { rc = curl_global_init(CURL_GLOBAL_ALL); });
    if (rc != CURLE_OK) {
        throw std::runtime_error(std::string("curl_global_init failed: ") + curl_easy_strerror(rc));
    }
}

size_t on_body(char* data, size_t size, size_t count, void* user) {
    static_cast<std::string*>(user)->append(data, size * count);
    return size * count;
}

size_t on_header(char* data, size_t size, size_t count, void* user) {
    auto* headers = static_cast<std::multimap<std::string, std::string>*>(user);
    const std::string_view line(data, size * count);
    if (starts_with(line, "HTTP/")) {
        headers->clear();  // a new response (e.g. after 100 Continue)
        return size * count;
    }
    const size_t colon = line.find(':');
    if (colon != std::string_view::npos) {
        headers->emplace(to_lower(trim(line.substr(0, colon))), trim(line.substr(colon + 1)));
    }
    return size * count;
}

struct CurlDeleter {
    void operator()(CURL* c) const { curl_easy_cleanup(c); }
};
struct SlistDeleter {
    void operator()(curl_slist* l) const { curl_slist_free_all(l); }
};

}  // namespace

std::vector<std::string> hosts() {
    const Env& e = env();
    std::vector<std::string> all{e.base_url};
    if (!e.second_base_url.empty()) {
        all.push_back(e.second_base_url);
    }
    return all;
}

namespace {

std::atomic<int> one_host_only{0};

}  // namespace

OneHostOnly::OneHostOnly() {
    one_host_only.fetch_add(1);
}

OneHostOnly::~OneHostOnly() {
    one_host_only.fetch_sub(1);
}

namespace {

// The host of the next request: alternates when there are two, whatever thread asks.
const std::string& next_base_url() {
    static std::atomic<unsigned> requests{0};
    const Env& e = env();
    if (e.second_base_url.empty() || one_host_only.load() > 0 ||
        requests.fetch_add(1, std::memory_order_relaxed) % 2 == 0) {
        return e.base_url;
    }
    return e.second_base_url;
}

HttpResponse send_to(const std::string& base_url, const std::string& method,
                     const std::string& path, const Headers& headers,
                     const std::optional<std::string>& body) {
    curl_init_once();
    const std::string url = base_url + path;
    std::unique_ptr<CURL, CurlDeleter> curl(curl_easy_init());
    if (!curl) {
        throw std::runtime_error("curl_easy_init failed");
    }
    HttpResponse r;
    r.method = method;
    r.path = path;

    CURL* c = curl.get();
    curl_easy_setopt(c, CURLOPT_URL, url.c_str());
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_NOPROXY, "*");
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, 5L);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, 30L);
    curl_easy_setopt(c, CURLOPT_FORBID_REUSE, 1L);
    curl_easy_setopt(c, CURLOPT_FRESH_CONNECT, 1L);
    curl_easy_setopt(c, CURLOPT_PATH_AS_IS, 1L);  // send "//" and ".." exactly as written
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &r.body);
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, &r.headers);

    if (body) {
        curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body->size()));
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, body->data());
        curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method.c_str());
    } else if (method == "HEAD") {
        curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
    } else if (method != "GET") {
        curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method.c_str());
    }

    curl_slist* raw = nullptr;
    bool has_content_type = false;
    const auto append = [&raw](const std::string& line) {
        curl_slist* next = curl_slist_append(raw, line.c_str());
        if (!next) {
            throw std::runtime_error("curl_slist_append failed");
        }
        raw = next;
    };
    std::unique_ptr<curl_slist, SlistDeleter> list_guard;
    try {
        append("Expect:");  // no 100-continue round trip for large bodies
        for (const auto& [name, value] : headers) {
            if (to_lower(name) == "content-type") {
                has_content_type = true;
            }
            // curl sends "Name;" as an empty header; "Name:" would remove it.
            append(value.empty() ? name + ";" : name + ": " + value);
        }
        if (body && !has_content_type) {
            append("Content-Type:");  // suppress curl's default form type
        }
    } catch (...) {
        curl_slist_free_all(raw);
        throw;
    }
    list_guard.reset(raw);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, raw);

    const CURLcode rc = curl_easy_perform(c);
    if (rc != CURLE_OK) {
        throw std::runtime_error("HTTP " + method + " " + url +
                                 " failed: " + curl_easy_strerror(rc) +
                                 " (is the stack up? SUPPORTCRM_BASE_URL=" + env().base_url + ")");
    }
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r.status);
    return r;
}

}  // namespace

HttpResponse http_any_body(const std::string& method, const std::string& path,
                           const Headers& headers, const std::optional<std::string>& body) {
    return send_to(next_base_url(), method, path, headers, body);
}

bool openapi_check_enabled() {
    static const bool enabled = [] {
        const char* v = std::getenv("SUPPORTCRM_OPENAPI_CHECK");
        return v != nullptr && std::string_view(v) == "1";
    }();
    return enabled;
}

void expect_described(const HttpResponse& r) {
    if (!openapi_check_enabled()) {
        return;
    }
    // Every answer of the stack (pool and nginx pages) carries X-Request-Id; Prism's own don't.
    if (!r.header("x-request-id")) {
        ADD_FAILURE() << "the OpenAPI proxy answered instead of the service (the request never "
                         "reached it; such a test does not belong in the check run): "
                      << r.describe();
        return;
    }
    std::optional<std::string> header = r.header("sl-violations");
    if (!header) {
        return;
    }
    Json::Value violations;
    Json::CharReaderBuilder builder;
    std::string errors;
    std::unique_ptr<Json::CharReader> reader(builder.newCharReader());
    if (!reader->parse(header->data(), header->data() + header->size(), &violations, &errors) ||
        !violations.isArray()) {
        ADD_FAILURE() << "unreadable sl-violations header: " << *header;
        return;
    }
    for (const Json::Value& v : violations) {
        const std::string side = v["location"][0].asString();
        // The response must always match the description. A request may break it only when
        // the service refuses it too (a deliberately invalid request and its described 4xx).
        if (side == "response" || r.status < 400) {
            ADD_FAILURE() << "docs/openapi.yaml and the service disagree (" << side
                          << "): " << v["message"].asString() << " at " << to_json(v["location"])
                          << "\n  " << r.describe();
        }
    }
}

HttpResponse http_to(const std::string& base_url, const std::string& method,
                     const std::string& path, const Headers& headers,
                     const std::optional<std::string>& body) {
    return send_to(base_url, method, path, headers, body);
}

HttpResponse http_unchecked(const std::string& method, const std::string& path,
                            const Headers& headers, const std::optional<std::string>& body) {
    HttpResponse r = http_any_body(method, path, headers, body);
    expect_json_body(r);
    expect_described(r);
    return r;
}

HttpResponse http(const std::string& method, const std::string& path, const Headers& headers,
                  const std::optional<std::string>& body) {
    HttpResponse r = http_unchecked(method, path, headers, body);
    if (r.status >= 500) {
        ADD_FAILURE() << "the service answered 5xx: " << r.describe();
    }
    return r;
}

HttpResponse http_unchecked_on(std::size_t host, const std::string& method, const std::string& path,
                               const Headers& headers, const std::optional<std::string>& body) {
    const std::vector<std::string> all = hosts();
    if (host >= all.size()) {
        throw std::runtime_error("no app host " + std::to_string(host) + " (" +
                                 std::to_string(all.size()) + " configured)");
    }
    HttpResponse r = send_to(all[host], method, path, headers, body);
    expect_json_body(r);
    expect_described(r);
    return r;
}

HttpResponse http_on(std::size_t host, const std::string& method, const std::string& path,
                     const Headers& headers, const std::optional<std::string>& body) {
    HttpResponse r = http_unchecked_on(host, method, path, headers, body);
    if (r.status >= 500) {
        ADD_FAILURE() << "the service answered 5xx: " << r.describe();
    }
    return r;
}

// ---------------------------------------------------------------------------------------------
// Admin CLI.

AdminResult admin_raw(const std::vector<std::string>& args) {
    const Env& e = env();
    std::vector<std::string> argv_s{e.admin, "--config", e.config};
    argv_s.insert(argv_s.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : argv_s) {
        argv.push_back(a.data());
    }
    argv.push_back(nullptr);

    int out_pipe[2];
    int err_pipe[2];
    if (pipe2(out_pipe, O_CLOEXEC) != 0) {
        throw std::runtime_error(std::string("pipe2: ") + std::strerror(errno));
    }
    if (pipe2(err_pipe, O_CLOEXEC) != 0) {
        const int saved = errno;
        close(out_pipe[0]);
        close(out_pipe[1]);
        throw std::runtime_error(std::string("pipe2: ") + std::strerror(saved));
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, out_pipe[1], 1);
    posix_spawn_file_actions_adddup2(&fa, err_pipe[1], 2);
    pid_t pid = -1;
    const int spawn_rc = posix_spawn(&pid, e.admin.c_str(), &fa, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    close(out_pipe[1]);
    close(err_pipe[1]);
    if (spawn_rc != 0) {
        close(out_pipe[0]);
        close(err_pipe[0]);
        throw std::runtime_error("cannot run SUPPORTCRM_ADMIN=" + e.admin + ": " +
                                 std::strerror(spawn_rc));
    }

    AdminResult r;
    std::array<pollfd, 2> fds{pollfd{out_pipe[0], POLLIN, 0}, pollfd{err_pipe[0], POLLIN, 0}};
    std::array<std::string*, 2> sinks{&r.out, &r.err};
    int open_fds = 2;
    while (open_fds > 0) {
        if (poll(fds.data(), fds.size(), -1) < 0) {
            if (errno == EINTR) {
                continue;
            }
            break;
        }
        for (size_t i = 0; i < fds.size(); ++i) {
            if (fds[i].fd < 0 || fds[i].revents == 0) {
                continue;
            }
            char buf[4096];
            const ssize_t n = read(fds[i].fd, buf, sizeof buf);
            if (n > 0) {
                sinks[i]->append(buf, static_cast<size_t>(n));
            } else if (n == 0 || errno != EINTR) {
                close(fds[i].fd);
                fds[i].fd = -1;
                --open_fds;
            }
        }
    }
    for (auto& f : fds) {
        if (f.fd >= 0) {
            close(f.fd);
        }
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return r;
}

Json::Value admin(const std::vector<std::string>& args) {
    std::string cmd;
    for (const auto& a : args) {
        cmd += (cmd.empty() ? "" : " ") + a;
    }
    const AdminResult r = admin_raw(args);
    if (r.exit_code != 0) {
        throw std::runtime_error("supportcrm-admin " + cmd + " exited " +
                                 std::to_string(r.exit_code) + "; stderr: " + printable(r.err) +
                                 "; stdout: " + printable(r.out));
    }
    Json::Value v;
    try {
        v = parse_json(trim(r.out));
    } catch (const std::exception& ex) {
        throw std::runtime_error("supportcrm-admin " + cmd + " printed " + ex.what());
    }
    if (!v.isObject()) {
        throw std::runtime_error("supportcrm-admin " + cmd +
                                 " did not print a JSON object: " + printable(r.out));
    }
    return v;
}

// ---------------------------------------------------------------------------------------------
// Test data.

std::string unique_suffix() {
    static std::atomic<unsigned> counter{0};
    static const uint64_t seed = [] {
        std::random_device rd;
        return (static_cast<uint64_t>(rd()) << 32) ^ rd();
    }();
    thread_local std::mt19937_64 rng(seed ^
                                     std::hash<std::thread::id>{}(std::this_thread::get_id()));
    char buf[64];
    std::snprintf(buf, sizeof buf, "%ld-%u-%08x", static_cast<long>(getpid()), ++counter,
                  static_cast<unsigned>(rng()));
    return buf;
}

std::string unique_word(std::string_view prefix) {
    std::string out(prefix);
    for (char c : unique_suffix()) {
        if (std::isalnum(static_cast<unsigned char>(c))) {
            out.push_back(c);
        }
    }
    return out;
}

std::string unique_email(std::string_view tag) {
    return std::string(tag) + "." + unique_suffix() + "@example.test";
}

namespace {
int64_t require_id(const Json::Value& v, const char* what) {
    if (!v.isMember("id") || !is_json_integer(v["id"])) {
        throw std::runtime_error(std::string(what) + " printed no integer id: " + to_json(v));
    }
    return v["id"].asInt64();
}
}  // namespace

int64_t make_brand() {
    return require_id(admin({"brand", "create", "--name", "it-brand-" + unique_suffix()}),
                      "brand create");
}

std::pair<int64_t, std::string> make_key(const std::string& domain) {
    const Json::Value k = admin({"key", "create", "--shop", domain, "--label", "integration"});
    const int64_t id = require_id(k, "key create");
    if (!k["key"].isString() || k["key"].asString().empty()) {
        throw std::runtime_error("key create printed no key");
    }
    return {id, k["key"].asString()};
}

Shop make_shop(std::optional<int64_t> brand_id) {
    Shop s;
    s.domain = "it-" + unique_suffix() + ".example.test";
    std::vector<std::string> args{"shop", "create", "--domain", s.domain};
    if (brand_id) {
        args.push_back("--brand-id");
        args.push_back(std::to_string(*brand_id));
    }
    s.id = require_id(admin(args), "shop create");
    std::tie(s.key_id, s.key) = make_key(s.domain);
    return s;
}

Shop with_erase_key(const Shop& shop) {
    Shop s = shop;
    Json::Value out =
        admin({"key", "create", "--shop", shop.domain, "--scopes", "read,write,export,erase"});
    s.key_id = out["id"].asInt64();
    s.key = out["key"].asString();
    return s;
}

// ---------------------------------------------------------------------------------------------
// API shortcuts.

Headers key_header(const Shop& shop) {
    return {{"x-api-key", shop.key}};
}

Headers json_headers(const Shop& shop) {
    return {{"x-api-key", shop.key}, {"Content-Type", "application/json"}};
}

HttpResponse get(const std::string& path, const Shop& shop) {
    return http("GET", path, key_header(shop));
}

HttpResponse post_json(const std::string& path, const Shop& shop, const Json::Value& body) {
    return http("POST", path, json_headers(shop), to_json(body));
}

HttpResponse post_raw(const std::string& path, const Shop& shop, const std::string& body,
                      const std::string& content_type) {
    return http("POST", path, {{"x-api-key", shop.key}, {"Content-Type", content_type}}, body);
}

Json::Value create_customer(const Shop& shop, const Json::Value& body) {
    const HttpResponse r = post_json("/api/v1/customers", shop, body);
    if (r.status != 201 || !r.json().isObject() || !r.json()["customer"].isObject()) {
        throw std::runtime_error("creating a customer failed: " + r.describe());
    }
    return r.json()["customer"];
}

Json::Value fetch_customer(const Shop& shop, int64_t id) {
    const HttpResponse r = get("/api/v1/customers/" + std::to_string(id), shop);
    if (r.status != 200 || !r.json().isObject() || !r.json()["customer"].isObject()) {
        throw std::runtime_error("fetching customer " + std::to_string(id) +
                                 " failed: " + r.describe());
    }
    return r.json()["customer"];
}

// ---------------------------------------------------------------------------------------------
// Assertions.

namespace {

void check_common(const HttpResponse& r, long status, std::vector<std::string>& problems) {
    if (r.status != status) {
        problems.push_back("status is " + std::to_string(r.status) + ", expected " +
                           std::to_string(status));
    }
    const auto ct = r.header("content-type");
    if (!ct) {
        problems.push_back("no Content-Type header");
    } else if (to_lower(*ct) != kJsonContentType) {
        problems.push_back("Content-Type is \"" + *ct + "\", expected \"" +
                           std::string(kJsonContentType) + "\"");
    }
    const auto rid = r.header("x-request-id");
    if (!rid || rid->empty()) {
        problems.push_back("no X-Request-Id header");
    }
}

::testing::AssertionResult verdict(const HttpResponse& r,
                                   const std::vector<std::string>& problems) {
    if (problems.empty()) {
        return ::testing::AssertionSuccess();
    }
    auto f = ::testing::AssertionFailure();
    for (const auto& p : problems) {
        f << p << "; ";
    }
    return f << "\n  response: " << r.describe();
}

}  // namespace

::testing::AssertionResult is_error(const HttpResponse& r, long status, std::string_view code,
                                    std::string_view message) {
    std::vector<std::string> problems;
    check_common(r, status, problems);
    try {
        const Json::Value& j = r.json();
        if (!j.isObject()) {
            problems.push_back("body is not a JSON object");
        } else {
            if (!j["success"].isBool() || j["success"].asBool()) {
                problems.push_back("success is not false");
            }
            if (!j["code"].isString() || j["code"].asString() != code) {
                problems.push_back("code is " + to_json(j["code"]) + ", expected \"" +
                                   std::string(code) + "\"");
            }
            if (!j["message"].isString()) {
                problems.push_back("message is not a string");
            } else if (message.empty() ? j["message"].asString().empty()
                                       : j["message"].asString() != message) {
                problems.push_back("message is " + to_json(j["message"]) + ", expected \"" +
                                   std::string(message) + "\"");
            }
        }
    } catch (const std::exception& e) {
        problems.push_back(e.what());
    }
    return verdict(r, problems);
}

::testing::AssertionResult is_success(const HttpResponse& r, long status) {
    std::vector<std::string> problems;
    check_common(r, status, problems);
    try {
        const Json::Value& j = r.json();
        if (!j.isObject()) {
            problems.push_back("body is not a JSON object");
        } else if (!j["success"].isBool() || !j["success"].asBool()) {
            problems.push_back("success is not true");
        }
    } catch (const std::exception& e) {
        problems.push_back(e.what());
    }
    return verdict(r, problems);
}

::testing::AssertionResult has_status(const HttpResponse& r, long status) {
    if (r.status == status) {
        return ::testing::AssertionSuccess();
    }
    return ::testing::AssertionFailure() << "status is " << r.status << ", expected " << status
                                         << "\n  response: " << r.describe();
}

// ---------------------------------------------------------------------------------------------
// Time.

std::optional<std::chrono::system_clock::time_point> parse_utc_millis(const std::string& text) {
    static const std::regex re(R"(^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})\.(\d{3})Z$)");
    std::smatch m;
    if (!std::regex_match(text, m, re)) {
        return std::nullopt;
    }
    std::tm tm{};
    tm.tm_year = std::stoi(m[1]) - 1900;
    tm.tm_mon = std::stoi(m[2]) - 1;
    tm.tm_mday = std::stoi(m[3]);
    tm.tm_hour = std::stoi(m[4]);
    tm.tm_min = std::stoi(m[5]);
    tm.tm_sec = std::stoi(m[6]);
    if (tm.tm_mon > 11 || tm.tm_mday < 1 || tm.tm_mday > 31 || tm.tm_hour > 23 || tm.tm_min > 59 ||
        tm.tm_sec > 60) {
        return std::nullopt;
    }
    const time_t secs = timegm(&tm);
    return std::chrono::system_clock::from_time_t(secs) +
           std::chrono::milliseconds(std::stoi(m[7]));
}

// ---------------------------------------------------------------------------------------------
// FastCGI log.

std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        throw std::runtime_error("cannot read " + path);
    }
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

std::string read_fcgi_log() {
    return read_file(env().fcgi_log);
}

bool wait_for_log(std::string_view needle, std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
        if (read_fcgi_log().find(needle) != std::string::npos) {
            return true;
        }
        if (std::chrono::steady_clock::now() >= deadline) {
            return false;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
}

std::string printable(std::string_view bytes, size_t max) {
    std::string out;
    const size_t n = std::min(bytes.size(), max);
    for (size_t i = 0; i < n; ++i) {
        const auto c = static_cast<unsigned char>(bytes[i]);
        if (c == '\r') {
            out += "\\r";
        } else if (c == '\n') {
            out += "\\n";
        } else if (c < 0x20 || c == 0x7f) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\x%02x", c);
            out += buf;
        } else {
            out += static_cast<char>(c);
        }
    }
    if (bytes.size() > max) {
        out += "...(" + std::to_string(bytes.size()) + " bytes)";
    }
    return out;
}

// Plain FIPS 180-4 SHA-256; only used to look for a key's digest in the log.
std::string sha256_hex(std::string_view data) {
    static constexpr std::array<uint32_t, 64> k{
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
        0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
        0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
        0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
        0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
        0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
        0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
        0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
        0xc67178f2};
    std::array<uint32_t, 8> h{0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                              0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    std::string msg(data);
    const uint64_t bit_len = static_cast<uint64_t>(data.size()) * 8;
    msg.push_back(static_cast<char>(0x80));
    while (msg.size() % 64 != 56) {
        msg.push_back('\0');
    }
    for (int i = 7; i >= 0; --i) {
        msg.push_back(static_cast<char>((bit_len >> (i * 8)) & 0xff));
    }
    const auto rotr = [](uint32_t x, int n) { return (x >> n) | (x << (32 - n)); };
    for (size_t off = 0; off < msg.size(); off += 64) {
        std::array<uint32_t, 64> w{};
        for (int i = 0; i < 16; ++i) {
            const auto* p = reinterpret_cast<const unsigned char*>(msg.data() + off + i * 4);
            w[i] = (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | p[3];
        }
        for (int i = 16; i < 64; ++i) {
            const uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
            const uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
            w[i] = w[i - 16] + s0 + w[i - 7] + s1;
        }
        auto [a, b, c, d, e, f, g, hh] = h;
        for (int i = 0; i < 64; ++i) {
            const uint32_t s1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25);
            const uint32_t ch = (e & f) ^ (~e & g);
            const uint32_t t1 = hh + s1 + ch + k[i] + w[i];
            const uint32_t s0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22);
            const uint32_t maj = (a & b) ^ (a & c) ^ (b & c);
            const uint32_t t2 = s0 + maj;
            hh = g;
            g = f;
            f = e;
            e = d + t1;
            d = c;
            c = b;
            b = a;
            a = t1 + t2;
        }
        h[0] += a;
        h[1] += b;
        h[2] += c;
        h[3] += d;
        h[4] += e;
        h[5] += f;
        h[6] += g;
        h[7] += hh;
    }
    std::string out;
    char buf[9];
    for (const uint32_t v : h) {
        std::snprintf(buf, sizeof buf, "%08x", v);
        out += buf;
    }
    return out;
}

// ---------------------------------------------------------------------------------------------
// Database.

std::map<std::string, std::string> read_ini(const std::string& path) {
    std::ifstream in(path);
    if (!in) {
        throw std::runtime_error("cannot read config file " + path);
    }
    std::map<std::string, std::string> out;
    std::string line;
    while (std::getline(in, line)) {
        const std::string t = trim(line);
        if (t.empty() || t[0] == '#' || t[0] == ';' || t[0] == '[') {
            continue;
        }
        const size_t eq = t.find('=');
        if (eq == std::string::npos) {
            continue;
        }
        out[trim(t.substr(0, eq))] = trim(t.substr(eq + 1));
    }
    return out;
}

namespace {

std::string value_or(const std::map<std::string, std::string>& m, const std::string& key,
                     const std::string& fallback) {
    const auto it = m.find(key);
    return it == m.end() || it->second.empty() ? fallback : it->second;
}

std::string read_password_file(const std::string& path, const std::string& config_path) {
    std::ifstream in(path);
    if (!in && !path.empty() && path[0] != '/') {
        const size_t slash = config_path.rfind('/');
        if (slash != std::string::npos) {
            in.open(config_path.substr(0, slash + 1) + path);
        }
    }
    if (!in) {
        throw std::runtime_error("cannot read db-password-file " + path);
    }
    std::string first;
    std::getline(in, first);
    if (!first.empty() && first.back() == '\r') {
        first.pop_back();
    }
    return first;
}

}  // namespace

Db::Db() : Db(env().config) {}

Db::Db(const std::string& config_path) {
    const auto ini = read_ini(config_path);
    const std::string socket = value_or(ini, "db-socket", "");
    std::string password = value_or(ini, "db-password", "");
    const std::string password_file = value_or(ini, "db-password-file", "");
    if (password.empty() && !password_file.empty()) {
        password = read_password_file(password_file, config_path);
    }

    sql::ConnectOptionsMap opts;
    if (!socket.empty()) {
        opts["hostName"] = sql::SQLString("unix://" + socket);
        opts["socket"] = sql::SQLString(socket);
    } else {
        opts["hostName"] = sql::SQLString("tcp://" + value_or(ini, "db-host", "localhost"));
        opts["port"] = std::stoi(value_or(ini, "db-port", "3306"));
    }
    opts["userName"] = sql::SQLString(value_or(ini, "db-user", "supportcrm"));
    opts["password"] = sql::SQLString(password);
    opts["schema"] = sql::SQLString(value_or(ini, "db-name", "supportcrm"));
    opts["OPT_CHARSET_NAME"] = sql::SQLString("utf8mb4");
    try {
        sql::mysql::MySQL_Driver* driver = sql::mysql::get_mysql_driver_instance();
        conn_.reset(driver->connect(opts));
    } catch (const sql::SQLException& e) {
        throw std::runtime_error("cannot connect to the database of " + config_path + " (" +
                                 (socket.empty() ? "tcp" : "socket " + socket) + "): " + e.what());
    }
}

Db::~Db() = default;

std::optional<std::string> Db::scalar(const std::string& query,
                                      const std::vector<std::string>& params) {
    try {
        const std::unique_ptr<sql::PreparedStatement> st(conn_->prepareStatement(query));
        for (size_t i = 0; i < params.size(); ++i) {
            st->setString(static_cast<unsigned>(i + 1), params[i]);
        }
        const std::unique_ptr<sql::ResultSet> rs(st->executeQuery());
        if (!rs->next() || rs->isNull(1)) {
            return std::nullopt;
        }
        return std::string(rs->getString(1));
    } catch (const sql::SQLException& e) {
        throw std::runtime_error("query failed (" + query + "): " + e.what());
    }
}

int Db::execute(const std::string& query, const std::vector<std::optional<std::string>>& params) {
    constexpr int kDuplicateKey = 1062;
    constexpr int kDeadlock = 1213;
    // A fixture's statement that the server rolled back as a deadlock victim (on Galera also a
    // brute-force abort by a replicated write, after the server's own wsrep_retry_autocommit)
    // runs again, as any client would: on a busy machine the service's own writers (the
    // deliverer, other tests) collide with fixtures. Inside a transaction the test opened the
    // whole transaction is gone, so that is the test's to handle.
    constexpr int kDeadlockRuns = 10;
    if (query.starts_with("START TRANSACTION") || query.starts_with("BEGIN")) {
        in_transaction_ = true;
    } else if (query.starts_with("COMMIT") || query.starts_with("ROLLBACK")) {
        in_transaction_ = false;
    }
    for (int run = 1;; ++run) {
        try {
            const std::unique_ptr<sql::PreparedStatement> st(conn_->prepareStatement(query));
            for (size_t i = 0; i < params.size(); ++i) {
                const auto index = static_cast<unsigned>(i + 1);
                if (params[i]) {
                    st->setString(index, *params[i]);
                } else {
                    st->setNull(index, 0);
                }
            }
            st->executeUpdate();
            return 0;
        } catch (const sql::SQLException& e) {
            if (e.getErrorCode() == kDuplicateKey) {
                return kDuplicateKey;
            }
            if (e.getErrorCode() == kDeadlock && !in_transaction_ && run < kDeadlockRuns) {
                continue;
            }
            throw std::runtime_error("statement failed (" + query + "): " + e.what());
        }
    }
}

int64_t Db::count(const std::string& query, const std::vector<std::string>& params) {
    const auto v = scalar(query, params);
    if (!v) {
        throw std::runtime_error("query returned no value: " + query);
    }
    return std::stoll(*v);
}

std::string db_socket() {
    const auto ini = read_ini(env().config);
    const auto found = ini.find("db-socket");
    if (found == ini.end() || found->second.empty()) {
        throw std::runtime_error("these tests need db-socket in " + env().config);
    }
    return found->second;
}

// GET /metrics, for the tests of the pool's and the webhooks' series.
std::string metrics() {
    const HttpResponse r = http_any_body("GET", "/metrics");
    if (r.status != 200) {
        throw std::runtime_error("GET /metrics: " + r.describe());
    }
    return r.body;
}

double metric_sample(const std::string& text, const std::string& name_and_labels) {
    const std::string prefix = name_and_labels + " ";
    std::size_t at = 0;
    while ((at = text.find(prefix, at)) != std::string::npos) {
        if (at == 0 || text[at - 1] == '\n') {
            return std::stod(text.substr(at + prefix.size()));
        }
        at += prefix.size();
    }
    return 0;
}

}  // namespace it

namespace it {

long busy_worker(const std::string& route, std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
        HttpResponse r = http("GET", "/status?full");
        if (r.status == 200) {
            for (const Json::Value& w : r.json()["workerList"]) {
                if (w["state"] == "busy" && w["current"].isObject() &&
                    w["current"]["route"] == route) {
                    return w["pid"].asInt64();
                }
            }
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return 0;
}

namespace {

// Waits until the indexer has taken every row of `queue` up to its MAX(id) now.
void wait_for_queue(Db& db, const std::string& queue) {
    const std::optional<std::string> last = db.scalar("SELECT MAX(id) FROM " + queue);
    if (!last) {
        return;  // nothing queued
    }
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(1);
    while (db.count("SELECT COUNT(*) FROM " + queue + " WHERE id <= ?", {*last}) > 0) {
        if (std::chrono::steady_clock::now() > deadline) {
            ADD_FAILURE() << "the search indexer did not take " << queue << " through id " << *last
                          << " within a minute (is the pool's scrm-indexer running?)";
            return;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
}

}  // namespace

void wait_for_search_index() {
    Db db;
    wait_for_queue(db, "comment_words_pending");
    wait_for_queue(db, "customer_words_pending");
}

}  // namespace it
