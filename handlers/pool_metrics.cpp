// GET /metrics — extensions.md §E6: the scoreboard (common/scoreboard.h) in the Prometheus text
// exposition format 0.0.4. No key. Counters are the sums of the live workers and of every worker
// reaped since the master (re)started; a reload starts them at 0 again, which Prometheus' rate()
// takes as a counter reset. Only series that have counted something are written: every route ×
// method × status would be thousands of zeros.
//
// The webhook series (extensions.md §E5) are the only ones read from the database, two cheap
// index-only statements at scrape time (db/webhook_sql.h): the deliverers run elsewhere, maybe
// on several hosts, and their totals live in the database, where they survive restarts. When
// the database does not answer, the scoreboard's series are still served without them.
#include <algorithm>
#include <cstdio>
#include <string>

#include "api/api_error.h"
#include "api/handler.h"
#include "common/build_info.h"
#include "common/log.h"
#include "common/scoreboard.h"
#include "db/search/indexer.h"
#include "db/webhook_repo.h"
#include "handlers/router.h"

namespace supportcrm {
namespace {

using scoreboard::kBucketBounds;
using scoreboard::kBuckets;
using scoreboard::kMethods;
using scoreboard::kRoutes;
using scoreboard::kStatuses;

// A route label: the route's template; "unmatched" for a path no route matches.
std::string route_text(std::size_t route) {
    const std::string_view label = route_label(route);
    return label.empty() ? std::string("unmatched") : std::string(label);
}

void family(std::string& out, const char* name, const char* type, const char* help) {
    out.append("# HELP ").append(name).append(" ").append(help).append("\n");
    out.append("# TYPE ").append(name).append(" ").append(type).append("\n");
}

void sample(std::string& out, const std::string& name_and_labels, std::uint64_t value) {
    out.append(name_and_labels).append(" ").append(std::to_string(value)).append("\n");
}

void requests_total(std::string& out, const PoolView& v) {
    family(out, "supportcrm_requests_total", "counter",
           "Requests answered, by route template, method and status.");
    for (std::size_t r = 0; r < kRoutes; ++r) {
        for (std::size_t m = 0; m < kMethods; ++m) {
            for (std::size_t s = 0; s < kStatuses; ++s) {
                const std::uint64_t n = v.request_count(r, m, s);
                if (n != 0) {
                    sample(out,
                           "supportcrm_requests_total{route=\"" + route_text(r) + "\",method=\"" +
                               scoreboard::method_name(m) + "\",status=\"" +
                               scoreboard::status_label(s) + "\"}",
                           n);
                }
            }
        }
    }
}

void duration_histogram(std::string& out, const PoolView& v) {
    family(out, "supportcrm_request_duration_seconds", "histogram",
           "Time from accepting a request to its answer, by route template.");
    for (std::size_t r = 0; r < kRoutes; ++r) {
        const std::uint64_t* buckets = &v.duration_buckets[r * kBuckets];
        std::uint64_t count = 0;
        for (std::size_t b = 0; b < kBuckets; ++b) {
            count += buckets[b];
        }
        if (count == 0) {
            continue;
        }
        const std::string route = "route=\"" + route_text(r) + "\"";
        std::uint64_t cumulative = 0;
        for (std::size_t b = 0; b < kBuckets; ++b) {
            cumulative += buckets[b];
            char le[32];
            if (b < kBucketBounds.size()) {
                std::snprintf(le, sizeof le, "%g", kBucketBounds[b]);
            } else {
                std::snprintf(le, sizeof le, "+Inf");
            }
            sample(out,
                   "supportcrm_request_duration_seconds_bucket{" + route + ",le=\"" + le + "\"}",
                   cumulative);
        }
        char sum[48];
        std::snprintf(sum, sizeof sum, "%.6f",
                      static_cast<double>(v.duration_sum_us[r]) / 1'000'000.0);
        out.append("supportcrm_request_duration_seconds_sum{" + route + "} ")
            .append(sum)
            .append("\n");
        sample(out, "supportcrm_request_duration_seconds_count{" + route + "}", count);
    }
}

// The Prometheus idiom for "what runs": a constant 1 whose labels name the build, so that a
// query can join it to any other series of the instance.
void build_info_series(std::string& out) {
    family(out, "supportcrm_build_info", "gauge",
           "The build this pool runs: its version and git revision (always 1).");
    // Both are made of letters, digits and .+~:- (tools/build_info/build_info.cmake): no
    // escaping needed in a label value.
    sample(out,
           "supportcrm_build_info{version=\"" + std::string(build_info::version()) +
               "\",revision=\"" + std::string(build_info::revision()) + "\"}",
           1);
}

void workers_by_state(std::string& out, const PoolView& v) {
    family(out, "supportcrm_workers", "gauge", "Worker processes, by state.");
    for (WorkerState state :
         {WorkerState::starting, WorkerState::idle, WorkerState::busy, WorkerState::waiting}) {
        std::uint64_t n = 0;
        for (const WorkerView& w : v.workers) {
            n += w.state == state;
        }
        sample(out, std::string("supportcrm_workers{state=\"") + worker_state_name(state) + "\"}",
               n);
    }
}

void counter(std::string& out, const char* name, const char* help, std::uint64_t value) {
    family(out, name, "counter", help);
    sample(out, name, value);
}

void gauge(std::string& out, const char* name, const char* help, std::int64_t value) {
    family(out, name, "gauge", help);
    out.append(name).append(" ").append(std::to_string(value)).append("\n");
}

void webhook_series(std::string& out, Db& db) {
    WebhookQueueStats stats;
    try {
        stats = webhook_queue_stats(db);
    } catch (const DbUnavailable& e) {
        // The pool's own series matter most when the database is in trouble: serve them. The
        // next request reconnects, as after any lost connection.
        db.disconnect();
        log::warning(std::string("GET /metrics: webhook series left out: ") + e.what());
        return;
    } catch (const DbError& e) {  // counted in supportcrm_db_errors_total by Db
        log::warning(std::string("GET /metrics: webhook series left out: ") + e.what());
        return;
    }
    family(out, "supportcrm_webhook_deliveries_total", "counter",
           "Webhook delivery attempts by result: delivered (2xx), retried (failed, tried again "
           "later), failed (given up after webhook-retry-for); all deliverers, since migration.");
    for (DeliveryStatus outcome :
         {DeliveryStatus::delivered, DeliveryStatus::pending, DeliveryStatus::failed}) {
        const char* result = outcome == DeliveryStatus::pending     ? "retried"
                             : outcome == DeliveryStatus::delivered ? "delivered"
                                                                    : "failed";
        sample(out, std::string("supportcrm_webhook_deliveries_total{result=\"") + result + "\"}",
               stats.outcomes[static_cast<std::size_t>(outcome)]);
    }
    gauge(out, "supportcrm_webhook_queue_depth",
          "Webhook work waiting now: deliveries due and events not yet fanned out.",
          static_cast<std::int64_t>(stats.depth));
}

// The search indexer's queue (E10 v1.3, db/search/indexer.h), read from the database like the
// webhook series: every host's indexer works on the one queue. Left out when it does not answer.
void search_index_series(std::string& out, Db& db) {
    search::IndexerLag lag;
    try {
        lag = search::comment_words_lag(db);
    } catch (const DbUnavailable& e) {
        db.disconnect();
        log::warning(std::string("GET /metrics: search index series left out: ") + e.what());
        return;
    } catch (const DbError& e) {
        log::warning(std::string("GET /metrics: search index series left out: ") + e.what());
        return;
    }
    family(out, "supportcrm_search_index_lag_seconds", "gauge",
           "Age of the oldest committed comment or new customer whose words are not searchable "
           "yet (0: none).");
    out.append("supportcrm_search_index_lag_seconds ")
        .append(std::to_string(lag.oldest_ms / 1000))
        .append(".")
        .append(std::to_string(1000 + lag.oldest_ms % 1000), 1, 3)
        .append("\n");
    gauge(out, "supportcrm_search_index_queue_depth",
          "Committed comments and new customers waiting for the search indexer now.",
          static_cast<std::int64_t>(lag.queued));
}

}  // namespace

Response get_pool_metrics(HandlerContext& ctx) {
    const Scoreboard* board = Scoreboard::attached();
    if (board == nullptr) {
        return errors::unavailable();
    }
    const PoolView v = board->view();
    const long queue = listen_queue_length(board->listen_fd());
    Response r;
    r.content_type = "text/plain; version=0.0.4; charset=utf-8";
    std::string& out = r.body;
    out.reserve(8192);
    requests_total(out, v);
    duration_histogram(out, v);
    counter(out, "supportcrm_db_errors_total",
            "Database errors (a statement the server or the connection failed).", v.db_errors);
    counter(out, "supportcrm_slow_requests_total", "Requests slower than slowlog-threshold.",
            v.slow);
    counter(out, "supportcrm_requests_terminated_total",
            "Requests whose worker was killed after request-terminate-timeout.",
            v.requests_terminated);
    counter(out, "supportcrm_worker_restarts_total",
            "Workers that exited without being asked to (crashed or killed) and were replaced.",
            v.worker_restarts);
    build_info_series(out);
    workers_by_state(out, v);
    if (queue >= 0) {
        gauge(out, "supportcrm_listen_queue",
              "Connections waiting in the listen socket's accept queue now.", queue);
    }
    gauge(out, "supportcrm_listen_queue_max",
          "Longest accept queue the master has seen (sampled every second).",
          static_cast<std::int64_t>(std::max<std::uint64_t>(
              v.max_listen_queue, queue < 0 ? 0 : static_cast<std::uint64_t>(queue))));
    gauge(out, "supportcrm_parked_connections",
          "Idle nginx keep-alive connections parked with the master (no worker holds them).",
          static_cast<std::int64_t>(v.parked_connections));
    gauge(out, "supportcrm_handoff_queue",
          "Kept connections with a request waiting for a free worker now (the hand-off queue).",
          static_cast<std::int64_t>(v.handoff_queue));
    gauge(out, "supportcrm_start_time_seconds",
          "When the master started (or last re-executed), in seconds since the epoch.",
          v.started_ms / 1000);
    counter(out, "supportcrm_search_indexed_comments_total",
            "Comments whose words this host's search indexer wrote since the master started.",
            v.indexer_comments);
    webhook_series(out, ctx.db);
    search_index_series(out, ctx.db);
    return r;
}

}  // namespace supportcrm
