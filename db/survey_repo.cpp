#include "db/survey_repo.h"

#include <cppconn/datatype.h>

#include <algorithm>
#include <charconv>
#include <iterator>
#include <stdexcept>
#include <utility>

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
    db.run(stmt, [&](sql::PreparedStatement& st) {
        st.setUInt64(1, scope_id);
        st.setString(2, from);
        st.setString(3, to);
        st.setUInt64(4, limit);
        st.setUInt64(5, offset);
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
    return db.run(Stmt::brand_shop_ids, [&](sql::PreparedStatement& st) {
        st.setUInt64(1, brand_id);
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
    db.run(Stmt::csat_stats_shop, [&](sql::PreparedStatement& st) {
        st.setUInt64(1, shop_id);
        st.setString(2, r.whole_from);
        st.setString(3, r.whole_to);
        st.setUInt64(4, shop_id);
        st.setString(5, r.raw_from);
        st.setString(6, r.raw_to);
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

std::optional<RecordedSurvey> record_survey(Db& db, std::uint64_t shop_id, const NewSurvey& s) {
    Transaction tx(db);
    std::optional<SurveyCustomer> customer =
        db.run(Stmt::survey_conversation,
               [&](sql::PreparedStatement& st) -> std::optional<SurveyCustomer> {
                   st.setUInt64(1, s.conversation_id);
                   st.setUInt64(2, shop_id);
                   ResultSetPtr rs(st.executeQuery());
                   if (!rs->next()) {
                       return std::nullopt;
                   }
                   return read_survey_customer(*rs, layout::survey_conversation::customer);
               });
    if (!customer) {
        return std::nullopt;
    }
    RecordedSurvey out{0, *customer};
    out.id = db.run(Stmt::survey_insert, [&](sql::PreparedStatement& st) {
        st.setUInt64(1, shop_id);
        st.setUInt64(2, s.conversation_id);
        st.setUInt64(3, customer->id);
        st.setInt(4, s.mark);
        bind_optional(st, 5, s.comment);
        if (s.message_id) {
            st.setInt64(6, *s.message_id);
        } else {
            st.setNull(6, sql::DataType::BIGINT);
        }
        st.setString(7, s.graph_nodes_json);
        st.setString(8, s.node_ids_json);
        st.setString(9, timeutil::format_db(s.created_at));
        ResultSetPtr rs(st.executeQuery());
        rs->next();
        return rs->getUInt64(layout::returned_id::id);
    });
    db.run(Stmt::survey_day_count_bump, [&](sql::PreparedStatement& st) {
        st.setUInt64(1, shop_id);
        st.setString(2, day_of(s.created_at));
        st.setInt(3, s.mark);
        st.executeUpdate();
    });
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
    return db.run(Stmt::csat_page_for_key, [&](sql::PreparedStatement& st) {
        st.setString(1, ranges.whole_from);
        st.setString(2, ranges.whole_to);
        st.setString(3, ranges.raw_from);
        st.setString(4, ranges.raw_to);
        st.setString(5, timeutil::format_db(q.start));
        st.setString(6, timeutil::format_db(q.end));
        st.setString(7, key_digest);
        st.setUInt64(8, q.limit);
        st.setUInt64(9, q.offset);
        ResultSetPtr rs(st.executeQuery());
        Keyed<CsatResult> found;
        using namespace layout::csat_page_for_key;
        while (rs->next()) {
            if (!found.value) {
                found.key = read_keyed_shop(*rs, key);
                add_counts_text(*rs, day_counts, found.value.emplace().by_mark);
                add_counts_text(*rs, raw_counts, found.value->by_mark);
            }
            found.value->surveys.push_back(read_survey(*rs, survey));
        }
        return found;
    });
}

}  // namespace supportcrm
