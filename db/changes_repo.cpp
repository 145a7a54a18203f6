#include "db/changes_repo.h"

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <vector>

#include "db/changes_sql.h"
#include "db/statement_params.h"

namespace supportcrm {
namespace {

constexpr int kNumberingAttempts = 8;

bool has_unnumbered(Db& db, std::uint64_t shop_id) {
    return db.run(bound<Stmt::changes_unnumbered>(shop_id), [&](sql::PreparedStatement& st) {
        ResultSetPtr rs(st.executeQuery());
        return rs->next();
    });
}

// Where the shop's last numbering left the feed: its last number and the running maximum of
// its events' created_at (sql/015; 0 when no numbering ran since that migration).
struct Counter {
    std::uint64_t last_seq = 0;
    timeutil::Millis last_at = 0;
};

// The shop's counter with its row locked; nullopt when the shop has no row yet.
std::optional<Counter> locked_counter(Db& db, std::uint64_t shop_id) {
    return db.run(bound<Stmt::change_sequence_locked>(shop_id),
                  [&](sql::PreparedStatement& st) -> std::optional<Counter> {
                      ResultSetPtr rs(st.executeQuery());
                      if (!rs->next()) {
                          return std::nullopt;
                      }
                      using namespace layout::change_sequence_locked;
                      return Counter{rs->getUInt64(last_seq), rs->getInt64(last_at)};
                  });
}

struct Unnumbered {
    std::uint64_t id = 0;
    timeutil::Millis created_at = 0;
};

// The shop's committed unnumbered events, in id order (a consistent read).
std::vector<Unnumbered> unnumbered_events(Db& db, std::uint64_t shop_id, unsigned batch) {
    return db.run(bound<Stmt::changes_unnumbered_ids>(shop_id, batch),
                  [&](sql::PreparedStatement& st) {
                      ResultSetPtr rs(st.executeQuery());
                      std::vector<Unnumbered> events;
                      using namespace layout::changes_unnumbered_ids;
                      while (rs->next()) {
                          events.push_back({rs->getUInt64(id), rs->getInt64(created_at)});
                      }
                      return events;
                  });
}

Counter lock_counter(Db& db, std::uint64_t shop_id) {
    if (std::optional<Counter> counter = locked_counter(db, shop_id)) {
        return *counter;
    }
    db.run(bound<Stmt::change_sequence_insert>(shop_id),
           [&](sql::PreparedStatement& st) { st.executeUpdate(); });
    std::optional<Counter> counter = locked_counter(db, shop_id);
    if (!counter) {
        throw std::logic_error("change_sequences row missing right after its insert");
    }
    return *counter;
}

// One numbering transaction: how many events it numbered.
std::uint64_t number_batch(Db& db, std::uint64_t shop_id, unsigned batch) {
    // For the next transaction only: each read sees what committed before it (the unnumbered
    // events' read comes after the counter's lock), and no gap lock holds up the shop's writers.
    db.execute("SET TRANSACTION ISOLATION LEVEL READ COMMITTED", "changes isolation");
    Transaction tx(db);
    Counter counter = lock_counter(db, shop_id);
    const std::uint64_t first = counter.last_seq + 1;
    for (const Unnumbered& event : unnumbered_events(db, shop_id, batch)) {
        // feed_at never decreases in number order: since= finds its start by it (sql/015).
        counter.last_at = std::max(counter.last_at, event.created_at);
        const bool set =
            db.run(bound<Stmt::changes_number>(counter.last_seq + 1,
                                               timeutil::format_db(counter.last_at), event.id),
                   [&](sql::PreparedStatement& st) { return st.executeUpdate() == 1; });
        if (!set) {
            // Only numberings set seq, and they run one at a time under the counter's lock.
            throw std::logic_error("changes numbering: event " + std::to_string(event.id) +
                                   " was numbered by another");
        }
        ++counter.last_seq;
    }
    const std::uint64_t numbered = counter.last_seq + 1 - first;
    if (numbered == 0) {
        tx.commit();
        return 0;
    }
    db.run(bound<Stmt::change_sequence_advance>(counter.last_seq,
                                                timeutil::format_db(counter.last_at), shop_id),
           [&](sql::PreparedStatement& st) { st.executeUpdate(); });
    tx.commit();
    return numbered;
}

}  // namespace

std::uint64_t sequence_changes(Db& db, std::uint64_t shop_id, unsigned batch, unsigned rounds) {
    std::uint64_t total = 0;
    for (unsigned round = 0; round < rounds && has_unnumbered(db, shop_id); ++round) {
        // Numbering again is harmless: it only numbers what is still unnumbered.
        const std::uint64_t n = repeat_if_rolled_back(
            kNumberingAttempts, [&] { return number_batch(db, shop_id, batch); });
        total += n;
        if (n < batch) {
            return total;  // the rest have not committed yet
        }
    }
    return total;
}

std::vector<ChangeRow> read_changes(Db& db, std::uint64_t shop_id, std::uint64_t after,
                                    std::uint64_t limit) {
    return db.run(bound<Stmt::changes_page>(shop_id, after, limit),
                  [&](sql::PreparedStatement& st) {
                      ResultSetPtr rs(st.executeQuery());
                      std::vector<ChangeRow> rows;
                      using namespace layout::changes_page;
                      while (rs->next()) {
                          ChangeRow row;
                          row.seq = rs->getUInt64(seq);
                          row.id = rs->getUInt64(id);
                          row.type = rs->getUInt(type);
                          row.payload = rs->getString(payload);
                          row.changes = optional_string(*rs, changes);
                          row.created_at = rs->getInt64(created_at);
                          rows.push_back(std::move(row));
                      }
                      return rows;
                  });
}

std::uint64_t changes_start_since(Db& db, std::uint64_t shop_id, timeutil::Millis since) {
    const std::string at = timeutil::format_db(since);
    return db.run(bound<Stmt::changes_since>(shop_id, at, shop_id, at, shop_id),
                  [&](sql::PreparedStatement& st) {
                      ResultSetPtr rs(st.executeQuery());
                      rs->next();
                      using namespace layout::changes_since;
                      if (!rs->isNull(first)) {
                          return rs->getUInt64(first) - 1;
                      }
                      return rs->getUInt64(last);
                  });
}

}  // namespace supportcrm
