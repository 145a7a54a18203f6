// Webhooks (extensions.md §E5): the outbox row the API writes with each create, the operator's
// webhooks, and the deliverer's claims and records. The only SQL that touches the webhook_*
// tables.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/time_util.h"
#include "db/db.h"
#include "db/rows.h"

namespace supportcrm {

// Event types are bits: a webhook's filter and a shop's webhook_events are unions of them.
namespace webhook_event {
constexpr unsigned customer_created = 1, ticket_created = 2, comment_created = 4,
                   survey_created = 8, customer_updated = 16, ticket_updated = 32,
                   customer_merged = 64, customer_erased = 128, all = 255;
}  // namespace webhook_event

// "survey.created" for webhook_event::survey_created; "" for anything not one type.
std::string_view event_type_name(unsigned type);
// The member the event row's `changes` column is delivered as, beside "data": "mergedId" for
// customer.merged (extensions.md §E9), "changes" for the others (§E8).
std::string_view event_extra_member(unsigned type);
// The bit of "ticket.created"; nullopt for an unknown name.
std::optional<unsigned> event_type_bit(std::string_view name);
// The names of the types in mask, in bit order.
std::vector<std::string> event_type_names(unsigned mask);

// shops.webhook_events (sql/022), read with the key (Shop::webhook_events): two masks of the
// event bits and a mark. Bits 0-7: the events the shop's writes record (all of them since the
// changes feed, E11, which reads every one). Bits 8-15: the union of the filters of the shop's
// webhooks. Bit 16 (`split`): bits 8-15 hold that union; without it (a value written before
// sql/022, or by an older binary's webhook command) every event counts as wanted, and the
// deliverer decides as it always did. An event no webhook wants is written already fanned out,
// so the deliverer never reads it and a shop without webhooks costs the database one INSERT
// per write, not four statements.
namespace shop_events {
inline constexpr unsigned record_all = webhook_event::all;
inline constexpr unsigned split = 1u << 16;
// The column's value for a shop whose webhooks' filters have this union.
constexpr unsigned with_webhooks_wanting(unsigned filters) {
    return split | (filters & webhook_event::all) << 8 | record_all;
}
constexpr bool some_webhook_wants(unsigned shop_webhook_events, unsigned type) {
    return (shop_webhook_events & split) == 0 || ((shop_webhook_events >> 8) & type) != 0;
}
}  // namespace shop_events

// The outbox row, inside the caller's transaction, for the shop as its key read it (a webhook
// committed after the write's snapshot was taken does not get the event: the write comes before
// it). payload is the resource exactly as the create response carries it; changes, for the
// *.updated types, the E8 "changes" object, and for customer.merged the merged id (E9), each
// written beside "data" (event_extra_member()).
void record_event(Db& db, const Shop& shop, unsigned type, std::string_view payload,
                  timeutil::Millis at, const std::optional<std::string>& changes = std::nullopt);

// One outbox row's content, for record_events.
struct EventRecord {
    unsigned type = 0;
    std::string_view payload;
    timeutil::Millis at = 0;
    std::optional<std::string> changes;
};
// Two outbox rows in one statement, first before second (their ids ascend): a write that is two
// changes (a customer's comment that reopens its ticket: ticket.updated, comment.created).
void record_events(Db& db, const Shop& shop, const EventRecord& first, const EventRecord& second);

// --- supportcrm-admin ---------------------------------------------------------------------

struct WebhookRow {
    std::uint64_t id = 0;
    std::string url;
    unsigned events = 0;
    std::string created_at;  // ISO 8601
};

// Adds the webhook and sets the shop's webhook_events, in one transaction. secret_base64 is the
// base64 of the key bytes.
std::uint64_t insert_webhook(Db& db, std::uint64_t shop_id, const std::string& url, unsigned events,
                             const std::string& secret_base64, timeutil::Millis now);
std::vector<WebhookRow> webhooks_of_shop(Db& db, std::uint64_t shop_id);
// Deletes the webhook with its deliveries and attempts and recomputes the shop's
// webhook_events; false when there is no such webhook.
bool delete_webhook(Db& db, std::uint64_t id);

// cancelled: an erasure took the event's data before it was delivered (extensions.md §E9).
enum class DeliveryStatus : unsigned { pending = 0, delivered = 1, failed = 2, cancelled = 3 };
std::string_view delivery_status_name(DeliveryStatus status);

struct DeliveryRow {
    std::uint64_t event_id = 0;
    unsigned type = 0;
    unsigned attempts = 0;
    DeliveryStatus status = DeliveryStatus::pending;
    std::optional<std::uint64_t> last_status_code;
    std::string next_attempt_at;  // ISO 8601
};
// The webhook's deliveries, newest first; nullopt when there is no such webhook.
std::optional<std::vector<DeliveryRow>> webhook_deliveries(Db& db, std::uint64_t webhook_id,
                                                           std::uint64_t limit);

// --- supportcrm-webhooks ------------------------------------------------------------------

// Creates the deliveries of up to `batch` new events (for the webhooks that want each and
// existed when it happened) and marks them fanned out, in one transaction; returns how many
// events it took.
std::size_t fan_out_new_events(Db& db, unsigned batch);

struct DueDelivery {
    std::uint64_t webhook_id = 0;
    std::uint64_t event_id = 0;
    unsigned attempts = 0;  // before this one
    std::string url;
    std::string secret_base64;
    unsigned type = 0;
    std::string payload;
    std::optional<std::string> changes;  // the *.updated types' "changes" (extensions.md §E8)
    timeutil::Millis created_at = 0;
    std::string shop_domain;
    timeutil::Millis leased_until = 0;  // set by lease_delivery: the claim's token
};
// Locks up to `batch` due deliveries (FOR UPDATE SKIP LOCKED) in the caller's open transaction,
// none of the webhooks listed in `skip_webhooks` ("1,7", "" for none), with what an attempt
// needs. The caller leases those it takes (lease_delivery) and commits.
std::vector<DueDelivery> select_due_deliveries(Db& db, unsigned batch,
                                               const std::string& skip_webhooks);
// Claims a selected delivery until `until`, in the caller's transaction: it is not due again
// before then, so a deliverer that dies holding it leaves it to the next one after the lease.
void lease_delivery(Db& db, DueDelivery& delivery, timeutil::Millis until);

struct AttemptRecord {
    timeutil::Millis attempted_at = 0;
    std::optional<std::uint64_t> status_code;  // none: no HTTP answer
    std::optional<std::string> error;          // why not delivered, for the operator
    std::uint64_t duration_ms = 0;
    DeliveryStatus outcome = DeliveryStatus::pending;  // pending: retried at next_attempt_at
    timeutil::Millis next_attempt_at = 0;
};

// Attempts by outcome, indexed by DeliveryStatus: pending (failed, to be retried), delivered,
// failed (for good).
using OutcomeCounts = std::array<std::uint64_t, 3>;

struct EndedAttempt {
    DueDelivery delivery;
    AttemptRecord record;
};
// The attempts' rows, their deliveries' new states and the outcomes' counts (for /metrics), in
// one short transaction (the attempts that ended together; no receiver is contacted while it
// is open). An attempt whose claim is no longer this deliverer's (its lease ran out and the
// delivery was claimed again, or deleted, meanwhile) writes nothing. For each, whether it was
// recorded.
std::vector<bool> record_attempts(Db& db, const std::vector<EndedAttempt>& ended);

// Retention: deletes up to `batch` finished deliveries (with their attempts) that finished
// before `cutoff`, then up to `batch` events older than `events_cutoff` that have no delivery
// left, each statement its own transaction. The events are also the changes feed's (E11):
// the deliverer passes the earlier of the two retentions' cutoffs as events_cutoff.
struct Pruned {
    std::size_t deliveries = 0;
    std::size_t events = 0;
};
Pruned prune_webhook_rows(Db& db, timeutil::Millis cutoff, timeutil::Millis events_cutoff,
                          unsigned batch);

// --- GET /metrics -------------------------------------------------------------------------

struct WebhookQueueStats {
    std::uint64_t depth = 0;  // due pending deliveries + events not yet fanned out
    OutcomeCounts outcomes{};
};
WebhookQueueStats webhook_queue_stats(Db& db);

}  // namespace supportcrm
