// The optional rate limits of nginx/supportcrm-ratelimit.conf, switched on in a second server
// of the test stack: per client address (40 r/s, burst 10), then per key (20 r/s, burst 2).
// Over either, nginx answers the contract's 429.
#include <curl/curl.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "harness.h"

namespace it {
namespace {

struct Reply {
    long status = 0;
    std::string body;
    std::string headers;
};

size_t append(char* data, size_t size, size_t n, void* out) {
    static_cast<std::string*>(out)->append(data, size * n);
    return size * n;
}

std::string rate_limited_url() {
    const char* url = std::getenv("SUPPORTCRM_RATE_LIMITED_URL");
    if (url == nullptr || *url == '\0') {
        throw std::runtime_error("SUPPORTCRM_RATE_LIMITED_URL is not set (scripts/test sets it)");
    }
    return url;
}

// GET path on the rate-limited server, with `key` in x-api-key unless empty, from the local
// address `from` (a 127/8 address other than 127.0.0.1 gives the request a client address of
// its own, so that its per-address bucket is not the one the other tests use).
Reply get_from(const std::string& from, const std::string& path, const std::string& key) {
    Reply r;
    CURL* curl = curl_easy_init();
    curl_slist* headers =
        key.empty() ? nullptr : curl_slist_append(nullptr, ("x-api-key: " + key).c_str());
    if (!from.empty()) {
        curl_easy_setopt(curl, CURLOPT_INTERFACE, ("host!" + from).c_str());
    }
    std::string url = rate_limited_url() + path;
    curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, append);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, &r.body);
    curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, append);
    curl_easy_setopt(curl, CURLOPT_HEADERDATA, &r.headers);
    curl_easy_setopt(curl, CURLOPT_TIMEOUT, 10L);
    if (curl_easy_perform(curl) == CURLE_OK) {
        curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &r.status);
    }
    curl_slist_free_all(headers);
    curl_easy_cleanup(curl);
    return r;
}

// A loopback address no other test (or earlier run) sends from: 127.a.b.c, random.
std::string fresh_loopback_address() {
    static std::mt19937 random{std::random_device{}()};
    std::uniform_int_distribution<int> octet(2, 254);
    return "127." + std::to_string(octet(random)) + "." + std::to_string(octet(random)) + "." +
           std::to_string(octet(random));
}

// Requests for `path` from one address with `key` (none when empty), from several threads at once
// (so that a busy machine still sends far more than the limits' 20 r/s per key and 40 r/s per
// address), until destroyed; keeps the address, or the key, over its limit once it got there.
// Every answer is either 429 or `expected` (keyless: 401 without a database lookup).
// (A path nginx answers itself with `return`, like the site's JSON 404, is never limited:
// `return` runs before limit_req.)
class Flood {
  public:
    Flood(std::string from, std::string key, std::string path, long expected)
        : from_(std::move(from)),
          key_(std::move(key)),
          path_(std::move(path)),
          expected_(expected) {
        for (int i = 0; i < 6; ++i) {
            threads_.emplace_back([this] {
                while (!stop_) {
                    const long status = get_from(from_, path_, key_).status;
                    if (status == 429) {
                        limited_ = true;
                    } else if (status != expected_) {
                        unexpected_ = status;
                    }
                }
            });
        }
    }
    Flood(const Flood&) = delete;
    Flood& operator=(const Flood&) = delete;
    ~Flood() {
        stop_ = true;
        for (std::thread& t : threads_) {
            t.join();
        }
    }

