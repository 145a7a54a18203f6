// walk_id_windows (db/search/reads.h): past a search's scan window, the windows of ids its words
// are read in. They tile every id below the floor, newest first, without a gap or an overlap,
// each four times as wide as the last, and the walk stops as soon as the page is full.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "db/search/reads.h"

namespace {

constexpr std::uint64_t kFirstIdWindow = supportcrm::search::Tuning::kFirstIdWindow;
using supportcrm::walk_id_windows;
using Window = std::pair<std::uint64_t, std::uint64_t>;  // [low, high)

std::vector<Window> windows_below(std::uint64_t floor, std::size_t wanted = SIZE_MAX) {
    std::vector<Window> out;
    walk_id_windows(floor, [&](std::uint64_t low, std::uint64_t high) {
        out.emplace_back(low, high);
        return out.size() < wanted;
    });
    return out;
}

TEST(IdWindows, TheyTileEveryIdBelowTheFloorFourTimesWiderEachTime) {
    const std::uint64_t floor = 123456;
    EXPECT_EQ(windows_below(floor),
              (std::vector<Window>{{floor - kFirstIdWindow, floor},
                                   {floor - 5 * kFirstIdWindow, floor - kFirstIdWindow},
                                   {0, floor - 5 * kFirstIdWindow}}));
}

TEST(IdWindows, TheWalkStopsWhenThePageIsFull) {
    EXPECT_EQ(windows_below(10'000'000, 2).size(), 2u);
    EXPECT_EQ(windows_below(10'000'000, 1),
              (std::vector<Window>{{10'000'000 - kFirstIdWindow, 10'000'000}}));
}

TEST(IdWindows, SmallFloorsTakeOneWindowAndFloorZeroNone) {
    EXPECT_EQ(windows_below(0), std::vector<Window>{});
    EXPECT_EQ(windows_below(1), (std::vector<Window>{{0, 1}}));
    EXPECT_EQ(windows_below(kFirstIdWindow), (std::vector<Window>{{0, kFirstIdWindow}}));
    EXPECT_EQ(windows_below(kFirstIdWindow + 1),
              (std::vector<Window>{{1, kFirstIdWindow + 1}, {0, 1}}));
}

TEST(IdWindows, TheLargestIdsEndWithoutOverflowOrGap) {
    const std::uint64_t floor = std::numeric_limits<std::uint64_t>::max();
    const std::vector<Window> w = windows_below(floor, 100);  // a walk that never ends: 100
    ASSERT_FALSE(w.empty());
    EXPECT_LT(w.size(), 40u);
    EXPECT_EQ(w.front().second, floor);
    EXPECT_EQ(w.back().first, 0u);
    for (std::size_t i = 1; i < w.size(); ++i) {
        EXPECT_EQ(w[i].second, w[i - 1].first) << "window " << i;
        EXPECT_LT(w[i].first, w[i].second) << "window " << i;
    }
}

}  // namespace
