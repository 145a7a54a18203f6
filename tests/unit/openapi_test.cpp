// The description compiled into the binary (docs/openapi.yaml via tools/openapi/embed.py)
// against the route table: every route described, nothing described that the pool does not
// route. The live check against traffic is scripts/openapi check (scripts/test).
#include <openssl/evp.h>

#include <set>
#include <string>
#include <utility>

#include "common/strict_json.h"
#include "gtest/gtest.h"
#include "handlers/openapi_document.h"
#include "handlers/router.h"

namespace supportcrm {
namespace {

Json::Value document() {
    Json::Value doc;
    if (!strict_json::parse(openapi::kDocument, doc)) {
        ADD_FAILURE() << "the embedded description is not RFC 8259 JSON";
    }
    return doc;
}

std::string lower(std::string_view s) {
    std::string out(s);
    for (char& c : out) {
        c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    }
    return out;
}

const std::set<std::string> kOperationKeys = {"get",  "put",     "post",  "delete",
                                              "head", "options", "patch", "trace"};

TEST(OpenApi, IsOpenApi31Json) {
    Json::Value doc = document();
    ASSERT_TRUE(doc.isObject());
    EXPECT_TRUE(doc["openapi"].asString().rfind("3.1.", 0) == 0) << doc["openapi"].asString();
    EXPECT_TRUE(doc["paths"].isObject());
    EXPECT_TRUE(doc["components"]["securitySchemes"].isMember("ApiKey"));
    EXPECT_TRUE(doc["components"]["securitySchemes"].isMember("Bearer"));
}

TEST(OpenApi, DescribesExactlyTheRouteTable) {
    Json::Value doc = document();
    std::set<std::pair<std::string, std::string>> described;
    for (const std::string& path : doc["paths"].getMemberNames()) {
        for (const std::string& key : doc["paths"][path].getMemberNames()) {
            if (kOperationKeys.count(key) != 0) {
                described.emplace(key, path);
            }
        }
    }
    std::set<std::pair<std::string, std::string>> routed;
    for (const RouteName& r : route_names()) {
        routed.emplace(lower(r.method), std::string(r.pattern));
    }
    EXPECT_EQ(described, routed);
}

TEST(OpenApi, EveryOperationDescribesItsErrorsAndRequestId) {
    Json::Value doc = document();
    for (const std::string& path : doc["paths"].getMemberNames()) {
        for (const std::string& method : doc["paths"][path].getMemberNames()) {
            if (kOperationKeys.count(method) == 0) {
                continue;
            }
            const Json::Value& op = doc["paths"][path][method];
            SCOPED_TRACE(method + " " + path);
            EXPECT_TRUE(op["responses"].isMember("503")) << "every route can answer 503";
            bool request_id = false;
            for (const Json::Value& p : op["parameters"]) {
                request_id = request_id || p["$ref"] == "#/components/parameters/RequestId";
            }
            EXPECT_TRUE(request_id);
            const bool keyless = op.isMember("security") && op["security"].empty();
            EXPECT_EQ(op["responses"].isMember("401"), !keyless);
        }
    }
}

TEST(OpenApi, EtagIsAHashOfTheDocument) {
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int size = 0;
    ASSERT_EQ(EVP_Digest(openapi::kDocument.data(), openapi::kDocument.size(), digest, &size,
                         EVP_sha256(), nullptr),
              1);
    std::string hex;
    for (unsigned int i = 0; i < size; ++i) {
        static const char kHex[] = "0123456789abcdef";
        hex += kHex[digest[i] >> 4];
        hex += kHex[digest[i] & 15];
    }
    EXPECT_EQ(openapi::kEtag, "\"" + hex.substr(0, 32) + "\"");
}

}  // namespace
}  // namespace supportcrm
