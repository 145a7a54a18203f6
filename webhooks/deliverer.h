// supportcrm-webhooks' work (extensions.md §E5): fan new events out to their webhooks, claim
// due deliveries, POST each signed, record every attempt and schedule the retry.
//
// No transaction is open while a receiver is contacted. A claim is one short transaction: the
// due deliveries are selected FOR UPDATE SKIP LOCKED (another deliverer skips them) and leased
// (next_attempt_at moved to the end of the lease, kLeaseMs), then committed. The POSTs run
// concurrently (libcurl multi; at most webhook-max-in-flight, webhook-max-per-host to one
// receiver), so a slow receiver holds up only its own deliveries. Each outcome is recorded in
// a short transaction as it ends (with the others that ended with it), only while the lease is
// still the deliverer's. A deliverer that dies (SIGKILL, a crash) recorded nothing of its
// attempts in flight: they are due again when their lease ends (at least once; receivers
// deduplicate by webhook-id).
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "common/config.h"
#include "db/db.h"
#include "db/webhook_repo.h"
#include "webhooks/schedule.h"
#include "webhooks/sender.h"

namespace supportcrm::webhooks {

// The body a delivery POSTs: {"type","timestamp","shopDomain","data"}, data the stored payload.
std::string delivery_body(const DueDelivery& delivery);

// How long a claim holds a delivery: longer than an attempt may take (its POST is cut off
// kRecordMarginMs before the lease ends, and within 10 s anyway) plus recording it.
constexpr timeutil::Millis kLeaseMs = 15000;
constexpr timeutil::Millis kRecordMarginMs = 3000;

class Deliverer {
  public:
    // `stopping` is set by SIGTERM: nothing more is claimed; finish_in_flight() then lets the
    // attempts in flight end and records them.
    Deliverer(Db& db, const WebhookSettings& settings, const std::atomic<bool>& stopping);

    struct Round {
        std::size_t events = 0;     // events fanned out
        std::size_t claimed = 0;    // deliveries claimed (their attempts started)
        std::size_t attempts = 0;   // attempts that ended and were recorded
        std::size_t in_flight = 0;  // attempts still running after the round
        std::size_t pruned = 0;     // old rows deleted (webhook-retention-days)
        // Nothing happened and nothing runs: the caller waits webhook-poll-ms.
        bool idle() const {
            return events == 0 && claimed == 0 && attempts == 0 && in_flight == 0 && pruned == 0;
        }
    };
    // One round: records what ended earlier and is not recorded yet; fan-out of new events and
    // a claim (each a short transaction) when it is time to look; moves the POSTs on, waiting
    // until the next look at most; records each that ended; then (when it is time) one batch
    // of retention.
    Round run_once();
    // After SIGTERM: lets the attempts in flight end (within 10 s) and records them.
    void finish_in_flight();

  private:
    struct Started {
        DueDelivery delivery;
        timeutil::Millis attempted_at = 0;
    };
    std::size_t claim();
    // The webhooks ("1,7") whose receiver has webhook-max-per-host attempts in flight.
    std::string saturated_webhooks() const;
    void start(DueDelivery delivery);
    void collect(std::vector<Sender::Finished> finished);
    // Records the ended attempts, in one short transaction; if it fails they stay, to be
    // recorded next round (a second try writes nothing twice: the lease is the token).
    std::size_t record_ended();
    AttemptRecord outcome(const DueDelivery& delivery, timeutil::Millis attempted_at,
                          const PostResult& result);
    // One batch of each retention statement when retention is due: at start-up, then while a
    // batch comes back full, then every kPruneEvery.
    std::size_t prune_if_due();

    Db& db_;
    const WebhookSettings& settings_;
    const std::atomic<bool>& stopping_;
    std::mt19937 random_;
    Sender sender_;  // the POSTs in flight and the kept-alive connections
    std::map<std::uint64_t, Started> started_;  // by the tag given to the sender
    std::uint64_t next_tag_ = 1;
    std::vector<EndedAttempt> ended_;                    // not recorded yet
    std::chrono::steady_clock::time_point next_look_{};  // the epoch: at once
    bool look_soon_ = false;  // the last look found work: look again without waiting
    std::chrono::steady_clock::time_point next_prune_{};  // the epoch: due at once
};

}  // namespace supportcrm::webhooks
