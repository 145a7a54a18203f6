// Nothing half-written: a failure injected between the two writes of an operation leaves
// neither. The failure is real — a trigger makes the second statement fail inside MariaDB —
// so the production binary is tested as it ships, with no test hook in the server.
#include <string>

#include "harness.h"
#include "tickets_fixtures.h"

namespace it {
namespace {

using tickets::SqlDb;

// A BEFORE trigger that fails the statement for rows matching `condition`; dropped on scope
// exit so other tests never meet it.
class InjectedFailure {
  public:
    InjectedFailure(SqlDb& db, const std::string& table, const std::string& event,
                    const std::string& condition)
        : db_(db), name_("it_fail_" + unique_suffix()) {
        for (char& c : name_) {
            if (!std::isalnum(static_cast<unsigned char>(c))) {
                c = '_';
            }
        }
        db_.execute("CREATE TRIGGER " + name_ + " BEFORE " + event + " ON " + table +
                        " FOR EACH ROW BEGIN IF " + condition +
                        " THEN SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'injected failure'; "
                        "END IF; END",
                    {});
    }
    ~InjectedFailure() { db_.execute("DROP TRIGGER IF EXISTS " + name_, {}); }

  private:
    SqlDb& db_;
    std::string name_;
};

TEST(Atomicity, CommentIsNotKeptWhenTheTicketUpdateFails) {
    tickets::World w = tickets::make_world();
    std::string ticket = tickets::create_ticket_id(w, object({{"lastMessage", "before"}}));
    std::string marker = "fail-" + unique_suffix();
    SqlDb db;
    HttpResponse r;
    {
        InjectedFailure failure(db, "conversations", "UPDATE",
                                "NEW.last_message = '" + marker + "'");
        r = http_unchecked("POST", tickets::comments_path(ticket), json_headers(w.shop),
                           to_json(object({{"text", marker}})));
    }
    EXPECT_TRUE(is_error(r, 500, "internal_error", "Internal server error"));
    EXPECT_EQ(db.scalar("SELECT COUNT(*) FROM messages WHERE conversation_id = ?", {ticket}), "0");
    EXPECT_EQ(db.scalar("SELECT last_message FROM conversations WHERE id = ?", {ticket}), "before");
    // The log says which statement failed and carries the request id; the client got neither.
    ASSERT_TRUE(r.header("x-request-id"));
    EXPECT_TRUE(wait_for_log(*r.header("x-request-id") + " database error in conversation_touch"));
    EXPECT_EQ(r.body.find("conversation_touch"), std::string::npos);

    // The same worker goes on serving: the failed transaction was rolled back, not left open.
    Json::Value ok = tickets::add_comment(w.shop, ticket, object({{"text", "after"}}));
    EXPECT_EQ(ok["text"], "after");
    EXPECT_EQ(db.scalar("SELECT last_message FROM conversations WHERE id = ?", {ticket}), "after");
}

// The ticket is updated first (its row lock orders concurrent comments), the comment inserted
// second: a failing insert must take the ticket's update back with it.
TEST(Atomicity, TicketIsNotTouchedWhenTheCommentInsertFails) {
    tickets::World w = tickets::make_world();
    std::string ticket = tickets::create_ticket_id(w, object({{"lastMessage", "before"}}));
    std::string marker = "fail-" + unique_suffix();
    SqlDb db;
    HttpResponse r;
    {
        InjectedFailure failure(db, "messages", "INSERT", "NEW.text = '" + marker + "'");
        r = http_unchecked("POST", tickets::comments_path(ticket), json_headers(w.shop),
                           to_json(object({{"text", marker}, {"isFromShop", false}})));
    }
    EXPECT_TRUE(is_error(r, 500, "internal_error", "Internal server error"));
    EXPECT_EQ(db.scalar("SELECT COUNT(*) FROM messages WHERE conversation_id = ?", {ticket}), "0");
    EXPECT_EQ(db.scalar("SELECT last_message FROM conversations WHERE id = ?", {ticket}), "before");
    EXPECT_EQ(db.scalar("SELECT unread_chat_count FROM conversations WHERE id = ?", {ticket}), "0");
    ASSERT_TRUE(r.header("x-request-id"));
    EXPECT_TRUE(wait_for_log(*r.header("x-request-id") + " database error in message_insert"));
}

TEST(Atomicity, SurveyIsNotKeptWhenItsDayCountFails) {
    tickets::World w = tickets::make_world();
    std::string ticket = tickets::create_ticket_id(w);
    SqlDb db;
    HttpResponse r;
    {
        InjectedFailure failure(db, "survey_daily_counts", "INSERT",
                                "NEW.shop_id = " + std::to_string(w.shop.id));
        r = http_unchecked("POST", "/api/v1/csat", json_headers(w.shop),
                           to_json(object({{"conversationId", ticket}, {"mark", 5}})));
    }
    EXPECT_TRUE(is_error(r, 500, "internal_error", "Internal server error"));
    EXPECT_EQ(
        db.scalar("SELECT COUNT(*) FROM surveys WHERE shop_id = ?", {std::to_string(w.shop.id)}),
        "0");
    HttpResponse list = get("/api/v1/csat", w.shop);
    ASSERT_TRUE(is_success(list, 200));
    EXPECT_EQ(list.json()["total"], 0);
    EXPECT_EQ(list.json()["stats"]["totalSurveys"], 0);
}

TEST(Atomicity, TicketIsNotKeptWhenItsHumanTicketFails) {
    tickets::World w = tickets::make_world();
    std::string channel = "chan-" + unique_suffix();
    SqlDb db;
    HttpResponse r;
    {
        // The HumanTicket insert is the second write of an opened ticket.
        InjectedFailure failure(db, "human_tickets", "INSERT",
                                "(SELECT channel FROM conversations WHERE id = "
                                "NEW.conversation_id) = '" +
                                    channel + "'");
        r = http_unchecked("POST", tickets::kTicketsPath, json_headers(w.shop),
                           to_json(object({{"customerId", Json::Value::Int64(w.customer_id)},
                                           {"Channel", channel},
                                           {"isOpenedTicket", true}})));
    }
    EXPECT_TRUE(is_error(r, 500, "internal_error", "Internal server error"));
    EXPECT_EQ(db.scalar("SELECT COUNT(*) FROM conversations WHERE channel = ?", {channel}), "0");
}

}  // namespace
}  // namespace it
