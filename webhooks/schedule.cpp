#include "webhooks/schedule.h"

#include <algorithm>

namespace supportcrm::webhooks {

std::optional<timeutil::Millis> next_attempt(const WebhookSettings& settings, unsigned attempts,
                                             timeutil::Millis event_at, timeutil::Millis now,
                                             std::uint32_t random) {
    if (now - event_at >= static_cast<timeutil::Millis>(settings.retry_for) * 1000) {
        return std::nullopt;
    }
    // first * 2^(attempts-1), without overflowing: the cap is reached long before 2^40.
    const unsigned doublings = std::min(attempts == 0 ? 0u : attempts - 1, 40u);
    const double full = std::min(static_cast<double>(settings.retry_first_ms) *
                                     static_cast<double>(std::uint64_t{1} << doublings),
                                 static_cast<double>(settings.retry_max_ms));
    // Jitter: between half the wait and all of it.
    const double wait = full * (0.5 + 0.5 * (static_cast<double>(random) / 4294967296.0));
    return now + std::max<timeutil::Millis>(1, static_cast<timeutil::Millis>(wait));
}

}  // namespace supportcrm::webhooks
