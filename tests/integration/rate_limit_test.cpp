// The optional rate limits of nginx/supportcrm-ratelimit.conf, switched on in a second server
// of the test stack: per client address (40 r/s, burst 10), then per key (20 r/s, burst 2).
// Over either, nginx answers the contract's 429.
#include <curl/curl.h>

#include <cstdlib>
#include <random>
#include <string>

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

Reply get_with_key(const std::string& path, const std::string& key) {
    return get_from("", path, key);
}

// A loopback address no other test (or earlier run) sends from: 127.a.b.c, random.
std::string fresh_loopback_address() {
    static std::mt19937 random{std::random_device{}()};
    std::uniform_int_distribution<int> octet(2, 254);
    return "127." + std::to_string(octet(random)) + "." + std::to_string(octet(random)) + "." +
           std::to_string(octet(random));
}

// Requests from `from` to a path nginx answers itself (the site's JSON 404, no pool) until one
// is refused; false if none was within 200.
bool use_up_address_bucket(const std::string& from) {
    for (int i = 0; i < 200; ++i) {
        const long status = get_from(from, "/nope", "").status;
        if (status == 429) {
            return true;
        }
        if (status != 404) {
            ADD_FAILURE() << "GET /nope answered " << status;
            return false;
        }
    }
    return false;
}

TEST(RateLimit, OverTheLimitAKeyGets429InTheContractShape) {
    Shop shop = make_shop();
    Json::Value customer = create_customer(shop, object({{"email", unique_email()}}));
    std::string path = "/api/v1/customers/" + customer["id"].asString();
    int ok = 0;
    Reply limited;
    for (int i = 0; i < 30 && limited.status == 0; ++i) {
        Reply r = get_with_key(path, shop.key);
        if (r.status == 200) {
            ++ok;
        } else if (r.status == 429) {
            limited = r;
        } else {
            FAIL() << "unexpected status " << r.status << ": " << r.body;
        }
    }
    EXPECT_GE(ok, 1) << "the first requests are within the burst";
    ASSERT_EQ(limited.status, 429) << "30 requests at once never hit a limit of 20 r/s, burst 2";
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
    for (int i = 0; i < 30; ++i) {
        if (get_with_key("/api/v1/customers/1", busy.key).status == 429) {
            break;
        }
    }
    ASSERT_EQ(get_with_key("/api/v1/customers/1", busy.key).status, 429);
    // Another key is untouched by the first one's burst (its customer 1 does not exist: 404).
    EXPECT_EQ(get_with_key("/api/v1/customers/1", quiet.key).status, 404);
}

// The per-address limit covers what the per-key one cannot: no key, a new invented key on each
// request (each would get a bucket of its own, and costs the pool a database lookup), and
// /healthz (which pings the database). Once one address has used up its allowance, each of
// those is refused at once. The three follow the last admitted request within one token
// interval (25 ms at 40 r/s); on a machine too busy for that, the round is repeated.
TEST(RateLimit, AnAddressOverItsLimitIsRefusedWithoutKeyWithInventedKeysAndOnHealthz) {
    std::string trace;
    Reply refused;
    bool all_refused = false;
    for (int round = 0; round < 5 && !all_refused; ++round) {
        const std::string from = fresh_loopback_address();
        ASSERT_TRUE(use_up_address_bucket(from))
            << "200 requests at once from " << from << " never hit a limit of 40 r/s, burst 10";
        const Reply healthz = get_from(from, "/healthz", "");
        const Reply keyless = get_from(from, "/api/v1/customers/1", "");
        const Reply invented = get_from(from, "/api/v1/customers/1", "scrm_" + unique_suffix());
        trace += from + ": /healthz " + std::to_string(healthz.status) + ", keyless " +
                 std::to_string(keyless.status) + ", invented key " +
                 std::to_string(invented.status) + "; ";
        all_refused = healthz.status == 429 && keyless.status == 429 && invented.status == 429;
        refused = invented;
    }
    ASSERT_TRUE(all_refused) << trace;
    Json::Value body = parse_json(refused.body);
    EXPECT_EQ(body["code"], "rate_limited");
    EXPECT_NE(to_lower(refused.headers).find("retry-after: 1"), std::string::npos);
}

TEST(RateLimit, EachAddressHasItsOwnBucket) {
    const std::string busy = fresh_loopback_address();
    ASSERT_TRUE(use_up_address_bucket(busy));
    std::string quiet = fresh_loopback_address();
    while (quiet == busy) {
        quiet = fresh_loopback_address();
    }
    // Without a key: /healthz answers (the database is up), the API 401.
    EXPECT_EQ(get_from(quiet, "/healthz", "").status, 200);
    EXPECT_EQ(get_from(quiet, "/api/v1/customers/1", "").status, 401);
}

}  // namespace
}  // namespace it
