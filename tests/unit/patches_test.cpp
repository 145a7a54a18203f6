#include "api/patches.h"

#include <gtest/gtest.h>

#include "common/strict_json.h"

using namespace supportcrm;

namespace {

Json::Value parse(const std::string& text) {
    Json::Value v;
    EXPECT_TRUE(strict_json::parse(text, v)) << text;
    return v;
}

std::string ticket_error(const std::string& body) {
    return read_ticket_patch(parse(body)).error;
}

std::string customer_error(const std::string& body) {
    return read_customer_patch(parse(body)).error;
}

FullTicket ticket_with(std::optional<std::string> status,
                       std::optional<timeutil::Millis> closed_at = std::nullopt) {
    FullTicket t;
    t.id = 5;
    t.ticket.channel = "Mail";
    t.ticket.tags_json = R"(["a","b"])";
    t.updated_at = 1000;
    t.version = 3;
    if (status) {
        t.human_ticket = HumanTicketState{9, *status, 500, closed_at};
    }
    return t;
}

TicketPatch ticket_patch(const std::string& body) {
    ReadPatch<TicketPatch> read = read_ticket_patch(parse(body));
    EXPECT_EQ(read.error, "") << body;
    return read.patch;
}

constexpr timeutil::Millis kNow = 2000;

}  // namespace

TEST(TicketPatchBody, EmptyIsValidAndChangesNothing) {
    TicketChange change = apply_ticket_patch(ticket_with("OPEN"), ticket_patch("{}"), kNow);
    EXPECT_FALSE(change.changed);
    EXPECT_EQ(change.changes_json, "{}");
    EXPECT_EQ(change.after.updated_at, 1000);
}

TEST(TicketPatchBody, UnknownAndReadOnlyMembersAre400) {
    EXPECT_EQ(ticket_error(R"({"Channel":"Mail"})"), "Unknown or read-only field: Channel");
    EXPECT_EQ(ticket_error(R"({"id":"1"})"), "Unknown or read-only field: id");
    EXPECT_EQ(ticket_error(R"({"updatedAt":null})"), "Unknown or read-only field: updatedAt");
    // before any type error
    EXPECT_EQ(ticket_error(R"({"name":5,"zzz":1})"), "Unknown or read-only field: zzz");
}

TEST(TicketPatchBody, TypeErrorsUseTheContractsMessages) {
    EXPECT_EQ(ticket_error(R"({"name":5})"), "name must be a string");
    EXPECT_EQ(ticket_error(R"({"name":")" + std::string(256, 'x') + "\"}"), "name is too long");
    EXPECT_EQ(ticket_error(R"({"contact_reason":[]})"), "contact_reason must be a string");
    EXPECT_EQ(ticket_error(R"({"assigned_to":"7a"})"), "assigned_to must be an integer");
    EXPECT_EQ(ticket_error(R"({"assigned_to":1.5})"), "assigned_to must be an integer");
    EXPECT_EQ(ticket_error(R"({"tags":"a"})"), "tags must be an array of strings");
    EXPECT_EQ(ticket_error(R"({"tags":["a",1]})"), "tags must be an array of strings");
    EXPECT_EQ(ticket_error(R"({"tags":null})"), "tags must be an array of strings");
    EXPECT_EQ(ticket_error(R"({"addTags":{}})"), "addTags must be an array of strings");
    EXPECT_EQ(ticket_error(R"({"removeTags":null})"), "removeTags must be an array of strings");
    EXPECT_EQ(ticket_error(R"({"unReadChatCount":-1})"),
              "unReadChatCount must be a non-negative integer");
    EXPECT_EQ(ticket_error(R"({"unReadChatCount":null})"),
              "unReadChatCount must be a non-negative integer");
    EXPECT_EQ(ticket_error(R"({"unReadChatCount":"1"})"),
              "unReadChatCount must be a non-negative integer");
    for (const char* status : {R"("open")", "null", "1", R"("none")", R"(["OPEN"])"}) {
        EXPECT_EQ(ticket_error(std::string(R"({"HumanTicketStatus":)") + status + "}"),
                  "Invalid HumanTicketStatus")
            << status;
    }
    EXPECT_EQ(ticket_error(R"({"tags":[],"addTags":["x"]})"),
              "Use either tags or addTags/removeTags");
    EXPECT_EQ(ticket_error(R"({"tags":[],"removeTags":[]})"),
              "Use either tags or addTags/removeTags");
}

TEST(TicketPatchBody, NullClearsWhereTheTableSaysOrNull) {
    FullTicket before = ticket_with(std::nullopt);
    before.ticket.name = "n";
    before.ticket.assigned_to = 4;
    TicketChange change =
        apply_ticket_patch(before, ticket_patch(R"({"name":null,"assigned_to":null})"), kNow);
    EXPECT_TRUE(change.changed);
    EXPECT_FALSE(change.after.ticket.name);
    EXPECT_FALSE(change.after.ticket.assigned_to);
    EXPECT_EQ(change.after.updated_at, kNow);
    EXPECT_EQ(change.changes_json,
              R"({"name":{"from":"n","to":null},"assigned_to":{"from":4,"to":null}})");
}

