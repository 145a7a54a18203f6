// The way to a page of an E10 search (extensions.md), tickets and customers alike, as a pure
// decision: next_step() says which statement kind runs next from what the steps before it
// found, so that the whole strategy is unit-tested without a database (as fcgi/master_state.h
// is). db/search/page.h runs the steps; docs/performance.md, "Ways to a search page", tells
// why the strategy is what it is.
#pragma once

#include <cstddef>
#include <cstdint>

namespace supportcrm::search {

// The search's tuning, one definition for both entities: the planner's (next_step()) and the
// statements' (db/search/reads.h tells how each is used).
struct Tuning {
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
    // Past the scan window with q: the first window of ids q's words are read in (then four
    // times wider each time: walk_id_windows).
    static constexpr std::uint64_t kFirstIdWindow = 10000;
    // The forms of a word (the shop's words it starts) bound one by one before 'word%' is.
    static constexpr std::size_t kWordForms = 16;
    // How many of q's words the page statements intersect by index ranges; the others are
    // checked with having_every_word(). Of a longer q, the first kRankedWords are counted to
    // put the rarest first.
    static constexpr std::size_t kIntersectedWords = 3;
    static constexpr std::size_t kRankedWords = 8;
    // having_every_word(): ids checked kCheckedIds at a time, words kFirstCheckedWords at a
    // time (then twice as many); a word's rows read instead of seeks up to
    // kRangeRowsPerCandidate per id left, at most kMostRangeRows.
    static constexpr std::size_t kCheckedIds = 1024;
    static constexpr std::size_t kFirstCheckedWords = 4;
    static constexpr std::uint64_t kRangeRowsPerCandidate = 32;
    static constexpr std::uint64_t kMostRangeRows = 131072;
    // rows_having_every_word(): the first and the largest batch of candidates read to be
    // checked for q's further words (growing eightfold).
    static constexpr std::uint64_t kFirstCandidates = 64;
    static constexpr std::uint64_t kMostCandidates = 32768;
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
            return fewest < Tuning::kRareRows ? Step::read_rare : Step::scan_window;
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
