// extensions.md §E1 against the running stack: bodies that are not RFC 8259 JSON are refused
// before anything is stored, a byte-order mark never leaks into a value kept "as given", lists
// that hold such values stay JSON, and "blank" means Unicode White_Space. The examples are those
// of issue 10, each of which today's service answered 201 before the strict reader.
#include <string>
#include <vector>

#include "csat_fixtures.h"
#include "harness.h"
#include "tickets_fixtures.h"

namespace {

using it::HttpResponse;
using it::object;
using it::tickets::comments_path;

const std::string kBom = "\xEF\xBB\xBF";

::testing::AssertionResult is_invalid_json(const HttpResponse& r) {
    return it::is_error(r, 400, "invalid_json", "Invalid JSON body");
}

int64_t count_messages(const std::string& conversation_id) {
    it::Db db;
    return db.count("SELECT COUNT(*) FROM messages WHERE conversation_id = CAST(? AS UNSIGNED)",
                    {conversation_id});
}

int64_t count_surveys(int64_t shop_id) {
    it::Db db;
    return db.count("SELECT COUNT(*) FROM surveys WHERE shop_id = ?", {std::to_string(shop_id)});
}

// ---------------------------------------------------------------------------------------------
// Not JSON: refused, nothing stored, later reads still JSON.

TEST(StrictInput, CommentWithNonJsonAttachmentsIsRefusedAndTheListStaysJson) {
    const it::tickets::World w = it::tickets::make_world();
    const std::string ticket = it::tickets::create_ticket_id(w);
    for (const std::string attachments : {"[01,-,1.]", "[1.]", "[-]", "[.5]", "[+1]", "[0x1F]",
                                          "[NaN]", "[Infinity]", "[1e400]", "['a']", "[1,]"}) {
        EXPECT_TRUE(is_invalid_json(it::post_raw(
            comments_path(ticket), w.shop, R"({"text":"x","attachments":)" + attachments + "}")))
            << attachments;
    }
    EXPECT_EQ(count_messages(ticket), 0);
    const HttpResponse list = it::get(comments_path(ticket), w.shop);
    EXPECT_TRUE(it::is_success(list, 200));
    EXPECT_EQ(list.json()["comments"].size(), 0u);
}

TEST(StrictInput, SurveyWithNonJsonGraphNodesOrNodeIdsIsRefused) {
    const it::csat::CsatShop s = it::csat::make_csat_shop(it::make_brand());
    const std::string head = R"({"conversationId":")" + s.conversation_id + R"(","mark":4,)";
    for (const std::string tail :
         {R"("graphNodes":{"a":01}})", R"("graphNodes":{"a":-})", R"("nodeIds":[1.,2]})",
          R"("nodeIds":[1,2,]})", R"("graphNodes":{"a":1,"a":2}})"}) {
        EXPECT_TRUE(is_invalid_json(it::post_raw(it::csat::kCsatPath, s.shop, head + tail)))
            << tail;
    }
    EXPECT_EQ(count_surveys(s.shop.id), 0);
    // The brand-wide list every shop of the brand reads is still a JSON answer.
    EXPECT_TRUE(it::csat::is_csat_list(it::csat::get_csat(s.shop, {{"scope", "brand"}})));
}

TEST(StrictInput, RawControlCharactersInsideStringsAreRefused) {
    const it::tickets::World w = it::tickets::make_world();
    const std::string ticket = it::tickets::create_ticket_id(w);
    for (const char c : {'\x00', '\x01', '\t', '\n', '\x1f'}) {
        const std::string body = std::string(R"({"text":"a)") + c + R"(b"})";
        EXPECT_TRUE(is_invalid_json(it::post_raw(comments_path(ticket), w.shop, body)))
            << "control character " << static_cast<int>(c);
    }
    EXPECT_EQ(count_messages(ticket), 0);
}

TEST(StrictInput, CommentsInBodiesAreRefused) {
    const it::tickets::World w = it::tickets::make_world();
    const std::string ticket = it::tickets::create_ticket_id(w);
    for (const std::string body : {"{\"text\":\"x\"} // trailing", "// leading\n{\"text\":\"x\"}",
                                   "{/* inside */\"text\":\"x\"}", "{\"text\":\"x\"/**/}"}) {
        EXPECT_TRUE(is_invalid_json(it::post_raw(comments_path(ticket), w.shop, body))) << body;
    }
    EXPECT_EQ(count_messages(ticket), 0);
}

TEST(StrictInput, LeadingZerosAndBareSignsAreNotNumbers) {
    const it::Shop shop = it::make_shop();
    const std::string email = it::unique_email();
    for (const std::string value : {"007", "-07", "-", "1.", "01.5", "1.e3", "-.5"}) {
        const std::string body = R"({"email":")" + email + R"(","storefront_id":)" + value + "}";
        EXPECT_TRUE(is_invalid_json(it::post_raw("/api/v1/customers", shop, body))) << value;
    }
    // Nothing was created under that email: the same body with a valid number is a 201.
    EXPECT_TRUE(it::is_success(it::post_raw("/api/v1/customers", shop,
                                            R"({"email":")" + email + R"(","storefront_id":7})"),
                               201));
}

TEST(StrictInput, AnythingAfterTheFirstValueIsRefused) {
    const it::Shop shop = it::make_shop();
    for (const std::string& body : std::vector<std::string>{
             "{} {}", "{}x", "{}\n,", "{\"email\":\"a@b.c\"}]", "{}" + kBom, kBom + kBom + "{}"}) {
        EXPECT_TRUE(is_invalid_json(it::post_raw("/api/v1/customers", shop, body))) << body;
    }
}

// ---------------------------------------------------------------------------------------------
// The byte-order mark.

TEST(StrictInput, ByteOrderMarkIsSkippedAndNeverSlicesAttachments) {
    const it::tickets::World w = it::tickets::make_world();
    const std::string ticket = it::tickets::create_ticket_id(w);
    const std::string attachments = R"([{"url":"https://x.example/a.png","size":12}])";
    const HttpResponse r = it::post_raw(comments_path(ticket), w.shop,
                                        kBom + R"({"text":"x","attachments":)" + attachments + "}");
    ASSERT_TRUE(it::is_success(r, 201));
    const Json::Value list = it::tickets::list_comments(w.shop, ticket);
    ASSERT_EQ(list["comments"].size(), 1u);
    EXPECT_EQ(list["comments"][0]["attachments"], it::parse_json(attachments))
        << it::to_json(list["comments"][0]);
}

TEST(StrictInput, ByteOrderMarkIsSkippedAndNeverSlicesGraphNodes) {
    const it::csat::CsatShop s = it::csat::make_csat_shop();
    const std::string graph = R"({"node":"ab","next":[1,2]})";
    const std::string ids = R"(["n1","n2"])";
    const HttpResponse r =
        it::post_raw(it::csat::kCsatPath, s.shop,
                     kBom + R"({"conversationId":")" + s.conversation_id +
                         R"(","mark":5,"graphNodes":)" + graph + R"(,"nodeIds":)" + ids + "}");
    ASSERT_TRUE(it::is_success(r, 201));
    const Json::Value list = it::csat::list(s.shop);
    ASSERT_EQ(list["surveys"].size(), 1u);
    EXPECT_EQ(list["surveys"][0]["graphNodes"], it::parse_json(graph));
    EXPECT_EQ(list["surveys"][0]["nodeIds"], it::parse_json(ids));
}

