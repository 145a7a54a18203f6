// POST /api/v1/customers — api-v1.md §1, contract §5 "Customers".
#include <stdexcept>

#include "api/api_error.h"
#include "api/bodies.h"
#include "api/fields.h"
#include "api/handler.h"
#include "common/json_writer.h"
#include "common/text.h"
#include "db/customer_repo.h"

namespace supportcrm {
namespace {

// Blank email / phone_number count as absent (contract §3), blank as extensions.md §E1 says:
// only Unicode White_Space ("\u3000", "\u00a0" too, not only ASCII spaces).
void drop_blank(std::optional<std::string>& v) {
    if (v && text::is_blank(*v)) {
        v.reset();
    }
}

}  // namespace

NewCustomer read_new_customer(FieldReader& f) {
    NewCustomer c;
    c.email = f.string("email", kShortText);
    c.phone_number = f.string("phone_number", kShortText);
    c.first_name = f.string("first_name", kShortText);
    c.last_name = f.string("last_name", kShortText);
    c.full_name = f.string("full_name", kFullName);
    c.storefront_id = f.string_or_number("storefront_id", kShortText);
    c.site_cms_id = f.string_or_number("site_cms_id", kShortText);
    c.social_a_user_id = f.string_or_number("social_a_user_id", kShortText);
    c.social_b_user_id = f.string_or_number("social_b_user_id", kShortText);
    c.messaging_id = f.string_or_number("messaging_id", kShortText);
    drop_blank(c.email);
    drop_blank(c.phone_number);
    if (!c.full_name) {
        c.full_name = text::join_names(c.first_name, c.last_name);
    }
    if (f.ok() && !c.email && !c.phone_number) {
        f.fail("email or phone_number is required");
    }
    return c;
}

namespace {

// The customer and whether it is new, or the response that replaces them.
struct Created {
    CustomerRow customer;
    bool created = false;
    std::optional<Response> error;
};

Created insert_or_find(HandlerContext& ctx, const NewCustomer& customer) {
    Created out;
    InsertedCustomer inserted = insert_customer(ctx.db, ctx.caller.key_digest(), customer);
    switch (inserted.result) {
        case InsertedCustomer::Result::inserted:
            settle_by_write(ctx, inserted.shop);  // a keyed insert succeeds only for a live shop
            out.customer = row_of_new_customer(inserted.id, customer);
            out.created = true;
            return out;
        case InsertedCustomer::Result::no_shop:
            // The key found no live shop; dispatch runs the key's own statement, whose error
            // answers. Should the key resolve now, it was created after the insert looked: this
            // request came first and is answered as such.
            out.error = errors::invalid_api_key();
            return out;
        case InsertedCustomer::Result::duplicate:
            break;
    }
    Checked<const Shop*> shop = keyed(ctx);
    if (shop.error) {
        out.error = std::move(shop.error);
        return out;
    }
    std::optional<CustomerRow> existing = find_existing_customer(ctx.db, shop.value->id, customer);
    if (!existing) {
        throw std::logic_error("duplicate key on customer insert but no matching customer");
    }
    out.customer = std::move(*existing);
    return out;
}

}  // namespace

Response create_customer(HandlerContext& ctx) {
    // The body is checked before the key is looked up, so that a valid request costs a single
    // statement; dispatch puts the key's own checks first.
    auto body = read_json_object(ctx);
    if (body.error) {
        return std::move(*body.error);
    }
    FieldReader fields(body.value);
    NewCustomer customer = read_new_customer(fields);
    if (!fields.ok()) {
        return errors::validation(fields.error());
    }
    customer.created_at = timeutil::now_ms();
    Created outcome = insert_or_find(ctx, customer);
    if (outcome.error) {
        return std::move(*outcome.error);
    }
    const CustomerRow& c = outcome.customer;
    Response r;
    r.status = outcome.created ? 201 : 200;
    r.headers.emplace_back("ETag", etag::of(etag::Kind::customer, c.id, c.version));
    JsonWriter w(r.body);
    w.begin_object().field("success", true).field("existing", !outcome.created);
    w.key("customer").begin_object();
    w.field("id", c.id)
        .field("email", c.email)
        .field("phone_number", c.phone_number)
        .field("first_name", c.first_name)
        .field("last_name", c.last_name)
        .field("storefront_id", c.storefront_id)
        .field("shopDomain", ctx.caller.shop().domain);
    w.end_object().end_object();
    return r;
}

}  // namespace supportcrm
