#include "api/list_query.h"

#include <algorithm>

#include "api/api_error.h"
#include "common/json_writer.h"
#include "common/text.h"
#include "common/time_util.h"
#include "common/words.h"

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

constexpr const char* kNoWord = "q needs a word of at least 3 characters";

// E10's status: a comma list of OPEN, PENDING, SOLVED, CLOSED, none (exact); the statuses named,
// in that order, once each; nullopt for anything else (an empty item included).
std::optional<std::string> canonical_statuses(std::string_view list) {
    static constexpr std::string_view kStatuses[] = {"OPEN", "PENDING", "SOLVED", "CLOSED", "none"};
    bool wanted[std::size(kStatuses)] = {};
    for (std::size_t from = 0;;) {
        const std::size_t comma = std::min(list.find(',', from), list.size());
        const std::string_view item = list.substr(from, comma - from);
        const auto* it = std::find(std::begin(kStatuses), std::end(kStatuses), item);
        if (it == std::end(kStatuses)) {
            return std::nullopt;
        }
        wanted[it - std::begin(kStatuses)] = true;
        if (comma == list.size()) {
            break;
        }
        from = comma + 1;
    }
    std::string out;
    for (std::size_t i = 0; i < std::size(kStatuses); ++i) {
        if (wanted[i]) {
            out.append(out.empty() ? "" : ",").append(kStatuses[i]);
        }
    }
    return out;
}

// The filters of E10 after E3's: status, assignedTo, tag, Channel, q; the first invalid one's
// message, or "".
std::string read_search_filters(const QueryParams& q, TicketFilter& f) {
    if (auto status = q.get("status")) {
        f.status = canonical_statuses(*status);
        if (!f.status) {
            return "Invalid status";
        }
    }
    if (auto assigned = q.get("assignedTo")) {
        if (*assigned == "none") {
            f.assigned_to = 0;
        } else if (text::is_digits(*assigned)) {
            // 0 binds `none`: user 0 (like a user beyond 64 bits) is nobody's, an empty list.
            std::uint64_t id = text::parse_u64(*assigned).value_or(UINT64_MAX);
            f.assigned_to = id == 0 ? UINT64_MAX : id;
        } else {
            return "Invalid assignedTo";
        }
    }
    for (std::string& tag : q.get_all("tag")) {
        if (tag.empty()) {
            return "Invalid tag";
        }
        // A stored tag is well-formed UTF-8 of at most 255 characters (contract §7).
        if (!text::is_valid_utf8(tag) || text::utf8_length(tag) > 255) {
            f.matches_nothing = true;
        }
        f.tags.push_back(std::move(tag));
    }
    std::sort(f.tags.begin(), f.tags.end());
    f.tags.erase(std::unique(f.tags.begin(), f.tags.end()), f.tags.end());
    if (auto channel = q.get("Channel")) {
        if (!text::is_valid_utf8(*channel)) {
            f.matches_nothing = true;
        }
        f.channel = std::move(*channel);
    }
    if (auto text = q.get("q")) {
        f.words = words::query(*text);
        if (f.words.empty()) {
            return kNoWord;
        }
    }
    return "";
}

void fingerprint_strings(JsonWriter& w, std::string_view name, const std::vector<std::string>& v) {
    w.key(name).begin_array();
    for (const std::string& s : v) {
        w.string(s);
    }
    w.end_array();
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
                                         {"storefront_id", Kind::storefront_id},
                                         {"q", Kind::q}};
    for (const Candidate& c : kFilters) {
        std::optional<std::string> v = q.get(c.name);
        // As in a customer's body, an empty email or phone_number counts as absent (contract
        // §3); storefront_id is compared exactly, so its empty value is a value.
        // An empty q is a q (400 below: no word).
        if (!v ||
            ((c.kind == Kind::email || c.kind == Kind::phone_number) && text::trim(*v).empty())) {
            continue;
        }
        if (out.filter.kind != Kind::none) {
            out.error = "Use only one of email, phone_number, storefront_id, q";
            return out;
        }
        out.filter.kind = c.kind;
        out.filter.value = std::move(*v);
    }
    if (out.filter.kind == Kind::q) {
        out.filter.words = words::query(out.filter.value);
        if (out.filter.words.empty()) {
            out.error = kNoWord;
        }
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
    out.error = read_search_filters(q, out.filter);
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
        case Kind::q:
            return "q=" + words::json_array(f.words);
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
    if (!f.searching()) {
        return out;  // E3's cursors stay valid across the upgrade that added E10
    }
    // The filters of E10 as JSON: values with any character stay apart.
    JsonWriter w(out);
    w.begin_object().field("status", f.status);
    w.key("assignedTo");
    if (f.assigned_to) {
        w.uinteger(*f.assigned_to);
    } else {
        w.null();
    }
    w.field("Channel", f.channel);
    fingerprint_strings(w, "tag", f.tags);
    fingerprint_strings(w, "q", f.words);
    w.end_object();
    return out;
}

}  // namespace supportcrm
