// The reads of an E10 search (extensions.md) that tickets and customers share: counting a
// filter's rows, the scan floor, the id windows past it, the forms of q's words and the checks
// of q's further words. The way to a page is db/search/plan.h's, run by db/search/page.h; the
// statements are db/search/sql.h's; the writes of the search data are db/search/upkeep.h's.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "db/db.h"
#include "db/search/plan.h"

namespace supportcrm {

// --- Reads ----------------------------------------------------------------------------------

// A filter with an index of its own that lists the shop's rows having its value (a word of q,
// a tag, a set of statuses): `count` binds shop, `values`, a bound and counts those rows up to
// the bound; `page` starts a page from those rows, binding first shop and `page_values` (or,
// shop_per_value, shop before each of them).
struct SearchSource {
    Stmt count;
    Stmt page;
    std::vector<std::string> values;
    std::vector<std::string> page_values;
    bool shop_per_value = false;
};
// Which source lists the fewest rows: each is counted up to `bound` (the rarest below it
// wins), and while none is below, again up to ten times the bound (so the counting reads at
// most about ten times the rarest one's rows per source). rows: its count; 0 means a source
// lists nothing, so no row matches every filter.
struct FewestRows {
    std::size_t source = 0;
    std::uint64_t rows = 0;
};
FewestRows fewest_rows(Db& db, std::uint64_t shop_id, const std::vector<SearchSource>& sources,
                       std::uint64_t bound, bool grow);
// The id search::Tuning::kScanWindow rows below before_id in the shop (0: fewer are left):
// `floor` binds shop, before_id and the window less one (ticket_scan_floor, customer_scan_floor).
std::uint64_t scan_floor(Db& db, Stmt floor, std::uint64_t shop_id, std::uint64_t before_id);

// --- Past the scan window: q's words a window of ids at a time -----------------------------

// Past the scan window of a search, q's words (up to kIntersectedWords) are read one window of
// ids at a time (db/search/sql.h, SUPPORTCRM_ROWS_IN_WINDOW), from the window's floor down:
// kFirstIdWindow ids, then four times as many each time, until the page is full. So the rows
// read are those of the windows the page needs, not the words' whole ranges, which a shop whose
// newest thousands of rows match nothing would read for every page (docs/performance.md,
// "Past the scan window"). walk_id_windows calls read_window(low, high) for [low, high) while
// it answers true (more rows are wanted) and low > 0.
void walk_id_windows(std::uint64_t floor,
                     const std::function<bool(std::uint64_t low, std::uint64_t high)>& read_window);

// A word of q as SUPPORTCRM_ROWS_IN_WINDOW binds it: its forms (the shop's words it starts:
// order, ordered, orders) and the word itself as LIKE's pattern (no wildcard: one more exact
// range), or when it has more forms than kWordForms the word itself and 'word%'. (LIKE NULL
// is no empty range to the server: it read the shop's whole range.) `next_form` binds shop, a
// word to start at, the word; it answers the first of the shop's words from there that the
// word starts (ticket_word_next_form, customer_word_next_form): one seek each.
struct WindowedWord {
    std::vector<std::string> forms;
    std::string pattern;
};
std::vector<WindowedWord> windowed_words(Db& db, Stmt next_form, std::uint64_t shop_id,
                                         const std::vector<std::string>& words);
// Binds SUPPORTCRM_ROWS_IN_WINDOW's placeholders for each word, from `i` on.
void bind_windowed_words(sql::PreparedStatement& st, unsigned& i, std::uint64_t shop_id,
                         const std::vector<WindowedWord>& words, std::uint64_t low,
                         std::uint64_t high);

// --- Queries of more words than the statements intersect (extensions.md E10 sets no limit) --

// q's words (words::query(), longest first) in the order to use them: the first kRankedWords
// counted (`count` binds shop, 'word%', a bound, as ticket_word_count does) up to
// search::Tuning::kRareRows (db/search/plan.h) each and put rarest first, the others after them
// as they came. nullopt: a counted word starts no word of the shop, so nothing matches.
std::optional<std::vector<std::string>> rank_words(Db& db, std::uint64_t shop_id, Stmt count,
                                                   const std::vector<std::string>& words);

// The statements that check candidates for q's further words, two ways (db/search/sql.h):
// `seek` one seek per (candidate, word) (ticket_words_check), `rows` the ids of a word's rows
// in the shop between two ids, up to a bound (ticket_word_tickets); the customer_* ones for
// customers.
struct WordChecks {
    Stmt seek;
    Stmt rows;
};

// Of `ids` (newest first), the first `needed` (in that order) whose words start with every one
// of `words`. Each word, in order, has the ids of its rows between the oldest and the newest
// id still left read (`rows`: the server reads the smaller of the word's index range and the
// primary key's between those ids, and sends only the rows between them), up to
// kRangeRowsPerCandidate per id still left (at most kMostRangeRows): when they are all, the
// ids left are looked up in them, which costs less than a seek per id (a row ~0.5 us, a seek
// 10-30 us: it plans its range anew each time); otherwise the word waits for the seeks. Those
// take the ids kCheckedIds at a time and the words kFirstCheckedWords at a time, then twice
// as many each time, an id leaving at the first chunk of words it fails, and stop once
// `needed` ids passed. So the rows sent are, for each (id, word), at most
// kRangeRowsPerCandidate rows or (when the word had more) that many and a seek; the rows read
// for a word, the smaller of the two ranges.
std::vector<std::uint64_t> having_every_word(Db& db, const WordChecks& checks,
                                             std::uint64_t shop_id,
                                             const std::vector<std::uint64_t>& ids,
                                             const std::vector<std::string>& words,
                                             std::size_t needed);

// E10's q of more words than the statements intersect (E10 sets no limit on their number),
// for tickets and customers alike: `read_candidates(before_id, n)` reads up to n rows (each
// with an `id`) below before_id, newest first, that match the other filters and q's three
// rarest counted words (intersected by index ranges, bounded as that search is); batches of
// them, growing eightfold, are checked for the `rest` of the words (having_every_word: by
// their rows or seeks), until `rows` passed or no row is left. The rows read: those of the
// three-word search per batch, plus for each (candidate checked, word) at most
// kRangeRowsPerCandidate rows of the word among the batch's ids (read from the smaller of
// the word's index range and the words of the tickets between the batch's ids) and, for a
// word with more, a seek.
template <class Row, class ReadCandidates>
std::vector<Row> rows_having_every_word(Db& db, const WordChecks& checks, std::uint64_t shop_id,
                                        const std::vector<std::string>& rest,
                                        std::uint64_t before_id, std::uint64_t rows,
                                        ReadCandidates read_candidates) {
    std::vector<Row> out;
    std::uint64_t batch =
        search::Tuning::kFirstCandidates > rows ? search::Tuning::kFirstCandidates : rows;
    while (out.size() < rows) {
        std::vector<Row> candidates = read_candidates(before_id, batch);
        std::vector<std::uint64_t> ids;
        ids.reserve(candidates.size());
        for (const Row& r : candidates) {
            ids.push_back(r.id);
        }
        const std::vector<std::uint64_t> kept =
            having_every_word(db, checks, shop_id, ids, rest, rows - out.size());
        std::size_t k = 0;
        for (Row& r : candidates) {  // both newest first
            if (k < kept.size() && kept[k] == r.id) {
                out.push_back(std::move(r));
                ++k;
            }
        }
        if (candidates.size() < batch) {
            break;  // nothing below
        }
        before_id = ids.back();
        batch = batch * 8 < search::Tuning::kMostCandidates ? batch * 8
                                                            : search::Tuning::kMostCandidates;
    }
    return out;
}

}  // namespace supportcrm
