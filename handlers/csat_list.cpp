// GET /api/v1/csat — api-v1.md §7, contract §5 "CSAT".
#include "api/api_error.h"
#include "api/csat_query.h"
#include "api/handler.h"
#include "api/views.h"
#include "common/json_writer.h"
#include "db/survey_repo.h"

namespace supportcrm {
namespace {

void write_stats(JsonWriter& w, const CsatResult& result) {
    CsatStats stats = csat_stats(result.by_mark);
    w.begin_object()
        .field("totalSurveys", stats.total)
        .field("averageRating", stats.average_rating)
        .field("satisfactionRate", stats.satisfaction_rate)
        .key("ratingDistribution")
        .begin_object();
    static const char* const kMarks[] = {"", "1", "2", "3", "4", "5"};
    for (std::size_t mark = 1; mark <= 5; ++mark) {
        w.field(kMarks[mark], result.by_mark[mark]);
    }
    w.end_object().end_object();
}

// Shop scope is one statement that also resolves the key; brand scope, and whatever that
// statement cannot answer (no rows), resolve the key first and read in a transaction.
// nullopt when the key has no live shop.
std::optional<CsatResult> read_csat(HandlerContext& ctx, const CsatParams& p, CsatQuery& query) {
    if (!p.brand) {
        Keyed<CsatResult> keyed = query_shop_csat_for_key(ctx.db, ctx.caller.key_digest(), query);
        if (keyed.value) {
            if (!ctx.caller.learn(keyed.key)) {
                return std::nullopt;
            }
            return std::move(keyed.value);
        }
    }
    const Shop* shop = ctx.caller.resolve(ctx.db);
    if (!shop) {
        return std::nullopt;
    }
    // Brand scope for a shop without a brand is shop scope, and says so.
    query.brand = p.brand && shop->brand_id.has_value();
    query.scope_id = query.brand ? *shop->brand_id : shop->id;
    return query_csat(ctx.db, query);
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
    std::optional<CsatResult> read = read_csat(ctx, p, query);
    if (!read) {
        return *ctx.caller.error();
    }
    const CsatResult& result = *read;
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
    write_stats(w, result);
    w.field("scope", brand ? "brand" : "shop");
    w.key("dateRange")
        .begin_object()
        .field("startDate", timeutil::format_iso(p.start))
        .field("endDate", timeutil::format_iso(p.end))
        .end_object();
    w.key("pagination").begin_object().field("page", p.page).field("limit", p.limit).end_object();
    w.end_object();
    return r;
}

}  // namespace supportcrm
