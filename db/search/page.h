// The executor of db/search/plan.h: runs the steps next_step() chooses with the statements of
// one entity. The entity (tickets: ticket_repo.cpp, customers: customer_repo.cpp) is a small
// descriptor with
//   bool has_sources() const, bool has_words() const;
//   FewestRows fewest(std::uint64_t bound, bool grow);          // fewest_rows over its sources
//   std::uint64_t scan_floor(std::uint64_t before_id);          // the id kScanWindow rows down
//   void read(const std::size_t* source, std::uint64_t floor, std::uint64_t before_id,
//             std::uint64_t rows, std::vector<Row>& out);       // by a source, or the scan
//   void walk_windows(std::uint64_t floor, std::uint64_t rows, std::vector<Row>& out);
// so that both share one planner and each only says how its statements bind.
#pragma once

#include <cstdint>
#include <vector>

#include "db/search/plan.h"
#include "db/search/reads.h"

namespace supportcrm::search {

// Up to `rows` rows below `before_id`, newest first, the way next_step() leads.
template <class Row, class Entity>
std::vector<Row> run_page(Entity& e, std::uint64_t before_id, std::uint64_t rows) {
    std::vector<Row> out;
    PageState s;
    s.has_sources = e.has_sources();
    s.has_words = e.has_words();
    FewestRows rare;
    for (Step step = next_step(s, 0); step != Step::done; step = next_step(s, rare.rows)) {
        switch (step) {
            case Step::read_all:
                e.read(nullptr, 0, before_id, rows, out);
                break;
            case Step::count_rare:
                rare = e.fewest(Tuning::kRareRows, /*grow=*/false);
                break;
            case Step::read_rare:
                e.read(&rare.source, 0, before_id, rows, out);
                break;
            case Step::scan_window:
                s.floor = e.scan_floor(before_id);
                e.read(nullptr, s.floor, before_id, rows, out);
                s.full = out.size() >= rows;
                break;
            case Step::walk_word_windows:
                e.walk_windows(s.floor, rows, out);
                break;
            case Step::count_past_window:
                rare = e.fewest(Tuning::kPastWindowRows, /*grow=*/true);
                break;
            case Step::read_below_floor:
                e.read(&rare.source, 0, s.floor, rows - out.size(), out);
                break;
            case Step::start:
            case Step::done:
                break;
        }
        s.last = step;
    }
    return out;
}

}  // namespace supportcrm::search
