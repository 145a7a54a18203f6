// The changes feed's settings and long-poll (extensions.md §E11), across the worker pool: how many
// requests wait at once (at most changes-max-waiting, counted in the scoreboard the master shares
// with its workers) and the wake-up when a change commits.
//
// A write of the pool bumps the scoreboard's change generation after its commit (notify(), the
// worker does it for every write answered 2xx) and wakes the waiting requests of this host at
// once (a futex on the shared word). Changes written through another host are not signalled
// here: a waiting request also reads the database every kPollMs.
#pragma once

#include <cstdint>

#include "common/scoreboard.h"

namespace supportcrm::changes_feed {

// How often a waiting request reads the database for changes from other hosts, and the
// longest a stop or reload signal waits for a waiting request to notice it.
constexpr unsigned kPollMs = 200;

// In a worker, before it serves: the pool's scoreboard (nullptr: a process of its own, as in
// unit tests), the worker's slot, the pool's changes-max-waiting, resolved (>= 1), and
// changes-retention-days.
void configure(Scoreboard* board, WorkerSlot* own, unsigned max_waiting, unsigned retention_days);
// changes-retention-days (30 until configured).
unsigned retention_days();

// The generation now: read before looking for changes, then wait_for_change(seen).
std::uint32_t generation();
// A change committed in this process: wakes every request waiting on this host.
void notify();

// A place among the waiting requests (RAII): while held, the worker shows as `waiting`.
class Place {
  public:
    Place() = default;
    Place(const Place&) = delete;
    Place& operator=(const Place&) = delete;
    ~Place();
    // Takes a place; false when changes-max-waiting requests wait already.
    bool take();
    bool held() const { return held_; }

  private:
    bool held_ = false;
};

// Sleeps until the generation is no longer `seen`, `ms` passed, or a stop signal came (then
// within kPollMs); true unless the worker is stopping.
bool wait_for_change(std::uint32_t seen, unsigned ms);

// How long this process waited in wait_for_change since the last call, in nanoseconds (and
// back to 0). The worker takes it before and after each request: a long-poll's wait for a
// change is not work, so the slow log and the duration histogram leave it out.
std::int64_t take_waited_ns();

}  // namespace supportcrm::changes_feed
