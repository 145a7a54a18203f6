#include "db/erasure_repo.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "db/erasure_sql.h"
#include "db/search_repo.h"

namespace supportcrm {
namespace {

// One autocommit batch of a statement binding (customer id, limit): the rows it changed.
unsigned scrub_batch(Db& db, Stmt id, std::uint64_t customer_id, unsigned batch) {
    return db.run(id, [&](sql::PreparedStatement& st) {
        st.setUInt64(1, customer_id);
        st.setUInt(2, batch);
        return static_cast<unsigned>(st.executeUpdate());
    });
}

// Batches until one comes back short: nothing of this kind is left.
void scrub_all(Db& db, Stmt id, std::uint64_t customer_id, unsigned batch) {
    while (scrub_batch(db, id, customer_id, batch) >= batch) {
    }
}

// Where a keyset walk over a ticket's comments stands: after this (time, id).
struct CommentKey {
    std::string time = "1000-01-01 00:00:00.000";  // before any DATETIME
    std::uint64_t id = 0;
};

void bind_after(sql::PreparedStatement& st, std::uint64_t ticket_id, const CommentKey& after) {
    st.setUInt64(1, ticket_id);
    st.setString(2, after.time);
    st.setString(3, after.time);
    st.setUInt64(4, after.id);
}

// The key of the last comment of the next full batch after `after`; nullopt when fewer than
// `batch` comments follow.
std::optional<CommentKey> next_batch_end(Db& db, std::uint64_t ticket_id, const CommentKey& after,
                                         unsigned batch) {
    return db.run(Stmt::erase_comments_next,
                  [&](sql::PreparedStatement& st) -> std::optional<CommentKey> {
                      bind_after(st, ticket_id, after);
                      st.setUInt(5, batch - 1);
                      ResultSetPtr rs(st.executeQuery());
                      if (!rs->next()) {
                          return std::nullopt;
                      }
                      return CommentKey{rs->getString(1), rs->getUInt64(2)};
                  });
}

// One autocommit batch: the comments after `after` up to `last` (included), in (time, id).
void scrub_comments_between(Db& db, std::uint64_t ticket_id, const CommentKey& after,
                            const CommentKey& last) {
    db.run(Stmt::erase_comments, [&](sql::PreparedStatement& st) {
        bind_after(st, ticket_id, after);
        st.setString(5, last.time);
        st.setString(6, last.time);
        st.setUInt64(7, last.id);
        st.executeUpdate();
    });
}

// Every comment of the ticket, batch by batch, each starting where the one before ended (no
// batch reads a row another one scrubbed); then the ticket itself.
void scrub_ticket(Db& db, std::uint64_t ticket_id, unsigned batch) {
    const CommentKey past_all{"9999-12-31 23:59:59.999", UINT64_MAX};
    CommentKey after;
    for (;;) {
        std::optional<CommentKey> end = next_batch_end(db, ticket_id, after, batch);
        scrub_comments_between(db, ticket_id, after, end ? *end : past_all);
        if (!end) {
            break;
        }
        after = std::move(*end);
    }
    db.run(Stmt::erase_ticket, [&](sql::PreparedStatement& st) {
        st.setUInt64(1, ticket_id);
        st.executeUpdate();
    });
}

// The customer's tickets, a chunk of ids at a time.
std::vector<std::uint64_t> ticket_ids_after(Db& db, std::uint64_t customer_id, std::uint64_t after,
                                            unsigned batch) {
    return db.run(Stmt::erase_ticket_ids, [&](sql::PreparedStatement& st) {
        st.setUInt64(1, customer_id);
        st.setUInt64(2, after);
        st.setUInt(3, batch);
        ResultSetPtr rs(st.executeQuery());
        std::vector<std::uint64_t> ids;
        while (rs->next()) {
            ids.push_back(rs->getUInt64(1));
        }
        return ids;
    });
}

void scrub_tickets(Db& db, std::uint64_t customer_id, unsigned batch) {
    std::uint64_t after = 0;
    for (;;) {
        const std::vector<std::uint64_t> ids = ticket_ids_after(db, customer_id, after, batch);
        for (std::uint64_t id : ids) {
            scrub_ticket(db, id, batch);
        }
        if (ids.size() < batch) {
            break;
        }
        after = ids.back();
    }
}

unsigned erase_idempotency_batch(Db& db, std::uint64_t shop_id, std::uint64_t customer_id,
                                 unsigned batch) {
    return db.run(Stmt::erase_idempotency_answers, [&](sql::PreparedStatement& st) {
        unsigned i = 1;
        st.setUInt64(i++, shop_id);
        for (int path = 0; path < 2; ++path) {  // SUPPORTCRM_ERASED_IDS: customer, ticket
            st.setUInt64(i++, customer_id);
            st.setUInt64(i++, customer_id);
        }
        st.setUInt64(i++, customer_id);  // SUPPORTCRM_ERASED_COMMENT_IDS
        st.setUInt64(i++, customer_id);  // SUPPORTCRM_ERASED_IDS: survey
        st.setUInt64(i++, customer_id);
        st.setUInt(i, batch);
        return static_cast<unsigned>(st.executeUpdate());
    });
}

// One transaction: a batch of the shop's events carrying the customer's data, locked; their
// pending deliveries cancelled, their payloads reduced to {"id":…,"erased":true}. The number
// of events it took.
std::size_t erase_events_batch(Db& db, std::uint64_t shop_id, std::uint64_t customer_id,
                               unsigned batch) {
    Transaction tx(db);
    std::vector<std::uint64_t> events =
        db.run(Stmt::erase_events_batch, [&](sql::PreparedStatement& st) {
            unsigned i = 1;
            st.setUInt64(i++, shop_id);
            st.setUInt64(i++, customer_id);  // customer events: SUPPORTCRM_ERASED_IDS
            st.setUInt64(i++, customer_id);
            st.setUInt64(i++, customer_id);  // ticket events
            st.setUInt64(i++, customer_id);  // comment events
            st.setUInt64(i++, customer_id);  // survey events: SUPPORTCRM_ERASED_IDS
            st.setUInt64(i++, customer_id);
            st.setUInt(i, batch);
            ResultSetPtr rs(st.executeQuery());
            std::vector<std::uint64_t> ids;
            while (rs->next()) {
                ids.push_back(rs->getUInt64(1));
            }
            return ids;
        });
    const std::string now = timeutil::format_db(timeutil::now_ms());
    for (std::uint64_t event : events) {
        db.run(Stmt::erase_cancel_deliveries, [&](sql::PreparedStatement& st) {
            st.setString(1, now);
            st.setUInt64(2, event);
            st.executeUpdate();
        });
        db.run(Stmt::erase_event, [&](sql::PreparedStatement& st) {
            st.setUInt64(1, event);
            st.executeUpdate();
        });
    }
    tx.commit();
    return events.size();
}

}  // namespace

bool erase_customer_row(Db& db, std::uint64_t shop_id, std::uint64_t id, timeutil::Millis now) {
    const std::string at = timeutil::format_db(now);
    const bool erased = db.run(Stmt::customer_erase, [&](sql::PreparedStatement& st) {
        st.setString(1, at);
        st.setUInt64(2, id);
        st.setUInt64(3, shop_id);
        return st.executeUpdate() > 0;
    });
    if (erased) {
        db.run(Stmt::customer_erase_merged, [&](sql::PreparedStatement& st) {
            st.setString(1, at);
            st.setUInt64(2, id);
            st.executeUpdate();
        });
        erase_customer_words(db, id);  // no longer found by its name, email or phone (E10)
    }
    return erased;
}

bool erasure_done(Db& db, std::uint64_t id) {
    return db.run(Stmt::customer_erasure_done_at, [&](sql::PreparedStatement& st) {
        st.setUInt64(1, id);
        ResultSetPtr rs(st.executeQuery());
        return rs->next() && rs->getBoolean(1);
    });
}

void finish_erasure(Db& db, std::uint64_t shop_id, std::uint64_t id, unsigned batch) {
    scrub_tickets(db, id, batch);
    scrub_all(db, Stmt::erase_surveys, id, batch);
    // The tickets' words (extensions.md §E10): their names and comments are gone.
    while (erase_ticket_words_batch(db, id, batch) >= batch) {
    }
    while (erase_idempotency_batch(db, shop_id, id, batch) >= batch) {
    }
    while (erase_events_batch(db, shop_id, id, batch) >= batch) {
    }
    db.run(Stmt::customer_erasure_done, [&](sql::PreparedStatement& st) {
        st.setString(1, timeutil::format_db(timeutil::now_ms()));
        st.setUInt64(2, id);
        st.executeUpdate();
    });
}

ErasureTotals erasure_totals(Db& db, std::uint64_t id) {
    return db.run(Stmt::erasure_totals, [&](sql::PreparedStatement& st) {
        st.setUInt64(1, id);
        st.setUInt64(2, id);
        st.setUInt64(3, id);
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
