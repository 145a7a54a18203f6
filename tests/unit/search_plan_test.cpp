// The way to a page of an E10 search (db/search/plan.h): which step follows which, from what
// the counts found, for tickets and customers alike. The statements of each step are tested
// against MariaDB in tests/integration/search_test.cpp.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "db/search/plan.h"

namespace supportcrm::search {
namespace {

constexpr std::uint64_t kRare = Tuning::kRareRows;

// The steps a page takes when every count answers `counts` in turn and the scan window ends
// at `floor` with the page `full` or not.
std::vector<Step> steps(bool sources, bool words, std::vector<std::uint64_t> counts,
                        std::uint64_t floor = 0, bool full = false) {
    PageState s;
    s.has_sources = sources;
    s.has_words = words;
    std::vector<Step> out;
    std::uint64_t fewest = 0;
    std::size_t next_count = 0;
    for (Step step = next_step(s, 0); step != Step::done; step = next_step(s, fewest)) {
        out.push_back(step);
        if (step == Step::count_rare || step == Step::count_past_window) {
            fewest = next_count < counts.size() ? counts[next_count++] : 0;
        }
        if (step == Step::scan_window) {
            s.floor = floor;
            s.full = full;
        }
        s.last = step;
        if (out.size() > 10) {
            ADD_FAILURE() << "the plan does not end";
            break;
        }
    }
    return out;
}

TEST(SearchPlan, WithoutASourceEveryRowBelowTheCursorIsChecked) {
    EXPECT_EQ(steps(false, false, {}), (std::vector<Step>{Step::read_all}));
}

TEST(SearchPlan, ASourceListingNothingEndsThePageBeforeAnyRowIsRead) {
    EXPECT_EQ(steps(true, true, {0}), (std::vector<Step>{Step::count_rare}));
    EXPECT_EQ(steps(true, false, {0}), (std::vector<Step>{Step::count_rare}));
}

TEST(SearchPlan, ARareSourceStartsThePage) {
    EXPECT_EQ(steps(true, true, {1}), (std::vector<Step>{Step::count_rare, Step::read_rare}));
    EXPECT_EQ(steps(true, false, {kRare - 1}),
              (std::vector<Step>{Step::count_rare, Step::read_rare}));
}

TEST(SearchPlan, AtTheBoundASourceIsCommonAndTheScanWindowComesFirst) {
    EXPECT_EQ(steps(true, false, {kRare}, /*floor=*/0),
              (std::vector<Step>{Step::count_rare, Step::scan_window}));
}

TEST(SearchPlan, AFullWindowOrNoRowBelowItEndsThePage) {
    EXPECT_EQ(steps(true, true, {kRare}, /*floor=*/500, /*full=*/true),
              (std::vector<Step>{Step::count_rare, Step::scan_window}));
    EXPECT_EQ(steps(true, true, {kRare}, /*floor=*/0, /*full=*/false),
              (std::vector<Step>{Step::count_rare, Step::scan_window}));
}

TEST(SearchPlan, PastTheWindowQsWordsGoOnAWindowOfIdsAtATimeWithoutCountingAgain) {
    EXPECT_EQ(steps(true, true, {kRare * 5}, /*floor=*/500),
              (std::vector<Step>{Step::count_rare, Step::scan_window, Step::walk_word_windows}));
}

TEST(SearchPlan, PastTheWindowWithoutQTheRarestSourceCountedFurtherGoesOn) {
    EXPECT_EQ(steps(true, false, {kRare, 12345}, /*floor=*/500),
              (std::vector<Step>{Step::count_rare, Step::scan_window, Step::count_past_window,
                                 Step::read_below_floor}));
}

TEST(SearchPlan, PastTheWindowASourceListingNothingBelowEndsThePage) {
    EXPECT_EQ(steps(true, false, {kRare, 0}, /*floor=*/500),
              (std::vector<Step>{Step::count_rare, Step::scan_window, Step::count_past_window}));
}

TEST(SearchPlan, EveryReadEndsThePage) {
    for (Step last : {Step::read_all, Step::read_rare, Step::walk_word_windows,
                      Step::read_below_floor, Step::done}) {
        PageState s;
        s.has_sources = s.has_words = true;
        s.floor = 500;
        s.last = last;
        EXPECT_EQ(next_step(s, kRare * 10), Step::done) << static_cast<int>(last);
    }
}

TEST(SearchPlan, TheTuningIsOneDefinitionTheCountPastTheWindowStartingTenfold) {
    static_assert(Tuning::kPastWindowRows == 10 * Tuning::kRareRows);
    static_assert(Tuning::kScanWindow < Tuning::kRareRows);
    // next_step is constexpr: the plan of a rare source is known at compile time.
    constexpr PageState counted{true, true, Step::count_rare, 0, false};
    static_assert(next_step(counted, 1) == Step::read_rare);
    SUCCEED();
}

}  // namespace
}  // namespace supportcrm::search
