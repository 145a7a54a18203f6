#include "webhooks/deliverer.h"

#include <algorithm>
#include <ctime>
#include <set>

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
constexpr timeutil::Millis kDayMs = 24LL * 3600 * 1000;

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
        w.key(event_extra_member(d.type)).raw(*d.changes);  // beside data (§E8, §E9)
    }
    w.end_object();
    return body;
}

Deliverer::Deliverer(Db& db, const WebhookSettings& settings, const std::atomic<bool>& stopping)
    : db_(db), settings_(settings), stopping_(stopping), random_(std::random_device{}()) {}

Deliverer::Round Deliverer::run_once() {
    Round round;
    round.attempts = record_ended();  // what a failed round left
    const auto now = std::chrono::steady_clock::now();
    if (!stopping_.load() && (look_soon_ || now >= next_look_)) {
        round.events = fan_out_new_events(db_, settings_.batch);
        round.claimed = claim();
        next_look_ = now + std::chrono::milliseconds(settings_.poll_ms);
        look_soon_ = round.events > 0 || round.claimed > 0;
    }
    if (sender_.in_flight() > 0) {
        // Wait for a POST to end, but not past the next look for new work.
        const auto until_look = std::chrono::duration_cast<std::chrono::milliseconds>(
            next_look_ - std::chrono::steady_clock::now());
        const auto wait = look_soon_ ? std::chrono::milliseconds(0)
                                     : std::max(std::chrono::milliseconds(0), until_look);
        collect(sender_.pump(wait));
        const std::size_t recorded = record_ended();
        round.attempts += recorded;
        look_soon_ = look_soon_ || recorded > 0;  // room for more
    }
    round.in_flight = sender_.in_flight();
    round.pruned = prune_if_due();
    return round;
}

void Deliverer::finish_in_flight() {
    while (sender_.in_flight() > 0) {
        collect(sender_.pump(std::chrono::milliseconds(100)));
    }
    record_ended();
}

std::string Deliverer::saturated_webhooks() const {
    std::string out;
    std::set<std::uint64_t> listed;
    for (const auto& [tag, s] : started_) {
        if (sender_.in_flight_to(destination_of(s.delivery.url)) >= settings_.max_per_host &&
            listed.insert(s.delivery.webhook_id).second) {
            out += (out.empty() ? "" : ",") + std::to_string(s.delivery.webhook_id);
        }
    }
    return out;
}

std::size_t Deliverer::claim() {
    const std::size_t running = sender_.in_flight();
    if (running >= settings_.max_in_flight) {
        return 0;
    }
    const auto room = static_cast<unsigned>(
        std::min<std::size_t>(settings_.batch, settings_.max_in_flight - running));
    const timeutil::Millis lease_until = timeutil::now_ms() + kLeaseMs;
    std::vector<DueDelivery> taken;
    {
        Transaction tx(db_);
        std::vector<DueDelivery> due = select_due_deliveries(db_, room, saturated_webhooks());
        std::map<std::string, std::size_t> adding;  // by destination, in this claim
        for (DueDelivery& d : due) {
            const std::string to = destination_of(d.url);
            if (sender_.in_flight_to(to) + adding[to] >= settings_.max_per_host) {
                continue;  // not leased: due again at once, for the next claim
            }
            ++adding[to];
            lease_delivery(db_, d, lease_until);
            taken.push_back(std::move(d));
        }
        tx.commit();
    }
    for (DueDelivery& d : taken) {
        start(std::move(d));
    }
    return taken.size();
}

