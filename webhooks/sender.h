// One HTTP POST of a delivery with libcurl: connect within 5 s, done within 10 s, no redirect
// followed, TLS verified, no proxy, http and https only, the address the SSRF rule checked
// pinned (CURLOPT_RESOLVE).
#pragma once

#include <optional>
#include <string>
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

// Sends the request; never throws for what the network or receiver does.
PostResult post(const PostRequest& request);

// curl_global_init, once, before any thread (main()).
void init_http();

}  // namespace supportcrm::webhooks
