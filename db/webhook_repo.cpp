#include "db/webhook_repo.h"

#include <array>
#include <stdexcept>

#include "db/statement_params.h"
#include "db/webhook_sql.h"

namespace supportcrm {
namespace {

struct EventType {
    unsigned bit;
    std::string_view name;
};
constexpr std::array<EventType, 8> kEventTypes{{
    {webhook_event::customer_created, "customer.created"},
    {webhook_event::ticket_created, "ticket.created"},
    {webhook_event::comment_created, "comment.created"},
    {webhook_event::survey_created, "survey.created"},
    {webhook_event::customer_updated, "customer.updated"},
    {webhook_event::ticket_updated, "ticket.updated"},
    {webhook_event::customer_merged, "customer.merged"},
    {webhook_event::customer_erased, "customer.erased"},
}};

void refresh_shop_events(Db& db, std::uint64_t shop_id) {
    db.run(bound<Stmt::shop_webhook_events_refresh>(shop_id, shop_id),
           [&](sql::PreparedStatement& st) { st.executeUpdate(); });
}

std::optional<std::uint64_t> shop_of_webhook(Db& db, std::uint64_t id) {
    return db.run(bound<Stmt::webhook_shop>(id),
                  [&](sql::PreparedStatement& st) -> std::optional<std::uint64_t> {
                      ResultSetPtr rs(st.executeQuery());
                      if (!rs->next()) {
                          return std::nullopt;
                      }
                      return rs->getUInt64(1);
                  });
}

}  // namespace

std::string_view event_type_name(unsigned type) {
    for (const EventType& t : kEventTypes) {
        if (t.bit == type) {
            return t.name;
        }
    }
    return "";
}

std::string_view event_extra_member(unsigned type) {
    return type == webhook_event::customer_merged ? "mergedId" : "changes";
}

std::optional<unsigned> event_type_bit(std::string_view name) {
    for (const EventType& t : kEventTypes) {
        if (t.name == name) {
            return t.bit;
        }
    }
    return std::nullopt;
}

std::vector<std::string> event_type_names(unsigned mask) {
    std::vector<std::string> out;
    for (const EventType& t : kEventTypes) {
        if ((mask & t.bit) != 0) {
            out.emplace_back(t.name);
        }
    }
    return out;
}

void record_event(Db& db, const Shop& shop, unsigned type, std::string_view payload,
                  timeutil::Millis at, const std::optional<std::string>& changes) {
    const bool fanned_out = !shop_events::some_webhook_wants(shop.webhook_events, type);
    db.run(bound<Stmt::webhook_event_insert>(shop.id, type, std::string(payload),
                                             timeutil::format_db(at), changes, fanned_out),
           [&](sql::PreparedStatement& st) { st.executeUpdate(); });
}

void record_events(Db& db, const Shop& shop, const EventRecord& first, const EventRecord& second) {
    const auto fanned_out = [&](const EventRecord& e) {
        return !shop_events::some_webhook_wants(shop.webhook_events, e.type);
    };
    db.run(bound<Stmt::webhook_event_insert_two>(
               shop.id, first.type, first.payload, timeutil::format_db(first.at), first.changes,
               fanned_out(first), shop.id, second.type, second.payload,
               timeutil::format_db(second.at), second.changes, fanned_out(second)),
           [&](sql::PreparedStatement& st) { st.executeUpdate(); });
}

std::uint64_t insert_webhook(Db& db, std::uint64_t shop_id, const std::string& url, unsigned events,
                             const std::string& secret_base64, timeutil::Millis now) {
    Transaction tx(db);
    std::uint64_t id = db.run(
        bound<Stmt::webhook_insert>(shop_id, url, events, secret_base64, timeutil::format_db(now)),
        [&](sql::PreparedStatement& st) {
            ResultSetPtr rs(st.executeQuery());
            rs->next();
            return rs->getUInt64(layout::returned_id::id);
        });
    refresh_shop_events(db, shop_id);
    tx.commit();
    return id;
}

std::vector<WebhookRow> webhooks_of_shop(Db& db, std::uint64_t shop_id) {
    return db.run(bound<Stmt::webhooks_of_shop>(shop_id), [&](sql::PreparedStatement& st) {
        ResultSetPtr rs(st.executeQuery());
        std::vector<WebhookRow> out;
        while (rs->next()) {
            using namespace layout::webhooks_of_shop;
            out.push_back({rs->getUInt64(id), rs->getString(url), rs->getUInt(events),
                           iso_datetime(*rs, created_at)});
        }
        return out;
    });
}

bool delete_webhook(Db& db, std::uint64_t id) {
    Transaction tx(db);
    std::optional<std::uint64_t> shop_id = shop_of_webhook(db, id);
    if (!shop_id) {
        return false;
    }
    db.run(bound<Stmt::webhook_delete>(id),
           [&](sql::PreparedStatement& st) { st.executeUpdate(); });
    refresh_shop_events(db, *shop_id);
    tx.commit();
    return true;
}

std::string_view delivery_status_name(DeliveryStatus status) {
    switch (status) {
        case DeliveryStatus::pending:
            return "pending";
        case DeliveryStatus::delivered:
            return "delivered";
        case DeliveryStatus::failed:
            return "failed";
        case DeliveryStatus::cancelled:
            return "cancelled";
    }
    return "pending";
}

std::optional<std::vector<DeliveryRow>> webhook_deliveries(Db& db, std::uint64_t webhook_id,
                                                           std::uint64_t limit) {
    if (!shop_of_webhook(db, webhook_id)) {
        return std::nullopt;
    }
    return db.run(bound<Stmt::webhook_deliveries_page>(webhook_id, limit),
                  [&](sql::PreparedStatement& st) {
                      ResultSetPtr rs(st.executeQuery());
                      std::vector<DeliveryRow> out;
                      while (rs->next()) {
                          using namespace layout::webhook_deliveries_page;
                          DeliveryRow row;
                          row.event_id = rs->getUInt64(event_id);
                          row.type = rs->getUInt(type);
                          row.attempts = rs->getUInt(attempts);
                          row.status = static_cast<DeliveryStatus>(rs->getUInt(status));
                          row.last_status_code = optional_uint(*rs, last_status_code);
                          row.next_attempt_at = iso_datetime(*rs, next_attempt_at);
                          out.push_back(std::move(row));
                      }
                      return out;
                  });
}

std::size_t fan_out_new_events(Db& db, unsigned batch) {
    // For the next transaction only: under REPEATABLE READ the claim's locking read also locks
    // the gap after the last new event, and every write records an event (extensions.md E11), so
    // every write's event insert would wait for this transaction's commit. Read committed locks
    // only the events claimed.
    db.execute("SET TRANSACTION ISOLATION LEVEL READ COMMITTED", "fan-out isolation");
    Transaction tx(db);
    std::vector<std::uint64_t> ids =
        db.run(bound<Stmt::webhook_events_new>(batch), [&](sql::PreparedStatement& st) {
            ResultSetPtr rs(st.executeQuery());
            std::vector<std::uint64_t> out;
            while (rs->next()) {
                out.push_back(rs->getUInt64(1));
            }
            return out;
        });
    for (std::uint64_t id : ids) {
        db.run(bound<Stmt::webhook_fan_out>(id),
               [&](sql::PreparedStatement& st) { st.executeUpdate(); });
        db.run(bound<Stmt::webhook_event_fanned_out>(id),
               [&](sql::PreparedStatement& st) { st.executeUpdate(); });
    }
    tx.commit();
    return ids.size();
}

std::vector<DueDelivery> select_due_deliveries(Db& db, unsigned batch,
                                               const std::string& skip_webhooks) {
    std::vector<DueDelivery> due = db.run(bound<Stmt::webhook_deliveries_due>(skip_webhooks, batch),
                                          [&](sql::PreparedStatement& st) {
                                              ResultSetPtr rs(st.executeQuery());
                                              std::vector<DueDelivery> out;
                                              while (rs->next()) {
                                                  using namespace layout::webhook_deliveries_due;
                                                  DueDelivery d;
                                                  d.webhook_id = rs->getUInt64(webhook_id);
                                                  d.event_id = rs->getUInt64(event_id);
                                                  d.attempts = rs->getUInt(attempts);
                                                  out.push_back(std::move(d));
                                              }
                                              return out;
                                          });
    for (DueDelivery& d : due) {
        db.run(bound<Stmt::webhook_delivery_detail>(d.webhook_id, d.event_id),
               [&](sql::PreparedStatement& st) {
                   ResultSetPtr rs(st.executeQuery());
                   if (!rs->next()) {
                       // The delivery row is locked and both foreign keys hold.
                       throw std::logic_error("claimed delivery without its webhook or event");
                   }
                   using namespace layout::webhook_delivery_detail;
                   d.url = rs->getString(url);
                   d.secret_base64 = rs->getString(secret);
                   d.type = rs->getUInt(type);
                   d.payload = rs->getString(payload);
                   d.changes = optional_string(*rs, changes);
                   d.created_at = rs->getInt64(created_at);
                   d.shop_domain = rs->getString(domain);
               });
    }
    return due;
}

void lease_delivery(Db& db, DueDelivery& d, timeutil::Millis until) {
    db.run(
        bound<Stmt::webhook_delivery_lease>(timeutil::format_db(until), d.webhook_id, d.event_id),
        [&](sql::PreparedStatement& st) { st.executeUpdate(); });
    d.leased_until = until;
}

namespace {

// Adds outcomes to the totals, in the caller's transaction: call it last before the COMMIT,
// the totals' rows stay locked until then.
void add_outcome_counts(Db& db, const OutcomeCounts& counts) {
    // In outcome order, so two deliverers' transactions lock the rows in the same order.
    for (std::size_t outcome = 0; outcome < counts.size(); ++outcome) {
        if (counts[outcome] == 0) {
            continue;
        }
        db.run(
            bound<Stmt::webhook_outcome_count_add>(static_cast<unsigned>(outcome), counts[outcome]),
            [&](sql::PreparedStatement& st) { st.executeUpdate(); });
    }
}

}  // namespace

std::vector<bool> record_attempts(Db& db, const std::vector<EndedAttempt>& ended) {
    std::vector<bool> recorded;
    OutcomeCounts counts{};
    Transaction tx(db);
    for (const EndedAttempt& e : ended) {
        const DueDelivery& d = e.delivery;
        const AttemptRecord& a = e.record;
        // The delivery first: it tells whether the claim still holds, and locks the row.
        const bool still_ours = db.run(
            bound<Stmt::webhook_delivery_update>(
                static_cast<unsigned>(a.outcome), timeutil::format_db(a.next_attempt_at),
                a.status_code, d.webhook_id, d.event_id, timeutil::format_db(d.leased_until)),
            [&](sql::PreparedStatement& st) { return st.executeUpdate() == 1; });
        recorded.push_back(still_ours);
        if (!still_ours) {
            continue;
        }
        db.run(bound<Stmt::webhook_attempt_insert>(d.webhook_id, d.event_id,
                                                   timeutil::format_db(a.attempted_at),
                                                   a.status_code, a.error, a.duration_ms),
               [&](sql::PreparedStatement& st) { st.executeUpdate(); });
        ++counts[static_cast<std::size_t>(a.outcome)];
    }
    add_outcome_counts(db, counts);
    tx.commit();
    return recorded;
}

Pruned prune_webhook_rows(Db& db, timeutil::Millis cutoff, timeutil::Millis events_cutoff,
                          unsigned batch) {
    auto prune = [&](Stmt stmt, timeutil::Millis older_than) {
        // For the next transaction only, this autocommit DELETE: under REPEATABLE READ its scan
        // locks the gaps it reads too (up to the index's end when nothing is younger than the
        // cutoff), and the NOT EXISTS reads of deliveries take shared locks, so every write's
        // event insert (E11: every write records one) and the deliverer's updates could wait for
        // it (up to its 1 s lock wait). Read committed locks only the rows it deletes.
        db.execute("SET TRANSACTION ISOLATION LEVEL READ COMMITTED", "retention isolation");
        const std::string before = timeutil::format_db(older_than);
        return db.run(bound_one_of<Stmt::webhook_deliveries_prune, Stmt::webhook_events_prune>(
                          stmt, before, batch),
                      [&](sql::PreparedStatement& st) {
                          return static_cast<std::size_t>(st.executeUpdate());
                      });
    };
    Pruned pruned;
    // Deliveries first: their events can only go once they are gone.
    pruned.deliveries = prune(Stmt::webhook_deliveries_prune, cutoff);
    pruned.events = prune(Stmt::webhook_events_prune, events_cutoff);
    return pruned;
}

WebhookQueueStats webhook_queue_stats(Db& db) {
    WebhookQueueStats stats;
    stats.depth = db.run(bound<Stmt::webhook_queue_depth>(), [](sql::PreparedStatement& st) {
        ResultSetPtr rs(st.executeQuery());
        return rs->next() ? rs->getUInt64(1) : std::uint64_t{0};
    });
    db.run(bound<Stmt::webhook_outcome_counts>(), [&](sql::PreparedStatement& st) {
        ResultSetPtr rs(st.executeQuery());
        while (rs->next()) {
            using namespace layout::webhook_outcome_counts;
            const unsigned o = rs->getUInt(outcome);
            if (o < stats.outcomes.size()) {
                stats.outcomes[o] = rs->getUInt64(attempts);
            }
        }
    });
    return stats;
}

}  // namespace supportcrm
