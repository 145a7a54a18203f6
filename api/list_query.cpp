#include "api/list_query.h"

#include "api/api_error.h"
#include "common/text.h"
#include "common/time_util.h"

namespace supportcrm {
namespace {

// "Invalid limit" for anything but digits that make 1 or more.
bool read_page(const QueryParams& q, std::uint64_t default_limit, std::uint64_t max_limit,
               PageQuery& page) {
    page.limit = default_limit;
    if (auto limit = q.get("limit")) {
        std::uint64_t n =
            text::is_digits(*limit) ? text::parse_u64(*limit).value_or(UINT64_MAX) : 0;
        if (n == 0) {
            return false;
        }
        page.limit = std::min(n, max_limit);
    }
    page.cursor = q.get("cursor");
    return true;
}

}  // namespace

CustomersQuery parse_customers_query(const QueryParams& q) {
    CustomersQuery out;
    if (!read_page(q, kListDefaultLimit, kListMaxLimit, out.page)) {
        out.error = "Invalid limit";
        return out;
    }
    using Kind = CustomerFilter::Kind;
    struct Candidate {
        const char* name;
        Kind kind;
    };
    static const Candidate kFilters[] = {{"email", Kind::email},
                                         {"phone_number", Kind::phone_number},
                                         {"storefront_id", Kind::storefront_id}};
    for (const Candidate& c : kFilters) {
        std::optional<std::string> v = q.get(c.name);
        // As in a customer's body, an empty email or phone_number counts as absent (contract
        // §3); storefront_id is compared exactly, so its empty value is a value.
        if (!v || (c.kind != Kind::storefront_id && text::trim(*v).empty())) {
            continue;
        }
        if (out.filter.kind != Kind::none) {
            out.error = "Use only one of email, phone_number, storefront_id";
            return out;
        }
        out.filter.kind = c.kind;
        out.filter.value = std::move(*v);
    }
    return out;
}

TicketsQuery parse_tickets_query(const QueryParams& q) {
    TicketsQuery out;
    if (!read_page(q, kListDefaultLimit, kListMaxLimit, out.page)) {
        out.error = "Invalid limit";
        return out;
    }
    if (auto customer = q.get("customerId")) {
        if (!text::is_digits(*customer)) {
            out.error = "Invalid customerId";
            return out;
        }
        // Beyond 64 bits no customer has it: an empty list, as for any unknown customer.
        out.filter.customer_id = text::parse_u64(*customer).value_or(UINT64_MAX);
    }
    if (auto since = q.get("updatedSince")) {
        auto parsed = timeutil::parse_iso8601(*since);
        if (!parsed) {
            out.error = "Invalid updatedSince";
            return out;
        }
        out.filter.updated_since = parsed->ms;
    }
    return out;
}

CommentsQuery parse_comments_query(const QueryParams& q) {
    CommentsQuery out;
    if (!q.get("limit") && !q.get("cursor")) {
        return out;
    }
    if (!read_page(q, kCommentsDefaultLimit, kCommentsMaxLimit, out.page.emplace())) {
        out.error = "Invalid limit";
    }
    return out;
}

Checked<std::optional<SortKey>> check_cursor(Db& db, const CursorScope& scope,
                                             const std::optional<std::string>& cursor) {
    Checked<std::optional<SortKey>> out;
    if (cursor) {
        out.value = decode_cursor(db.cursor_secret(), scope, *cursor);
        if (!out.value) {
            out.error = errors::invalid_query("Invalid cursor");
        }
    }
    return out;
}

std::string filter_fingerprint(const CustomerFilter& f) {
    using Kind = CustomerFilter::Kind;
    switch (f.kind) {
        case Kind::none:
            return "";
        case Kind::email:
            return "email=" + text::ascii_lower(text::trim(f.value));
        case Kind::phone_number:
            return "phone_number=" + std::string(text::trim(f.value));
        case Kind::storefront_id:
            return "storefront_id=" + f.value;
    }
    return "";
}

std::string filter_fingerprint(const TicketFilter& f) {
    std::string out = "customerId=";
    if (f.customer_id) {
        out += std::to_string(*f.customer_id);
    }
    out += "&updatedSince=";
    if (f.updated_since) {
        out += std::to_string(*f.updated_since);
    }
    return out;
}

}  // namespace supportcrm
