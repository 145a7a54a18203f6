#include "api/patches.h"

#include <algorithm>
#include <array>
#include <string_view>
#include <unordered_set>

#include "api/fields.h"
#include "common/json_writer.h"
#include "common/strict_json.h"
#include "common/text.h"

namespace supportcrm {
namespace {

const Json::Value* member(const Json::Value& body, std::string_view name) {
    return body.find(name.data(), name.data() + name.size());
}

bool is_null_member(const Json::Value& body, std::string_view name) {
    const Json::Value* v = member(body, name);
    return v != nullptr && v->isNull();
}

// The first member (in the reader's order) not in `known`, as the error that refuses it.
template <std::size_t N>
std::string unknown_member(const Json::Value& body, const std::array<std::string_view, N>& known) {
    for (const std::string& name : body.getMemberNames()) {
        if (std::find(known.begin(), known.end(), name) == known.end()) {
            return "Unknown or read-only field: " + name;
        }
    }
    return {};
}

// A nullable string member: null clears, a string is kept (at most max_chars).
Settable<std::string> nullable_string(FieldReader& f, const Json::Value& body, const char* name,
                                      std::size_t max_chars) {
    if (is_null_member(body, name)) {
        return std::optional<std::string>();
    }
    if (auto v = f.string(name, max_chars)) {
        return v;
    }
    return std::nullopt;
}

// The same for the members the create converts from numbers (storefront_id & co.).
Settable<std::string> nullable_string_or_number(FieldReader& f, const Json::Value& body,
                                                const char* name, std::size_t max_chars) {
    if (is_null_member(body, name)) {
        return std::optional<std::string>();
    }
    if (auto v = f.string_or_number(name, max_chars)) {
        return v;
    }
    return std::nullopt;
}

// A member whose null is a type error: the reader's own message for it.
void refuse_null(FieldReader& f, const Json::Value& body, const char* name, std::string message) {
    if (is_null_member(body, name)) {
        f.fail(std::move(message));
    }
}

}  // namespace

ReadPatch<TicketPatch> read_ticket_patch(const Json::Value& body) {
    static constexpr std::array<std::string_view, 9> kMembers{
        "name",    "contact_reason", "language_code",   "assigned_to",      "tags",
        "addTags", "removeTags",     "unReadChatCount", "HumanTicketStatus"};
    ReadPatch<TicketPatch> out;
    out.error = unknown_member(body, kMembers);
    if (!out.error.empty()) {
        return out;
    }
    TicketPatch& p = out.patch;
    FieldReader f(body);
    p.name = nullable_string(f, body, "name", kShortText);
    p.contact_reason = nullable_string(f, body, "contact_reason", kShortText);
    p.language_code = nullable_string(f, body, "language_code", kShortText);
    if (is_null_member(body, "assigned_to")) {
        p.assigned_to = std::optional<std::uint64_t>();
    } else if (auto id = f.id("assigned_to")) {
        p.assigned_to = id;
    }
    for (const char* name : {"tags", "addTags", "removeTags"}) {
        refuse_null(f, body, name, std::string(name) + " must be an array of strings");
    }
    // Removing a blank tag is allowed: it cleans a list stored before blank ones were refused.
    p.tags = f.tag_array("tags", /*no_blank=*/true);
    p.add_tags = f.tag_array("addTags", /*no_blank=*/true);
    p.remove_tags = f.tag_array("removeTags", /*no_blank=*/false);
    if (f.ok() && p.tags && (p.add_tags || p.remove_tags)) {
        f.fail("Use either tags or addTags/removeTags");
    }
    refuse_null(f, body, "unReadChatCount", "unReadChatCount must be a non-negative integer");
    p.unread_chat_count = f.count32("unReadChatCount");
    if (f.ok() && member(body, "HumanTicketStatus") != nullptr) {
        const Json::Value& status = body["HumanTicketStatus"];
        if (status.isString() && is_ticket_status(status.asString())) {
            p.status = status.asString();
        } else {
            f.fail("Invalid HumanTicketStatus");
        }
    }
    out.error = f.error();
    return out;
}

ReadPatch<CustomerPatch> read_customer_patch(const Json::Value& body) {
    static constexpr std::array<std::string_view, 10> kMembers{
        "email",         "phone_number", "first_name",       "last_name",        "full_name",
        "storefront_id", "site_cms_id",  "social_a_user_id", "social_b_user_id", "messaging_id"};
    ReadPatch<CustomerPatch> out;
    out.error = unknown_member(body, kMembers);
    if (!out.error.empty()) {
        return out;
    }
    CustomerPatch& p = out.patch;
    FieldReader f(body);
    p.email = nullable_string(f, body, "email", kShortText);
    p.phone_number = nullable_string(f, body, "phone_number", kShortText);
    p.first_name = nullable_string(f, body, "first_name", kShortText);
    p.last_name = nullable_string(f, body, "last_name", kShortText);
    p.full_name = nullable_string(f, body, "full_name", kFullName);
    p.storefront_id = nullable_string_or_number(f, body, "storefront_id", kShortText);
    p.site_cms_id = nullable_string_or_number(f, body, "site_cms_id", kShortText);
    p.social_a_user_id = nullable_string_or_number(f, body, "social_a_user_id", kShortText);
    p.social_b_user_id = nullable_string_or_number(f, body, "social_b_user_id", kShortText);
    p.messaging_id = nullable_string_or_number(f, body, "messaging_id", kShortText);
    // Blank email / phone_number count as absent (contract §3): here that clears them.
    for (Settable<std::string>* v : {&p.email, &p.phone_number}) {
        if (*v && **v && text::trim(***v).empty()) {
            v->emplace();
        }
    }
    // Both cleared: no customer can keep either, whatever it has now.
    if (f.ok() && p.email && !*p.email && p.phone_number && !*p.phone_number) {
        f.fail("email or phone_number is required");
    }
    out.error = f.error();
    return out;
}

// --- The status machine -------------------------------------------------------------------

namespace {

constexpr std::array<std::string_view, 4> kStatuses{"OPEN", "PENDING", "SOLVED", "CLOSED"};

bool transition_allowed(std::string_view from, std::string_view to) {
    if (from == "OPEN") {
        return to == "PENDING" || to == "SOLVED" || to == "CLOSED";
    }
    if (from == "PENDING") {
        return to == "OPEN" || to == "SOLVED" || to == "CLOSED";
    }
    if (from == "SOLVED") {
        return to == "OPEN" || to == "CLOSED";
    }
    return false;  // CLOSED: nothing
}

}  // namespace

bool is_ticket_status(std::string_view status) {
    return std::find(kStatuses.begin(), kStatuses.end(), status) != kStatuses.end();
}

std::vector<std::string_view> allowed_statuses(const std::optional<std::string>& from) {
    if (!from) {
        return {"OPEN"};
    }
    std::vector<std::string_view> out;
    for (std::string_view to : kStatuses) {
        if (transition_allowed(*from, to)) {
            out.push_back(to);
        }
    }
    return out;
}

// --- What a patch changes -------------------------------------------------------------------

std::vector<std::string> parse_tags(const std::string& tags_json) {
    std::vector<std::string> out;
    Json::Value v;
    if (strict_json::parse(tags_json, v) && v.isArray()) {
        for (const Json::Value& item : v) {
            if (item.isString()) {
                out.push_back(item.asString());
            }
        }
    }
    return out;
}

namespace {

// Writes {"from": ..., "to": ...} entries, one per member that changed.
class Changes {
  public:
    Changes() : w_(json_) { w_.begin_object(); }

