#include "db/erasure_repo.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "db/erasure_sql.h"
#include "db/file_repo.h"
#include "db/search/upkeep.h"
#include "db/statement_params.h"

namespace supportcrm {
namespace {

// One autocommit batch of a statement binding (customer id, limit): the rows it changed.
template <Stmt id>
unsigned scrub_batch(Db& db, std::uint64_t customer_id, unsigned batch) {
    return db.run(bound<id>(customer_id, batch), [&](sql::PreparedStatement& st) {
        return static_cast<unsigned>(st.executeUpdate());
    });
}

// Batches of `one` (which returns the rows it changed, at most kErasureBatch) until one comes
// back short: nothing of this kind is left (true); false when the budget ran out first.
template <typename Batch>
bool batches_until_short(ErasureBudget& budget, Batch&& one) {
    for (;;) {
        if (!budget.take(ErasureClock::now())) {
            return false;
        }
        if (one() < kErasureBatch) {
            return true;
        }
    }
}

// Where a keyset walk over a ticket's comments stands: after this (time, id).
struct CommentKey {
    std::string time = "1000-01-01 00:00:00.000";  // before any DATETIME
    std::uint64_t id = 0;
};

// The statements walking a ticket's comments after `after`: parameters 1..4 are
// (ticket id, after's time twice, after's id), then the statement's own (`rest`). Every value
// by reference: the Bound returned refers to them.
template <Stmt id, typename... Rest>
auto bound_after(const std::uint64_t& ticket_id, const CommentKey& after, const Rest&... rest) {
    return bound<id>(ticket_id, after.time, after.time, after.id, rest...);
}

// The key of the last comment of the next full batch after `after`; nullopt when fewer than
// `batch` comments follow.
std::optional<CommentKey> next_batch_end(Db& db, std::uint64_t ticket_id, const CommentKey& after,
                                         unsigned batch) {
    const unsigned last_of_batch = batch - 1;
    return db.run(bound_after<Stmt::erase_comments_next>(ticket_id, after, last_of_batch),
                  [&](sql::PreparedStatement& st) -> std::optional<CommentKey> {
                      ResultSetPtr rs(st.executeQuery());
                      if (!rs->next()) {
                          return std::nullopt;
                      }
                      return CommentKey{rs->getString(1), rs->getUInt64(2)};
                  });
}

// The comments after `after` up to `last` (included), in (time, id).
void scrub_comments_between(Db& db, std::uint64_t ticket_id, const CommentKey& after,
                            const CommentKey& last) {
    db.run(bound_after<Stmt::erase_comments>(ticket_id, after, last.time, last.time, last.id),
           [&](sql::PreparedStatement& st) { st.executeUpdate(); });
}

// How far the tickets are (sql/021): every one up to `through` done; within the next one, its
// comments up to `comment` (when `comment_ticket` names it).
struct TicketProgress {
    std::uint64_t through = 0;
    std::uint64_t comment_ticket = 0;  // 0: no comment recorded
    CommentKey comment;
};

TicketProgress read_progress(Db& db, std::uint64_t customer_id) {
    return db.run(bound<Stmt::erasure_progress>(customer_id), [&](sql::PreparedStatement& st) {
        ResultSetPtr rs(st.executeQuery());
        TicketProgress at;
        if (rs->next()) {
            at.through = rs->getUInt64(1);
            if (!rs->isNull(2)) {
                at.comment_ticket = rs->getUInt64(2);
                at.comment = CommentKey{rs->getString(3), rs->getUInt64(4)};
            }
        }
        return at;
    });
}

// (customer id, after, through): the statements on a group's tickets.
template <Stmt id>
auto bound_group(const std::uint64_t& customer_id, const TicketGroup& g) {
    return bound<id>(customer_id, g.after, g.through);
}

// The group's tickets themselves, and the progress past them; in the caller's transaction,
// after their comments and words.
void clear_tickets(Db& db, std::uint64_t customer_id, const TicketGroup& g) {
    db.run(bound_group<Stmt::erase_tickets>(customer_id, g),
           [&](sql::PreparedStatement& st) { st.executeUpdate(); });
    db.run(bound<Stmt::erasure_tickets_through>(g.through, customer_id, g.through),
           [&](sql::PreparedStatement& st) { st.executeUpdate(); });
}

// A group of small tickets: one batch, one transaction.
bool erase_group(Db& db, std::uint64_t customer_id, const TicketGroup& g, ErasureBudget& budget) {
    if (!budget.take(ErasureClock::now())) {
        return false;
    }
    Transaction tx(db);
    db.run(bound_group<Stmt::erase_group_comments>(customer_id, g),
           [&](sql::PreparedStatement& st) { st.executeUpdate(); });
    search::erase_tickets_words(db, customer_id, g.after, g.through);
    clear_tickets(db, customer_id, g);
    tx.commit();
    return true;
}

// The comments of a large ticket, batch by batch from `after`, each starting where the one
// before ended (no batch reads a row another one scrubbed), each recording where it ended.
bool erase_large_comments(Db& db, std::uint64_t customer_id, const TicketGroup& g, CommentKey after,
                          ErasureBudget& budget) {
    const CommentKey past_all{"9999-12-31 23:59:59.999", UINT64_MAX};
    for (;;) {
        if (!budget.take(ErasureClock::now())) {
            return false;
        }
        std::optional<CommentKey> end = next_batch_end(db, g.through, after, kErasureBatch);
        Transaction tx(db);
        scrub_comments_between(db, g.through, after, end ? *end : past_all);
        if (end) {
            db.run(bound<Stmt::erasure_comment_through>(end->id, customer_id, g.after),
                   [&](sql::PreparedStatement& st) { st.executeUpdate(); });
        }
        tx.commit();
        if (!end) {
            return true;
        }
        after = std::move(*end);
    }
}

// A large ticket: its comments from where the progress says, then its words, batch by batch;
// the ticket itself with the last of them.
bool erase_large_ticket(Db& db, std::uint64_t customer_id, const TicketGroup& g,
                        const TicketProgress& at, ErasureBudget& budget) {
    const bool resumed = g.after == at.through && at.comment_ticket == g.through;
    const CommentKey after = resumed ? at.comment : CommentKey{};
    if (!erase_large_comments(db, customer_id, g, after, budget)) {
        return false;
    }
    for (;;) {
        if (!budget.take(ErasureClock::now())) {
            return false;
        }
        Transaction tx(db);
        const bool last =
            search::erase_ticket_words_batch(db, g.through, kErasureBatch) < kErasureBatch;
        if (last) {
            clear_tickets(db, customer_id, g);
        }
        tx.commit();
        if (last) {
            return true;
        }
    }
}

// The customer's next tickets after `after`, with their numbers of comments.
std::vector<TicketToErase> ticket_chunk(Db& db, std::uint64_t customer_id, std::uint64_t after,
                                        unsigned batch) {
    return db.run(bound<Stmt::erase_ticket_chunk>(customer_id, after, batch),
                  [&](sql::PreparedStatement& st) {
                      ResultSetPtr rs(st.executeQuery());
                      std::vector<TicketToErase> tickets;
                      while (rs->next()) {
                          tickets.push_back(TicketToErase{rs->getUInt64(1), rs->getUInt64(2)});
                      }
                      return tickets;
                  });
}

// Every ticket after the progress, a chunk of them at a time, in the groups the plan makes:
// true when none is left, false when the budget ran out first.
bool erase_tickets(Db& db, std::uint64_t customer_id, ErasureBudget& budget) {
    const TicketProgress at = read_progress(db, customer_id);
    std::uint64_t after = at.through;
    for (;;) {
        const std::vector<TicketToErase> chunk =
            ticket_chunk(db, customer_id, after, kErasureBatch);
        for (const TicketGroup& g : plan_ticket_groups(after, chunk, kErasureBatch)) {
            if (!(g.large ? erase_large_ticket(db, customer_id, g, at, budget)
                          : erase_group(db, customer_id, g, budget))) {
                return false;
            }
        }
        if (chunk.size() < kErasureBatch) {
            return true;
        }
        after = chunk.back().id;
    }
}

unsigned erase_idempotency_batch(Db& db, std::uint64_t shop_id, std::uint64_t customer_id,
                                 unsigned batch) {
    const std::uint64_t& c = customer_id;
    // SUPPORTCRM_ERASED_IDS of the customer and of its tickets (two each), its comments
    // (SUPPORTCRM_ERASED_COMMENT_IDS), SUPPORTCRM_ERASED_IDS of its surveys.
    return db.run(
        bound<Stmt::erase_idempotency_answers>(shop_id, c, c, c, c, c, c, c, batch),
        [&](sql::PreparedStatement& st) { return static_cast<unsigned>(st.executeUpdate()); });
}

// One transaction: a batch of the shop's events carrying the customer's data, locked; their
// pending deliveries cancelled, their payloads reduced to {"id":…,"erased":true}. The number
// of events it took.
std::size_t erase_events_batch(Db& db, std::uint64_t shop_id, std::uint64_t customer_id,
                               unsigned batch) {
    Transaction tx(db);
    std::vector<std::uint64_t> events =
        // The customer's events (SUPPORTCRM_ERASED_IDS: two), its tickets', its comments', its
        // surveys' (SUPPORTCRM_ERASED_IDS: two).
        db.run(bound<Stmt::erase_events_batch>(shop_id, customer_id, customer_id, customer_id,
                                               customer_id, customer_id, customer_id, batch),
               [&](sql::PreparedStatement& st) {
                   ResultSetPtr rs(st.executeQuery());
                   std::vector<std::uint64_t> ids;
                   while (rs->next()) {
                       ids.push_back(rs->getUInt64(1));
                   }
                   return ids;
               });
    const std::string now = timeutil::format_db(timeutil::now_ms());
    for (std::uint64_t event : events) {
        db.run(bound<Stmt::erase_cancel_deliveries>(now, event),
               [&](sql::PreparedStatement& st) { st.executeUpdate(); });
        db.run(bound<Stmt::erase_event>(event),
               [&](sql::PreparedStatement& st) { st.executeUpdate(); });
    }
    tx.commit();
    return events.size();
}

}  // namespace

bool erase_customer_row(Db& db, std::uint64_t shop_id, std::uint64_t id, timeutil::Millis now) {
    const std::string at = timeutil::format_db(now);
    const bool erased = db.run(bound<Stmt::customer_erase>(at, id, shop_id),
                               [&](sql::PreparedStatement& st) { return st.executeUpdate() > 0; });
    if (erased) {
        db.run(bound<Stmt::customer_erase_merged>(at, id),
               [&](sql::PreparedStatement& st) { st.executeUpdate(); });
        search::erase_customer_words(db, id);  // no longer found by its name, email or phone (E10)
    }
    return erased;
}

bool erasure_done(Db& db, std::uint64_t id) {
    return db.run(bound<Stmt::customer_erasure_done_at>(id), [&](sql::PreparedStatement& st) {
        ResultSetPtr rs(st.executeQuery());
        return rs->next() && rs->getBoolean(1);
    });
}

bool finish_erasure(Db& db, std::uint64_t shop_id, std::uint64_t id, ErasureBudget& budget,
                    const std::function<void(const std::string& sha256)>& remove_bytes) {
    const auto files_batch = [&] {
        std::vector<std::string> erased;
        const std::size_t found = erase_files_batch(db, shop_id, id, kErasureBatch, erased);
        for (const std::string& sha256 : erased) {
            remove_bytes(sha256);
        }
        return found;
    };
    const bool done =
        batches_until_short(budget, files_batch) && erase_tickets(db, id, budget) &&
        batches_until_short(
            budget, [&] { return scrub_batch<Stmt::erase_surveys>(db, id, kErasureBatch); }) &&
        batches_until_short(
            budget, [&] { return erase_idempotency_batch(db, shop_id, id, kErasureBatch); }) &&
        batches_until_short(budget,
                            [&] { return erase_events_batch(db, shop_id, id, kErasureBatch); });
    if (done) {
        db.run(bound<Stmt::customer_erasure_done>(timeutil::format_db(timeutil::now_ms()), id),
               [&](sql::PreparedStatement& st) { st.executeUpdate(); });
    }
    return done;
}

ErasureTotals erasure_totals(Db& db, std::uint64_t id) {
    return db.run(bound<Stmt::erasure_totals>(id, id, id), [&](sql::PreparedStatement& st) {
        ResultSetPtr rs(st.executeQuery());
        ErasureTotals t;
        if (rs->next()) {
            t.tickets = rs->getUInt64(1);
            t.comments = rs->getUInt64(2);
            t.surveys = rs->getUInt64(3);
        }
        return t;
    });
}

}  // namespace supportcrm