// ---------------------------------------------------------------------------------------------
// Blank is empty or Unicode White_Space only.

const std::vector<std::string> kBlanks{
    "",
    " \t\r\n",
    "\xC2\x85",                  // U+0085 NEXT LINE
    "\xC2\xA0",                  // U+00A0 NO-BREAK SPACE
    "\xE1\x9A\x80",              // U+1680 OGHAM SPACE MARK
    "\xE2\x80\x83\xE2\x80\x8A",  // U+2003 EM SPACE, U+200A HAIR SPACE
    "\xE2\x80\xA8\xE2\x80\xA9",  // U+2028, U+2029
    "\xE2\x80\xAF\xE2\x81\x9F",  // U+202F, U+205F
    "\xE3\x80\x80",              // U+3000 IDEOGRAPHIC SPACE
};

TEST(StrictInput, CommentTextOfOnlyUnicodeWhiteSpaceIsBlank) {
    const it::tickets::World w = it::tickets::make_world();
    const std::string ticket = it::tickets::create_ticket_id(w);
    for (const std::string& blank : kBlanks) {
        EXPECT_TRUE(
            it::is_error(it::post_json(comments_path(ticket), w.shop, object({{"text", blank}})),
                         400, "validation_failed", "text is required"))
            << it::to_json(Json::Value(blank), false);
    }
    EXPECT_EQ(count_messages(ticket), 0);
    // Not White_Space: U+200B ZERO WIDTH SPACE and U+FEFF are text.
    for (const std::string text : {"\xE2\x80\x8B", "\xEF\xBB\xBF"}) {
        EXPECT_TRUE(it::is_success(
            it::post_json(comments_path(ticket), w.shop, object({{"text", text}})), 201));
    }
}

