// The deliverer's pure parts: the Standard Webhooks signature, the SSRF address rule and the
// retry schedule (extensions.md §E5).
#include <arpa/inet.h>
#include <gtest/gtest.h>

#include <variant>

#include "common/address_policy.h"
#include "common/webhook_signature.h"
#include "db/webhook_repo.h"
#include "webhooks/deliverer.h"
#include "webhooks/schedule.h"

namespace supportcrm::webhooks {
namespace {

// The known answer of the reference libraries (standard-webhooks/standard-webhooks,
// libraries/go/webhook_test.go TestWebhookSign; the same vector in the C# tests).
TEST(WebhookSignature, MatchesTheStandardWebhooksReferenceVector) {
    const std::string secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    std::optional<std::string> key = base64_decode(secret.substr(kSecretPrefix.size()));
    ASSERT_TRUE(key);
    EXPECT_EQ(sign(*key, "msg_p5jXN8AQM9LWM0D4loKWxJek", "1614265330", R"({"test": 2432232314})"),
              "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
}

TEST(WebhookSignature, Base64RoundTripsEveryLength) {
    std::string bytes;
    for (int n = 0; n < 40; ++n) {
        EXPECT_EQ(base64_decode(base64_encode(bytes)), bytes) << n;
        bytes.push_back(static_cast<char>(n * 37 + 200));
    }
    EXPECT_EQ(base64_encode("foobar"), "Zm9vYmFy");
    EXPECT_EQ(base64_encode("fo"), "Zm8=");
    EXPECT_FALSE(base64_decode("Zm8"));
    EXPECT_FALSE(base64_decode("Zm=8"));
    EXPECT_FALSE(base64_decode("Zm8*"));
}

TEST(WebhookSignature, SecretsAre32RandomBytesAfterThePrefix) {
    const std::string a = generate_secret(), b = generate_secret();
    ASSERT_EQ(a.rfind("whsec_", 0), 0u);
    std::optional<std::string> key = base64_decode(a.substr(6));
    ASSERT_TRUE(key);
    EXPECT_EQ(key->size(), 32u);
    EXPECT_NE(a, b);
}

std::string kind_of(const char* text) {
    sockaddr_storage storage{};
    if (inet_pton(AF_INET, text, &reinterpret_cast<sockaddr_in*>(&storage)->sin_addr) == 1) {
        storage.ss_family = AF_INET;
    } else if (inet_pton(AF_INET6, text, &reinterpret_cast<sockaddr_in6*>(&storage)->sin6_addr) ==
               1) {
        storage.ss_family = AF_INET6;
    } else {
        ADD_FAILURE() << text;
    }
    return refused_kind(reinterpret_cast<const sockaddr*>(&storage));
}

TEST(WebhookAddressPolicy, RefusesLoopbackPrivateAndLinkLocal) {
    for (const char* refused :
         {"127.0.0.1", "127.9.9.9", "10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.1.1",
          "169.254.169.254", "100.64.0.1", "0.0.0.0", "224.0.0.1", "::1", "::", "fe80::1",
          "fc00::1", "fd12:3456::1", "::ffff:127.0.0.1", "::ffff:10.0.0.1", "ff02::1"}) {
        EXPECT_NE(kind_of(refused), "") << refused;
    }
    for (const char* allowed : {"8.8.8.8", "172.32.0.1", "172.15.255.255", "192.169.0.1", "1.1.1.1",
                                "2001:4860::8888", "::ffff:8.8.8.8"}) {
        EXPECT_EQ(kind_of(allowed), "") << allowed;
    }
}

// Issue 25: ranges that translate to, tunnel to or stand for other addresses, and reserved
// IPv4 blocks, are refused whatever they embed; the message names the IPv4 address reached.
TEST(WebhookAddressPolicy, RefusesTranslatedTunnelledAndReservedRanges) {
    const std::pair<const char*, const char*> cases[] = {
        {"64:ff9b::7f00:1", "NAT64 (reaches 127.0.0.1, loopback)"},
        {"64:ff9b::808:808", "NAT64 (reaches 8.8.8.8)"},
        {"64:ff9b:1::a00:1", "NAT64 (local use)"},
        {"64:ff9b:1:ffff::1", "NAT64 (local use)"},
        {"::ffff:0:a00:1", "IPv4-translated (reaches 10.0.0.1, private)"},
        {"::ffff:0:808:808", "IPv4-translated (reaches 8.8.8.8)"},
        {"2002:a9fe:a9fe::1", "6to4 (reaches 169.254.169.254, link-local)"},
        {"2002:808:808::1", "6to4 (reaches 8.8.8.8)"},
        {"2001:0:4136:e378:8000:63bf:3fff:fdd2", "Teredo"},
        {"198.18.0.1", "reserved (benchmarking)"},
        {"198.19.255.255", "reserved (benchmarking)"},
        {"192.0.0.8", "reserved (IETF protocol assignments)"},
        {"192.0.2.1", "reserved (documentation)"},
        {"198.51.100.7", "reserved (documentation)"},
        {"203.0.113.9", "reserved (documentation)"},
        {"2001:db8::1", "reserved (documentation)"},
        {"2001:db8:ffff::1", "reserved (documentation)"},
        {"100::1", "reserved (discard-only)"},
        {"100::ffff:ffff:ffff:ffff", "reserved (discard-only)"},
    };
    for (const auto& [address, kind] : cases) {
        EXPECT_EQ(kind_of(address), kind) << address;
    }
    // Their neighbours are public.
    for (const char* allowed :
         {"198.17.255.255", "198.20.0.1", "192.0.1.1", "192.0.3.1", "64:ff9c::1", "64:ff9b:2::1",
          "2003::1", "2001:db9::1", "2001:1::1", "100:0:0:1::1", "::fffe:0:808:808"}) {
        EXPECT_EQ(kind_of(allowed), "") << allowed;
    }
    // Each resolved address is checked (a literal resolves to itself).
    for (const char* host : {"[64:ff9b::a9fe:a9fe]", "[2002:7f00:1::1]", "198.18.0.1"}) {
        auto refused = resolve_and_check(host, 80, false);
        ASSERT_TRUE(std::holds_alternative<Refusal>(refused)) << host;
        EXPECT_NE(std::get<Refusal>(refused).reason.find("refused: "), std::string::npos);
    }
}

TEST(WebhookAddressPolicy, ResolvedLoopbackIsRefusedUnlessAllowed) {
    auto refused = resolve_and_check("localhost", 80, false);
    ASSERT_TRUE(std::holds_alternative<Refusal>(refused));
    EXPECT_NE(std::get<Refusal>(refused).reason.find("loopback"), std::string::npos);
    auto literal = resolve_and_check("[::1]", 80, false);
    EXPECT_TRUE(std::holds_alternative<Refusal>(literal));
    auto allowed = resolve_and_check("localhost", 8080, true);
    ASSERT_TRUE(std::holds_alternative<PinnedAddress>(allowed));
    // A name is pinned to the address that was checked; a literal needs no pin.
    EXPECT_EQ(std::get<PinnedAddress>(allowed).resolve_entry.rfind("localhost:8080:", 0), 0u);
    auto ip = resolve_and_check("127.0.0.1", 8080, true);
    ASSERT_TRUE(std::holds_alternative<PinnedAddress>(ip));
    EXPECT_EQ(std::get<PinnedAddress>(ip).resolve_entry, "");
}

TEST(WebhookSchedule, DoublesFromTheFirstDelayWithJitterUpToTheCap) {
    WebhookSettings s;  // 10 s first, 1 h cap, 24 h
    const timeutil::Millis t0 = 1'000'000'000'000;
    for (std::uint32_t random : {0u, 0xffffffffu, 0x80000000u}) {
        for (unsigned attempts = 1; attempts < 30; ++attempts) {
            auto next = next_attempt(s, attempts, t0, t0, random);
            ASSERT_TRUE(next);
            double full = std::min(10000.0 * (1u << std::min(attempts - 1, 20u)), 3600000.0);
            EXPECT_GE(*next - t0, static_cast<timeutil::Millis>(full / 2) - 1);
            EXPECT_LE(*next - t0, static_cast<timeutil::Millis>(full));
        }
    }
    // The first retry comes within 30 s (extensions.md §E5).
    EXPECT_LE(*next_attempt(s, 1, t0, t0, 0xffffffffu) - t0, 30000);
}

TEST(WebhookSchedule, RetriesForTheWholeWindowThenFails) {
    WebhookSettings s;
    const timeutil::Millis t0 = 1'000'000'000'000;
    timeutil::Millis now = t0;
    unsigned attempts = 0;
    while (auto next = next_attempt(s, ++attempts, t0, now, 0x12345678u)) {
        now = *next;
        ASSERT_LT(attempts, 200u);
    }
    EXPECT_GE(now - t0, 24 * 3600 * 1000);  // the last attempt came 24 h or more after the event
    EXPECT_FALSE(next_attempt(s, 1, t0, t0 + 86'400'000, 0));
}

TEST(WebhookBody, CarriesTypeTimestampShopAndTheStoredPayload) {
    DueDelivery d;
    d.type = webhook_event::survey_created;
    d.created_at = 1'700'000'000'123;
    d.shop_domain = "a.example";
    d.payload = R"({"id":5,"mark":4})";
    EXPECT_EQ(delivery_body(d),
              R"({"type":"survey.created","timestamp":"2023-11-14T22:13:20.123Z",)"
              R"("shopDomain":"a.example","data":{"id":5,"mark":4}})");
}

TEST(WebhookEvents, NamesAndBits) {
    EXPECT_EQ(event_type_bit("comment.created"), webhook_event::comment_created);
    EXPECT_FALSE(event_type_bit("comment"));
    EXPECT_EQ(event_type_names(webhook_event::all),
              (std::vector<std::string>{"customer.created", "ticket.created", "comment.created",
                                        "survey.created", "customer.updated", "ticket.updated",
                                        "customer.merged", "customer.erased"}));
    EXPECT_EQ(event_type_bit("ticket.updated"), webhook_event::ticket_updated);
}

// shops.webhook_events (sql/022): every type recorded; above, what the webhooks want.
TEST(WebhookEvents, AShopsMasksRecordEveryTypeAndSayWhichAWebhookWants) {
    using namespace shop_events;
    constexpr unsigned none = with_webhooks_wanting(0);
    EXPECT_EQ(none, 65536u | 255u);
    constexpr unsigned some =
        with_webhooks_wanting(webhook_event::comment_created | webhook_event::customer_erased);
    EXPECT_EQ(some, 65536u | (4u | 128u) << 8 | 255u);
    for (unsigned type = 1; type <= webhook_event::all; type <<= 1) {
        EXPECT_FALSE(some_webhook_wants(none, type)) << type;
        EXPECT_TRUE((none & type) != 0 && (some & type) != 0) << type;  // recorded either way
        EXPECT_EQ(some_webhook_wants(some, type),
                  type == webhook_event::comment_created || type == webhook_event::customer_erased)
            << type;
        EXPECT_TRUE(some_webhook_wants(255, type)) << "before sql/022: the deliverer decides";
        EXPECT_TRUE(some_webhook_wants(Shop{}.webhook_events, type))
            << "unread: the deliverer decides";
    }
    EXPECT_EQ(with_webhooks_wanting(webhook_event::all), 0x1FFFFu);
}

TEST(WebhookBody, AnUpdateCarriesItsChangesBesideTheData) {
    DueDelivery d;
    d.type = webhook_event::ticket_updated;
    d.created_at = 1700000000123;
    d.shop_domain = "a.example";
    d.payload = R"({"id":"5"})";
    d.changes = R"({"name":{"from":null,"to":"X"}})";
    EXPECT_EQ(
        delivery_body(d),
        R"({"type":"ticket.updated","timestamp":"2023-11-14T22:13:20.123Z",)"
        R"("shopDomain":"a.example","data":{"id":"5"},"changes":{"name":{"from":null,"to":"X"}}})");
}

TEST(WebhookBody, AMergeCarriesTheMergedIdBesideTheData) {
    DueDelivery d;
    d.type = webhook_event::customer_merged;
    d.created_at = 1700000000123;
    d.shop_domain = "a.example";
    d.payload = R"({"id":7})";
    d.changes = "9";
    EXPECT_EQ(delivery_body(d),
              R"({"type":"customer.merged","timestamp":"2023-11-14T22:13:20.123Z",)"
              R"("shopDomain":"a.example","data":{"id":7},"mergedId":9})");
}

}  // namespace
}  // namespace supportcrm::webhooks
