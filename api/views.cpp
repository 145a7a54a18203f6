#include "api/views.h"

#include "api/files.h"
#include "common/time_util.h"

namespace supportcrm {
namespace {

void write_person_fields(JsonWriter& w, const PersonRow& p) {
    w.field("id", p.id)
        .field("email", p.email)
        .field("first_name", p.first_name)
        .field("last_name", p.last_name)
        .field("full_name", p.full_name);
}

}  // namespace

void write_customer(JsonWriter& w, const PersonRow& customer, bool with_contact) {
    if (customer.id == 0) {  // erased (SUPPORTCRM_SHOWN_CUSTOMER_COLUMNS)
        w.null();
        return;
    }
    w.begin_object();
    write_person_fields(w, customer);
    if (with_contact) {
        w.field("phone_number", customer.phone_number)
            .field("storefront_id", customer.storefront_id);
    }
    w.end_object();
}

void write_fetched_customer(JsonWriter& w, const CustomerRow& c, std::string_view shop_domain) {
    w.begin_object();
    // The exact field set and order of api-v1.md's fetch operation.
    w.field("id", c.id)
        .field("storefront_id", c.storefront_id)
        .field("site_cms_id", c.site_cms_id)
        .field("storefront_b_id", c.storefront_b_id)
        .field("social_a_user_id", c.social_a_user_id)
        .field("social_b_user_id", c.social_b_user_id)
        .field("messaging_id", c.messaging_id)
        .field("email", c.email)
        .field("phone_number", c.phone_number)
        .field("first_name", c.first_name)
        .field("last_name", c.last_name)
        .field("full_name", c.full_name)
        .field("numberOfOrders", c.number_of_orders)
        .field("shopDomain", shop_domain)
        .field("creationDate", c.created_at)
        .field("cms_creationDate", c.cms_created_at)
        .field("CMS", c.cms)
        .field("helpdesk_a_id", c.helpdesk_a_id)
        .field("helpdesk_b_id", c.helpdesk_b_id)
        .field("social_b_pseudo", c.social_b_pseudo)
        .field("helpdesk_c_id", c.helpdesk_c_id)
        .field("helpdesk_d_id", c.helpdesk_d_id);
    w.end_object();
}

void write_user(JsonWriter& w, const std::optional<PersonRow>& user) {
    if (!user) {
        w.null();
        return;
    }
    w.begin_object();
    write_person_fields(w, *user);
    w.end_object();
}

void write_survey(JsonWriter& w, const SurveyRow& s) {
    w.begin_object()
        .field("id", s.id)
        .field("mark", s.mark)
        .field("comment", s.comment)
        .key("graphNodes")
        .raw(s.graph_nodes_json)
        .key("nodeIds")
        .raw(s.node_ids_json)
        .key("messageId");
    s.message_id ? w.integer(*s.message_id) : w.null();
    w.field("createdAt", s.created_at).field("shopDomain", s.shop_domain);
    w.key("conversationId").id_string(s.conversation_id);
    w.key("customer");
    if (s.customer.id == 0) {  // erased (SUPPORTCRM_SHOWN_SURVEY_CUSTOMER_COLUMNS)
        w.null();
    } else {
        w.begin_object()
            .field("id", s.customer.id)
            .field("email", s.customer.email)
            .field("name", s.customer.name)
            .field("phone", s.customer.phone)
            .end_object();
    }
    w.end_object();
}

namespace {

// The members of the create shape, inside an object the caller opened.
void write_created_ticket_members(JsonWriter& w, std::uint64_t id, const NewTicket& t,
                                  std::string_view shop_domain) {
    w.key("id").id_string(id);
    w.field("customerID", t.customer_id)
        .field("shopDomain", shop_domain)
        .field("Channel", t.channel)
        .field("name", t.name)
        .field("threadId", t.thread_id)
        .field("emailUsed", t.email_used)
        .field("date", timeutil::format_iso(t.date))
        .field("lastMessage", t.last_message)
        .field("lastMessageTime", timeutil::format_iso(t.last_message_time))
        .field("contact_reason", t.contact_reason)
        .key("assigned_to");
    t.assigned_to ? w.uinteger(*t.assigned_to) : w.null();
    w.field("isOpenedTicket", t.is_opened_ticket)
        .field("unReadChatCount", t.unread_chat_count)
        .key("tags")
        .raw(t.tags_json)
        .field("language_code", t.language_code)
        .field("via", t.via);
}

}  // namespace

std::string fetched_customer_json(const CustomerRow& c, std::string_view shop_domain) {
    std::string out;
    JsonWriter w(out);
    write_fetched_customer(w, c, shop_domain);
    return out;
}

void write_created_ticket(JsonWriter& w, std::uint64_t id, const NewTicket& t,
                          std::string_view shop_domain) {
    w.begin_object();
    write_created_ticket_members(w, id, t, shop_domain);
    w.end_object();
}

void write_full_ticket(JsonWriter& w, const FullTicket& t, std::string_view shop_domain) {
    w.begin_object();
    write_created_ticket_members(w, t.id, t.ticket, shop_domain);
    w.key("HumanTicket");
    if (const std::optional<HumanTicketState>& h = t.human_ticket) {
        w.begin_object()
            .field("id", h->id)
            .field("HumanTicketStatus", h->status)
            .field("openedAt", timeutil::format_iso(h->opened_at))
            .key("closedAt");
        h->closed_at ? w.string(timeutil::format_iso(*h->closed_at)) : w.null();
        w.end_object();
    } else {
        w.null();
    }
    w.field("updatedAt", timeutil::format_iso(t.updated_at));
    w.end_object();
}

std::string full_ticket_json(const FullTicket& t, std::string_view shop_domain) {
    std::string out;
    JsonWriter w(out);
    write_full_ticket(w, t, shop_domain);
    return out;
}

void write_comment(JsonWriter& w, const CommentRow& c, const PersonRow& customer) {
    w.begin_object();
    w.key("id").id_string(c.id);
    w.field("text", c.text)
        .field("time", c.time)
        .field("Channel", c.channel)
        .field("isFromShop", c.is_from_shop)
        .field("subject", c.subject)
        .field("fromEmail", c.from_email)
        .key("toEmails")
        .raw(c.to_emails_json)
        .key("attachments");
    c.attachments_json ? w.raw(*c.attachments_json) : w.null();
    w.key("files").begin_array();
    for (const FileRow& f : c.files) {
        files::write_file(w, f);
    }
    w.end_array();
    w.key("tags").raw(c.tags_json).key("Customer");
    write_customer(w, customer, false);
    w.key("User");
    write_user(w, c.user);
    w.end_object();
}

}  // namespace supportcrm
