#include "webhooks/sender.h"

#include <curl/curl.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <future>
#include <memory>
#include <stdexcept>
#include <variant>

#include "common/address_policy.h"
#include "common/build_info.h"

namespace supportcrm::webhooks {
namespace {

constexpr long kConnectTimeoutMs = 5000;
constexpr long kTotalTimeoutMs = 10000;
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

long elapsed_ms(std::chrono::steady_clock::time_point since) {
    return static_cast<long>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                 std::chrono::steady_clock::now() - since)
                                 .count());
}

// What CURLOPT_PRIVATE holds: the attempt's tag.
std::uint64_t tag_of(CURL* handle) {
    void* tag_pointer = nullptr;
    curl_easy_getinfo(handle, CURLINFO_PRIVATE, &tag_pointer);
    return static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(tag_pointer));
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

std::string destination_of(const std::string& url) {
    UrlParts parts = parse_url(url);
    if (!parts.error.empty()) {
        return "";
    }
    return parts.scheme + "://" + parts.host + ":" + std::to_string(parts.port);
}

struct Sender::Attempt {
    std::uint64_t tag = 0;
    PostRequest request;
    UrlParts parts;
    std::string destination;
    Clock::time_point started, deadline;
    // Until the addresses are checked: the resolution running on its own thread.
    std::future<std::variant<PinnedAddress, Refusal>> resolving;
    std::string checked;  // the checked addresses, for messages
    std::unique_ptr<curl_slist, ListFree> headers, resolve, connect_to;
    char message[CURL_ERROR_SIZE] = "";
    std::unique_ptr<CURL, EasyFree> handle;  // last: cleaned up before what it points to
};

Sender::Sender() {
    multi_ = curl_multi_init();
    if (multi_ == nullptr) {
        throw std::runtime_error("curl_multi_init failed");
    }
}

Sender::~Sender() {
    CURLM* multi = static_cast<CURLM*>(multi_);
    for (auto& [tag, attempt] : attempts_) {
        if (attempt->handle) {
            curl_multi_remove_handle(multi, attempt->handle.get());
        }
        if (attempt->resolving.valid()) {
            attempt->resolving.wait();  // its thread must not outlive what it reads
        }
    }
    attempts_.clear();
    curl_multi_cleanup(multi);
}

std::size_t Sender::in_flight_to(const std::string& destination) const {
    std::size_t n = 0;
    for (const auto& [tag, attempt] : attempts_) {
        n += attempt->destination == destination ? 1 : 0;
    }
    return n;
}

void Sender::start(std::uint64_t tag, PostRequest request, Clock::time_point deadline) {
    auto attempt = std::make_unique<Attempt>();
    attempt->tag = tag;
    attempt->request = std::move(request);
    attempt->started = Clock::now();
    attempt->deadline =
        std::min(deadline, attempt->started + std::chrono::milliseconds(kTotalTimeoutMs));
    attempt->parts = parse_url(attempt->request.url);
    if (attempt->parts.error.empty()) {
        attempt->destination = attempt->parts.scheme + "://" + attempt->parts.host + ":" +
                               std::to_string(attempt->parts.port);
        attempt->resolving = std::async(std::launch::async, resolve_and_check, attempt->parts.host,
                                        attempt->parts.port, attempt->request.allow_private);
    }
    attempts_[tag] = std::move(attempt);
}

std::string Sender::connect_to_name(const std::string& pins) {
    auto found = pin_names_.find(pins);
    if (found == pin_names_.end()) {
        found =
            pin_names_.emplace(pins, "pin-" + std::to_string(pin_names_.size() + 1) + ".invalid")
                .first;
    }
    return found->second;
}

// Sets the attempt's handle up and adds it to the multi handle; on failure leaves it without
// a handle and with a message.
void Sender::begin_transfer(Attempt& a) {
    a.handle.reset(curl_easy_init());
    if (!a.handle) {
        std::snprintf(a.message, sizeof a.message, "curl_easy_init failed");
        return;
    }
    for (const std::string& line : a.request.headers) {
        curl_slist* grown = curl_slist_append(a.headers.get(), line.c_str());
        if (grown == nullptr) {
            a.handle.reset();
            std::snprintf(a.message, sizeof a.message, "out of memory");
            return;
        }
        (void)a.headers.release();
        a.headers.reset(grown);
    }
    CURL* c = a.handle.get();
    curl_easy_setopt(c, CURLOPT_PRIVATE,
                     reinterpret_cast<void*>(static_cast<std::uintptr_t>(a.tag)));
    curl_easy_setopt(c, CURLOPT_URL, a.request.url.c_str());
    curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(c, CURLOPT_PROXY, "");  // never a proxy from the environment
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    const long left_ms = static_cast<long>(
        std::chrono::duration_cast<std::chrono::milliseconds>(a.deadline - Clock::now()).count());
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS,
                     std::max(1L, std::min(kConnectTimeoutMs, left_ms)));
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, std::max(1L, left_ms));
    curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 1L);
    curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 2L);
    if (a.resolve) {
        curl_easy_setopt(c, CURLOPT_RESOLVE, a.resolve.get());
        curl_easy_setopt(c, CURLOPT_CONNECT_TO, a.connect_to.get());
    }
    curl_easy_setopt(c, CURLOPT_POST, 1L);
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, a.request.body.data());
    curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE,
                     static_cast<curl_off_t>(a.request.body.size()));
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, a.headers.get());
    // libcurl copies the string (CURLOPT_USERAGENT, like every string option since 7.17).
    const std::string agent = "supportcrm-webhooks/" + std::string(build_info::version());
    curl_easy_setopt(c, CURLOPT_USERAGENT, agent.c_str());
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, discard);
    curl_easy_setopt(c, CURLOPT_ERRORBUFFER, a.message);
    if (curl_multi_add_handle(static_cast<CURLM*>(multi_), c) != CURLM_OK) {
        a.handle.reset();
        std::snprintf(a.message, sizeof a.message, "curl_multi_add_handle failed");
    }
}

