// When a failed delivery is tried again (extensions.md §E5): the first retry after
// webhook-retry-first-ms, each later one after twice the wait before it, never more than
// webhook-retry-max-ms, each wait shortened by a random part of up to a half so that the
// deliveries of an outage do not all come back at once. A delivery that still fails once
// webhook-retry-for seconds have passed since its event is failed for good.
#pragma once

#include <cstdint>
#include <optional>

#include "common/config.h"
#include "common/time_util.h"

namespace supportcrm::webhooks {

// The time of the next attempt after `attempts` failed ones (1 = the first attempt failed);
// nullopt when the delivery is to be marked failed. `random` is any uniform 32-bit value.
std::optional<timeutil::Millis> next_attempt(const WebhookSettings& settings, unsigned attempts,
                                             timeutil::Millis event_at, timeutil::Millis now,
                                             std::uint32_t random);

}  // namespace supportcrm::webhooks