TEST(TicketPatchBody, AssignedToTakesDigitsToo) {
    TicketChange change = apply_ticket_patch(ticket_with(std::nullopt),
                                             ticket_patch(R"({"assigned_to":"12"})"), kNow);
    EXPECT_EQ(change.after.ticket.assigned_to, std::optional<std::uint64_t>(12));
}

TEST(TicketPatchTags, AddAndRemoveKeepTheOrderOfFirstAppearance) {
    TicketChange change = apply_ticket_patch(
        ticket_with("OPEN"), ticket_patch(R"({"addTags":["c","a","c"],"removeTags":["b","z"]})"),
        kNow);
    EXPECT_EQ(change.after.ticket.tags_json, R"(["a","c"])");
    EXPECT_EQ(change.changes_json, R"({"tags":{"from":["a","b"],"to":["a","c"]}})");
}

TEST(TicketPatchTags, AddingWhatIsThereOrRemovingWhatIsNotChangesNothing) {
    TicketChange change = apply_ticket_patch(
        ticket_with("OPEN"), ticket_patch(R"({"addTags":["a"],"removeTags":["A"]})"), kNow);
    EXPECT_FALSE(change.changed);
    EXPECT_EQ(change.after.ticket.tags_json, R"(["a","b"])");
}

TEST(TicketPatchTags, TagsReplaceTheList) {
    TicketChange change =
        apply_ticket_patch(ticket_with("OPEN"), ticket_patch(R"({"tags":["x"]})"), kNow);
    EXPECT_EQ(change.after.ticket.tags_json, R"(["x"])");
    EXPECT_FALSE(
        apply_ticket_patch(ticket_with("OPEN"), ticket_patch(R"({"tags":["a","b"]})"), kNow)
            .changed);
}

TEST(TicketStatusMachine, AllowedInTheSpecsOrder) {
    using V = std::vector<std::string_view>;
    EXPECT_EQ(allowed_statuses(std::nullopt), (V{"OPEN"}));
    EXPECT_EQ(allowed_statuses("OPEN"), (V{"PENDING", "SOLVED", "CLOSED"}));
    EXPECT_EQ(allowed_statuses("PENDING"), (V{"OPEN", "SOLVED", "CLOSED"}));
    EXPECT_EQ(allowed_statuses("SOLVED"), (V{"OPEN", "CLOSED"}));
    EXPECT_EQ(allowed_statuses("CLOSED"), V{});
}

TEST(TicketStatusMachine, EveryPairIsAllowedOrRefusedAsTheSpecSays) {
    struct Case {
        std::optional<std::string> from;
        std::string to;
        bool allowed;
    };
    const std::vector<Case> cases = {
        {std::nullopt, "OPEN", true},    {std::nullopt, "PENDING", false},
        {std::nullopt, "SOLVED", false}, {std::nullopt, "CLOSED", false},
        {"OPEN", "OPEN", true},          {"OPEN", "PENDING", true},
        {"OPEN", "SOLVED", true},        {"OPEN", "CLOSED", true},
        {"PENDING", "OPEN", true},       {"PENDING", "PENDING", true},
        {"PENDING", "SOLVED", true},     {"PENDING", "CLOSED", true},
        {"SOLVED", "OPEN", true},        {"SOLVED", "PENDING", false},
        {"SOLVED", "SOLVED", true},      {"SOLVED", "CLOSED", true},
        {"CLOSED", "OPEN", false},       {"CLOSED", "PENDING", false},
        {"CLOSED", "SOLVED", false},     {"CLOSED", "CLOSED", true},
    };
    for (const Case& c : cases) {
        TicketChange change = apply_ticket_patch(
            ticket_with(c.from), ticket_patch(R"({"HumanTicketStatus":")" + c.to + "\"}"), kNow);
        EXPECT_EQ(!change.refused, c.allowed) << c.from.value_or("none") << " -> " << c.to;
        if (change.refused) {
            EXPECT_EQ(change.refused->from, c.from.value_or("none"));
            EXPECT_EQ(change.refused->to, c.to);
            EXPECT_FALSE(change.changed);
        }
        if (c.from == c.to) {
            EXPECT_FALSE(change.changed) << c.to;
        }
    }
}