void Deliverer::start(DueDelivery d) {
    const timeutil::Millis attempted_at = timeutil::now_ms();
    std::optional<std::string> key = base64_decode(d.secret_base64);
    if (!key) {
        PostResult result;
        result.error = "the stored secret is not base64";
        AttemptRecord record = outcome(d, attempted_at, result);
        ended_.push_back({std::move(d), std::move(record)});
        return;
    }
    PostRequest request;
    request.url = d.url;
    request.allow_private = settings_.allow_private;
    request.body = delivery_body(d);
    const std::string id = std::to_string(d.event_id);
    const std::string timestamp = std::to_string(attempted_at / 1000);
    // "Expect:" (empty) keeps libcurl from waiting for a 100 Continue on bodies over 1 KiB.
    request.headers = {"Content-Type: application/json", "Expect:", "webhook-id: " + id,
                       "webhook-timestamp: " + timestamp,
                       "webhook-signature: " + sign(*key, id, timestamp, request.body)};
    // Cut off before the lease ends, so that its outcome is recorded while the claim holds.
    const auto deadline =
        std::chrono::steady_clock::now() +
        std::chrono::milliseconds(d.leased_until - kRecordMarginMs - attempted_at);
    const std::uint64_t tag = next_tag_++;
    sender_.start(tag, std::move(request), deadline);
    started_.emplace(tag, Started{std::move(d), attempted_at});
}

void Deliverer::collect(std::vector<Sender::Finished> finished) {
    for (Sender::Finished& f : finished) {
        auto found = started_.find(f.tag);
        if (found == started_.end()) {
            continue;
        }
        AttemptRecord record =
            outcome(found->second.delivery, found->second.attempted_at, f.result);
        ended_.push_back({std::move(found->second.delivery), std::move(record)});
        started_.erase(found);
    }
}

std::size_t Deliverer::record_ended() {
    if (ended_.empty()) {
        return 0;
    }
    const std::vector<bool> recorded = record_attempts(db_, ended_);
    std::size_t n = 0;
    for (std::size_t i = 0; i < ended_.size(); ++i) {
        if (recorded[i]) {
            ++n;
        } else {
            log::warning(describe(ended_[i].delivery) +
                         ": not recorded, its claim ran out and it was claimed again");
        }
    }
    ended_.clear();
    return n;
}

std::size_t Deliverer::prune_if_due() {
    const auto now = std::chrono::steady_clock::now();
    if (now < next_prune_ || stopping_.load()) {
        return 0;
    }
    const timeutil::Millis cutoff =
        timeutil::now_ms() - static_cast<timeutil::Millis>(settings_.retention_days) * kDayMs;
    // An event is also an entry of the changes feed (E11): it stays as long as either wants it.
    const timeutil::Millis events_cutoff = std::min(
        cutoff, timeutil::now_ms() -
                    static_cast<timeutil::Millis>(settings_.changes_retention_days) * kDayMs);
    Pruned pruned;
    try {
        pruned = prune_webhook_rows(db_, cutoff, events_cutoff, kPruneBatch);
    } catch (const DbError& e) {  // not DbUnavailable: the main loop reconnects for that
        // A lock wait cut short (another deliverer prunes the same rows) or a deadlock with
        // one: nothing is lost by waiting for the next turn. Deliveries go on meanwhile.
        log::warning(std::string("retention: ") + e.what() + "; trying again in 10 minutes");
        next_prune_ = now + kPruneEvery;
        return 0;
    }
    if (pruned.deliveries + pruned.events > 0) {
        log::info(
            "retention: deleted " + std::to_string(pruned.deliveries) +
            " finished deliveries (with their attempts) and " + std::to_string(pruned.events) +
            " events older than " +
            std::to_string(std::max(settings_.retention_days, settings_.changes_retention_days)) +
            " days");
    }
    // A full batch may leave more behind: go on next round; else look again later.
    if (pruned.deliveries < kPruneBatch && pruned.events < kPruneBatch) {
        next_prune_ = now + kPruneEvery;
    }
    return pruned.deliveries + pruned.events;
}

AttemptRecord Deliverer::outcome(const DueDelivery& d, timeutil::Millis attempted_at,
                                 const PostResult& result) {
    AttemptRecord record;
    record.attempted_at = attempted_at;
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
