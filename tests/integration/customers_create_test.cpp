// POST /api/v1/customers (api-v1 §1, contract §3, §5, §7): 201 with exactly the create fields,
// number-or-string ids stored as text, validation messages, and duplicate detection per shop
// (email trimmed and case-insensitive first, then phone trimmed) that holds under concurrency.
#include <cctype>
#include <latch>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "harness.h"

namespace {

using it::HttpResponse;
using it::object;
using it::Shop;

constexpr char kPath[] = "/api/v1/customers";
constexpr char kRequired[] = "email or phone_number is required";

const std::vector<std::string> kCreateFields{
    "email", "first_name", "id", "last_name", "phone_number", "shopDomain", "storefront_id"};

// Fields that take a string or a number and store text.
const std::vector<std::string> kIdFields{"storefront_id", "site_cms_id", "social_a_user_id",
                                         "social_b_user_id", "messaging_id"};

std::string unique_phone() {
    return "+1-555-" + it::unique_suffix();
}

int64_t count_customers(const Shop& shop) {
    it::Db db;
    return db.count("SELECT COUNT(*) FROM customers WHERE shop_id = ?", {std::to_string(shop.id)});
}

// A string of exactly `n` characters built from `unit` (one character, any UTF-8 length).
std::string repeat(const std::string& unit, size_t n) {
    std::string s;
    for (size_t i = 0; i < n; ++i) {
        s += unit;
    }
    return s;
}

// A unique email of exactly `n` characters.
std::string email_of_length(size_t n) {
    const std::string domain = "@example.test";
    std::string local = "l" + it::unique_suffix();
    local += std::string(n - local.size() - domain.size(), 'x');
    return local + domain;
}

// ---------------------------------------------------------------------------------------------
// The created customer.

TEST(CustomersCreate, Returns201WithExactlyTheCreateFields) {
    const Shop shop = it::make_shop();
    const std::string email = it::unique_email();
    const std::string phone = unique_phone();
    const HttpResponse r = it::post_json(kPath, shop,
                                         object({{"email", email},
                                                 {"phone_number", phone},
                                                 {"first_name", "Ann"},
                                                 {"last_name", "Lee"},
                                                 {"storefront_id", "sf-1"}}));
    ASSERT_TRUE(it::is_success(r, 201));
    const Json::Value& j = r.json();
    EXPECT_EQ(j["existing"], Json::Value(false)) << r.describe();
    const Json::Value& c = j["customer"];
    EXPECT_EQ(it::member_names(c), kCreateFields) << r.describe();
    EXPECT_TRUE(it::is_json_integer(c["id"])) << r.describe();
    EXPECT_GT(c["id"].asInt64(), 0);
    EXPECT_EQ(c["email"], Json::Value(email));
    EXPECT_EQ(c["phone_number"], Json::Value(phone));
    EXPECT_EQ(c["first_name"], Json::Value("Ann"));
    EXPECT_EQ(c["last_name"], Json::Value("Lee"));
    EXPECT_EQ(c["storefront_id"], Json::Value("sf-1"));
    EXPECT_EQ(c["shopDomain"], Json::Value(shop.domain));
}

TEST(CustomersCreate, AbsentFieldsAreNullInTheResponse) {
    const Shop shop = it::make_shop();
    const HttpResponse r = it::post_json(kPath, shop, object({{"email", it::unique_email()}}));
    ASSERT_TRUE(it::is_success(r, 201));
    const Json::Value& c = r.json()["customer"];
    EXPECT_EQ(it::member_names(c), kCreateFields) << r.describe();
    for (const char* f : {"phone_number", "first_name", "last_name", "storefront_id"}) {
        EXPECT_TRUE(c[f].isNull()) << f << " in " << r.describe();
    }
}

TEST(CustomersCreate, PhoneAloneIsEnough) {
    const Shop shop = it::make_shop();
    const std::string phone = unique_phone();
    const HttpResponse r = it::post_json(kPath, shop, object({{"phone_number", phone}}));
    ASSERT_TRUE(it::is_success(r, 201));
    EXPECT_EQ(r.json()["customer"]["phone_number"], Json::Value(phone));
    EXPECT_TRUE(r.json()["customer"]["email"].isNull()) << r.describe();
}

TEST(CustomersCreate, EachNewCustomerGetsItsOwnId) {
    const Shop shop = it::make_shop();
    std::set<int64_t> ids;
    for (int i = 0; i < 3; ++i) {
        ids.insert(
            it::create_customer(shop, object({{"email", it::unique_email()}}))["id"].asInt64());
    }
    EXPECT_EQ(ids.size(), 3u);
    EXPECT_EQ(count_customers(shop), 3);
}

// ---------------------------------------------------------------------------------------------
// email or phone_number is required.

TEST(CustomersCreate, WithoutEmailAndPhoneIs400) {
    const Shop shop = it::make_shop();
    const std::vector<std::string> bodies{
        R"({})",
        R"({"first_name":"Ann","last_name":"Lee","storefront_id":"1"})",
        R"({"email":""})",
        R"({"phone_number":""})",
        R"({"email":"","phone_number":""})",
        R"({"email":null})",
        R"({"email":null,"phone_number":null})",
        R"({"email":null,"phone_number":""})",
        R"({"Email":"a@example.test","PHONE_NUMBER":"1"})",
    };
    for (const std::string& b : bodies) {
        EXPECT_TRUE(it::is_error(it::post_raw(kPath, shop, b), 400, "validation_failed", kRequired))
            << "body " << b;
    }
    EXPECT_EQ(count_customers(shop), 0);
}

TEST(CustomersCreate, EmptyEmailCountsAsAbsent) {
    const Shop shop = it::make_shop();
    const HttpResponse r =
        it::post_json(kPath, shop, object({{"email", ""}, {"phone_number", unique_phone()}}));
    ASSERT_TRUE(it::is_success(r, 201));
    EXPECT_TRUE(r.json()["customer"]["email"].isNull()) << r.describe();
}

TEST(CustomersCreate, EmptyPhoneCountsAsAbsent) {
    const Shop shop = it::make_shop();
    const HttpResponse r =
        it::post_json(kPath, shop, object({{"email", it::unique_email()}, {"phone_number", ""}}));
    ASSERT_TRUE(it::is_success(r, 201));
    EXPECT_TRUE(r.json()["customer"]["phone_number"].isNull()) << r.describe();
}

TEST(CustomersCreate, NullOptionalFieldsCountAsAbsent) {
    const Shop shop = it::make_shop();
    Json::Value body = object({{"email", it::unique_email()},
                               {"phone_number", Json::nullValue},
                               {"first_name", Json::nullValue},
                               {"last_name", Json::nullValue},
                               {"full_name", Json::nullValue}});
    for (const std::string& f : kIdFields) {
        body[f] = Json::nullValue;
    }
    const HttpResponse r = it::post_json(kPath, shop, body);
    ASSERT_TRUE(it::is_success(r, 201));
    const Json::Value c = it::fetch_customer(shop, r.json()["customer"]["id"].asInt64());
    for (const char* f : {"phone_number", "first_name", "last_name", "full_name", "storefront_id",
                          "site_cms_id", "social_a_user_id", "social_b_user_id", "messaging_id"}) {
        EXPECT_TRUE(c[f].isNull()) << f << " in " << it::to_json(c);
    }
}

// ---------------------------------------------------------------------------------------------
// storefront_id & co.: string or number in, text out.

TEST(CustomersCreate, NumericIdsAreStoredAsTheirDecimalText) {
    const Shop shop = it::make_shop();
    const std::vector<std::pair<std::string, std::string>> cases{
        {"42", "42"},
        {"0", "0"},
        {"-7", "-7"},
        {"12.5", "12.5"},
        {"12345678901234567890", "12345678901234567890"},
        {"18446744073709551615", "18446744073709551615"},
        {"9223372036854775807", "9223372036854775807"},
        {"-9223372036854775808", "-9223372036854775808"},
        {"\"abc\"", "abc"},
        {"\"00123\"", "00123"},
        {"\"12.50\"", "12.50"},
    };
    for (const auto& [in, out] : cases) {
        const std::string body =
            "{\"email\":\"" + it::unique_email() + "\",\"storefront_id\":" + in + "}";
        const HttpResponse r = it::post_raw(kPath, shop, body);
        ASSERT_TRUE(it::is_success(r, 201)) << "storefront_id " << in;
        EXPECT_EQ(r.json()["customer"]["storefront_id"], Json::Value(out))
            << "storefront_id " << in << ": " << r.describe();
        const Json::Value c = it::fetch_customer(shop, r.json()["customer"]["id"].asInt64());
        EXPECT_EQ(c["storefront_id"], Json::Value(out)) << "fetched storefront_id " << in;
    }
}

TEST(CustomersCreate, EveryIdFieldTakesANumberAndReturnsText) {
    const Shop shop = it::make_shop();
    const std::string body = "{\"email\":\"" + it::unique_email() +
                             "\",\"storefront_id\":1,\"site_cms_id\":12345678901234567890,"
                             "\"social_a_user_id\":12.5,\"social_b_user_id\":-3,"
                             "\"messaging_id\":42}";
    const HttpResponse r = it::post_raw(kPath, shop, body);
    ASSERT_TRUE(it::is_success(r, 201));
    const Json::Value c = it::fetch_customer(shop, r.json()["customer"]["id"].asInt64());
    EXPECT_EQ(c["storefront_id"], Json::Value("1"));
    EXPECT_EQ(c["site_cms_id"], Json::Value("12345678901234567890"));
    EXPECT_EQ(c["social_a_user_id"], Json::Value("12.5"));
    EXPECT_EQ(c["social_b_user_id"], Json::Value("-3"));
    EXPECT_EQ(c["messaging_id"], Json::Value("42"));
}

TEST(CustomersCreate, EveryIdFieldTakesAString) {
    const Shop shop = it::make_shop();
    Json::Value body = object({{"email", it::unique_email()}});
    for (const std::string& f : kIdFields) {
        body[f] = "v-" + f;
    }
    const Json::Value created = it::create_customer(shop, body);
    const Json::Value c = it::fetch_customer(shop, created["id"].asInt64());
    for (const std::string& f : kIdFields) {
        EXPECT_EQ(c[f], Json::Value("v-" + f)) << f;
    }
}

TEST(CustomersCreate, FractionalNumbersKeepTheirShortDecimalText) {
    const Shop shop = it::make_shop();
    for (const std::string n : {"0.1", "2.25", "-0.5"}) {
        const std::string body =
            "{\"email\":\"" + it::unique_email() + "\",\"storefront_id\":" + n + "}";
        const HttpResponse r = it::post_raw(kPath, shop, body);
        ASSERT_TRUE(it::is_success(r, 201));
        EXPECT_EQ(r.json()["customer"]["storefront_id"], Json::Value(n)) << r.describe();
    }
}

// ---------------------------------------------------------------------------------------------
// Wrong types.

TEST(CustomersCreate, EmailOfWrongTypeIs400) {
    const Shop shop = it::make_shop();
    for (const std::string v : {"5", "true", "{}", "[]", "[\"a@example.test\"]"}) {
        const std::string body =
            "{\"phone_number\":\"" + unique_phone() + "\",\"email\":" + v + "}";
        EXPECT_TRUE(it::is_error(it::post_raw(kPath, shop, body), 400, "validation_failed",
                                 "email must be a string"))
            << "email " << v;
    }
    EXPECT_EQ(count_customers(shop), 0);
}

TEST(CustomersCreate, StorefrontIdOfWrongTypeIs400) {
    const Shop shop = it::make_shop();
    for (const std::string v : {"true", "false", "{}", "[]", "[1]", "{\"a\":1}"}) {
        const std::string body =
            "{\"email\":\"" + it::unique_email() + "\",\"storefront_id\":" + v + "}";
        EXPECT_TRUE(it::is_error(it::post_raw(kPath, shop, body), 400, "validation_failed",
                                 "storefront_id must be a string or number"))
            << "storefront_id " << v;
    }
    EXPECT_EQ(count_customers(shop), 0);
}

TEST(CustomersCreate, EveryFieldOfWrongTypeIs400NamingTheField) {
    const Shop shop = it::make_shop();
    struct Case {
        std::string field;
        std::vector<std::string> bad;
    };
    const std::vector<Case> cases{
        {"phone_number", {"5551234", "true", "{}", "[]"}},
        {"first_name", {"1", "true", "{}", "[\"Ann\"]"}},
        {"last_name", {"1", "false", "{}", "[]"}},
        {"full_name", {"1.5", "true", "{}", "[]"}},
        {"site_cms_id", {"true", "{}", "[]"}},
        {"social_a_user_id", {"true", "{}", "[]"}},
        {"social_b_user_id", {"false", "{}", "[]"}},
        {"messaging_id", {"true", "{}", "[]"}},
    };
    for (const Case& c : cases) {
        for (const std::string& v : c.bad) {
            const std::string body =
                "{\"email\":\"" + it::unique_email() + "\",\"" + c.field + "\":" + v + "}";
            const HttpResponse r = it::post_raw(kPath, shop, body);
            EXPECT_TRUE(it::is_error(r, 400, "validation_failed"));
            EXPECT_TRUE(it::starts_with(r.json()["message"].asString(), c.field + " must be "))
                << c.field << " = " << v << ": " << r.describe();
        }
    }
    EXPECT_EQ(count_customers(shop), 0);
}

// ---------------------------------------------------------------------------------------------
// Lengths (characters, not bytes): 255 for the short strings, 511 for full_name.

TEST(CustomersCreate, ShortStringsOf255CharactersAreAccepted) {
    const Shop shop = it::make_shop();
    for (const std::string f :
         {"email", "phone_number", "first_name", "last_name", "storefront_id", "site_cms_id",
          "social_a_user_id", "social_b_user_id", "messaging_id"}) {
        Json::Value body = object({{"email", it::unique_email()}});
        std::string value = f == "email" ? email_of_length(255) : std::string(255, 'x');
        if (f == "phone_number") {
            value = it::unique_suffix();
            value += std::string(255 - value.size(), '9');
        }
        body[f] = value;
        const HttpResponse r = it::post_json(kPath, shop, body);
        ASSERT_TRUE(it::is_success(r, 201)) << f;
        const Json::Value c = it::fetch_customer(shop, r.json()["customer"]["id"].asInt64());
        EXPECT_EQ(c[f], Json::Value(value)) << f << " was not stored whole";
    }
}

TEST(CustomersCreate, ShortStringsOf256CharactersAreTooLong) {
    const Shop shop = it::make_shop();
    for (const std::string f :
         {"email", "phone_number", "first_name", "last_name", "storefront_id", "site_cms_id",
          "social_a_user_id", "social_b_user_id", "messaging_id"}) {
        Json::Value body = object({{"email", it::unique_email()}});
        body[f] = f == "email" ? email_of_length(256) : std::string(256, '7');
        EXPECT_TRUE(it::is_error(it::post_json(kPath, shop, body), 400, "validation_failed",
                                 f + " is too long"));
    }
    EXPECT_EQ(count_customers(shop), 0);
}

TEST(CustomersCreate, FullNameUpTo511CharactersIsAccepted) {
    const Shop shop = it::make_shop();
    const std::string name(511, 'n');
    const Json::Value created =
        it::create_customer(shop, object({{"email", it::unique_email()}, {"full_name", name}}));
    EXPECT_EQ(it::fetch_customer(shop, created["id"].asInt64())["full_name"], Json::Value(name));
}

TEST(CustomersCreate, FullNameOf512CharactersIsTooLong) {
    const Shop shop = it::make_shop();
    const HttpResponse r = it::post_json(
        kPath, shop, object({{"email", it::unique_email()}, {"full_name", std::string(512, 'n')}}));
    EXPECT_TRUE(it::is_error(r, 400, "validation_failed", "full_name is too long"));
}

TEST(CustomersCreate, LengthsCountCharactersNotBytes) {
    const Shop shop = it::make_shop();
    struct Case {
        std::string field;
        std::string unit;
        size_t max;
    };
    const std::vector<Case> cases{
        {"first_name", "\xc3\xa9", 255},             // é, 2 bytes
        {"last_name", "\xe5\xb1\xb1", 255},          // 山, 3 bytes
        {"storefront_id", "\xf0\x9f\x98\x80", 255},  // 😀, 4 bytes
        {"full_name", "\xc3\xa9", 511},
        {"full_name", "\xf0\x9f\x98\x80", 511},
    };
    for (const Case& c : cases) {
        const std::string ok = repeat(c.unit, c.max);
        Json::Value body = object({{"email", it::unique_email()}});
        body[c.field] = ok;
        const HttpResponse r = it::post_json(kPath, shop, body);
        ASSERT_TRUE(it::is_success(r, 201)) << c.field << " of " << c.max << " x " << c.unit;
        EXPECT_EQ(it::fetch_customer(shop, r.json()["customer"]["id"].asInt64())[c.field],
                  Json::Value(ok))
            << c.field << " of " << c.max << " x " << c.unit;

        body = object({{"email", it::unique_email()}});
        body[c.field] = repeat(c.unit, c.max + 1);
        EXPECT_TRUE(it::is_error(it::post_json(kPath, shop, body), 400, "validation_failed",
                                 c.field + " is too long"))
            << c.field << " of " << c.max + 1 << " x " << c.unit;
    }
}

// ---------------------------------------------------------------------------------------------
// Unknown fields and the shop.

TEST(CustomersCreate, UnknownFieldsAreIgnored) {
    const Shop shop = it::make_shop();
    const std::string email = it::unique_email();
    const std::string body = "{\"email\":\"" + email +
                             "\",\"foo\":{\"bar\":[1,2,{\"x\":null}]},\"nickname\":\"Annie\","
                             "\"tags\":[\"vip\"],\"age\":31,\"active\":true}";
    const HttpResponse r = it::post_raw(kPath, shop, body);
    ASSERT_TRUE(it::is_success(r, 201));
    EXPECT_EQ(it::member_names(r.json()["customer"]), kCreateFields) << r.describe();
    EXPECT_EQ(r.json()["customer"]["email"], Json::Value(email));
}

TEST(CustomersCreate, ShopAndServerFieldsInTheBodyAreIgnored) {
    const Shop shop = it::make_shop();
    const Shop other = it::make_shop();
    Json::Value body = object({{"email", it::unique_email()},
                               {"id", 987654321},
                               {"shopDomain", other.domain},
                               {"shop", other.domain},
                               {"shop_id", static_cast<Json::Int64>(other.id)},
                               {"shopId", static_cast<Json::Int64>(other.id)},
                               {"numberOfOrders", 7},
                               {"creationDate", "2001-01-01T00:00:00.000Z"},
                               {"cms_creationDate", "2001-01-01T00:00:00.000Z"},
                               {"storefront_b_id", "sb"},
                               {"CMS", "cms"},
                               {"helpdesk_a_id", "ha"},
                               {"helpdesk_b_id", "hb"},
                               {"helpdesk_c_id", "hc"},
                               {"helpdesk_d_id", "hd"},
                               {"social_b_pseudo", "sp"}});
    const HttpResponse r = it::post_json(kPath + std::string("?shop=") + other.domain, shop, body);
    ASSERT_TRUE(it::is_success(r, 201));
    const Json::Value& created = r.json()["customer"];
    EXPECT_NE(created["id"].asInt64(), 987654321);
    EXPECT_EQ(created["shopDomain"], Json::Value(shop.domain));

    const Json::Value c = it::fetch_customer(shop, created["id"].asInt64());
    EXPECT_EQ(c["shopDomain"], Json::Value(shop.domain));
    EXPECT_EQ(c["numberOfOrders"], Json::Value(0));
    EXPECT_NE(c["creationDate"], Json::Value("2001-01-01T00:00:00.000Z"));
    for (const char* f : {"cms_creationDate", "storefront_b_id", "CMS", "helpdesk_a_id",
                          "helpdesk_b_id", "helpdesk_c_id", "helpdesk_d_id", "social_b_pseudo"}) {
        EXPECT_TRUE(c[f].isNull()) << f << " in " << it::to_json(c);
    }
    EXPECT_TRUE(it::is_error(it::get("/api/v1/customers/" + created["id"].asString(), other), 404,
                             "customer_not_found", "Customer not found"));
}

// ---------------------------------------------------------------------------------------------
// Duplicates.

TEST(CustomersCreate, SameEmailIgnoringCaseAndSpacesReturnsTheExistingCustomerWith200) {
    const Shop shop = it::make_shop();
    const std::string email = "ann." + it::unique_suffix() + "@example.test";
    const Json::Value first = it::create_customer(shop, object({{"email", email}}));

    std::string variant = "  " + email + "\t ";
    for (char& ch : variant) {
        ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    }
    const HttpResponse r = it::post_json(kPath, shop, object({{"email", variant}}));
    ASSERT_TRUE(it::is_success(r, 200));
    EXPECT_EQ(r.json()["existing"], Json::Value(true)) << r.describe();
    EXPECT_EQ(it::member_names(r.json()["customer"]), kCreateFields) << r.describe();
    EXPECT_EQ(r.json()["customer"]["id"], first["id"]) << r.describe();
    EXPECT_EQ(r.json()["customer"]["shopDomain"], Json::Value(shop.domain));
    EXPECT_EQ(count_customers(shop), 1);
}

TEST(CustomersCreate, EmailStoredWithSpacesStillMatches) {
    const Shop shop = it::make_shop();
    const std::string email = it::unique_email();
    const Json::Value first = it::create_customer(shop, object({{"email", " " + email + " "}}));
    const HttpResponse r = it::post_json(kPath, shop, object({{"email", email}}));
    ASSERT_TRUE(it::is_success(r, 200));
    EXPECT_EQ(r.json()["customer"]["id"], first["id"]);
    EXPECT_EQ(count_customers(shop), 1);
}

TEST(CustomersCreate, DuplicateReturnsTheExistingCustomerUnchanged) {
    const Shop shop = it::make_shop();
    const std::string email = it::unique_email();
    const Json::Value first = it::create_customer(
        shop, object({{"email", email}, {"first_name", "Ann"}, {"storefront_id", "sf-old"}}));
    const HttpResponse r = it::post_json(kPath, shop,
                                         object({{"email", email},
                                                 {"first_name", "Bob"},
                                                 {"phone_number", unique_phone()},
                                                 {"storefront_id", "sf-new"}}));
    ASSERT_TRUE(it::is_success(r, 200));
    const Json::Value& c = r.json()["customer"];
    EXPECT_EQ(c["id"], first["id"]);
    EXPECT_EQ(c["email"], Json::Value(email));
    EXPECT_EQ(c["first_name"], Json::Value("Ann"));
    EXPECT_EQ(c["storefront_id"], Json::Value("sf-old"));
    EXPECT_TRUE(c["phone_number"].isNull()) << r.describe();
    const Json::Value fetched = it::fetch_customer(shop, first["id"].asInt64());
    EXPECT_EQ(fetched["first_name"], Json::Value("Ann"));
    EXPECT_TRUE(fetched["phone_number"].isNull()) << it::to_json(fetched);
}

TEST(CustomersCreate, SamePhoneTrimmedReturnsTheExistingCustomerWith200) {
    const Shop shop = it::make_shop();
    const std::string phone = unique_phone();
    const Json::Value first = it::create_customer(shop, object({{"phone_number", phone}}));
    const HttpResponse r =
        it::post_json(kPath, shop, object({{"phone_number", "  " + phone + " "}}));
    ASSERT_TRUE(it::is_success(r, 200));
    EXPECT_EQ(r.json()["existing"], Json::Value(true)) << r.describe();
    EXPECT_EQ(r.json()["customer"]["id"], first["id"]);
    EXPECT_EQ(count_customers(shop), 1);
}

TEST(CustomersCreate, SamePhoneWithANewEmailReturnsThePhonesCustomer) {
    const Shop shop = it::make_shop();
    const std::string phone = unique_phone();
    const Json::Value first =
        it::create_customer(shop, object({{"email", it::unique_email()}, {"phone_number", phone}}));
    const HttpResponse r = it::post_json(
        kPath, shop, object({{"email", it::unique_email()}, {"phone_number", phone}}));
    ASSERT_TRUE(it::is_success(r, 200));
    EXPECT_EQ(r.json()["existing"], Json::Value(true)) << r.describe();
    EXPECT_EQ(r.json()["customer"]["id"], first["id"]);
    EXPECT_EQ(count_customers(shop), 1);
}

TEST(CustomersCreate, EmailIsCheckedBeforePhone) {
    const Shop shop = it::make_shop();
    const std::string email = it::unique_email("a");
    const std::string phone = unique_phone();
    const Json::Value a = it::create_customer(shop, object({{"email", email}}));
    const Json::Value b = it::create_customer(shop, object({{"phone_number", phone}}));
    ASSERT_NE(a["id"], b["id"]);
    const HttpResponse r =
        it::post_json(kPath, shop, object({{"email", email}, {"phone_number", phone}}));
    ASSERT_TRUE(it::is_success(r, 200));
    EXPECT_EQ(r.json()["existing"], Json::Value(true)) << r.describe();
    EXPECT_EQ(r.json()["customer"]["id"], a["id"]) << "expected the email's customer";
    EXPECT_EQ(count_customers(shop), 2);
}

TEST(CustomersCreate, DuplicateDetectionIsPerShop) {
    const Shop one = it::make_shop();
    const Shop two = it::make_shop();
    const std::string email = it::unique_email();
    const std::string phone = unique_phone();
    const Json::Value a = it::create_customer(one, object({{"email", email}}));
    const Json::Value p = it::create_customer(one, object({{"phone_number", phone}}));

    const HttpResponse r = it::post_json(kPath, two, object({{"email", email}}));
    ASSERT_TRUE(it::is_success(r, 201));
    EXPECT_EQ(r.json()["existing"], Json::Value(false)) << r.describe();
    EXPECT_NE(r.json()["customer"]["id"], a["id"]);
    EXPECT_EQ(r.json()["customer"]["shopDomain"], Json::Value(two.domain));

    const HttpResponse q = it::post_json(kPath, two, object({{"phone_number", phone}}));
    ASSERT_TRUE(it::is_success(q, 201));
    EXPECT_NE(q.json()["customer"]["id"], p["id"]);
    EXPECT_EQ(count_customers(one), 2);
    EXPECT_EQ(count_customers(two), 2);
}

TEST(CustomersCreate, EmailComparisonIsNotAPatternMatch) {
    const Shop shop = it::make_shop();
    const std::string tag = it::unique_suffix();
    const Json::Value a =
        it::create_customer(shop, object({{"email", "a_b" + tag + "@example.test"}}));
    for (const std::string& e :
         std::vector<std::string>{"axb" + tag + "@example.test", "a%" + tag + "@example.test",
                                  "%" + tag + "@example.test", "a_b" + tag + "@example.tes",
                                  "a_b" + tag + "@example.test.x"}) {
        const HttpResponse r = it::post_json(kPath, shop, object({{"email", e}}));
        EXPECT_TRUE(it::is_success(r, 201)) << e;
        EXPECT_NE(r.json()["customer"]["id"], a["id"]) << e;
    }
    EXPECT_EQ(count_customers(shop), 6);
}

TEST(CustomersCreate, PhoneComparisonIsExactAfterTrimming) {
    const Shop shop = it::make_shop();
    const std::string tag = it::unique_suffix();
    const Json::Value a = it::create_customer(shop, object({{"phone_number", "555" + tag}}));
    const HttpResponse r = it::post_json(kPath, shop, object({{"phone_number", "555 " + tag}}));
    ASSERT_TRUE(it::is_success(r, 201));
    EXPECT_NE(r.json()["customer"]["id"], a["id"]);
}

TEST(CustomersCreate, CustomersWithoutEmailDoNotCollide) {
    const Shop shop = it::make_shop();
    std::set<std::string> ids;
    for (int i = 0; i < 3; ++i) {
        const HttpResponse r =
            it::post_json(kPath, shop, object({{"phone_number", unique_phone()}}));
        ASSERT_TRUE(it::is_success(r, 201));
        ids.insert(r.json()["customer"]["id"].asString());
    }
    for (int i = 0; i < 2; ++i) {
        const HttpResponse r =
            it::post_json(kPath, shop, object({{"email", ""}, {"phone_number", unique_phone()}}));
        ASSERT_TRUE(it::is_success(r, 201));
        ids.insert(r.json()["customer"]["id"].asString());
    }
    EXPECT_EQ(ids.size(), 5u);
    EXPECT_EQ(count_customers(shop), 5);
}

TEST(CustomersCreate, CustomersWithoutPhoneDoNotCollide) {
    const Shop shop = it::make_shop();
    std::set<std::string> ids;
    for (int i = 0; i < 3; ++i) {
        const HttpResponse r = it::post_json(
            kPath, shop, object({{"email", it::unique_email()}, {"phone_number", ""}}));
        ASSERT_TRUE(it::is_success(r, 201));
        ids.insert(r.json()["customer"]["id"].asString());
    }
    EXPECT_EQ(ids.size(), 3u);
}

// ---------------------------------------------------------------------------------------------
// Concurrency: unique keys in the database, not a read-then-write race.

struct RaceResult {
    std::vector<long> statuses;
    std::vector<std::string> ids;
    std::vector<std::string> problems;
};

RaceResult race(const Shop& shop, const std::vector<Json::Value>& bodies) {
    const size_t n = bodies.size();
    RaceResult out;
    out.statuses.resize(n);
    out.ids.resize(n);
    std::vector<std::string> problems(n);
    std::latch start(static_cast<std::ptrdiff_t>(n));
    std::vector<std::thread> threads;
    for (size_t i = 0; i < n; ++i) {
        threads.emplace_back([&, i] {
            const std::string body = it::to_json(bodies[i]);
            start.arrive_and_wait();
            try {
                const HttpResponse r = it::http("POST", kPath, it::json_headers(shop), body);
                out.statuses[i] = r.status;
                out.ids[i] = r.json()["customer"]["id"].asString();
                if (r.status == 201 || r.status == 200) {
                    if (r.json()["existing"] != Json::Value(r.status == 200)) {
                        problems[i] = "existing does not match the status: " + r.describe();
                    }
                }
            } catch (const std::exception& e) {
                problems[i] = e.what();
            }
        });
    }
    for (auto& t : threads) {
        t.join();
    }
    for (auto& p : problems) {
        if (!p.empty()) {
            out.problems.push_back(p);
        }
    }
    return out;
}

void expect_exactly_one_created(const RaceResult& r) {
    for (const std::string& p : r.problems) {
        ADD_FAILURE() << p;
    }
    int created = 0;
    for (size_t i = 0; i < r.statuses.size(); ++i) {
        EXPECT_TRUE(r.statuses[i] == 200 || r.statuses[i] == 201)
            << "request " << i << " answered " << r.statuses[i];
        created += r.statuses[i] == 201;
    }
    EXPECT_EQ(created, 1) << "exactly one request must create the customer";
    const std::set<std::string> ids(r.ids.begin(), r.ids.end());
    EXPECT_EQ(ids.size(), 1u) << "all requests must return the same customer";
}

TEST(CustomersCreate, ConcurrentIdenticalCreatesMakeOneCustomer) {
    const Shop shop = it::make_shop();
    const Json::Value body = object({{"email", it::unique_email()}, {"first_name", "Race"}});
    const RaceResult r = race(shop, std::vector<Json::Value>(20, body));
    expect_exactly_one_created(r);
    it::Db db;
    EXPECT_EQ(db.count("SELECT COUNT(*) FROM customers WHERE shop_id = ? AND LOWER(email) = ?",
                       {std::to_string(shop.id), body["email"].asString()}),
              1);
    EXPECT_EQ(count_customers(shop), 1);
}

TEST(CustomersCreate, ConcurrentCreatesOfOneEmailSpelledDifferentlyMakeOneCustomer) {
    const Shop shop = it::make_shop();
    const std::string email = it::unique_email();
    std::string upper = email;
    for (char& ch : upper) {
        ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    }
    std::vector<Json::Value> bodies;
    for (int i = 0; i < 20; ++i) {
        const std::string spelled = i % 3 == 0 ? email : i % 3 == 1 ? " " + upper : upper + "  ";
        bodies.push_back(object({{"email", spelled}}));
    }
    expect_exactly_one_created(race(shop, bodies));
    EXPECT_EQ(count_customers(shop), 1);
}

TEST(CustomersCreate, ConcurrentCreatesOfOnePhoneMakeOneCustomer) {
    const Shop shop = it::make_shop();
    const std::string phone = unique_phone();
    std::vector<Json::Value> bodies;
    for (int i = 0; i < 20; ++i) {
        bodies.push_back(object({{"phone_number", i % 2 ? phone : " " + phone + " "}}));
    }
    expect_exactly_one_created(race(shop, bodies));
    EXPECT_EQ(count_customers(shop), 1);
}

TEST(CustomersCreate, ConcurrentCreatesInTwoShopsMakeOneCustomerEach) {
    const Shop one = it::make_shop();
    const Shop two = it::make_shop();
    const Json::Value body = object({{"email", it::unique_email()}});
    RaceResult a;
    RaceResult b;
    std::thread ta([&] { a = race(one, std::vector<Json::Value>(10, body)); });
    std::thread tb([&] { b = race(two, std::vector<Json::Value>(10, body)); });
    ta.join();
    tb.join();
    expect_exactly_one_created(a);
    expect_exactly_one_created(b);
    EXPECT_EQ(count_customers(one), 1);
    EXPECT_EQ(count_customers(two), 1);
}

}  // namespace
