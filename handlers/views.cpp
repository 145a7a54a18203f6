#include "handlers/views.h"

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

}  // namespace supportcrm
