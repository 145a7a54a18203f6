// The way to a page of an E10 search (extensions.md), tickets and customers alike, as a pure
// decision: next_step() says which statement kind runs next from what the steps before it
// found, so that the whole strategy is unit-tested without a database (as fcgi/master_state.h
// is). db/search/page.h runs the steps; docs/performance.md, "Ways to a search page", tells
// why the strategy is what it is.
#pragma once

#include <cstddef>
#include <cstdint>

namespace supportcrm::search {

// The planner's tuning, one definition for both entities.
struct PlanTuning {
    // How many of q's words (longest first: usually the rarest), and of a ticket's tags, are
    // counted to choose where a page starts; the others are only checked.
    static constexpr std::size_t kCountedWords = 3;
    static constexpr std::size_t kCountedTags = 3;
    // The bound below which a source is rare: starting from it reads few rows whatever the
    // others' values.
    static constexpr std::uint64_t kRareRows = 3000;
    // When every source lists many rows, the newest this many are checked one by one first:
    // matches that are common together fill a page there.
    static constexpr std::uint64_t kScanWindow = 1000;
    // Past the scan window (without q), the sources are counted again from this bound,
    // growing tenfold while none is below it.
    static constexpr std::uint64_t kPastWindowRows = kRareRows * 10;
};

enum class Step {
    start,              // nothing ran yet (only as PageState::last)
    read_all,           // no source: every row below the cursor, checked one by one
    count_rare,         // each source counted up to kRareRows
    read_rare,          // the rarest source (below kRareRows) starts the page
    scan_window,        // the floor kScanWindow rows down, then the rows above it checked
    walk_word_windows,  // below the floor, q's words a window of ids at a time
    count_past_window,  // the sources counted from kPastWindowRows, growing
    read_below_floor,   // the rarest source of that count, below the floor
    done,               // the page is what was read
};

// What the steps so far found.
struct PageState {
    bool has_sources = false;  // a filter with an index of its own lists the rows
    bool has_words = false;    // q is given
    Step last = Step::start;   // the step just run
    std::uint64_t floor = 0;   // after scan_window: the window's lowest id (0: no row below)
    bool full = false;         // the page has all its rows
};

// The step after `s.last`; `fewest` is the row count of the rarest source when the last step
// counted them (0: a source lists nothing, so nothing matches every filter).
constexpr Step next_step(const PageState& s, std::uint64_t fewest) {
    switch (s.last) {
        case Step::start:
            return s.has_sources ? Step::count_rare : Step::read_all;
        case Step::count_rare:
            if (fewest == 0) {
                return Step::done;
            }
            return fewest < PlanTuning::kRareRows ? Step::read_rare : Step::scan_window;
        case Step::scan_window:
            if (s.full || s.floor == 0) {
                return Step::done;
            }
            // q's words first when given: their statements intersect them by index ranges,
            // while from a tag or a status each candidate's words would be probed one by one.
            return s.has_words ? Step::walk_word_windows : Step::count_past_window;
        case Step::count_past_window:
            return fewest == 0 ? Step::done : Step::read_below_floor;
        case Step::read_all:
        case Step::read_rare:
        case Step::walk_word_windows:
        case Step::read_below_floor:
        case Step::done:
            return Step::done;
    }
    return Step::done;
}

}  // namespace supportcrm::search
