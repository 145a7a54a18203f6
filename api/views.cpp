#include "api/views.h"

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
    w.begin_object();
    write_person_fields(w, customer);
    if (with_contact) {
        w.field("phone_number", customer.phone_number)
            .field("storefront_id", customer.storefront_id);
    }
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
    w.key("customer")
        .begin_object()
        .field("id", s.customer.id)
        .field("email", s.customer.email)
        .field("name", s.customer.name)
        .field("phone", s.customer.phone)
        .end_object();
    w.end_object();
}

}  // namespace supportcrm
