// An erasure's bounds (db/erasure_plan.h): how many batches one DELETE runs before its count or
// its deadline stops it, and which tickets one batch takes together. The statements that run
// the plan are tested against MariaDB in tests/integration/customer_erase_test.cpp.
#include "db/erasure_plan.h"

#include <gtest/gtest.h>

namespace supportcrm {
namespace {

using std::chrono::milliseconds;
const ErasureClock::time_point kStart{};

TEST(ErasureBudget, TheCountStopsADeleteThatStaysWithinItsTime) {
    ErasureBudget budget(3, kStart + milliseconds(1000));
    EXPECT_TRUE(budget.take(kStart));
    EXPECT_TRUE(budget.take(kStart + milliseconds(1)));
    EXPECT_TRUE(budget.take(kStart + milliseconds(2)));
    EXPECT_FALSE(budget.take(kStart + milliseconds(3)));
    EXPECT_EQ(budget.taken(), 3u);
}

TEST(ErasureBudget, TheDeadlineStopsASlowDeleteAndStaysPassed) {
    ErasureBudget budget(100, kStart + milliseconds(1000));
    EXPECT_TRUE(budget.take(kStart + milliseconds(999)));
    EXPECT_FALSE(budget.take(kStart + milliseconds(1000)));
    // A clock read again earlier (or a later batch) does not reopen it.
    EXPECT_FALSE(budget.take(kStart + milliseconds(10)));
    EXPECT_EQ(budget.taken(), 1u);
}

TEST(ErasureBudget, ARequestsBudgetIsTheConstantsCountWithinTheConstantsTime) {
    ErasureBudget budget = request_budget(kStart);
    for (unsigned i = 0; i < kErasureBatchesPerRequest; ++i) {
        ASSERT_TRUE(budget.take(kStart)) << i;
    }
    EXPECT_FALSE(budget.take(kStart));
    ErasureBudget late = request_budget(kStart);
    EXPECT_TRUE(late.take(kStart + kErasureRequestTime - milliseconds(1)));
    EXPECT_FALSE(late.take(kStart + kErasureRequestTime));
    // The budget must leave the request far inside request-terminate-timeout (30 s).
    static_assert(kErasureRequestTime <= std::chrono::seconds(10));
    static_assert(kErasureBatchesPerRequest >= 4, "a small customer takes 4 batches");
}

TEST(ErasureTicketGroups, SmallTicketsGoTogetherUpToABatchOfComments) {
    // batch 10: 4 + 6 fill one group, 3 + 7 the next, 1 + 2 the last.
    const std::vector<TicketGroup> groups =
        plan_ticket_groups(5, {{7, 4}, {9, 6}, {12, 3}, {13, 7}, {20, 1}, {21, 2}}, 10);
    EXPECT_EQ(groups, (std::vector<TicketGroup>{{5, 9, false}, {9, 13, false}, {13, 21, false}}));
}

TEST(ErasureTicketGroups, ATicketOfMoreThanABatchIsALargeGroupOfItsOwn) {
    const std::vector<TicketGroup> groups =
        plan_ticket_groups(0, {{1, 2}, {2, 11}, {3, 11}, {4, 10}, {5, 1}}, 10);
    EXPECT_EQ(groups,
              (std::vector<TicketGroup>{
                  {0, 1, false}, {1, 2, true}, {2, 3, true}, {3, 4, false}, {4, 5, false}}));
}

TEST(ErasureTicketGroups, AGroupTakesAtMostABatchOfTickets) {
    std::vector<TicketToErase> tickets;
    for (std::uint64_t id = 1; id <= 7; ++id) {
        tickets.push_back({id, 0});
    }
    EXPECT_EQ(plan_ticket_groups(0, tickets, 3),
              (std::vector<TicketGroup>{{0, 3, false}, {3, 6, false}, {6, 7, false}}));
}

TEST(ErasureTicketGroups, NoTicketsNoGroupsAndTheGroupsCoverEveryTicketInOrder) {
    EXPECT_TRUE(plan_ticket_groups(42, {}, 1000).empty());
    std::vector<TicketToErase> tickets;
    for (std::uint64_t id = 100; id < 400; id += 3) {
        tickets.push_back({id, (id * 7919) % 23});  // 0..22 comments, some over the batch
    }
    const std::vector<TicketGroup> groups = plan_ticket_groups(50, tickets, 20);
    ASSERT_FALSE(groups.empty());
    EXPECT_EQ(groups.front().after, 50u);
    EXPECT_EQ(groups.back().through, tickets.back().id);
    std::size_t next = 0;  // the first ticket not yet in a group
    for (std::size_t g = 0; g < groups.size(); ++g) {
        if (g > 0) {
            EXPECT_EQ(groups[g].after, groups[g - 1].through);
        }
        std::uint64_t comments = 0;
        std::size_t in_group = 0;
        while (next < tickets.size() && tickets[next].id <= groups[g].through) {
            comments += tickets[next++].comments;
            ++in_group;
        }
        ASSERT_GE(in_group, 1u);
        if (groups[g].large) {
            EXPECT_EQ(in_group, 1u);
            EXPECT_GT(comments, 20u);
        } else {
            EXPECT_LE(comments, 20u);
        }
    }
    EXPECT_EQ(next, tickets.size());
}

}  // namespace
}  // namespace supportcrm