    template <typename T>
    void note(std::string_view member, const T& from, const T& to) {
        if (from == to) {
            return;
        }
        w_.key(member).begin_object().key("from");
        put(from);
        w_.key("to");
        put(to);
        w_.end_object();
        any_ = true;
    }

    bool any() const { return any_; }
    std::string finish() {
        w_.end_object();
        return std::move(json_);
    }

  private:
    void put(const std::optional<std::string>& v) { w_.string_or_null(v); }
    void put(const std::optional<std::uint64_t>& v) { v ? w_.uinteger(*v) : w_.null(); }
    void put(std::int64_t v) { w_.integer(v); }
    void put(const std::vector<std::string>& v) {
        w_.begin_array();
        for (const std::string& item : v) {
            w_.string(item);
        }
        w_.end_array();
    }

    std::string json_;
    JsonWriter w_;
    bool any_ = false;
};

// The items in order of first appearance, each once.
std::vector<std::string> distinct_in_order(const std::vector<std::string>& items) {
    std::vector<std::string> out;
    out.reserve(items.size());
    std::unordered_set<std::string_view> seen;
    seen.reserve(items.size());
    for (const std::string& item : items) {
        if (seen.insert(item).second) {
            out.push_back(item);
        }
    }
    return out;
}

template <typename T>
void set(T& field, const std::optional<T>& value) {
    if (value) {
        field = *value;
    }
}

// `tags` replaces the list, deduplicated like addTags (order of first appearance); removeTags
// then addTags change it. Linear in the lists' lengths: each membership test is a hash lookup.
std::vector<std::string> patched_tags(std::vector<std::string> tags, const TicketPatch& p) {
    if (p.tags) {
        return distinct_in_order(*p.tags);
    }
    if (p.remove_tags) {
        const std::unordered_set<std::string_view> removed(p.remove_tags->begin(),
                                                           p.remove_tags->end());
        tags.erase(std::remove_if(tags.begin(), tags.end(),
                                  [&](const std::string& tag) { return removed.count(tag) > 0; }),
                   tags.end());
    }
    if (p.add_tags) {
        std::unordered_set<std::string> present(tags.begin(), tags.end());
        for (const std::string& tag : *p.add_tags) {
            if (present.insert(tag).second) {
                tags.push_back(tag);
            }
        }
    }
    return tags;
}

std::optional<std::string> status_of(const std::optional<HumanTicketState>& h) {
    return h ? std::optional<std::string>(h->status) : std::nullopt;
}

// The status machine (E8): out.refused when the move is not allowed.
void apply_status(const std::optional<std::string>& from_status, const std::string& to,
                  timeutil::Millis now, TicketChange& out) {
    if (!from_status ? to != "OPEN" : !transition_allowed(*from_status, to)) {
        out.refused =
            TicketChange::Refused{from_status.value_or("none"), to, allowed_statuses(from_status)};
        return;
    }
    if (!from_status) {
        out.opens_human_ticket = true;
        out.after.human_ticket = HumanTicketState{0, "OPEN", now, std::nullopt};
        out.after.ticket.is_opened_ticket = true;
        return;
    }
    HumanTicketState& h = *out.after.human_ticket;
    const bool was_active = h.status == "OPEN" || h.status == "PENDING";
    if (to == "OPEN") {
        h.closed_at.reset();
    } else if ((to == "SOLVED" || to == "CLOSED") && was_active) {
        h.closed_at = now;
    }
    h.status = to;
}

}  // namespace

TicketChange apply_ticket_patch(const FullTicket& before, const TicketPatch& p,
                                timeutil::Millis now) {
    TicketChange out;
    out.after = before;
    NewTicket& t = out.after.ticket;
    const std::optional<std::string> from_status = status_of(before.human_ticket);
    if (p.status && p.status != from_status) {
        apply_status(from_status, *p.status, now, out);
        if (out.refused) {
            return out;
        }
    }
    set(t.name, p.name);
    set(t.contact_reason, p.contact_reason);
    set(t.language_code, p.language_code);
    set(t.assigned_to, p.assigned_to);
    set(t.unread_chat_count, p.unread_chat_count);
    const std::vector<std::string> tags_before = parse_tags(before.ticket.tags_json);
    const std::vector<std::string> tags_after = patched_tags(tags_before, p);
    if (tags_after.size() > kMaxTags && tags_after.size() > tags_before.size()) {
        out.too_many_tags = true;  // a list stored longer before the limit may still shrink
        return out;
    }
    if (tags_after != tags_before) {
        t.tags_json = json_string_array(tags_after);
    }

    Changes changes;
    changes.note("name", before.ticket.name, t.name);
    changes.note("contact_reason", before.ticket.contact_reason, t.contact_reason);
    changes.note("language_code", before.ticket.language_code, t.language_code);
    changes.note("assigned_to", before.ticket.assigned_to, t.assigned_to);
    changes.note("tags", tags_before, tags_after);
    changes.note("unReadChatCount", before.ticket.unread_chat_count, t.unread_chat_count);
    changes.note("HumanTicketStatus", from_status, status_of(out.after.human_ticket));
    out.changed = changes.any();
    out.changes_json = changes.finish();
    if (out.changed) {
        out.after.updated_at = now;
    }
    return out;
}

CustomerChange apply_customer_patch(const CustomerRow& before, const CustomerPatch& p) {
    CustomerChange out;
    CustomerRow& c = out.after;
    c = before;
    set(c.email, p.email);
    set(c.phone_number, p.phone_number);
    set(c.first_name, p.first_name);
    set(c.last_name, p.last_name);
    set(c.full_name, p.full_name);
    set(c.storefront_id, p.storefront_id);
    set(c.site_cms_id, p.site_cms_id);
    set(c.social_a_user_id, p.social_a_user_id);
    set(c.social_b_user_id, p.social_b_user_id);
    set(c.messaging_id, p.messaging_id);
    const bool names_changed = c.first_name != before.first_name || c.last_name != before.last_name;
    if (names_changed && !p.full_name) {
        c.full_name = text::join_names(c.first_name, c.last_name);  // contract §7
    }
    if (!c.email && !c.phone_number) {
        out.error = "email or phone_number is required";
        return out;
    }
    Changes changes;
    changes.note("email", before.email, c.email);
    changes.note("phone_number", before.phone_number, c.phone_number);
    changes.note("first_name", before.first_name, c.first_name);
    changes.note("last_name", before.last_name, c.last_name);
    changes.note("full_name", before.full_name, c.full_name);
    changes.note("storefront_id", before.storefront_id, c.storefront_id);
    changes.note("site_cms_id", before.site_cms_id, c.site_cms_id);
    changes.note("social_a_user_id", before.social_a_user_id, c.social_a_user_id);
    changes.note("social_b_user_id", before.social_b_user_id, c.social_b_user_id);
    changes.note("messaging_id", before.messaging_id, c.messaging_id);
    out.changed = changes.any();
    out.changes_json = changes.finish();
    return out;
}

}  // namespace supportcrm
