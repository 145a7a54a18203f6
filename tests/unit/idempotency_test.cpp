// The Idempotency-Key rules that need no database (extensions.md §E2): the header's format,
// what a key is bound to, which answers are stored, and what a request whose claim did not
// succeed is answered.
#include "api/idempotency.h"

#include <gtest/gtest.h>

#include <string>

namespace supportcrm {
namespace {

using idempotency::decide;
using idempotency::request_hash;
using idempotency::valid_key;
using idempotency::Verdict;
using Claim = IdempotencyClaim::Result;

TEST(IdempotencyKeyFormat, OneTo255VisibleAsciiCharacters) {
    EXPECT_TRUE(valid_key("a"));
    EXPECT_TRUE(valid_key(std::string(255, 'k')));
    EXPECT_TRUE(valid_key("!~"));  // 0x21 and 0x7E, the bounds
    EXPECT_TRUE(valid_key("order-4711/create:v2"));
}

TEST(IdempotencyKeyFormat, EmptyOrTooLongIsInvalid) {
    EXPECT_FALSE(valid_key(""));
    EXPECT_FALSE(valid_key(std::string(256, 'k')));
}

TEST(IdempotencyKeyFormat, SpaceControlAndNonAsciiBytesAreInvalid) {
    EXPECT_FALSE(valid_key("a b"));
    EXPECT_FALSE(valid_key("a\tb"));
    EXPECT_FALSE(valid_key(std::string("a\0b", 3)));
    EXPECT_FALSE(valid_key("a\x7f"));
    EXPECT_FALSE(valid_key("caf\xc3\xa9"));
}

TEST(IdempotencyRequestHash, BindsMethodPathAndBodyBytes) {
    const std::string h = request_hash("POST", "/api/v1/customers", R"({"email":"a@b.c"})", false);
    EXPECT_EQ(h.size(), 64u);
    EXPECT_EQ(h, request_hash("POST", "/api/v1/customers", R"({"email":"a@b.c"})", false));
    EXPECT_NE(h, request_hash("PUT", "/api/v1/customers", R"({"email":"a@b.c"})", false));
    EXPECT_NE(h, request_hash("POST", "/api/v1/tickets", R"({"email":"a@b.c"})", false));
    EXPECT_NE(h, request_hash("POST", "/api/v1/customers", R"({"email": "a@b.c"})", false));
}

TEST(IdempotencyRequestHash, PartsCannotSlideIntoEachOther) {
    EXPECT_NE(request_hash("POST", "/a", "b", false), request_hash("POST", "/ab", "", false));
}

TEST(IdempotencyRequestHash, ATooLargeBodyMatchesNoReadBody) {
    EXPECT_NE(request_hash("POST", "/p", "", true), request_hash("POST", "/p", "", false));
    EXPECT_EQ(request_hash("POST", "/p", "", true), request_hash("POST", "/p", "", true));
}

TEST(IdempotencyStored, Only2xxAnswersAreStored) {
    EXPECT_TRUE(idempotency::stored(200));
    EXPECT_TRUE(idempotency::stored(201));
    EXPECT_FALSE(idempotency::stored(400));
    EXPECT_FALSE(idempotency::stored(404));
    EXPECT_FALSE(idempotency::stored(409));
    EXPECT_FALSE(idempotency::stored(503));
}

StoredAnswer answer(const std::string& hash) {
    StoredAnswer a;
    a.request_hash = hash;
    a.status = 201;
    a.body = R"({"success":true})";
    return a;
}

TEST(IdempotencyDecision, AClaimedKeyIsProcessed) {
    EXPECT_EQ(decide(Claim::claimed, std::nullopt, "h"), Verdict::process);
}

TEST(IdempotencyDecision, NoLiveShopAnswersTheKeysOwnError) {
    EXPECT_EQ(decide(Claim::no_shop, std::nullopt, "h"), Verdict::key_error);
}

TEST(IdempotencyDecision, AKeyHeldByAnOpenTransactionIsInProgressWhateverTheBody) {
    EXPECT_EQ(decide(Claim::in_progress, std::nullopt, "h"), Verdict::in_progress);
}

TEST(IdempotencyDecision, TheSameRequestIsReplayed) {
    EXPECT_EQ(decide(Claim::taken, answer("h"), "h"), Verdict::replay);
}

TEST(IdempotencyDecision, AnotherRequestIsAReuse) {
    EXPECT_EQ(decide(Claim::taken, answer("h"), "other"), Verdict::reused);
}

TEST(IdempotencyDecision, ARowPurgedBetweenClaimAndReadIsRetriedByTheClient) {
    EXPECT_EQ(decide(Claim::taken, std::nullopt, "h"), Verdict::in_progress);
}

TEST(IdempotencyReplay, StatusAndBodyByteForByteWithTheReplayedHeader) {
    const Response r = idempotency::replay(answer("h"));
    EXPECT_EQ(r.status, 201);
    EXPECT_EQ(r.body, R"({"success":true})");
    ASSERT_EQ(r.headers.size(), 1u);
    EXPECT_EQ(r.headers[0].first, "Idempotency-Replayed");
    EXPECT_EQ(r.headers[0].second, "true");
}

TEST(IdempotencyApplies, OnlyAPostThatCarriesTheHeader) {
    Request r;
    r.method = "POST";
    EXPECT_FALSE(idempotency::applies(r));
    r.idempotency_key = "";
    EXPECT_TRUE(idempotency::applies(r)) << "an empty header is sent, and invalid";
    r.method = "GET";
    EXPECT_FALSE(idempotency::applies(r));
}

}  // namespace
}  // namespace supportcrm
