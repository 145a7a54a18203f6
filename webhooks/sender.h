// One HTTP POST of a delivery with libcurl: connect within 5 s, done within 10 s, no redirect
// followed, TLS verified, no proxy, http and https only, the address the SSRF rule checked
// pinned (CURLOPT_RESOLVE).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace supportcrm::webhooks {

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

// Sends deliveries, keeping one libcurl handle per destination (scheme, host, port) so that
// the next delivery to a receiver reuses its kept-alive connection (and TLS session) instead
// of opening a new one. Every attempt still resolves the host and checks each address; a kept
// connection is used only when the address it is connected to is one of those just checked,
// else a new connection goes to the checked addresses (pinned with CURLOPT_RESOLVE).
class Sender {
  public:
    Sender();
    ~Sender();
    Sender(const Sender&) = delete;
    Sender& operator=(const Sender&) = delete;

    // Sends the request; never throws for what the network or receiver does.
    PostResult post(const PostRequest& request);

  private:
    struct Destination;
    Destination& destination(const std::string& key);
    std::unordered_map<std::string, std::unique_ptr<Destination>> destinations_;
};

// curl_global_init, once, before any thread (main()).
void init_http();

}  // namespace supportcrm::webhooks
