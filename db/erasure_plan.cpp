#include "db/erasure_plan.h"

namespace supportcrm {

bool ErasureBudget::take(ErasureClock::time_point now) {
    if (left_ == 0 || now >= deadline_) {
        left_ = 0;
        return false;
    }
    --left_;
    ++taken_;
    return true;
}

ErasureBudget request_budget(ErasureClock::time_point now) {
    return ErasureBudget(kErasureBatchesPerRequest, now + kErasureRequestTime);
}

std::vector<TicketGroup> plan_ticket_groups(std::uint64_t after,
                                            const std::vector<TicketToErase>& tickets,
                                            unsigned batch) {
    std::vector<TicketGroup> groups;
    std::uint64_t open_comments = 0;  // of the group being filled, when its `through` > `after`
    unsigned open_tickets = 0;
    TicketGroup open{after, after, false};
    auto close = [&] {
        if (open_tickets > 0) {
            groups.push_back(open);
            open = TicketGroup{open.through, open.through, false};
            open_comments = 0;
            open_tickets = 0;
        }
    };
    for (const TicketToErase& t : tickets) {
        if (t.comments > batch) {
            close();
            groups.push_back(TicketGroup{open.after, t.id, true});
            open = TicketGroup{t.id, t.id, false};
            continue;
        }
        if (open_comments + t.comments > batch || open_tickets == batch) {
            close();
        }
        open.through = t.id;
        open_comments += t.comments;
        ++open_tickets;
    }
    close();
    return groups;
}

}  // namespace supportcrm
