#include "webhooks/deliverer.h"

#include <ctime>

#include "common/json_writer.h"
#include "common/log.h"
#include "common/webhook_signature.h"

namespace supportcrm::webhooks {
namespace {

constexpr std::size_t kMaxErrorText = 255;  // webhook_attempts.error

// Retention deletes in autocommit batches this large (a delivery's attempts go with it, up to
// ~40 each with the default retry settings), so no statement holds many locks for long, and
// looks again this often once it has caught up.
constexpr unsigned kPruneBatch = 500;
constexpr auto kPruneEvery = std::chrono::minutes(10);

std::string clipped(std::string text) {
    if (text.size() > kMaxErrorText) {
        text.resize(kMaxErrorText);
        // never cut a UTF-8 sequence in two: drop continuation bytes left at the end
        while (!text.empty() && (static_cast<unsigned char>(text.back()) & 0xc0) == 0x80) {
            text.pop_back();
        }
        if (!text.empty() && (static_cast<unsigned char>(text.back()) & 0x80) != 0) {
            text.pop_back();
        }
    }
    return text;
}

std::string describe(const DueDelivery& d) {
    return "webhook " + std::to_string(d.webhook_id) + " event " + std::to_string(d.event_id) +
           " (" + std::string(event_type_name(d.type)) + ", attempt " +
           std::to_string(d.attempts + 1) + ")";
}

}  // namespace

std::string delivery_body(const DueDelivery& d) {
    std::string body;
    JsonWriter w(body);
    w.begin_object()
        .field("type", event_type_name(d.type))
        .field("timestamp", timeutil::format_iso(d.created_at))
        .field("shopDomain", d.shop_domain)
        .key("data")
        .raw(d.payload);
    if (d.changes) {
        w.key("changes").raw(*d.changes);  // beside data (extensions.md §E8)
    }
    w.end_object();
    return body;
}

Deliverer::Deliverer(Db& db, const WebhookSettings& settings, const std::atomic<bool>& stopping)
    : db_(db), settings_(settings), stopping_(stopping), random_(std::random_device{}()) {}

Deliverer::Round Deliverer::run_once() {
    Round round;
    round.events = fan_out_new_events(db_, settings_.batch);
    Transaction tx(db_);
    std::vector<DueDelivery> due = claim_due_deliveries(db_, settings_.batch);
    OutcomeCounts outcomes{};
    for (const DueDelivery& d : due) {
        if (stopping_.load()) {
            break;  // unattempted claims go back to the queue with the commit
        }
        const AttemptRecord record = attempt(d);
        record_attempt(db_, d, record);
        ++outcomes[static_cast<std::size_t>(record.outcome)];
        ++round.attempts;
    }
    add_outcome_counts(db_, outcomes);
    tx.commit();
    round.pruned = prune_if_due();
    return round;
}

std::size_t Deliverer::prune_if_due() {
    const auto now = std::chrono::steady_clock::now();
    if (now < next_prune_ || stopping_.load()) {
        return 0;
    }
    const timeutil::Millis cutoff =
        timeutil::now_ms() -
        static_cast<timeutil::Millis>(settings_.retention_days) * 24 * 3600 * 1000;
    Pruned pruned;
    try {
        pruned = prune_webhook_rows(db_, cutoff, kPruneBatch);
    } catch (const DbError& e) {  // not DbUnavailable: the main loop reconnects for that
        // A lock wait cut short (another deliverer prunes the same rows) or a deadlock with
        // one: nothing is lost by waiting for the next turn. Deliveries go on meanwhile.
        log::warning(std::string("retention: ") + e.what() + "; trying again in 10 minutes");
        next_prune_ = now + kPruneEvery;
        return 0;
    }
    if (pruned.deliveries + pruned.events > 0) {
        log::info("retention: deleted " + std::to_string(pruned.deliveries) +
                  " finished deliveries (with their attempts) and " +
                  std::to_string(pruned.events) + " events older than " +
                  std::to_string(settings_.retention_days) + " days");
    }
    // A full batch may leave more behind: go on next round; else look again later.
    if (pruned.deliveries < kPruneBatch && pruned.events < kPruneBatch) {
        next_prune_ = now + kPruneEvery;
    }
    return pruned.deliveries + pruned.events;
}

AttemptRecord Deliverer::attempt(const DueDelivery& d) {
    AttemptRecord record;
    record.attempted_at = timeutil::now_ms();
    PostRequest request;
    request.url = d.url;
    request.allow_private = settings_.allow_private;
    request.body = delivery_body(d);
    const std::string id = std::to_string(d.event_id);
    const std::string timestamp = std::to_string(record.attempted_at / 1000);
    std::optional<std::string> key = base64_decode(d.secret_base64);
    if (!key) {
        throw std::runtime_error("webhook " + std::to_string(d.webhook_id) +
                                 ": stored secret is not base64");
    }
    // "Expect:" (empty) keeps libcurl from waiting for a 100 Continue on bodies over 1 KiB.
    request.headers = {"Content-Type: application/json", "Expect:", "webhook-id: " + id,
                       "webhook-timestamp: " + timestamp,
                       "webhook-signature: " + sign(*key, id, timestamp, request.body)};
    PostResult result = sender_.post(request);

    record.duration_ms = static_cast<std::uint64_t>(result.duration_ms);
    if (result.status_code) {
        record.status_code = static_cast<std::uint64_t>(*result.status_code);
    }
    const timeutil::Millis now = timeutil::now_ms();
    if (result.delivered()) {
        record.outcome = DeliveryStatus::delivered;
        record.next_attempt_at = now;
        log::info(describe(d) + ": delivered, HTTP " + std::to_string(*result.status_code) +
                  " in " + std::to_string(result.duration_ms) + " ms");
        return record;
    }
    record.error =
        clipped(result.status_code ? "HTTP " + std::to_string(*result.status_code) : result.error);
    std::optional<timeutil::Millis> next =
        next_attempt(settings_, d.attempts + 1, d.created_at, now, random_());
    if (next) {
        record.outcome = DeliveryStatus::pending;
        record.next_attempt_at = *next;
        log::warning(describe(d) + ": " + *record.error + "; retrying in " +
                     std::to_string(*next - now) + " ms");
    } else {
        record.outcome = DeliveryStatus::failed;
        record.next_attempt_at = now;
        log::warning(describe(d) + ": " + *record.error + "; failed for good after " +
                     std::to_string(settings_.retry_for) + " s of retries");
    }
    return record;
}

}  // namespace supportcrm::webhooks
