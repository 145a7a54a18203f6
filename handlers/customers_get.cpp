// GET /api/v1/customers/{customerId} — api-v1.md §2.
#include "api/api_error.h"
#include "api/handler.h"
#include "common/json_writer.h"
#include "db/customer_repo.h"

namespace supportcrm {

Response get_customer(HandlerContext& ctx) {
    Keyed<CustomerRow> found = find_customer(ctx.db, ctx.caller.key_digest(), ctx.path_id);
    const Shop* shop = ctx.caller.learn(found.key);
    if (!shop) {
        return *ctx.caller.error();
    }
    if (!found.value) {
        return errors::customer_not_found();
    }
    const CustomerRow& c = *found.value;

    Response r;
    JsonWriter w(r.body);
    w.begin_object().field("success", true).key("customer").begin_object();
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
        .field("shopDomain", shop->domain)
        .field("creationDate", c.created_at)
        .field("cms_creationDate", c.cms_created_at)
        .field("CMS", c.cms)
        .field("helpdesk_a_id", c.helpdesk_a_id)
        .field("helpdesk_b_id", c.helpdesk_b_id)
        .field("social_b_pseudo", c.social_b_pseudo)
        .field("helpdesk_c_id", c.helpdesk_c_id)
        .field("helpdesk_d_id", c.helpdesk_d_id);
    w.end_object().end_object();
    return r;
}

}  // namespace supportcrm
