// GET /status — extensions.md §E6: the pool at a glance, like php-fpm's status page. No key, no
// database: it reads the scoreboard (common/scoreboard.h) the master shares with its workers,
// and the listen queue of the pool's socket now. With ?full (any value), one entry per worker.
// The worker answering is itself busy on GET /status.
#include <algorithm>

#include "api/api_error.h"
#include "api/handler.h"
#include "api/query.h"
#include "common/build_info.h"
#include "common/json_writer.h"
#include "common/scoreboard.h"
#include "common/time_util.h"
#include "handlers/router.h"

namespace supportcrm {
namespace {

// A worker still connecting to the database is not part of the pool yet: total is busy + idle
// + waiting. A worker holding a long-poll of the changes feed (E11) that waits for a change is
// `waiting`, not busy: it costs the pool no work, and at most changes-max-waiting are so held.
struct WorkerCounts {
    unsigned busy = 0;
    unsigned idle = 0;
    unsigned waiting = 0;
};

WorkerCounts count_workers(const PoolView& view) {
    WorkerCounts n;
    for (const WorkerView& w : view.workers) {
        n.busy += w.state == WorkerState::busy;
        n.idle += w.state == WorkerState::idle;
        n.waiting += w.state == WorkerState::waiting;
    }
    return n;
}

void write_worker(JsonWriter& out, const WorkerView& w) {
    out.begin_object();
    out.field("pid", static_cast<long>(w.pid));
    out.field("state", worker_state_name(w.state));
    out.field("requests", static_cast<unsigned long long>(w.requests));
    out.field("startedAt", timeutil::format_iso(w.started_ms));
    out.key("current");
    if (w.state == WorkerState::busy || w.state == WorkerState::waiting) {
        out.begin_object();
        out.field("method", scoreboard::method_name(w.method));
        const std::string_view route = route_label(w.route);
        if (route.empty()) {
            out.key("route").null();
        } else {
            out.field("route", route);
        }
        out.field("elapsedMs", static_cast<long long>(w.elapsed_ms));
        out.end_object();
    } else {
        out.null();
    }
    out.end_object();
}

}  // namespace

Response get_pool_status(HandlerContext& ctx) {
    const Scoreboard* board = Scoreboard::attached();
    if (board == nullptr) {
        return errors::unavailable();
    }
    const PoolView view = board->view();
    const long queue = listen_queue_length(board->listen_fd());
    const WorkerCounts workers = count_workers(view);
    Response r;
    JsonWriter out(r.body);
    out.begin_object();
    out.field("version", build_info::version());
    out.field("revision", build_info::revision());
    out.field("startedAt", timeutil::format_iso(view.started_ms));
    out.field("acceptedRequests", static_cast<unsigned long long>(view.accepted));
    out.key("listenQueue");
    queue < 0 ? out.null() : out.integer(queue);
    // The master samples the queue every second; the length seen now counts too.
    const std::uint64_t max_queue = std::max<std::uint64_t>(
        view.max_listen_queue, queue < 0 ? 0 : static_cast<std::uint64_t>(queue));
    out.field("maxListenQueue", static_cast<unsigned long long>(max_queue));
    out.field("slowRequests", static_cast<unsigned long long>(view.slow));
    // nginx keep-alive: idle kept connections wait with the master, not in a worker (which
    // shows idle while it waits on its own), and a kept connection with a request waits in the
    // hand-off queue for a free worker, as a new one waits in the listen queue.
    out.field("parkedConnections", static_cast<unsigned long long>(view.parked_connections));
    out.field("handoffQueue", static_cast<unsigned long long>(view.handoff_queue));
    // The search indexer of this host (E10 v1.3): the age of the oldest comment its last batch
    // took, and when that was (null: it has not run yet).
    out.key("searchIndexer").begin_object();
    out.field("lagMs", static_cast<long long>(view.indexer_lag_ms));
    out.field("checkedAt",
              view.indexer_checked_ms == 0
                  ? std::optional<std::string>()
                  : std::optional<std::string>(timeutil::format_iso(view.indexer_checked_ms)));
    out.field("indexedComments", static_cast<unsigned long long>(view.indexer_comments));
    out.end_object();
    out.key("workers").begin_object();
    out.field("total", workers.busy + workers.idle + workers.waiting);
    out.field("busy", workers.busy);
    out.field("idle", workers.idle);
    out.field("waiting", workers.waiting);
    out.end_object();
    if (QueryParams(ctx.request.query).get("full")) {
        out.key("workerList").begin_array();
        for (const WorkerView& w : view.workers) {
            if (w.state == WorkerState::busy || w.state == WorkerState::idle ||
                w.state == WorkerState::waiting) {
                write_worker(out, w);
            }
        }
        out.end_array();
    }
    out.end_object();
    return r;
}

}  // namespace supportcrm