TEST(StrictInput, CommentChannelGivenButBlankIsRefusedLikeTheTickets) {
    const it::tickets::World w = it::tickets::make_world();
    const std::string ticket = it::tickets::create_ticket_id(w);
    for (const std::string& blank : kBlanks) {
        const Json::Value body = object({{"text", "x"}, {"Channel", blank}});
        EXPECT_TRUE(it::is_error(it::post_json(comments_path(ticket), w.shop, body), 400,
                                 "validation_failed", "Channel is required"))
            << it::to_json(Json::Value(blank), false);
        EXPECT_TRUE(
            it::is_error(it::post_json(it::tickets::kTicketsPath, w.shop,
                                       object({{"customerId", w.customer_id}, {"Channel", blank}})),
                         400, "validation_failed", "Channel is required"))
            << it::to_json(Json::Value(blank), false);
    }
    EXPECT_EQ(count_messages(ticket), 0);
}

// Issue 25: a customer's email or phone_number of only Unicode White_Space is absent, like "".
TEST(StrictInput, CustomerEmailOrPhoneOfOnlyUnicodeWhiteSpaceIsAbsent) {
    const it::Shop shop = it::make_shop();
    for (const std::string& blank : kBlanks) {
        const std::string shown = it::to_json(Json::Value(blank), false);
        EXPECT_TRUE(it::is_error(it::post_json("/api/v1/customers", shop,
                                               object({{"email", blank}, {"phone_number", blank}})),
                                 400, "validation_failed", "email or phone_number is required"))
            << shown;
        const HttpResponse by_phone = it::post_json(
            "/api/v1/customers", shop,
            object({{"email", blank}, {"phone_number", "+1555" + it::unique_suffix()}}));
        ASSERT_TRUE(it::is_success(by_phone, 201)) << shown;
        EXPECT_TRUE(by_phone.json()["customer"]["email"].isNull()) << shown;
        const HttpResponse by_email =
            it::post_json("/api/v1/customers", shop,
                          object({{"email", it::unique_email("blank")}, {"phone_number", blank}}));
        ASSERT_TRUE(it::is_success(by_email, 201)) << shown;
        EXPECT_TRUE(by_email.json()["customer"]["phone_number"].isNull()) << shown;
    }
    it::Db db;
    EXPECT_EQ(db.count("SELECT COUNT(*) FROM customers WHERE shop_id = ? AND (email IS NULL) = "
                       "(phone_number IS NULL)",
                       {std::to_string(shop.id)}),
              0);  // each has exactly one of the two
}

}  // namespace
