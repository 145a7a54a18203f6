// The HTTP POSTs of deliveries with libcurl's multi interface: many at once, each one connect
// within 5 s, done within 10 s (or by its deadline, if sooner), no redirect followed, TLS
// verified, no proxy, http and https only, the addresses the SSRF rule checked pinned.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace supportcrm::webhooks {

struct PinnedAddress;  // common/address_policy.h

struct PostRequest {
    std::string url;
    std::vector<std::string> headers;  // "Name: value"
    std::string body;
    bool allow_private = false;
};

struct PostResult {
    std::optional<long> status_code;  // none: no HTTP answer (error says why)
    std::string error;                // "" for an HTTP answer
    long duration_ms = 0;
    bool delivered() const { return status_code && *status_code >= 200 && *status_code < 300; }
};

// The URL's scheme is http or https and it has a host; else why not ("" when it is usable).
std::string check_url(const std::string& url);

// "scheme://host:port" of a URL ("" when it is not usable): what the per-destination limit
// counts and kept-alive connections are shared by.
std::string destination_of(const std::string& url);

// Runs POSTs concurrently on one libcurl multi handle, so a receiver that is slow to answer
// holds up only its own attempts. Each attempt resolves its host on a thread of its own
// (getaddrinfo blocks) and checks every address; the connection then goes only to the checked
// addresses. Connections are kept alive in the multi handle's cache, and a kept connection is
// reused only for exactly the same set of checked addresses (CURLOPT_CONNECT_TO names the set).
class Sender {
  public:
    using Clock = std::chrono::steady_clock;

    Sender();
    ~Sender();
    Sender(const Sender&) = delete;
    Sender& operator=(const Sender&) = delete;

    // Starts a POST, which must end by `deadline` (and within 10 s); `tag` comes back with its
    // result from pump(). Never throws for what the network or receiver does.
    void start(std::uint64_t tag, PostRequest request, Clock::time_point deadline);

    struct Finished {
        std::uint64_t tag = 0;
        PostResult result;
    };
    // Moves the transfers on, waiting up to `wait` for one to finish; the POSTs that ended.
    std::vector<Finished> pump(std::chrono::milliseconds wait);

    // POSTs started and not yet returned by pump(): all of them, and those to a destination.
    std::size_t in_flight() const { return attempts_.size(); }
    std::size_t in_flight_to(const std::string& destination) const;

  private:
    struct Attempt;
    // Where an attempt is: its addresses still being resolved and checked, its POST under way,
    // or over (refused, or it could not start).
    enum class Stage { resolving, transferring, ended };
    Stage advance(Attempt& attempt);
    bool start_checked_attempts(std::vector<Finished>& done);
    bool pin(Attempt& attempt, const PinnedAddress& pinned);
    void collect_finished(std::vector<Finished>& done);
    void begin_transfer(Attempt& attempt);
    void finish(std::uint64_t tag, PostResult result, std::vector<Finished>& out);
    std::string connect_to_name(const std::string& pins);

    void* multi_ = nullptr;  // CURLM*
    std::map<std::uint64_t, std::unique_ptr<Attempt>> attempts_;
    // A name per set of checked addresses ("pin-N.invalid"), the host libcurl connects to.
    std::map<std::string, std::string> pin_names_;
};

// curl_global_init, once, before any thread (main()).
void init_http();

}  // namespace supportcrm::webhooks
