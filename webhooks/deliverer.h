// supportcrm-webhooks' work (extensions.md §E5): fan new events out to their webhooks, claim
// due deliveries, POST each signed, record every attempt and schedule the retry.
//
// A batch is claimed with SELECT ... FOR UPDATE SKIP LOCKED and held in one transaction while
// its POSTs run: another deliverer skips it, and a deliverer that dies (SIGKILL, lost
// connection) leaves nothing half-done: the server rolls its transaction back and the
// deliveries are due again at once (at least once; receivers deduplicate by webhook-id).
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <random>

#include "common/config.h"
#include "db/db.h"
#include "db/webhook_repo.h"
#include "webhooks/schedule.h"
#include "webhooks/sender.h"

namespace supportcrm::webhooks {

// The body a delivery POSTs: {"type","timestamp","shopDomain","data"}, data the stored payload.
std::string delivery_body(const DueDelivery& delivery);

class Deliverer {
  public:
    // `stopping` is set by SIGTERM: the attempt in hand finishes, the rest of its batch is left
    // to the next run.
    Deliverer(Db& db, const WebhookSettings& settings, const std::atomic<bool>& stopping);

    struct Round {
        std::size_t events = 0;    // events fanned out
        std::size_t attempts = 0;  // attempts made (and recorded)
        std::size_t pruned = 0;    // old rows deleted (webhook-retention-days)
    };
    // One round: fan-out of new events, one batch of due deliveries, then (when it is time)
    // one batch of retention.
    Round run_once();

  private:
    AttemptRecord attempt(const DueDelivery& delivery);
    // One batch of each retention statement when retention is due: at start-up, then while a
    // batch comes back full, then every kPruneEvery.
    std::size_t prune_if_due();

    Db& db_;
    const WebhookSettings& settings_;
    const std::atomic<bool>& stopping_;
    std::mt19937 random_;
    Sender sender_;  // its kept-alive connections, one handle per receiver
    std::chrono::steady_clock::time_point next_prune_{};  // the epoch: due at once
};

}  // namespace supportcrm::webhooks
