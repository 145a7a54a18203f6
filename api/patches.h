// The bodies of PATCH /api/v1/tickets/{id} and PATCH /api/v1/customers/{id} (extensions.md
// §E8), read and validated, the ticket status machine, and what a patch changes in a record:
// the part of each PATCH that needs no database, unit-tested without one. The handlers
// (handlers/tickets_patch.cpp, handlers/customers_patch.cpp) open with read_patch_request()
// and run the rest on the row they read.
#pragma once

#include <json/value.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "api/api_error.h"
#include "api/handler.h"
#include "common/time_util.h"
#include "db/customer_repo.h"
#include "db/ticket_repo.h"

namespace supportcrm {

// A member a PATCH may set: absent (nullopt), null (an empty inner optional: clears), or a value.
template <typename T>
using Settable = std::optional<std::optional<T>>;

struct TicketPatch {
    Settable<std::string> name, contact_reason, language_code;
    Settable<std::uint64_t> assigned_to;
    std::optional<std::vector<std::string>> tags, add_tags, remove_tags;
    std::optional<std::int64_t> unread_chat_count;
    std::optional<std::string> status;  // HumanTicketStatus
};

struct CustomerPatch {
    Settable<std::string> email, phone_number, first_name, last_name, full_name, storefront_id,
        site_cms_id, social_a_user_id, social_b_user_id, messaging_id;
};

// A body read into a patch, or the validation_failed message that refuses it: an unknown or
// read-only member first ("Unknown or read-only field: <member>"), then each member's type and
// length in the order of the tables of §E8.
template <typename T>
struct ReadPatch {
    T patch;
    std::string error;  // empty: valid
};
ReadPatch<TicketPatch> read_ticket_patch(const Json::Value& body);
ReadPatch<CustomerPatch> read_customer_patch(const Json::Value& body);

// What a PATCH knows before it looks for its record.
template <typename T>
struct PatchRequest {
    std::optional<etag::Condition> if_match;  // nullopt: no If-Match, the write is unconditional
    T patch;

    // If-Match lets the patch change the record whose ETag is now `current` (else 412).
    bool may_change(std::string_view current) const {
        return !if_match || etag::matches_strong(*if_match, current);
    }
};

// The opening every PATCH shares, in the contract's order: If-Match (400 invalid_if_match, so
// before the record's 404), the body as a JSON object (413, 415, 400 invalid_json or
// invalid_body), then its members by `read` (400 validation_failed with read's message).
template <typename T>
Checked<PatchRequest<T>> read_patch_request(HandlerContext& ctx,
                                            ReadPatch<T> (*read)(const Json::Value&)) {
    Checked<PatchRequest<T>> out;
    Checked<std::optional<etag::Condition>> if_match = read_if_match(ctx.request);
    if (if_match.error) {
        out.error = std::move(if_match.error);
        return out;
    }
    Checked<Json::Value> body = read_json_object(ctx);
    if (body.error) {
        out.error = std::move(body.error);
        return out;
    }
    ReadPatch<T> members = read(body.value);
    if (!members.error.empty()) {
        out.error = errors::validation(members.error);
        return out;
    }
    out.value.if_match = std::move(if_match.value);
    out.value.patch = std::move(members.patch);
    return out;
}

// --- The status machine -------------------------------------------------------------------

// OPEN, PENDING, SOLVED, CLOSED.
bool is_ticket_status(std::string_view status);
// The statuses a ticket in `from` may enter, in the order OPEN, PENDING, SOLVED, CLOSED; `from`
// nullopt is a ticket without a HumanTicket (only OPEN). The same status again is no change, so
// never refused, and not listed.
std::vector<std::string_view> allowed_statuses(const std::optional<std::string>& from);

// --- What a patch changes -------------------------------------------------------------------

struct TicketChange {
    FullTicket after;      // the ticket once patched (updated_at now when changed)
    bool changed = false;  // false: a no-op, nothing to write
    bool opens_human_ticket = false;
    // {"<member>": {"from": ..., "to": ...}} for each member that changed (E8's events).
    std::string changes_json = "{}";
    // A status the machine refuses: 422 invalid_transition (nothing else applies).
    struct Refused {
        std::string from;  // "none" for a ticket without a HumanTicket
        std::string to;
        std::vector<std::string_view> allowed;
    };
    std::optional<Refused> refused;
    // The tags would grow past kMaxTags: 422 too_many_tags (nothing else applies).
    bool too_many_tags = false;
};
TicketChange apply_ticket_patch(const FullTicket& before, const TicketPatch& patch,
                                timeutil::Millis now);

struct CustomerChange {
    CustomerRow after;
    bool changed = false;
    std::string changes_json = "{}";
    std::string error;  // "email or phone_number is required" when the patch would leave neither
};
CustomerChange apply_customer_patch(const CustomerRow& before, const CustomerPatch& patch);

// The tags of a ticket row (its JSON text) as a list; [] for anything that is not one.
std::vector<std::string> parse_tags(const std::string& tags_json);

}  // namespace supportcrm
