#include "db/survey_repo.h"

#include <cppconn/datatype.h>

#include <algorithm>
#include <charconv>
#include <iterator>
#include <map>
#include <stdexcept>
#include <utility>

#include "db/csat_spans.h"
#include "db/statement_params.h"
#include "db/survey_sql.h"

namespace supportcrm {
namespace {

std::string day_of(timeutil::Millis ms) {
    return timeutil::format_db(timeutil::start_of_utc_day(ms)).substr(0, 10);
}

// The run of SUPPORTCRM_SURVEY_CUSTOMER_COLUMNS in a row.
SurveyCustomer read_survey_customer(const sql::ResultSet& rs, ColumnRun at) {
    using namespace survey_customer_col;
    return SurveyCustomer{rs.getUInt64(at[id]), optional_string(rs, at[email]),
                          optional_string(rs, at[name]), optional_string(rs, at[phone])};
}

// The run of SUPPORTCRM_SURVEY_COLUMNS_WITH(domain) in a row.
SurveyRow read_survey(const sql::ResultSet& rs, ColumnRun at) {
    using namespace survey_col;
    SurveyRow s;
    s.id = rs.getUInt64(at[id]);
    s.mark = rs.getInt(at[mark]);
    s.comment = optional_string(rs, at[comment]);
    s.graph_nodes_json = rs.getString(at[graph_nodes]);
    s.node_ids_json = rs.getString(at[node_ids]);
    if (!rs.isNull(at[message_id])) {
        s.message_id = rs.getInt64(at[message_id]);
    }
    s.created_at = iso_datetime(rs, at[created_at]);
    s.shop_domain = rs.getString(at[shop_domain]);
    s.conversation_id = rs.getUInt64(at[conversation_id]);
    s.customer = read_survey_customer(rs, {at[customer], kSurveyCustomerColumns});
    return s;
}

// The counts come from whole days [first_whole_day, last_day] of the daily table, plus raw rows
// of [start, end of start's day] when start is not a midnight. Empty ranges are passed as
// upper < lower, which matches nothing.
struct StatsRanges {
    std::string whole_from, whole_to;  // DATE
    std::string raw_from, raw_to;      // DATETIME(3)
};

StatsRanges stats_ranges(const CsatQuery& q) {
    using timeutil::kMillisPerDay;
    timeutil::Millis first_day = timeutil::start_of_utc_day(q.start);
    bool partial_first_day = q.start != first_day;
    timeutil::Millis first_whole_day = partial_first_day ? first_day + kMillisPerDay : first_day;
    StatsRanges r;
    if (first_whole_day <= q.end) {
        r.whole_from = day_of(first_whole_day);
        r.whole_to = day_of(q.end);
    } else {
        // No whole day in the window; this empty range stays within DATETIME's years even when
        // the window is the last day it can hold.
        r.whole_from = "9999-12-31";
        r.whole_to = "1000-01-01";
    }
    r.raw_from = timeutil::format_db(q.start);
    r.raw_to = partial_first_day ? timeutil::format_db(std::min(first_whole_day - 1, q.end))
                                 : timeutil::format_db(q.start - 1);  // empty
    return r;
}

// "n1 n2 n3 n4 n5" (marks 1..5) added to by_mark; an empty or NULL text adds nothing (no rows).
void add_counts_text(const sql::ResultSet& rs, unsigned column,
                     std::array<std::uint64_t, 6>& by_mark) {
    if (rs.isNull(column)) {
        return;
    }
    sql::SQLString text = rs.getString(column);
    const char* p = text.c_str();
    const char* end = p + text.length();
    for (std::size_t mark = 1; mark <= 5 && p < end; ++mark) {
        std::uint64_t n = 0;
        auto [next, ec] = std::from_chars(p, end, n);
        if (ec != std::errc()) {
            throw std::runtime_error("csat_page_for_key: unexpected counts text");
        }
        by_mark[mark] += n;
        p = next < end ? next + 1 : next;  // the separating space
    }
}

std::vector<SurveyRow> page_of(Db& db, Stmt stmt, std::uint64_t scope_id, const std::string& from,
                               const std::string& to, std::uint64_t limit, std::uint64_t offset) {
    std::vector<SurveyRow> rows;
    db.run(bound_one_of<Stmt::csat_page_shop, Stmt::csat_page_brand>(stmt, scope_id, from, to,
                                                                     limit, offset),
           [&](sql::PreparedStatement& st) {
               ResultSetPtr rs(st.executeQuery());
               while (rs->next()) {
                   rows.push_back(read_survey(*rs, layout::survey_page::survey));
               }
           });
    return rows;
}

// Pages up to this deep are merged from each shop's own index range; deeper ones are sorted
// by the database as a whole (slower, but they do not pull offset + limit rows per shop).
constexpr std::uint64_t kBrandMergeDepth = 1000;

// Brand scope: MariaDB cannot merge the per-shop ranges of ix_surveys_shop_created, and sorting
// every survey of the brand's window takes seconds at a million rows. Each shop's newest
// offset + limit rows are read by range scan instead, and merged here.
std::vector<std::uint64_t> brand_shop_ids(Db& db, std::uint64_t brand_id) {
    return db.run(bound<Stmt::brand_shop_ids>(brand_id), [&](sql::PreparedStatement& st) {
        ResultSetPtr rs(st.executeQuery());
        std::vector<std::uint64_t> ids;
        while (rs->next()) {
            ids.push_back(rs->getUInt64(layout::brand_shop_ids::id));
        }
        return ids;
    });
}

// Adds one shop's counts per mark in the window (whole days from survey_daily_counts, the
// partial first day from its rows).
void add_shop_counts(Db& db, std::uint64_t shop_id, const StatsRanges& r,
                     std::array<std::uint64_t, 6>& by_mark) {
    db.run(bound<Stmt::csat_stats_shop>(shop_id, r.whole_from, r.whole_to, shop_id, r.raw_from,
                                        r.raw_to),
           [&](sql::PreparedStatement& st) {
               ResultSetPtr rs(st.executeQuery());
               while (rs->next()) {
                   int mark = rs->getInt(layout::csat_stats_shop::mark);
                   if (mark >= 1 && mark <= 5) {
                       by_mark[static_cast<std::size_t>(mark)] +=
                           rs->getUInt64(layout::csat_stats_shop::count);
                   }
               }
           });
}

std::vector<SurveyRow> brand_page(Db& db, const CsatQuery& q,
                                  const std::vector<std::uint64_t>& shops, const std::string& from,
                                  const std::string& to) {
    if (q.offset + q.limit > kBrandMergeDepth) {
        return page_of(db, Stmt::csat_page_brand, q.scope_id, from, to, q.limit, q.offset);
    }
    std::vector<SurveyRow> rows;
    for (std::uint64_t shop : shops) {
        std::vector<SurveyRow> part =
            page_of(db, Stmt::csat_page_shop, shop, from, to, q.offset + q.limit, 0);
        std::move(part.begin(), part.end(), std::back_inserter(rows));
    }
    // created_at is fixed-width ISO 8601, so text order is time order.
    std::sort(rows.begin(), rows.end(), [](const SurveyRow& a, const SurveyRow& b) {
        return a.created_at != b.created_at ? a.created_at > b.created_at : a.id > b.id;
    });
    if (rows.size() <= q.offset) {
        return {};
    }
    std::vector<SurveyRow> page;
    auto first = rows.begin() + static_cast<std::ptrdiff_t>(q.offset);
    auto last = rows.size() - q.offset > q.limit ? first + static_cast<std::ptrdiff_t>(q.limit)
                                                 : rows.end();
    std::move(first, last, std::back_inserter(page));
    return page;
}

}  // namespace

SurveyRow row_of_new_survey(const RecordedSurvey& recorded, const NewSurvey& survey,
                            std::string shop_domain) {
    SurveyRow row;
    static_cast<SurveyFields&>(row) = survey;
    row.id = recorded.id;
    row.created_at = timeutil::format_iso(survey.created_at);
    row.shop_domain = std::move(shop_domain);
    row.customer = recorded.customer;
    return row;
}

namespace {

bool attach_to_customer(Db& db, std::uint64_t customer_id) {
    return db.run(bound<Stmt::customer_attach>(customer_id),
                  [&](sql::PreparedStatement& st) { return st.executeUpdate() > 0; });
}

// The conversation's customer, and its channel and agent as they are now (E4: the survey
// keeps them).
struct SurveyConversation {
    SurveyCustomer customer;
    std::string channel;
    std::optional<std::uint64_t> assigned_to;
};

std::optional<SurveyConversation> find_survey_conversation(Db& db, std::uint64_t shop_id,
                                                           std::uint64_t conversation_id) {
    return db.run(bound<Stmt::survey_conversation>(conversation_id, shop_id),
                  [&](sql::PreparedStatement& st) -> std::optional<SurveyConversation> {
                      ResultSetPtr rs(st.executeQuery());
                      if (!rs->next()) {
                          return std::nullopt;
                      }
                      using namespace layout::survey_conversation;
                      return SurveyConversation{read_survey_customer(*rs, customer),
                                                rs->getString(channel),
                                                optional_uint(*rs, assigned_to)};
                  });
}

// The survey's row; its id.
std::uint64_t insert_survey(Db& db, std::uint64_t shop_id, const NewSurvey& s,
                            const SurveyConversation& conversation) {
    return db.run(bound<Stmt::survey_insert>(
                      shop_id, s.conversation_id, conversation.customer.id, s.mark, s.comment,
                      s.message_id, s.graph_nodes_json, s.node_ids_json, conversation.channel,
                      conversation.assigned_to, timeutil::format_db(s.created_at)),
                  [&](sql::PreparedStatement& st) {
                      ResultSetPtr rs(st.executeQuery());
                      rs->next();
                      return rs->getUInt64(layout::returned_id::id);
                  });
}

// The tallies the statistics read instead of the rows: the shop's count of the day and mark
// (survey_daily_counts) and of each aligned span that holds the survey (survey_span_counts).
void count_survey(Db& db, std::uint64_t shop_id, const NewSurvey& s, std::uint64_t survey_id) {
    db.run(bound<Stmt::survey_day_count_bump>(shop_id, day_of(s.created_at), s.mark),
           [&](sql::PreparedStatement& st) { st.executeUpdate(); });
    db.run(bound<Stmt::survey_span_bump>(survey_id),
           [&](sql::PreparedStatement& st) { st.executeUpdate(); });
}

}  // namespace

std::optional<RecordedSurvey> record_survey(Db& db, std::uint64_t shop_id, const NewSurvey& s) {
    Transaction tx(db);
    std::optional<SurveyConversation> conversation =
        find_survey_conversation(db, shop_id, s.conversation_id);
    if (!conversation) {
        return std::nullopt;
    }
    const SurveyCustomer& customer = conversation->customer;
    RecordedSurvey out{0, customer};
    // An erased customer reads as id 0 (its `customer` is null) and takes no survey: its comment
    // would be personal data again. Otherwise the customer's row changes (customer_attach,
    // sql/011), which orders the survey against a merge or erasure on a Galera cluster too.
    if (customer.id == 0 || !attach_to_customer(db, customer.id)) {
        out.customer_erased = true;
        return out;
    }
    out.id = insert_survey(db, shop_id, s, *conversation);
    count_survey(db, shop_id, s, out.id);
    tx.commit();
    return out;
}

CsatResult query_csat(Db& db, const CsatQuery& q) {
    CsatResult out;
    Transaction tx(db, /*read_only=*/true);
    std::string from = timeutil::format_db(q.start);
    std::string to = timeutil::format_db(q.end);
    StatsRanges ranges = stats_ranges(q);
    if (q.brand) {
        std::vector<std::uint64_t> shops = brand_shop_ids(db, q.scope_id);
        out.surveys = brand_page(db, q, shops, from, to);
        // Per shop, like the page: an IN (subquery) over the brand's shops made MariaDB
        // scan surveys for the partial-day part (100+ ms at a million rows).
        for (std::uint64_t shop : shops) {
            add_shop_counts(db, shop, ranges, out.by_mark);
        }
    } else {
        out.surveys = page_of(db, Stmt::csat_page_shop, q.scope_id, from, to, q.limit, q.offset);
        add_shop_counts(db, q.scope_id, ranges, out.by_mark);
    }
    tx.commit();
    return out;
}

Keyed<CsatResult> query_shop_csat_for_key(Db& db, const std::string& key_digest,
                                          const CsatQuery& q) {
    StatsRanges ranges = stats_ranges(q);
    return db.run(bound<Stmt::csat_page_for_key>(
                      ranges.whole_from, ranges.whole_to, ranges.raw_from, ranges.raw_to,
                      timeutil::format_db(q.start), timeutil::format_db(q.end),
                      KeyDigest(key_digest), q.limit, q.offset),
                  [&](sql::PreparedStatement& st) {
                      ResultSetPtr rs(st.executeQuery());
                      Keyed<CsatResult> found(KeyJoin::only_with_record);
                      CsatResult* page = nullptr;
                      using namespace layout::csat_page_for_key;
                      while (rs->next()) {
                          if (!page) {
                              found.set_key(read_keyed_shop(*rs, key));
                              page = &found.emplace_record();
                              add_counts_text(*rs, day_counts, page->by_mark);
                              add_counts_text(*rs, raw_counts, page->by_mark);
                          }
                          page->surveys.push_back(read_survey(*rs, survey));
                      }
                      return found;
                  });
}

}  // namespace supportcrm

