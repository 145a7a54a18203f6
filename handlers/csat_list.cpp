// GET /api/v1/csat — api-v1.md §7, contract §5 "CSAT".
#include <algorithm>

#include "api/api_error.h"
#include "api/csat_query.h"
#include "api/handler.h"
#include "api/views.h"
#include "common/json_writer.h"
#include "db/survey_repo.h"

namespace supportcrm {
namespace {

// The members of ratingDistribution and the keys of groups by mark, for marks 1..5.
constexpr const char* kMarkNames[] = {"", "1", "2", "3", "4", "5"};

// The fields of a stats object (E4: satisfiedCount always), without its braces.
void write_stats_fields(JsonWriter& w, const std::array<std::uint64_t, 6>& by_mark) {
    CsatStats stats = csat_stats(by_mark);
    w.field("totalSurveys", stats.total)
        .field("averageRating", stats.average_rating)
        .field("satisfactionRate", stats.satisfaction_rate)
        .field("satisfiedCount", stats.satisfied)
        .key("ratingDistribution")
        .begin_object();
    for (std::size_t mark = 1; mark <= 5; ++mark) {
        w.field(kMarkNames[mark], by_mark[mark]);
    }
    w.end_object();
}

void write_stats(JsonWriter& w, const CsatResult& result) {
    w.begin_object();
    write_stats_fields(w, result.by_mark);
    w.end_object();
}

// One element of stats.groups: its key (a std::nullopt key is null), then its stats fields.
template <typename Key>
void write_group(JsonWriter& w, const Key& key, const std::array<std::uint64_t, 6>& counts) {
    w.begin_object().field("key", key);
    write_stats_fields(w, counts);
    w.end_object();
}

std::uint64_t surveys_in(const GroupCounts& g) {
    return g.by_mark[1] + g.by_mark[2] + g.by_mark[3] + g.by_mark[4] + g.by_mark[5];
}

// Every day of the window in the zone's days, ascending, a day without surveys too.
void write_day_groups(JsonWriter& w, const CsatParams& p, const std::vector<GroupCounts>& groups) {
    std::vector<std::array<std::uint64_t, 6>> days(static_cast<std::size_t>(csat_window_days(p)));
    for (const GroupCounts& g : groups) {
        if (g.tag < days.size()) {
            days[g.tag] = g.by_mark;
        }
    }
    const std::int64_t first = csat_zone(p).local_day(p.start);
    for (std::size_t i = 0; i < days.size(); ++i) {
        std::string iso =
            timeutil::format_iso((first + static_cast<std::int64_t>(i)) * timeutil::kMillisPerDay);
        write_group(w, iso.substr(0, 10), days[i]);
    }
}

// Marks "1".."5", each group counting only its own mark.
void write_mark_groups(JsonWriter& w, const std::array<std::uint64_t, 6>& by_mark) {
    for (std::size_t mark = 1; mark <= 5; ++mark) {
        std::array<std::uint64_t, 6> counts{};
        counts[mark] = by_mark[mark];
        write_group(w, kMarkNames[mark], counts);
    }
}

void write_channel_groups(JsonWriter& w, std::vector<GroupCounts>& groups) {
    std::sort(groups.begin(), groups.end(), [](const GroupCounts& a, const GroupCounts& b) {
        return surveys_in(a) != surveys_in(b) ? surveys_in(a) > surveys_in(b)
                                              : a.channel < b.channel;
    });
    for (const GroupCounts& g : groups) {
        write_group(w, g.channel, g.by_mark);
    }
}

// Agents numerically after the counts, the unassigned (key null) last.
void write_agent_groups(JsonWriter& w, std::vector<GroupCounts>& groups) {
    std::sort(groups.begin(), groups.end(), [](const GroupCounts& a, const GroupCounts& b) {
        if (surveys_in(a) != surveys_in(b)) {
            return surveys_in(a) > surveys_in(b);
        }
        if (a.agent.has_value() != b.agent.has_value()) {
            return a.agent.has_value();  // null last
        }
        return a.agent < b.agent;
    });
    for (const GroupCounts& g : groups) {
        write_group(w,
                    g.agent ? std::optional<std::string>(std::to_string(*g.agent)) : std::nullopt,
                    g.by_mark);
    }
}

// E4's stats.groups, in its order: days ascending (every day), marks "1".."5", channels and
// agents by totalSurveys descending, then key (agents numerically, unassigned last).
void write_groups(JsonWriter& w, const CsatParams& p, std::vector<GroupCounts> groups,
                  const std::array<std::uint64_t, 6>& by_mark) {
    w.key("groups").begin_array();
    switch (p.group_by) {
        case CsatGroupBy::day:
            write_day_groups(w, p, groups);
            break;
        case CsatGroupBy::mark:
            write_mark_groups(w, by_mark);
            break;
        case CsatGroupBy::channel:
            write_channel_groups(w, groups);
            break;
        case CsatGroupBy::agent:
            write_agent_groups(w, groups);
            break;
        case CsatGroupBy::none:
            break;
    }
    w.end_array();
}

CountKey count_key(CsatGroupBy g) {
    switch (g) {
        case CsatGroupBy::channel:
            return CountKey::channel;
        case CsatGroupBy::agent:
            return CountKey::agent;
        default:
            return CountKey::tag;
    }
}

// The E4 answer: filters, zone days, groups. One read-only transaction (one snapshot) for the
// page and the counts.
struct E4Result {
    CsatResult result;
    std::vector<GroupCounts> groups;
    bool brand = false;
};

Checked<E4Result> read_csat_e4(HandlerContext& ctx, const CsatParams& p, std::uint64_t offset) {
    Checked<E4Result> checked;
    Checked<const Shop*> keyed_shop = keyed(ctx);
    if (keyed_shop.error) {
        checked.error = std::move(keyed_shop.error);
        return checked;
    }
    const Shop* shop = keyed_shop.value;
    E4Result& out = checked.value;
    out.brand = p.brand && shop->brand_id.has_value();
    Transaction tx(ctx.db, /*read_only=*/true);
    std::vector<std::uint64_t> shops =
        scope_shops(ctx.db, shop->id, out.brand ? shop->brand_id : std::nullopt);
    out.result.surveys = filtered_page(ctx.db, shops, p.start, p.end, p.filters, p.limit, offset);
    out.groups =
        count_surveys(ctx.db, shops, csat_window_parts(p), p.filters, count_key(p.group_by));
    tx.commit();
    for (const GroupCounts& g : out.groups) {
        for (std::size_t mark = 1; mark <= 5; ++mark) {
            out.result.by_mark[mark] += g.by_mark[mark];
        }
    }
    return checked;
}

// Shop scope is one statement that also resolves the key; brand scope, and whatever that
// statement cannot answer (no rows), resolve the key first and read in a transaction.
Checked<CsatResult> read_csat(HandlerContext& ctx, const CsatParams& p, CsatQuery& query) {
    Checked<CsatResult> out;
    Checked<const Shop*> keyed_shop;
    if (!p.brand) {
        Keyed<CsatResult> stats = query_shop_csat_for_key(ctx.db, ctx.caller.key_digest(), query);
        Checked<Opened<CsatResult>> found = open(ctx, stats);
        if (found.error || found.value.record) {
            out.error = std::move(found.error);
            if (found.value.record) {
                out.value = std::move(*found.value.record);
            }
            return out;
        }
        keyed_shop.value = found.value.shop;
    } else {
        keyed_shop = keyed(ctx);
    }
    if (keyed_shop.error) {
        out.error = std::move(keyed_shop.error);
        return out;
    }
    const Shop* shop = keyed_shop.value;
    // Brand scope for a shop without a brand is shop scope, and says so.
    query.brand = p.brand && shop->brand_id.has_value();
    query.scope_id = query.brand ? *shop->brand_id : shop->id;
    out.value = query_csat(ctx.db, query);
    return out;
}

}  // namespace

Response list_csat(HandlerContext& ctx) {
    CsatParse parsed = parse_csat_query(QueryParams(ctx.request.query), timeutil::now_ms());
    if (!parsed.error.empty()) {
        return errors::invalid_query(parsed.error);
    }
    const CsatParams& p = parsed.params;
    CsatQuery query;
    query.start = p.start;
    query.end = p.end;
    query.limit = p.limit;
    // A page beyond any possible row is simply empty; keep the offset from overflowing.
    query.offset = p.page > UINT64_MAX / p.limit / 2 ? UINT64_MAX / 2 : p.page * p.limit;
    Checked<CsatResult> read;
    Checked<E4Result> e4;
    if (p.v1_answerable()) {
        read = read_csat(ctx, p, query);
    } else if (!(e4 = read_csat_e4(ctx, p, query.offset)).error) {
        read.value = std::move(e4.value.result);
        query.brand = e4.value.brand;
    } else {
        read.error = std::move(e4.error);
    }
    if (read.error) {
        return std::move(*read.error);
    }
    const CsatResult& result = read.value;
    const bool brand = query.brand;
    Response r;
    r.body.reserve(512 + result.surveys.size() * 384);
    JsonWriter w(r.body);
    w.begin_object().field("success", true).key("surveys").begin_array();
    for (const SurveyRow& s : result.surveys) {
        write_survey(w, s);
    }
    w.end_array();
    w.field("total", result.by_mark[1] + result.by_mark[2] + result.by_mark[3] + result.by_mark[4] +
                         result.by_mark[5]);
    w.key("stats");
    if (p.group_by == CsatGroupBy::none) {
        write_stats(w, result);
    } else {
        w.begin_object();
        write_stats_fields(w, result.by_mark);
        write_groups(w, p, std::move(e4.value.groups), result.by_mark);
        w.end_object();
    }
    w.field("scope", brand ? "brand" : "shop");
    w.key("dateRange")
        .begin_object()
        .field("startDate", timeutil::format_iso(p.start))
        .field("endDate", timeutil::format_iso(p.end))
        .field("timezone", p.tz_name)
        .end_object();
    w.key("pagination").begin_object().field("page", p.page).field("limit", p.limit).end_object();
    w.end_object();
    return r;
}

}  // namespace supportcrm
