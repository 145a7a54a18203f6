#include "db/search/reads.h"

#include <algorithm>
#include <functional>
#include <optional>
#include <string_view>
#include <unordered_set>

#include "common/log.h"
#include "common/words.h"
#include "db/search/plan.h"
#include "db/search/sql.h"
#include "db/statement_params.h"

namespace supportcrm {

namespace {

std::uint64_t count_rows(Db& db, std::uint64_t shop_id, const SearchSource& source,
                         std::uint64_t bound) {
    return db.run_positional(source.count, [&](sql::PreparedStatement& st) {
        unsigned i = 1;
        st.setUInt64(i++, shop_id);
        for (const std::string& v : source.values) {
            st.setString(i++, v);
        }
        st.setUInt64(i++, bound);
        ResultSetPtr rs(st.executeQuery());
        return rs->next() ? rs->getUInt64(1) : 0;
    });
}

}  // namespace

std::optional<std::vector<std::string>> rank_words(Db& db, std::uint64_t shop_id, Stmt count,
                                                   const std::vector<std::string>& words) {
    const std::size_t counted = std::min(words.size(), search::Tuning::kRankedWords);
    std::vector<std::pair<std::uint64_t, std::size_t>> rows;  // (count, index in words)
    for (std::size_t i = 0; i < counted; ++i) {
        const SearchSource source{count, count, {words[i] + "%"}, {}, false};
        const std::uint64_t n = count_rows(db, shop_id, source, search::Tuning::kRareRows);
        if (n == 0) {
            return std::nullopt;
        }
        rows.emplace_back(n, i);
    }
    std::stable_sort(rows.begin(), rows.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<std::string> out;
    out.reserve(words.size());
    for (const auto& r : rows) {
        out.push_back(words[r.second]);
    }
    out.insert(out.end(), words.begin() + static_cast<std::ptrdiff_t>(counted), words.end());
    return out;
}

namespace {

std::string json_ids(const std::vector<std::uint64_t>& ids) {
    std::string out = "[";
    for (std::uint64_t id : ids) {
        if (out.size() > 1) {
            out.push_back(',');
        }
        out.append(std::to_string(id));
    }
    out.push_back(']');
    return out;
}

// The ids from `lowest` to `highest` of the shop's rows having a word that starts with `word`,
// up to `bound` + 1 of them (more than `bound`: the word has more rows there).
std::vector<std::uint64_t> ids_of_word(Db& db, Stmt rows, std::uint64_t shop_id,
                                       const std::string& word, std::uint64_t lowest,
                                       std::uint64_t highest, std::uint64_t bound) {
    return db.run(bound_one_of<Stmt::ticket_word_tickets, Stmt::customer_word_customers>(
                      rows, shop_id, word + "%", lowest, highest, bound + 1),
                  [&](sql::PreparedStatement& st) {
                      ResultSetPtr rs(st.executeQuery());
                      std::vector<std::uint64_t> out;
                      out.reserve(rs->rowsCount());
                      while (rs->next()) {
                          out.push_back(rs->getUInt64(1));
                      }
                      return out;
                  });
}

// The ids of `ids` having every one of `words`: one statement, a seek per (id, word).
std::unordered_set<std::uint64_t> having_words(Db& db, Stmt check, std::uint64_t shop_id,
                                               const std::vector<std::uint64_t>& ids,
                                               const std::vector<std::string>& words) {
    return db.run(bound_one_of<Stmt::ticket_words_check, Stmt::customer_words_check>(
                      check, json_ids(ids), words::json_array(words), shop_id, words.size()),
                  [&](sql::PreparedStatement& st) {
                      ResultSetPtr rs(st.executeQuery());
                      std::unordered_set<std::uint64_t> out;
                      while (rs->next()) {
                          out.insert(rs->getUInt64(1));
                      }
                      return out;
                  });
}

// having_every_word's seeks: the first `needed` of `ids` having every one of `words`.
std::vector<std::uint64_t> having_every_word_by_seeks(Db& db, Stmt check, std::uint64_t shop_id,
                                                      const std::vector<std::uint64_t>& ids,
                                                      const std::vector<std::string>& words,
                                                      std::size_t needed) {
    std::vector<std::uint64_t> out;
    for (std::size_t from = 0; from < ids.size() && out.size() < needed;
         from += search::Tuning::kCheckedIds) {
        std::vector<std::uint64_t> left(
            ids.begin() + static_cast<std::ptrdiff_t>(from),
            ids.begin() + static_cast<std::ptrdiff_t>(
                              std::min(ids.size(), from + search::Tuning::kCheckedIds)));
        // Few words first, then twice as many each time: most candidates leave at their first
        // missing word, so the seeks stay near (candidates x words they have), in about
        // log2(words) statements for those that have many.
        std::size_t size = search::Tuning::kFirstCheckedWords;
        for (std::size_t w = 0; w < words.size() && !left.empty(); w += size, size *= 2) {
            const std::vector<std::string> chunk(
                words.begin() + static_cast<std::ptrdiff_t>(w),
                words.begin() + static_cast<std::ptrdiff_t>(std::min(words.size(), w + size)));
            const std::unordered_set<std::uint64_t> passed =
                having_words(db, check, shop_id, left, chunk);
            std::erase_if(left, [&](std::uint64_t id) { return !passed.contains(id); });
        }
        for (std::uint64_t id : left) {  // still newest first
            if (out.size() < needed) {
                out.push_back(id);
            }
        }
    }
    return out;
}

}  // namespace

std::vector<std::uint64_t> having_every_word(Db& db, const WordChecks& checks,
                                             std::uint64_t shop_id,
                                             const std::vector<std::uint64_t>& ids,
                                             const std::vector<std::string>& words,
                                             std::size_t needed) {
    std::vector<std::uint64_t> left = ids;  // newest first: descending
    std::vector<std::string> sought;
    for (const std::string& word : words) {
        if (left.empty()) {
            return left;
        }
        const std::uint64_t bound = std::min<std::uint64_t>(
            left.size() * search::Tuning::kRangeRowsPerCandidate, search::Tuning::kMostRangeRows);
        const std::vector<std::uint64_t> having =
            ids_of_word(db, checks.rows, shop_id, word, left.back(), left.front(), bound);
        if (having.size() > bound) {
            sought.push_back(word);
            continue;
        }
        std::vector<bool> kept(left.size(), false);
        for (std::uint64_t id : having) {
            const auto at = std::lower_bound(left.begin(), left.end(), id, std::greater<>());
            if (at != left.end() && *at == id) {
                kept[static_cast<std::size_t>(at - left.begin())] = true;
            }
        }
        std::size_t to = 0;
        for (std::size_t from = 0; from < left.size(); ++from) {
            if (kept[from]) {
                left[to++] = left[from];
            }
        }
        left.resize(to);
    }
    if (sought.empty()) {
        left.resize(std::min(left.size(), needed));
        return left;
    }
    return having_every_word_by_seeks(db, checks.seek, shop_id, left, sought, needed);
}

std::uint64_t scan_floor(Db& db, Stmt floor, std::uint64_t shop_id, std::uint64_t before_id) {
    const std::uint64_t window_end = search::Tuning::kScanWindow - 1;
    return db.run(bound_one_of<Stmt::ticket_scan_floor, Stmt::customer_scan_floor>(
                      floor, shop_id, before_id, window_end),
                  [&](sql::PreparedStatement& st) {
                      ResultSetPtr rs(st.executeQuery());
                      return rs->next() ? rs->getUInt64(1) : std::uint64_t{0};
                  });
}

FewestRows fewest_rows(Db& db, std::uint64_t shop_id, const std::vector<SearchSource>& sources,
                       std::uint64_t bound, bool grow) {
    // Past this a shop is bigger than anything measured: the first source is as good as any.
    constexpr std::uint64_t kLargestBound = 100'000'000;
    for (;;) {
        FewestRows best{0, bound};
        for (std::size_t i = 0; i < sources.size(); ++i) {
            const std::uint64_t n = count_rows(db, shop_id, sources[i], bound);
            if (n == 0) {
                return {i, 0};
            }
            if (n < best.rows) {
                best = {i, n};
            }
        }
        if (best.rows < bound || !grow || bound >= kLargestBound) {
            return best;
        }
        bound *= 10;
    }
}

void walk_id_windows(
    std::uint64_t floor,
    const std::function<bool(std::uint64_t low, std::uint64_t high)>& read_window) {
    std::uint64_t width = search::Tuning::kFirstIdWindow;
    for (std::uint64_t high = floor; high > 0;) {
        const std::uint64_t low = high > width ? high - width : 0;
        if (!read_window(low, high)) {
            return;
        }
        high = low;
        constexpr std::uint64_t kWidest = std::uint64_t{1} << 62;
        width = width >= kWidest / 4 ? kWidest : width * 4;  // never wraps to 0
    }
}

namespace {

// One string_view: begin and end of the literal itself could name two copies of it (clang).
constexpr std::string_view kWordFormsList = SUPPORTCRM_WORD_FORMS;
static_assert(std::count(kWordFormsList.begin(), kWordFormsList.end(), '?') ==
              search::Tuning::kWordForms);

// The shop's words that `word` starts (its forms), one seek each, in order; nullopt when there
// are more than kWordForms.
std::optional<std::vector<std::string>> word_forms(Db& db, Stmt next_form, std::uint64_t shop_id,
                                                   const std::string& word) {
    std::vector<std::string> forms;
    std::string from = word;
    while (true) {
        std::optional<std::string> next = db.run(
            bound_one_of<Stmt::ticket_word_next_form, Stmt::customer_word_next_form>(
                next_form, shop_id, from, word),
            [&](sql::PreparedStatement& st) {
                ResultSetPtr rs(st.executeQuery());
                return rs->next() ? std::optional<std::string>(rs->getString(1)) : std::nullopt;
            });
        if (!next) {
            return forms;
        }
        if (forms.size() == search::Tuning::kWordForms) {
            return std::nullopt;
        }
        // The next form is at or above this one followed by '!': above it, since utf8mb4_bin
        // pads the shorter string with spaces (U+0020) before comparing, and below every
        // longer word it starts, whose next character is a letter or a digit.
        from = *next + '!';
        forms.push_back(std::move(*next));
    }
}

}  // namespace

std::vector<WindowedWord> windowed_words(Db& db, Stmt next_form, std::uint64_t shop_id,
                                         const std::vector<std::string>& words) {
    std::vector<WindowedWord> out;
    for (std::size_t i = 0; i < words.size() && i < search::Tuning::kIntersectedWords; ++i) {
        const std::string& word = words[i];
        std::optional<std::vector<std::string>> forms = word_forms(db, next_form, shop_id, word);
        WindowedWord& w = out.emplace_back();
        w.pattern = forms ? word : word + "%";
        w.forms = forms && !forms->empty() ? std::move(*forms) : std::vector<std::string>{word};
        w.forms.resize(search::Tuning::kWordForms, w.forms.front());  // repeats match alike
    }
    return out;
}

void bind_windowed_words(sql::PreparedStatement& st, unsigned& i, std::uint64_t shop_id,
                         const std::vector<WindowedWord>& words, std::uint64_t low,
                         std::uint64_t high) {
    for (const WindowedWord& word : words) {
        st.setUInt64(i++, shop_id);
        for (const std::string& form : word.forms) {
            st.setString(i++, form);
        }
        st.setString(i++, word.pattern);
        st.setUInt64(i++, low);
        st.setUInt64(i++, high);
    }
}

}  // namespace supportcrm
