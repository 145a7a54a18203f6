// GET /api/v1/customers/{customerId} (api-v1 §2, contract §3, §5, §7): exactly the fetch
// fields, defaults, derived full_name, datetime format, id parsing and shop isolation.
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <string>
#include <vector>

#include "harness.h"

namespace {

using it::HttpResponse;
using it::object;
using it::Shop;

const std::vector<std::string> kFetchFields = [] {
    std::vector<std::string> f{"id",
                               "storefront_id",
                               "site_cms_id",
                               "storefront_b_id",
                               "social_a_user_id",
                               "social_b_user_id",
                               "messaging_id",
                               "email",
                               "phone_number",
                               "first_name",
                               "last_name",
                               "full_name",
                               "numberOfOrders",
                               "shopDomain",
                               "creationDate",
                               "cms_creationDate",
                               "CMS",
                               "helpdesk_a_id",
                               "helpdesk_b_id",
                               "social_b_pseudo",
                               "helpdesk_c_id",
                               "helpdesk_d_id"};
    std::sort(f.begin(), f.end());
    return f;
}();

const std::vector<std::string> kAlwaysNull{"storefront_b_id", "cms_creationDate", "CMS",
                                           "helpdesk_a_id",   "helpdesk_b_id",    "helpdesk_c_id",
                                           "helpdesk_d_id",   "social_b_pseudo"};

std::string path_of(int64_t id) {
    return "/api/v1/customers/" + std::to_string(id);
}

// ---------------------------------------------------------------------------------------------
// The fetched customer.

TEST(CustomersGet, Returns200WithExactlyTheFetchFields) {
    const Shop shop = it::make_shop();
    const std::string email = it::unique_email();
    const std::string phone = "+44 20 " + it::unique_suffix();
    const Json::Value created = it::create_customer(shop, object({{"email", email},
                                                                  {"phone_number", phone},
                                                                  {"first_name", "Ann"},
                                                                  {"last_name", "Lee"},
                                                                  {"storefront_id", "sf-9"},
                                                                  {"site_cms_id", "cms-9"},
                                                                  {"social_a_user_id", "sa-9"},
                                                                  {"social_b_user_id", "sb-9"},
                                                                  {"messaging_id", "m-9"}}));
    const HttpResponse r = it::get(path_of(created["id"].asInt64()), shop);
    ASSERT_TRUE(it::is_success(r, 200));
    const Json::Value& c = r.json()["customer"];
    ASSERT_TRUE(c.isObject()) << r.describe();
    EXPECT_EQ(it::member_names(c), kFetchFields) << r.describe();
    EXPECT_TRUE(it::is_json_integer(c["id"])) << r.describe();
    EXPECT_EQ(c["id"], created["id"]);
    EXPECT_EQ(c["email"], Json::Value(email));
    EXPECT_EQ(c["phone_number"], Json::Value(phone));
    EXPECT_EQ(c["first_name"], Json::Value("Ann"));
    EXPECT_EQ(c["last_name"], Json::Value("Lee"));
    EXPECT_EQ(c["full_name"], Json::Value("Ann Lee"));
    EXPECT_EQ(c["storefront_id"], Json::Value("sf-9"));
    EXPECT_EQ(c["site_cms_id"], Json::Value("cms-9"));
    EXPECT_EQ(c["social_a_user_id"], Json::Value("sa-9"));
    EXPECT_EQ(c["social_b_user_id"], Json::Value("sb-9"));
    EXPECT_EQ(c["messaging_id"], Json::Value("m-9"));
    EXPECT_EQ(c["shopDomain"], Json::Value(shop.domain));
}

TEST(CustomersGet, DefaultsOfANewCustomer) {
    const Shop shop = it::make_shop();
    const Json::Value created = it::create_customer(shop, object({{"email", it::unique_email()}}));
    const Json::Value c = it::fetch_customer(shop, created["id"].asInt64());
    EXPECT_TRUE(it::is_json_integer(c["numberOfOrders"])) << it::to_json(c);
    EXPECT_EQ(c["numberOfOrders"].asInt64(), 0);
    for (const std::string& f : kAlwaysNull) {
        EXPECT_TRUE(c.isMember(f)) << f << " missing in " << it::to_json(c);
        EXPECT_TRUE(c[f].isNull()) << f << " in " << it::to_json(c);
    }
    for (const char* f : {"phone_number", "first_name", "last_name", "full_name", "storefront_id",
                          "site_cms_id", "social_a_user_id", "social_b_user_id", "messaging_id"}) {
        EXPECT_TRUE(c.isMember(f)) << f << " missing in " << it::to_json(c);
        EXPECT_TRUE(c[f].isNull()) << f << " in " << it::to_json(c);
    }
}

TEST(CustomersGet, CreationDateIsUtcMillisecondsAndNow) {
    const Shop shop = it::make_shop();
    const auto before = std::chrono::system_clock::now();
    const Json::Value created = it::create_customer(shop, object({{"email", it::unique_email()}}));
    const Json::Value c = it::fetch_customer(shop, created["id"].asInt64());
    ASSERT_TRUE(c["creationDate"].isString()) << it::to_json(c);
    const std::string text = c["creationDate"].asString();
    const auto when = it::parse_utc_millis(text);
    ASSERT_TRUE(when.has_value()) << "creationDate \"" << text
                                  << "\" is not YYYY-MM-DDTHH:MM:SS.mmmZ";
    const auto delta = std::chrono::duration_cast<std::chrono::seconds>(*when - before).count();
    EXPECT_LE(std::abs(delta), 60)
        << "creationDate " << text << " is " << delta << " s away from the time of creation";
}

TEST(CustomersGet, FullNameIsDerivedFromTheNamesGiven) {
    const Shop shop = it::make_shop();
    struct Case {
        Json::Value names;
        Json::Value full_name;
    };
    const std::vector<Case> cases{
        {object({{"first_name", "Ann"}, {"last_name", "Lee"}}), "Ann Lee"},
        {object({{"first_name", "Ann"}}), "Ann"},
        {object({{"last_name", "Lee"}}), "Lee"},
        {object({}), Json::Value(Json::nullValue)},
        {object({{"first_name", Json::nullValue}, {"last_name", Json::nullValue}}),
         Json::Value(Json::nullValue)},
        {object({{"first_name", "Ann"}, {"last_name", "Lee"}, {"full_name", "Dr. Ann Lee"}}),
         "Dr. Ann Lee"},
        {object({{"full_name", "Only Full"}}), "Only Full"},
    };
    for (const Case& k : cases) {
        Json::Value body = k.names;
        body["email"] = it::unique_email();
        const Json::Value created = it::create_customer(shop, body);
        const Json::Value c = it::fetch_customer(shop, created["id"].asInt64());
        EXPECT_EQ(c["full_name"], k.full_name) << "for names " << it::to_json(k.names);
    }
}

TEST(CustomersGet, DuplicateCreateDoesNotChangeTheFetchedCustomer) {
    const Shop shop = it::make_shop();
    const std::string email = it::unique_email();
    const Json::Value created =
        it::create_customer(shop, object({{"email", email}, {"first_name", "Ann"}}));
    const Json::Value before = it::fetch_customer(shop, created["id"].asInt64());
    ASSERT_TRUE(it::has_status(
        it::post_json("/api/v1/customers", shop,
                      object({{"email", email}, {"first_name", "Zed"}, {"last_name", "Q"}})),
        200));
    EXPECT_EQ(it::fetch_customer(shop, created["id"].asInt64()), before);
}

TEST(CustomersGet, QueryStringIsIgnored) {
    const Shop shop = it::make_shop();
    const Json::Value created = it::create_customer(shop, object({{"email", it::unique_email()}}));
    const HttpResponse r = it::get(path_of(created["id"].asInt64()) + "?fields=id&shop=x", shop);
    ASSERT_TRUE(it::is_success(r, 200));
    EXPECT_EQ(it::member_names(r.json()["customer"]), kFetchFields);
}

TEST(CustomersGet, LeadingZerosInTheIdAreTheSameCustomer) {
    const Shop shop = it::make_shop();
    const Json::Value created = it::create_customer(shop, object({{"email", it::unique_email()}}));
    const HttpResponse r =
        it::get("/api/v1/customers/000" + std::to_string(created["id"].asInt64()), shop);
    ASSERT_TRUE(it::is_success(r, 200));
    EXPECT_EQ(r.json()["customer"]["id"], created["id"]);
}

// ---------------------------------------------------------------------------------------------
// Path id errors.

TEST(CustomersGet, MissingIdIs400CustomerIdRequired) {
    const Shop shop = it::make_shop();
    EXPECT_TRUE(it::is_error(it::get("/api/v1/customers/", shop), 400, "validation_failed",
                             "customerId is required"));
    EXPECT_TRUE(it::is_error(it::get("/api/v1/customers/?x=1", shop), 400, "validation_failed",
                             "customerId is required"));
}

TEST(CustomersGet, NonDigitIdIs400InvalidId) {
    const Shop shop = it::make_shop();
    for (const std::string id : {"abc", "12a", "a12", "-1", "+1", "1.5", "1e3", "0x10", "%201",
                                 "1%20", "one", "%C2%B2", "1;DROP%20TABLE%20customers"}) {
        EXPECT_TRUE(it::is_error(it::get("/api/v1/customers/" + id, shop), 400, "invalid_id",
                                 "Invalid customerId"))
            << "id " << id;
    }
}

TEST(CustomersGet, UnknownIdIs404CustomerNotFound) {
    const Shop shop = it::make_shop();
    for (const std::string id :
         {"0", "999999999999", "2147483648", "4294967296", "9223372036854775807",
          "9223372036854775808", "18446744073709551615", "18446744073709551616",
          "99999999999999999999999999999999999999"}) {
        EXPECT_TRUE(it::is_error(it::get("/api/v1/customers/" + id, shop), 404,
                                 "customer_not_found", "Customer not found"))
            << "id " << id;
    }
}

TEST(CustomersGet, IdBeyond64BitsDoesNotWrapToAnExistingCustomer) {
    const Shop shop = it::make_shop();
    const Json::Value created = it::create_customer(shop, object({{"email", it::unique_email()}}));
    const uint64_t id = created["id"].asUInt64();
    // 2^64 + id would be `id` after a silent unsigned wrap-around.
    // 18446744073709551616 + id, computed in decimal.
    std::string two64 = "18446744073709551616";
    std::string n = std::to_string(id);
    std::string sum;
    int carry = 0;
    for (int i = static_cast<int>(two64.size()) - 1, j = static_cast<int>(n.size()) - 1;
         i >= 0 || j >= 0 || carry; --i, --j) {
        const int d = (i >= 0 ? two64[i] - '0' : 0) + (j >= 0 ? n[j] - '0' : 0) + carry;
        sum.insert(sum.begin(), static_cast<char>('0' + d % 10));
        carry = d / 10;
    }
    EXPECT_TRUE(it::is_error(it::get("/api/v1/customers/" + sum, shop), 404, "customer_not_found",
                             "Customer not found"))
        << "id " << sum;
}

// ---------------------------------------------------------------------------------------------
// Shop isolation.

TEST(CustomersGet, AnotherShopsCustomerIs404) {
    const Shop owner = it::make_shop();
    const Shop stranger = it::make_shop();
    const Json::Value created = it::create_customer(owner, object({{"email", it::unique_email()}}));
    const std::string path = path_of(created["id"].asInt64());
    EXPECT_TRUE(
        it::is_error(it::get(path, stranger), 404, "customer_not_found", "Customer not found"));
    EXPECT_TRUE(it::is_error(it::http("GET", path, {{"Authorization", "Bearer " + stranger.key}}),
                             404, "customer_not_found", "Customer not found"));
    EXPECT_TRUE(it::is_success(it::get(path, owner), 200));
}

TEST(CustomersGet, ShopsOfOneBrandAreStillIsolated) {
    const int64_t brand = it::make_brand();
    const Shop a = it::make_shop(brand);
    const Shop b = it::make_shop(brand);
    const Json::Value created = it::create_customer(a, object({{"email", it::unique_email()}}));
    EXPECT_TRUE(it::is_error(it::get(path_of(created["id"].asInt64()), b), 404,
                             "customer_not_found", "Customer not found"));
}

}  // namespace
