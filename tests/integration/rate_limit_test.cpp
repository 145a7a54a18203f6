// The optional per-key rate limit of nginx/supportcrm-ratelimit.conf, switched on in a second
// server of the test stack (burst 2, 20 r/s): over it, nginx answers the contract's 429.
#include <curl/curl.h>

#include <cstdlib>
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

Reply get_with_key(const std::string& path, const std::string& key) {
    Reply r;
    CURL* curl = curl_easy_init();
    curl_slist* headers = curl_slist_append(nullptr, ("x-api-key: " + key).c_str());
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

}  // namespace
}  // namespace it