void Sender::finish(std::uint64_t tag, PostResult result, std::vector<Finished>& out) {
    auto found = attempts_.find(tag);
    if (found == attempts_.end()) {
        return;
    }
    result.duration_ms = elapsed_ms(found->second->started);
    if (found->second->handle) {
        curl_multi_remove_handle(static_cast<CURLM*>(multi_), found->second->handle.get());
    }
    attempts_.erase(found);
    out.push_back({tag, std::move(result)});
}

// Sends the connection to a name that stands for exactly the checked addresses: libcurl reuses
// a kept connection only for the same name, i.e. the same checked set. The URL's host still
// names the server for TLS (SNI, certificate) and Host:. False when out of memory.
bool Sender::pin(Attempt& a, const PinnedAddress& pinned) {
    a.checked = pinned.address;
    if (pinned.resolve_entry.empty()) {
        return true;
    }
    const std::string name = connect_to_name(pinned.pins);
    const std::string port = std::to_string(a.parts.port);
    a.resolve.reset(curl_slist_append(nullptr, (name + ":" + port + ":" + pinned.pins).c_str()));
    a.connect_to.reset(curl_slist_append(nullptr, ("::" + name + ":" + port).c_str()));
    if (!a.resolve || !a.connect_to) {
        std::snprintf(a.message, sizeof a.message, "out of memory");
        return false;
    }
    return true;
}

// An attempt whose addresses are now checked starts its transfer, or ends refused.
Sender::Stage Sender::advance(Attempt& a) {
    if (!a.parts.error.empty()) {
        return Stage::ended;
    }
    if (!a.resolving.valid()) {
        return Stage::transferring;
    }
    if (a.resolving.wait_for(std::chrono::seconds(0)) != std::future_status::ready) {
        return Stage::resolving;
    }
    auto target = a.resolving.get();
    if (auto* refusal = std::get_if<Refusal>(&target)) {
        std::snprintf(a.message, sizeof a.message, "%s", refusal->reason.c_str());
        return Stage::ended;
    }
    if (!pin(a, std::get<PinnedAddress>(target))) {
        return Stage::ended;
    }
    begin_transfer(a);
    return a.handle ? Stage::transferring : Stage::ended;
}

// Moves every attempt on that waits for its addresses; those that ended so go to `done`.
// True while a resolution still runs.
bool Sender::start_checked_attempts(std::vector<Finished>& done) {
    bool resolving = false;
    std::vector<std::uint64_t> ended;
    for (auto& [tag, attempt] : attempts_) {
        switch (advance(*attempt)) {
            case Stage::resolving:
                resolving = true;
                break;
            case Stage::ended:
                ended.push_back(tag);
                break;
            case Stage::transferring:
                break;
        }
    }
    for (std::uint64_t tag : ended) {
        PostResult result;
        result.error = attempts_[tag]->parts.error.empty() ? attempts_[tag]->message
                                                           : attempts_[tag]->parts.error;
        finish(tag, std::move(result), done);
    }
    return resolving;
}

// The transfers libcurl says are done go to `done`, with the receiver's status or why none.
void Sender::collect_finished(std::vector<Finished>& done) {
    CURLM* multi = static_cast<CURLM*>(multi_);
    int queued = 0;
    while (CURLMsg* m = curl_multi_info_read(multi, &queued)) {
        if (m->msg != CURLMSG_DONE) {
            continue;
        }
        const std::uint64_t tag = tag_of(m->easy_handle);
        auto found = attempts_.find(tag);
        if (found == attempts_.end()) {
            continue;
        }
        Attempt& a = *found->second;
        PostResult result;
        const CURLcode rc = m->data.result;
        if (rc == CURLE_OK) {
            long code = 0;
            curl_easy_getinfo(m->easy_handle, CURLINFO_RESPONSE_CODE, &code);
            result.status_code = code;
        } else {
            result.error = std::string(curl_easy_strerror(rc)) + (a.message[0] ? ": " : "") +
                           a.message + " (" + a.checked + ")";
        }
        finish(tag, std::move(result), done);  // m is not used after this
    }
}

std::vector<Sender::Finished> Sender::pump(std::chrono::milliseconds wait) {
    std::vector<Finished> done;
    CURLM* multi = static_cast<CURLM*>(multi_);
    const bool resolving = start_checked_attempts(done);
    int running = 0;
    curl_multi_perform(multi, &running);
    if (done.empty()) {
        // While a resolution runs, look again soon: its end does not wake curl_multi_poll.
        const auto timeout = resolving ? std::min(wait, std::chrono::milliseconds(20)) : wait;
        curl_multi_poll(multi, nullptr, 0, static_cast<int>(timeout.count()), nullptr);
        curl_multi_perform(multi, &running);
    }
    collect_finished(done);
    return done;
}

}  // namespace supportcrm::webhooks
