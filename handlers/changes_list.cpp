// GET /api/v1/changes — extensions.md §E11: every committed change of the key's shop, in
// commit order, from an opaque cursor; with wait=S a long-poll that answers as soon as a change
// commits. Why no entry is ever skipped: db/changes_repo.h.
#include <chrono>

#include "api/api_error.h"
#include "api/cursor.h"
#include "api/handler.h"
#include "api/query.h"
#include "common/changes_feed.h"
#include "common/json_writer.h"
#include "common/text.h"
#include "common/time_util.h"
#include "db/changes_repo.h"
#include "db/webhook_repo.h"

namespace supportcrm {
namespace {

constexpr std::uint64_t kDefaultLimit = 100, kMaxLimit = 1000;
constexpr std::uint64_t kMaxWaitSeconds = 30;

struct ChangesQuery {
    std::uint64_t limit = kDefaultLimit;
    std::uint64_t wait_s = 0;
    std::optional<std::string> cursor;
    std::optional<timeutil::Millis> since;
    std::string error;  // the invalid_query message; empty when valid
};

// A whole number in [low, high], digits only.
std::optional<std::uint64_t> bounded(const std::string& text, std::uint64_t low,
                                     std::uint64_t high) {
    if (!text::is_digits(text)) {
        return std::nullopt;
    }
    const std::uint64_t n = text::parse_u64(text).value_or(UINT64_MAX);
    if (n < low || n > high) {
        return std::nullopt;
    }
    return n;
}

ChangesQuery parse_changes_query(const QueryParams& q) {
    ChangesQuery out;
    if (auto limit = q.get("limit")) {
        auto n = bounded(*limit, 1, kMaxLimit);
        if (!n) {
            out.error = "Invalid limit";
            return out;
        }
        out.limit = *n;
    }
    if (auto wait = q.get("wait")) {
        auto n = bounded(*wait, 0, kMaxWaitSeconds);
        if (!n) {
            out.error = "Invalid wait";
            return out;
        }
        out.wait_s = *n;
    }
    if (auto since = q.get("since")) {
        auto parsed = timeutil::parse_iso8601(*since);
        if (!parsed) {
            out.error = "Invalid since";
            return out;
        }
        out.since = parsed->ms;
    }
    out.cursor = q.get("cursor");
    return out;
}

// A cursor names the last number read and when it was handed out (SortKey{time, id}), signed
// for the shop and this list: another shop's, another list's or an edited one does not decode.
CursorScope feed_scope(std::uint64_t shop_id) {
    return {shop_id, "changes", 0, ""};
}

bool expired(const SortKey& cursor, timeutil::Millis now) {
    const timeutil::Millis kept =
        static_cast<timeutil::Millis>(changes_feed::retention_days()) * timeutil::kMillisPerDay;
    return now - cursor.time > kept;
}

void write_entry(JsonWriter& w, const ChangeRow& row) {
    w.begin_object();
    w.key("id").id_string(row.id);
    w.field("type", event_type_name(row.type));
    w.field("occurredAt", timeutil::format_iso(row.created_at));
    w.key("data").raw(row.payload);
    if (row.changes) {
        w.key(event_extra_member(row.type)).raw(*row.changes);  // beside data (§E8, §E9)
    }
    w.end_object();
}

Response answer(Db& db, std::uint64_t shop_id, const std::vector<ChangeRow>& rows,
                std::uint64_t after) {
    const std::uint64_t last = rows.empty() ? after : rows.back().seq;
    Response r;
    r.body.reserve(128 + rows.size() * 512);
    JsonWriter w(r.body);
    w.begin_object().field("success", true).key("changes").begin_array();
    for (const ChangeRow& row : rows) {
        write_entry(w, row);
    }
    w.end_array();
    w.field("nextCursor",
            encode_cursor(db.cursor_secret(), feed_scope(shop_id), {timeutil::now_ms(), last}));
    w.end_object();
    return r;
}

}  // namespace

Response list_changes(HandlerContext& ctx) {
    const ChangesQuery q = parse_changes_query(QueryParams(ctx.request.query));
    if (!q.error.empty()) {
        return errors::invalid_query(q.error);
    }
    const Shop& shop = ctx.caller.shop();
    const timeutil::Millis now = timeutil::now_ms();
    std::uint64_t after = 0;
    if (q.cursor) {
        std::optional<SortKey> key =
            decode_cursor(ctx.db.cursor_secret(), feed_scope(shop.id), *q.cursor);
        if (!key) {
            return errors::invalid_query("Invalid cursor");
        }
        if (expired(*key, now)) {
            return errors::cursor_expired();
        }
        after = key->id;
    }
    if (!q.cursor && q.since) {
        sequence_changes(ctx.db, shop.id);  // what committed before it has its number
        after = changes_start_since(ctx.db, shop.id, *q.since);
    }
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(q.wait_s);
    changes_feed::Place place;
    while (true) {
        // Read before looking: a change that commits after the look bumps it, and the wait
        // below returns at once.
        const std::uint32_t seen = changes_feed::generation();
        sequence_changes(ctx.db, shop.id);
        std::vector<ChangeRow> rows = read_changes(ctx.db, shop.id, after, q.limit);
        // Numbers have no gap: a first entry beyond the next number means retention deleted
        // entries this cursor has not read.
        if (q.cursor && !rows.empty() && rows.front().seq != after + 1) {
            return errors::cursor_expired();
        }
        if (!rows.empty() || q.wait_s == 0) {
            return answer(ctx.db, shop.id, rows, after);
        }
        if (!place.take()) {
            return answer(ctx.db, shop.id, rows, after);  // the pool's waiting places are taken
        }
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                              deadline - std::chrono::steady_clock::now())
                              .count();
        if (left <= 0 || !changes_feed::wait_for_change(seen, static_cast<unsigned>(left))) {
            return answer(ctx.db, shop.id, rows, after);  // the time is up, or the worker stops
        }
    }
}

}  // namespace supportcrm
