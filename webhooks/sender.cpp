#include "webhooks/sender.h"

#include <curl/curl.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <stdexcept>
#include <variant>

#include "common/address_policy.h"

namespace supportcrm::webhooks {
namespace {

constexpr long kConnectTimeoutMs = 5000;
constexpr long kTotalTimeoutMs = 10000;
// Handles (each with its idle connections) kept for this many destinations at most; past it
// one is dropped. libcurl closes a connection idle longer than CURLOPT_MAXAGE_CONN (118 s).
constexpr std::size_t kMaxDestinations = 64;
// A receiver's answer body is not kept: only its status is recorded.
std::size_t discard(char*, std::size_t size, std::size_t count, void*) {
    return size * count;
}

struct EasyFree {
    void operator()(CURL* h) const { curl_easy_cleanup(h); }
};
struct ListFree {
    void operator()(curl_slist* l) const { curl_slist_free_all(l); }
};
struct UrlFree {
    void operator()(CURLU* u) const { curl_url_cleanup(u); }
};
struct CurlString {
    char* text = nullptr;
    ~CurlString() { curl_free(text); }
};

struct UrlParts {
    std::string scheme, host;
    unsigned port = 0;
    std::string error;
};

UrlParts parse_url(const std::string& url) {
    UrlParts out;
    std::unique_ptr<CURLU, UrlFree> u(curl_url());
    if (!u || curl_url_set(u.get(), CURLUPART_URL, url.c_str(), 0) != CURLUE_OK) {
        out.error = "not a URL";
        return out;
    }
    CurlString scheme, host, port;
    if (curl_url_get(u.get(), CURLUPART_SCHEME, &scheme.text, 0) != CURLUE_OK ||
        curl_url_get(u.get(), CURLUPART_HOST, &host.text, 0) != CURLUE_OK ||
        curl_url_get(u.get(), CURLUPART_PORT, &port.text, CURLU_DEFAULT_PORT) != CURLUE_OK) {
        out.error = "the URL has no host";
        return out;
    }
    out.scheme = scheme.text;
    out.host = host.text;
    out.port = static_cast<unsigned>(std::stoul(port.text));
    if (out.scheme != "http" && out.scheme != "https") {
        out.error = "the URL's scheme must be http or https";
    }
    return out;
}

// Whether `ip` (as CURLINFO_PRIMARY_IP writes it) is one of the comma-separated `addresses`.
bool among(const std::string& ip, const std::string& addresses) {
    std::size_t start = 0;
    while (start <= addresses.size()) {
        const std::size_t end = std::min(addresses.find(',', start), addresses.size());
        if (addresses.compare(start, end - start, ip) == 0) {
            return true;
        }
        start = end + 1;
    }
    return false;
}

long elapsed_ms(std::chrono::steady_clock::time_point since) {
    return static_cast<long>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                 std::chrono::steady_clock::now() - since)
                                 .count());
}

}  // namespace

void init_http() {
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
        throw std::runtime_error("curl_global_init failed");
    }
}

std::string check_url(const std::string& url) {
    return parse_url(url).error;
}

struct Sender::Destination {
    std::unique_ptr<CURL, EasyFree> handle;
    std::string connected_to;  // the peer address of its last transfer ("" before any)
};

Sender::Sender() = default;
Sender::~Sender() = default;

Sender::Destination& Sender::destination(const std::string& key) {
    auto found = destinations_.find(key);
    if (found != destinations_.end()) {
        return *found->second;
    }
    if (destinations_.size() >= kMaxDestinations) {
        destinations_.erase(destinations_.begin());
    }
    auto made = std::make_unique<Destination>();
    made->handle.reset(curl_easy_init());
    return *destinations_.emplace(key, std::move(made)).first->second;
}

PostResult Sender::post(const PostRequest& request) {
    const auto started = std::chrono::steady_clock::now();
    PostResult result;
    UrlParts parts = parse_url(request.url);
    if (!parts.error.empty()) {
        result.error = parts.error;
        return result;
    }
    auto target = resolve_and_check(parts.host, parts.port, request.allow_private);
    if (auto* refusal = std::get_if<Refusal>(&target)) {
        result.error = refusal->reason;
        result.duration_ms = elapsed_ms(started);
        return result;
    }
    const PinnedAddress& pinned = std::get<PinnedAddress>(target);

    Destination& to =
        destination(parts.scheme + "://" + parts.host + ":" + std::to_string(parts.port));
    if (!to.handle) {
        result.error = "curl_easy_init failed";
        return result;
    }
    // Every option back to its default; the handle's idle connections and DNS cache stay.
    curl_easy_reset(to.handle.get());
    std::unique_ptr<curl_slist, ListFree> headers;
    for (const std::string& line : request.headers) {
        curl_slist* grown = curl_slist_append(headers.get(), line.c_str());
        if (grown == nullptr) {
            result.error = "out of memory";
            return result;
        }
        headers.release();
        headers.reset(grown);
    }
    // The handle's DNS cache may hold the addresses pinned by an earlier attempt: the removal
    // entry ("-HOST:PORT") drops them first, so only the ones checked now are used, whether or
    // not this libcurl lets a new entry override an old one.
    std::unique_ptr<curl_slist, ListFree> resolve;
    if (!pinned.resolve_entry.empty()) {
        const std::string removal = "-" + parts.host + ":" + std::to_string(parts.port);
        resolve.reset(curl_slist_append(nullptr, removal.c_str()));
        curl_slist* grown =
            resolve ? curl_slist_append(resolve.get(), pinned.resolve_entry.c_str()) : nullptr;
        if (grown == nullptr) {
            result.error = "out of memory";
            return result;
        }
    }
    CURL* c = to.handle.get();
    // libcurl picks a kept connection by host name and port, not by address: one to an address
    // that is not among those checked now (the name resolves elsewhere since) must not be used.
    if (!to.connected_to.empty() && !among(to.connected_to, pinned.address)) {
        curl_easy_setopt(c, CURLOPT_FRESH_CONNECT, 1L);
    }
    curl_easy_setopt(c, CURLOPT_URL, request.url.c_str());
    curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(c, CURLOPT_PROXY, "");  // never a proxy from the environment
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, kConnectTimeoutMs);
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, kTotalTimeoutMs);
    curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 1L);
    curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 2L);
    if (resolve) {
        curl_easy_setopt(c, CURLOPT_RESOLVE, resolve.get());
    }
    curl_easy_setopt(c, CURLOPT_POST, 1L);
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, request.body.data());
    curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(request.body.size()));
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers.get());
    curl_easy_setopt(c, CURLOPT_USERAGENT, "supportcrm-webhooks/" SUPPORTCRM_VERSION);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, discard);
    char message[CURL_ERROR_SIZE] = "";
    curl_easy_setopt(c, CURLOPT_ERRORBUFFER, message);

    const CURLcode rc = curl_easy_perform(c);
    result.duration_ms = elapsed_ms(started);
    char* peer = nullptr;
    curl_easy_getinfo(c, CURLINFO_PRIMARY_IP, &peer);
    to.connected_to = peer != nullptr ? peer : "";
    // The error buffer is this function's: libcurl must not write to it after it returns.
    curl_easy_setopt(c, CURLOPT_ERRORBUFFER, nullptr);
    if (rc != CURLE_OK) {
        result.error = std::string(curl_easy_strerror(rc)) + (message[0] ? ": " : "") + message +
                       " (" + pinned.address + ")";
        return result;
    }
    long code = 0;
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
    result.status_code = code;
    return result;
}

}  // namespace supportcrm::webhooks
