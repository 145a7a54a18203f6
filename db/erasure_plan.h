// The bounds of an erasure's work (DELETE /api/v1/customers/{id}, extensions.md §E9): how much
// one DELETE does at most, and which of the customer's tickets one batch takes together. Pure
// computation, no statements and no clock: db/erasure_repo.cpp runs what this plans, with the
// time it reads.
#pragma once

#include <chrono>
#include <cstdint>
#include <vector>

namespace supportcrm {

// Rows a batch changes at most, of each table (comments; tickets): each batch is one short
// transaction, which holds its locks for tens of milliseconds.
inline constexpr unsigned kErasureBatch = 1000;
// Batches one DELETE runs at most: with the first transaction, about half a second of work on
// an idle server. What is left waits for the next DELETE (202, "complete": false).
inline constexpr unsigned kErasureBatchesPerRequest = 16;
// And the time after which it starts no further batch, whatever is left of the count: on a
// slow server the request stays well within request-terminate-timeout (30 s by default).
inline constexpr std::chrono::milliseconds kErasureRequestTime{10'000};

using ErasureClock = std::chrono::steady_clock;

// What one DELETE may still spend: batches, and time until its deadline.
class ErasureBudget {
  public:
    ErasureBudget(unsigned batches, ErasureClock::time_point deadline)
        : left_(batches), deadline_(deadline) {}
    // Whether one more batch may start at `now` (a batch left, the deadline not reached);
    // counts it when it may. Once refused, refused from then on.
    bool take(ErasureClock::time_point now);
    // The batches taken so far.
    unsigned taken() const { return taken_; }

  private:
    unsigned left_;
    ErasureClock::time_point deadline_;
    unsigned taken_ = 0;
};

// A DELETE's budget from the constants above, starting at `now`.
ErasureBudget request_budget(ErasureClock::time_point now);

// One of the customer's tickets still to erase, with its number of comments.
struct TicketToErase {
    std::uint64_t id = 0;
    std::uint64_t comments = 0;
};

// One batch of the tickets: the customer's tickets with ids in (after, through], their comments
// and then the tickets themselves cleared in one transaction; or, `large`, the one ticket
// `through`, whose comments exceed a batch: its comments in keyset batches of their own, each a
// transaction, the ticket itself with the last of them.
struct TicketGroup {
    std::uint64_t after = 0, through = 0;
    bool large = false;
    bool operator==(const TicketGroup& o) const {
        return after == o.after && through == o.through && large == o.large;
    }
};

// `tickets`: the customer's next tickets after `after`, in id order. Consecutive tickets go into
// one group while their comments add up to at most `batch` and they number at most `batch`; a
// ticket of more than `batch` comments is a large group of its own. The groups cover (after,
// last ticket] without gaps, in order.
std::vector<TicketGroup> plan_ticket_groups(std::uint64_t after,
                                            const std::vector<TicketToErase>& tickets,
                                            unsigned batch);

}  // namespace supportcrm