TEST(TicketStatusMachine, OpeningAHumanTicket) {
    TicketChange change = apply_ticket_patch(ticket_with(std::nullopt),
                                             ticket_patch(R"({"HumanTicketStatus":"OPEN"})"), kNow);
    ASSERT_TRUE(change.after.human_ticket);
    EXPECT_TRUE(change.opens_human_ticket);
    EXPECT_EQ(change.after.human_ticket->status, "OPEN");
    EXPECT_EQ(change.after.human_ticket->opened_at, kNow);
    EXPECT_FALSE(change.after.human_ticket->closed_at);
    EXPECT_TRUE(change.after.ticket.is_opened_ticket);
    EXPECT_EQ(change.changes_json, R"({"HumanTicketStatus":{"from":null,"to":"OPEN"}})");
}

TEST(TicketStatusMachine, ClosedAtRules) {
    auto after = [](std::optional<std::string> from, std::optional<timeutil::Millis> closed,
                    const std::string& to) {
        return apply_ticket_patch(ticket_with(std::move(from), closed),
                                  ticket_patch(R"({"HumanTicketStatus":")" + to + "\"}"), kNow)
            .after.human_ticket->closed_at;
    };
    using T = std::optional<timeutil::Millis>;
    EXPECT_EQ(after("OPEN", std::nullopt, "SOLVED"), T(kNow));
    EXPECT_EQ(after("OPEN", std::nullopt, "CLOSED"), T(kNow));
    EXPECT_EQ(after("PENDING", std::nullopt, "SOLVED"), T(kNow));
    EXPECT_EQ(after("PENDING", std::nullopt, "CLOSED"), T(kNow));
    EXPECT_EQ(after("OPEN", std::nullopt, "PENDING"), T());
    EXPECT_EQ(after("SOLVED", T(700), "CLOSED"), T(700));  // kept
    EXPECT_EQ(after("SOLVED", T(700), "OPEN"), T());
    EXPECT_EQ(after("PENDING", std::nullopt, "OPEN"), T());
}

TEST(CustomerPatchBody, UnknownReadOnlyAndTypes) {
    EXPECT_EQ(customer_error(R"({"numberOfOrders":1})"),
              "Unknown or read-only field: numberOfOrders");
    EXPECT_EQ(customer_error(R"({"id":1})"), "Unknown or read-only field: id");
    EXPECT_EQ(customer_error(R"({"email":5})"), "email must be a string");
    EXPECT_EQ(customer_error(R"({"full_name":")" + std::string(512, 'x') + "\"}"),
              "full_name is too long");
    EXPECT_EQ(customer_error(R"({"storefront_id":true})"),
              "storefront_id must be a string or number");
    EXPECT_EQ(customer_error(R"({"email":null,"phone_number":" "})"),
              "email or phone_number is required");
    EXPECT_EQ(customer_error(R"({"storefront_id":12345678901234567890})"), "");
}

TEST(CustomerPatchChange, KeepsAnEmailOrAPhoneNumber) {
    CustomerRow before;
    before.email = "a@example.test";
    ReadPatch<CustomerPatch> read = read_customer_patch(parse(R"({"email":""})"));
    ASSERT_EQ(read.error, "");
    EXPECT_EQ(apply_customer_patch(before, read.patch).error, "email or phone_number is required");
    before.phone_number = "+1";
    CustomerChange ok = apply_customer_patch(before, read.patch);
    EXPECT_EQ(ok.error, "");
    EXPECT_FALSE(ok.after.email);
    EXPECT_EQ(ok.changes_json, R"({"email":{"from":"a@example.test","to":null}})");
}

TEST(CustomerPatchChange, FullNameIsDerivedAgainUnlessGiven) {
    CustomerRow before;
    before.email = "a@example.test";
    before.first_name = "Ann";
    before.last_name = "Lee";
    before.full_name = "Ann Lee";
    CustomerChange derived =
        apply_customer_patch(before, read_customer_patch(parse(R"({"last_name":"Ray"})")).patch);
    EXPECT_EQ(derived.after.full_name, std::optional<std::string>("Ann Ray"));
    EXPECT_EQ(
        derived.changes_json,
        R"({"last_name":{"from":"Lee","to":"Ray"},"full_name":{"from":"Ann Lee","to":"Ann Ray"}})");
    CustomerChange given = apply_customer_patch(
        before, read_customer_patch(parse(R"({"last_name":"Ray","full_name":"X"})")).patch);
    EXPECT_EQ(given.after.full_name, std::optional<std::string>("X"));
    CustomerChange same = apply_customer_patch(
        before, read_customer_patch(parse(R"({"first_name":"Ann","storefront_id":null})")).patch);
    EXPECT_FALSE(same.changed);
}

TEST(CustomerPatchChange, NumbersBecomeText) {
    CustomerRow before;
    before.email = "a@example.test";
    CustomerChange change = apply_customer_patch(
        before, read_customer_patch(parse(R"({"storefront_id":12.5,"messaging_id":7})")).patch);
    EXPECT_EQ(change.after.storefront_id, std::optional<std::string>("12.5"));
    EXPECT_EQ(change.after.messaging_id, std::optional<std::string>("7"));
}