    // Waits until one of its requests was refused (true), or 20 s (false).
    bool wait_until_limited() const {
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
        while (!limited_ && unexpected_ == 0 && std::chrono::steady_clock::now() < deadline) {
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
        EXPECT_EQ(unexpected_.load(), 0) << "a request from " << from_ << " got this";
        return limited_;
    }

  private:
    std::string from_;
    std::string key_;
    std::string path_;
    long expected_;
    std::atomic<bool> stop_{false};
    std::atomic<bool> limited_{false};
    std::atomic<long> unexpected_{0};
    std::vector<std::thread> threads_;
};

// The first of up to 10 tries of `request` refused with 429; else the last answer. (A flooded
// address or key frees a slot every 25 or 50 ms, which a try may take before the flood does:
// without the limit, none of the tries would be refused.)
template <typename Request>
Reply first_refused(Request request) {
    Reply r;
    for (int i = 0; i < 10 && r.status != 429; ++i) {
        r = request();
    }
    return r;
}

// Two loopback addresses no other test sends from, different from each other.
std::pair<std::string, std::string> two_fresh_loopback_addresses() {
    const std::string first = fresh_loopback_address();
    std::string second = fresh_loopback_address();
    while (second == first) {
        second = fresh_loopback_address();
    }
    return {first, second};
}

// Requests are sent from several threads while a flood from another address keeps the key over
// its limit: one after the other, a slow machine could send them slower than 20 r/s.
TEST(RateLimit, OverTheLimitAKeyGets429InTheContractShape) {
    Shop shop = make_shop();
    Json::Value customer = create_customer(shop, object({{"email", unique_email()}}));
    std::string path = "/api/v1/customers/" + customer["id"].asString();
    const auto [flooding, asking] = two_fresh_loopback_addresses();
    EXPECT_EQ(get_from(asking, path, shop.key).status, 200) << "a key's first request is served";
    Flood flood(flooding, shop.key, path, 200);
    ASSERT_TRUE(flood.wait_until_limited()) << "the key never hit its limit of 20 r/s, burst 2";
    const Reply limited = first_refused([&] { return get_from(asking, path, shop.key); });
    ASSERT_EQ(limited.status, 429) << "the key's bucket follows it to another address";
    Json::Value body = parse_json(limited.body);
    EXPECT_EQ(body["success"], false);
    EXPECT_EQ(body["code"], "rate_limited");
    EXPECT_EQ(body["message"], "Too many requests");
    std::string headers = to_lower(limited.headers);
    EXPECT_NE(headers.find("retry-after: 1"), std::string::npos) << limited.headers;
    EXPECT_NE(headers.find("content-type: application/json; charset=utf-8"), std::string::npos);
    EXPECT_NE(headers.find("x-request-id: "), std::string::npos);
}

TEST(RateLimit, EachKeyHasItsOwnBucket) {
    Shop busy = make_shop();
    Shop quiet = make_shop();
    const auto [flooding, asking] = two_fresh_loopback_addresses();
    Flood flood(flooding, busy.key, "/api/v1/customers/1", 404);
    ASSERT_TRUE(flood.wait_until_limited());
    ASSERT_EQ(
        first_refused([&] { return get_from(asking, "/api/v1/customers/1", busy.key); }).status,
        429);
    // Another key, from the same address, is untouched by the first one's flood (its
    // customer 1 does not exist: 404).
    EXPECT_EQ(get_from(asking, "/api/v1/customers/1", quiet.key).status, 404);
}

// The per-address limit covers what the per-key one cannot: no key, a new invented key on each
// request (each would get a bucket of its own, and costs the pool a database lookup), and
// /healthz (which pings the database). While one address floods, those from it are refused.
TEST(RateLimit, AnAddressOverItsLimitIsRefusedWithoutKeyWithInventedKeysAndOnHealthz) {
    const std::string from = fresh_loopback_address();
    Flood flood(from, "", "/api/v1/customers/1", 401);
    ASSERT_TRUE(flood.wait_until_limited())
        << "keyless requests from " << from << " never hit the limit of 40 r/s, burst 10";
    const Reply healthz = first_refused([&] { return get_from(from, "/healthz", ""); });
    const Reply keyless = first_refused([&] { return get_from(from, "/api/v1/customers/1", ""); });
    const Reply invented = first_refused(
        [&] { return get_from(from, "/api/v1/customers/1", "scrm_" + unique_suffix()); });
    EXPECT_EQ(healthz.status, 429) << healthz.body;
    EXPECT_EQ(keyless.status, 429) << keyless.body;
    ASSERT_EQ(invented.status, 429) << invented.body;
    Json::Value body = parse_json(invented.body);
    EXPECT_EQ(body["success"], false);
    EXPECT_EQ(body["code"], "rate_limited");
    EXPECT_EQ(body["message"], "Too many requests");
    EXPECT_NE(to_lower(invented.headers).find("retry-after: 1"), std::string::npos);
}

TEST(RateLimit, EachAddressHasItsOwnBucket) {
    const auto [busy, quiet] = two_fresh_loopback_addresses();
    Flood flood(busy, "", "/api/v1/customers/1", 401);
    ASSERT_TRUE(flood.wait_until_limited());
    // Without a key: /healthz answers (the database is up), the API 401.
    EXPECT_EQ(get_from(quiet, "/healthz", "").status, 200);
    EXPECT_EQ(get_from(quiet, "/api/v1/customers/1", "").status, 401);
}

}  // namespace
}  // namespace it