// ---- E4 (extensions.md): filters, groups, the export.

namespace supportcrm {
namespace {

unsigned bind_filter(sql::PreparedStatement& st, unsigned i, const SurveyFilter& f) {
    st.setUInt(i, f.marks);
    bind_optional(st, i + 1, f.channel);
    bind_optional(st, i + 2, f.channel);
    bind_optional(st, i + 3, f.assigned_to);
    bind_optional(st, i + 4, f.assigned_to);
    bind_optional(st, i + 5, f.customer_id);
    bind_optional(st, i + 6, f.customer_id);
    return i + 7;
}

// Survey rows (created_at, mark, channel, assigned_to) of one of the csat_count_*rows
// statements, counted into the tally when they pass the filter; tag_of gives a row's tag.
template <typename TagOf>
void tally_rows(sql::ResultSet& rs, const SurveyFilter& f, Tally& tally, TagOf tag_of) {
    using namespace layout::csat_count_rows;
    while (rs.next()) {
        std::string channel_text = rs.getString(channel);
        std::optional<std::uint64_t> agent = optional_uint(rs, assigned_to);
        if ((f.channel && *f.channel != channel_text) ||
            (f.assigned_to && f.assigned_to != agent)) {
            continue;
        }
        auto tag = tag_of(rs.getInt64(created_at));
        if (!tag) {
            continue;
        }
        int m = rs.getInt(mark);
        if (m >= 1 && m <= 5) {
            tally.at(*tag, channel_text, agent.value_or(0))[static_cast<std::size_t>(m)] += 1;
        }
    }
}

Stmt span_statement(CountKey key) {
    switch (key) {
        case CountKey::channel:
            return Stmt::csat_span_counts_by_channel;
        case CountKey::agent:
            return Stmt::csat_span_counts_by_agent;
        case CountKey::tag:
        default:
            return Stmt::csat_span_counts_by_tag;
    }
}

// The rollup of survey_span_counts a request reads (sql/005): channels summed unless it
// filters or groups by channel, agents summed unless it filters or groups by agent.
unsigned rollup_for(const SurveyFilter& f, CountKey key) {
    const bool by_channel = f.channel || key == CountKey::channel;
    const bool by_agent = f.assigned_to || key == CountKey::agent;
    return (by_channel ? 0u : 1u) | (by_agent ? 0u : 2u);
}

void count_spans(Db& db, std::uint64_t shop, const std::string& json, const SurveyFilter& f,
                 CountKey key, Tally& tally) {
    db.run(bound_one_of<Stmt::csat_span_counts_by_tag, Stmt::csat_span_counts_by_channel,
                        Stmt::csat_span_counts_by_agent>(span_statement(key), json, shop,
                                                         rollup_for(f, key), f.channel, f.channel,
                                                         f.assigned_to, f.assigned_to),
           [&](sql::PreparedStatement& st) {
               ResultSetPtr rs(st.executeQuery());
               using namespace layout::csat_span_counts;
               while (rs->next()) {
                   std::array<std::uint64_t, 6>* counts = nullptr;
                   switch (key) {
                       case CountKey::tag:
                           counts = &tally.at(rs->getUInt(layout::csat_span_counts::key), {}, 0);
                           break;
                       case CountKey::channel:
                           counts = &tally.at(
                               0, std::string(rs->getString(layout::csat_span_counts::key)), 0);
                           break;
                       case CountKey::agent:
                           counts = &tally.at(0, {}, rs->getUInt64(layout::csat_span_counts::key));
                           break;
                   }
                   for (unsigned mark = 1; mark <= 5; ++mark) {
                       (*counts)[mark] += rs->getUInt64(marks[mark - 1]);
                   }
               }
           });
}

SurveyRow read_export_row(const sql::ResultSet& rs) {
    using namespace layout::survey_export;
    SurveyRow row = read_survey(rs, survey);
    row.channel = rs.getString(channel);
    row.assigned_to = optional_uint(rs, assigned_to);
    return row;
}

// "2026-11-22T01:25:52.123Z" → "2026-11-22 01:25:52.123" (DATETIME(3) text).
std::string db_text_of_iso(const std::string& iso) {
    std::string t = iso;
    if (t.size() > 10 && t[10] == 'T') {
        t[10] = ' ';
    }
    if (!t.empty() && t.back() == 'Z') {
        t.pop_back();
    }
    return t;
}

bool newer(const SurveyRow& a, const SurveyRow& b) {
    return a.created_at != b.created_at ? a.created_at > b.created_at : a.id > b.id;
}

}  // namespace

std::vector<std::uint64_t> scope_shops(Db& db, std::uint64_t shop_id,
                                       std::optional<std::uint64_t> brand_id) {
    if (!brand_id) {
        return {shop_id};
    }
    return brand_shop_ids(db, *brand_id);
}

std::vector<GroupCounts> count_surveys(Db& db, const std::vector<std::uint64_t>& shops,
                                       const std::vector<WindowPart>& parts, const SurveyFilter& f,
                                       CountKey key) {
    Tally tally(key, f.marks);
    if (parts.empty()) {
        return {};
    }
    if (f.customer_id) {
        // A customer has few surveys: read them by index, tag each by its part.
        auto tag_of = [&](timeutil::Millis ms) -> std::optional<std::uint32_t> {
            auto it = std::upper_bound(
                parts.begin(), parts.end(), ms,
                [](timeutil::Millis v, const WindowPart& p) { return v < p.start; });
            if (it == parts.begin() || ms > std::prev(it)->end) {
                return std::nullopt;
            }
            return std::prev(it)->tag;
        };
        for (std::uint64_t shop : shops) {
            db.run(bound<Stmt::csat_count_customer_rows>(*f.customer_id, shop,
                                                         timeutil::format_db(parts.front().start),
                                                         timeutil::format_db(parts.back().end + 1)),
                   [&](sql::PreparedStatement& st) {
                       ResultSetPtr rs(st.executeQuery());
                       tally_rows(*rs, f, tally, tag_of);
                   });
        }
        return tally.take();
    }
    const SpanPlan plan = plan_cover(parts);
    for (std::uint64_t shop : shops) {
        if (plan.has_spans()) {
            count_spans(db, shop, plan.json, f, key, tally);
        }
        for (const RawPart& r : plan.raw) {
            db.run(bound<Stmt::csat_count_rows>(shop, timeutil::format_db(r.start),
                                                timeutil::format_db(r.end)),
                   [&](sql::PreparedStatement& st) {
                       ResultSetPtr rs(st.executeQuery());
                       tally_rows(
                           *rs, f, tally,
                           [&](timeutil::Millis) -> std::optional<std::uint32_t> { return r.tag; });
                   });
        }
    }
    return tally.take();
}

std::vector<SurveyRow> filtered_page(Db& db, const std::vector<std::uint64_t>& shops,
                                     timeutil::Millis start, timeutil::Millis end,
                                     const SurveyFilter& f, std::uint64_t limit,
                                     std::uint64_t offset) {
    const std::string from = timeutil::format_db(start), to = timeutil::format_db(end);
    // One shop: its page. Several (brand): each shop's first offset + limit rows, merged.
    const bool merge = shops.size() > 1;
    const std::uint64_t shop_limit = merge ? offset + limit : limit;
    const std::uint64_t shop_offset = merge ? 0 : offset;
    std::vector<SurveyRow> rows;
    for (std::uint64_t shop : shops) {
        Stmt stmt = f.customer_id ? Stmt::csat_customer_page : Stmt::csat_filtered_page;
        db.run_positional(stmt, [&](sql::PreparedStatement& st) {
            unsigned i = 1;
            if (f.customer_id) {
                st.setUInt64(i++, *f.customer_id);
            }
            st.setUInt64(i++, shop);
            st.setString(i++, from);
            st.setString(i++, to);
            i = bind_filter(st, i, f);
            st.setUInt64(i++, shop_limit);
            st.setUInt64(i, shop_offset);
            ResultSetPtr rs(st.executeQuery());
            while (rs->next()) {
                rows.push_back(read_export_row(*rs));
            }
        });
    }
    if (!merge) {
        return rows;
    }
    std::sort(rows.begin(), rows.end(), newer);
    if (rows.size() <= offset) {
        return {};
    }
    std::vector<SurveyRow> page;
    auto first = rows.begin() + static_cast<std::ptrdiff_t>(offset);
    auto last =
        rows.size() - offset > limit ? first + static_cast<std::ptrdiff_t>(limit) : rows.end();
    std::move(first, last, std::back_inserter(page));
    return page;
}

SurveyExport::SurveyExport(Db& db, std::vector<std::uint64_t> shops, timeutil::Millis start,
                           timeutil::Millis end, SurveyFilter filter, std::size_t chunk)
    : db_(db), start_(start), end_(end), filter_(std::move(filter)), chunk_(chunk) {
    for (std::uint64_t shop : shops) {
        ShopCursor c;
        c.shop_id = shop;
        c.last_created = timeutil::format_db(end_ + 1);  // every row up to end_ comes "after" it
        c.last_id = 0;
        cursors_.push_back(std::move(c));
    }
}

void SurveyExport::refill(ShopCursor& c) {
    c.started = true;
    c.rows.clear();
    c.at = 0;
    Stmt stmt = filter_.customer_id ? Stmt::csat_export_customer_chunk : Stmt::csat_export_chunk;
    db_.run_positional(stmt, [&](sql::PreparedStatement& st) {
        unsigned i = 1;
        if (filter_.customer_id) {
            st.setUInt64(i++, *filter_.customer_id);
        }
        st.setUInt64(i++, c.shop_id);
        st.setString(i++, timeutil::format_db(start_));
        st.setString(i++, timeutil::format_db(end_));
        st.setString(i++, c.last_created);
        st.setString(i++, c.last_created);
        st.setUInt64(i++, c.last_id);
        i = bind_filter(st, i, filter_);
        st.setUInt64(i, chunk_);
        ResultSetPtr rs(st.executeQuery());
        while (rs->next()) {
            c.rows.push_back(read_export_row(*rs));
        }
    });
    if (c.rows.size() < chunk_) {
        c.exhausted = true;
    }
    if (!c.rows.empty()) {
        c.last_created = db_text_of_iso(c.rows.back().created_at);
        c.last_id = c.rows.back().id;
    }
}

void SurveyExport::start() {
    for (ShopCursor& c : cursors_) {
        if (!c.started) {
            refill(c);
        }
    }
}

const SurveyRow* SurveyExport::next() {
    ShopCursor* best = nullptr;
    for (ShopCursor& c : cursors_) {
        if (c.at == c.rows.size()) {
            if (c.exhausted && c.started) {
                continue;
            }
            refill(c);
            if (c.rows.empty()) {
                continue;
            }
        }
        if (!best || newer(c.rows[c.at], best->rows[best->at])) {
            best = &c;
        }
    }
    if (!best) {
        return nullptr;
    }
    current_ = std::move(best->rows[best->at++]);
    return &current_;
}

}  // namespace supportcrm

namespace supportcrm {

std::vector<SurveyRow> customer_surveys_chunk(Db& db, std::uint64_t customer_id,
                                              const std::optional<SurveyKey>& after,
                                              std::uint64_t rows) {
    // "2026-11-22T01:25:52.123Z" as DATETIME(3) text; the first chunk starts before any date.
    std::string from = "1000-01-01 00:00:00.000";
    if (after) {
        from = after->created_at.substr(0, 23);
        from[10] = ' ';
    }
    return db.run(
        bound<Stmt::customer_export_surveys>(customer_id, from, from, after ? after->id : 0, rows),
        [&](sql::PreparedStatement& st) {
            ResultSetPtr rs(st.executeQuery());
            std::vector<SurveyRow> out;
            while (rs->next()) {
                out.push_back(read_survey(*rs, layout::customer_export_surveys::survey));
            }
            return out;
        });
}

}  // namespace supportcrm
