#include "db/search/reindex.h"

#include <algorithm>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/log.h"
#include "common/words.h"

namespace supportcrm {
namespace {

using StatementPtr = std::unique_ptr<sql::PreparedStatement>;

// The JSON rows of one insert (JSON_TABLE, as the service writes words: db/search/sql.h),
// sent when they pass kRowsBytes so that no statement nears max_allowed_packet (16 MiB by
// default). Words and lists hold only letters, marks, digits and spaces: no JSON escaping.
class WordRows {
  public:
    explicit WordRows(sql::PreparedStatement& insert) : insert_(insert) {}

    void add(std::uint64_t owner, std::uint64_t shop, std::string_view word, int in_comments) {
        json_.append(json_.empty() ? "[" : ",");
        json_.append("{\"t\":").append(std::to_string(owner));
        json_.append(",\"s\":").append(std::to_string(shop));
        json_.append(",\"w\":\"").append(word).append("\"");
        if (in_comments >= 0) {
            json_.append(",\"c\":").append(std::to_string(in_comments));
        }
        json_.append("}");
        if (json_.size() > kRowsBytes) {
            flush();
        }
    }

    void flush() {
        if (json_.empty()) {
            return;
        }
        json_.append("]");
        insert_.setString(1, json_);
        insert_.executeUpdate();
        json_.clear();
    }

  private:
    static constexpr std::size_t kRowsBytes = 1 << 20;
    sql::PreparedStatement& insert_;
    std::string json_;
};

constexpr const char* kTicketRowsUpsert =
    "INSERT INTO ticket_words (conversation_id, word, shop_id, in_comments) "
    "SELECT j.t, j.w, j.s, j.c FROM JSON_TABLE(?, '$[*]' COLUMNS ("
    "t BIGINT UNSIGNED PATH '$.t', s INT UNSIGNED PATH '$.s', "
    "w VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$.w', "
    "c TINYINT PATH '$.c')) j "
    "ON DUPLICATE KEY UPDATE in_comments = VALUES(in_comments)";
constexpr const char* kCustomerRowsInsert =
    "INSERT INTO customer_words (customer_id, word, shop_id) "
    "SELECT j.t, j.w, j.s FROM JSON_TABLE(?, '$[*]' COLUMNS ("
    "t BIGINT UNSIGNED PATH '$.t', s INT UNSIGNED PATH '$.s', "
    "w VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$.w')) j";

StatementPtr prepare(Db& db, const char* text) {
    return StatementPtr(db.connection().prepareStatement(text));
}

// Binds the id range [first, last] and runs the statement (a DELETE of the range's words).
void run_range(sql::PreparedStatement& st, std::uint64_t first, std::uint64_t last) {
    st.setUInt64(1, first);
    st.setUInt64(2, last);
    st.executeUpdate();
}

// What one batch did: how many records, the last id (the progress to commit).
struct Batch {
    std::uint64_t records = 0;
    std::uint64_t last = 0;
};

// --- Tickets: the words of the name and of every comment -----------------------------------

// A word row as stored: the word and its in_comments.
using WordRow = std::pair<std::string, int>;

struct TicketText {
    std::uint64_t id = 0;
    std::uint64_t shop = 0;
    std::optional<std::string> name;
    bool erased = false;                // the customer is erased: its words go, none come
    std::vector<std::string> comments;  // the comments' words, with repeats until sorted
    std::vector<WordRow> stored;        // its word rows (not its list rows) before the batch
};

// Only the difference is written: most words fold alike under both rules (ASCII ones all do),
// and a batch that deleted and wrote all its tickets' rows again took ~0.4 s for 500 tickets of
// 5 comments (35,000 rows), locking them all that time; reading them costs a fraction of that.
class TicketBatches {
  public:
    explicit TicketBatches(Db& db)
        : lock_(prepare(db,
                        "SELECT id, shop_id, name FROM conversations WHERE id > ? "
                        "ORDER BY id LIMIT ? FOR UPDATE")),
          erased_(prepare(db,
                          "SELECT c.id FROM conversations c JOIN customers cu "
                          "ON cu.id = c.customer_id WHERE c.id BETWEEN ? AND ? "
                          "AND cu.erased_at IS NOT NULL")),
          texts_(prepare(db,
                         "SELECT conversation_id, text FROM messages "
                         "WHERE conversation_id BETWEEN ? AND ?")),
          stored_(prepare(db,
                          "SELECT conversation_id, word, in_comments FROM ticket_words "
                          "WHERE conversation_id BETWEEN ? AND ? AND word >= '0'")),
          // sql/016's lists (word '' and "\x01<comment id>", all below '0'): nothing reads them
          // since the indexer (sql/023) writes every word of a batch; they go.
          clear_lists_(prepare(db,
                               "DELETE FROM ticket_words WHERE conversation_id BETWEEN ? AND ? "
                               "AND word < '0'")),
          clear_ticket_(prepare(db, "DELETE FROM ticket_words WHERE conversation_id = ?")),
          drop_(prepare(db, "DELETE FROM ticket_words WHERE conversation_id = ? AND word = ?")),
          upsert_(prepare(db, kTicketRowsUpsert)) {}

    Batch operator()(std::uint64_t after, unsigned batch) {
        std::vector<TicketText> tickets = lock(after, batch);
        if (tickets.empty()) {
            return {0, after};
        }
        const std::uint64_t first = tickets.front().id, last = tickets.back().id;
        read(tickets, first, last);
        run_range(*clear_lists_, first, last);
        WordRows rows(*upsert_);
        for (TicketText& t : tickets) {
            if (t.erased) {
                clear_ticket_->setUInt64(1, t.id);
                clear_ticket_->executeUpdate();
            } else {
                write(rows, t);
            }
        }
        rows.flush();
        return {tickets.size(), last};
    }

  private:
    // The batch's tickets, locked: a comment, a new name wait for the batch (and it for them).
    std::vector<TicketText> lock(std::uint64_t after, unsigned batch) {
        lock_->setUInt64(1, after);
        lock_->setUInt(2, batch);
        ResultSetPtr rs(lock_->executeQuery());
        std::vector<TicketText> out;
        while (rs->next()) {
            TicketText t;
            t.id = rs->getUInt64(1);
            t.shop = rs->getUInt64(2);
            t.name = optional_string(*rs, 3);
            out.push_back(std::move(t));
        }
        return out;
    }

    // Runs `st` over [first, last] and hands each row to fn with its ticket (rows of ids not in
    // the batch, none since the batch is every id of the range, are skipped).
    template <typename Fn>
    static void each_row(sql::PreparedStatement& st, std::vector<TicketText>& tickets,
                         std::uint64_t first, std::uint64_t last, Fn&& fn) {
        st.setUInt64(1, first);
        st.setUInt64(2, last);
        for (ResultSetPtr rs(st.executeQuery()); rs->next();) {
            const std::uint64_t id = rs->getUInt64(1);
            auto it =
                std::lower_bound(tickets.begin(), tickets.end(), id,
                                 [](const TicketText& t, std::uint64_t v) { return t.id < v; });
            if (it != tickets.end() && it->id == id) {
                fn(*it, *rs);
            }
        }
    }

    // Which tickets' customers are erased, every comment's words (READ COMMITTED: what the
    // comments committed before the lock) and the word rows stored now.
    void read(std::vector<TicketText>& tickets, std::uint64_t first, std::uint64_t last) {
        each_row(*erased_, tickets, first, last,
                 [](TicketText& t, sql::ResultSet&) { t.erased = true; });
        each_row(*texts_, tickets, first, last, [](TicketText& t, sql::ResultSet& rs) {
            if (!t.erased) {
                std::vector<std::string> w = words::split(std::string(rs.getString(2)));
                t.comments.insert(t.comments.end(), std::make_move_iterator(w.begin()),
                                  std::make_move_iterator(w.end()));
            }
        });
        each_row(*stored_, tickets, first, last, [](TicketText& t, sql::ResultSet& rs) {
            t.stored.emplace_back(rs.getString(2), rs.getInt(3));
        });
    }

    // The ticket's rows as the service writes them: its comments' words (in_comments 1), the
    // name's others (0), and sql/016's list row (word '') of the comments' words when they fit;
    // a stored row that is not one of them goes, one that differs is rewritten.
    void write(WordRows& rows, TicketText& t) {
        std::sort(t.comments.begin(), t.comments.end());
        t.comments.erase(std::unique(t.comments.begin(), t.comments.end()), t.comments.end());
        std::vector<WordRow> wanted;
        for (const std::string& w : t.comments) {
            wanted.emplace_back(w, 1);
        }
        for (const std::string& w :
             t.name ? words::distinct({*t.name}) : std::vector<std::string>{}) {
            if (!std::binary_search(t.comments.begin(), t.comments.end(), w)) {
                wanted.emplace_back(w, 0);
            }
        }
        std::sort(wanted.begin(), wanted.end());
        std::sort(t.stored.begin(), t.stored.end());
        for (const WordRow& row : wanted) {
            if (!std::binary_search(t.stored.begin(), t.stored.end(), row)) {
                rows.add(t.id, t.shop, row.first, row.second);
            }
        }
        for (const WordRow& row : t.stored) {
            auto it = std::lower_bound(wanted.begin(), wanted.end(), WordRow{row.first, 0});
            if (it == wanted.end() || it->first != row.first) {
                drop_->setUInt64(1, t.id);
                drop_->setString(2, row.first);
                drop_->executeUpdate();
            }
        }
    }

    StatementPtr lock_, erased_, texts_, stored_, clear_lists_, clear_ticket_, drop_, upsert_;
};

// --- Customers: email, phone_number, first_name, last_name, full_name ----------------------

class CustomerBatches {
  public:
    explicit CustomerBatches(Db& db)
        : lock_(prepare(db,
                        "SELECT id, shop_id, merged_into IS NULL AND erased_at IS NULL, "
                        "email, phone_number, first_name, last_name, full_name "
                        "FROM customers WHERE id > ? ORDER BY id LIMIT ? FOR UPDATE")),
          clear_(prepare(db, "DELETE FROM customer_words WHERE customer_id BETWEEN ? AND ?")),
          insert_(prepare(db, kCustomerRowsInsert)) {}

    // Live customers only have words (a merged one is never listed, an erased one holds
    // nothing): sql/012's rule.
    Batch operator()(std::uint64_t after, unsigned batch) {
        lock_->setUInt64(1, after);
        lock_->setUInt(2, batch);
        ResultSetPtr rs(lock_->executeQuery());
        struct Live {
            std::uint64_t id, shop;
            std::vector<std::string> words;
        };
        std::vector<Live> live;
        Batch done;
        std::uint64_t first = 0;
        for (; rs->next(); ++done.records) {
            done.last = rs->getUInt64(1);
            if (done.records == 0) {
                first = done.last;
            }
            if (!rs->getBoolean(3)) {
                continue;
            }
            std::vector<std::string> fields;
            for (unsigned column = 4; column <= 8; ++column) {
                if (std::optional<std::string> v = optional_string(*rs, column)) {
                    fields.push_back(std::move(*v));
                }
            }
            live.push_back(
                {done.last, rs->getUInt64(2), words::distinct({fields.begin(), fields.end()})});
        }
        if (done.records == 0) {
            return {0, after};
        }
        run_range(*clear_, first, done.last);
        WordRows rows(*insert_);
        for (const Live& c : live) {
            for (const std::string& w : c.words) {
                rows.add(c.id, c.shop, w, -1);
            }
        }
        rows.flush();
        return done;
    }

  private:
    StatementPtr lock_, clear_, insert_;
};

// --- The walk: one transaction per batch, with its progress ----------------------------------

using BatchFn = std::function<Batch(std::uint64_t after, unsigned batch)>;

class Progress {
  public:
    explicit Progress(Db& db)
        : db_(db),
          read_(prepare(db,
                        "SELECT done_through FROM search_reindex "
                        "WHERE name = ? AND finished_at IS NULL FOR UPDATE")),
          record_(prepare(db,
                          "UPDATE search_reindex SET done_through = ?, "
                          "finished_at = IF(?, NOW(3), NULL) WHERE name = ?")) {}

    // One batch of `name` and its progress, committed together; nullopt when it was finished.
    std::optional<Batch> one_batch(const char* name, unsigned batch, const BatchFn& fn) {
        // Each statement sees what committed before it: the comments of a ticket once locked.
        db_.execute("SET TRANSACTION ISOLATION LEVEL READ COMMITTED", "re-index isolation");
        Transaction tx(db_);
        read_->setString(1, name);
        ResultSetPtr rs(read_->executeQuery());
        if (!rs->next()) {
            tx.commit();
            return std::nullopt;
        }
        const Batch done = fn(rs->getUInt64(1), batch);
        record_->setUInt64(1, done.last);
        record_->setBoolean(2, done.records < batch);
        record_->setString(3, name);
        record_->executeUpdate();
        tx.commit();
        return done;
    }

  private:
    Db& db_;
    StatementPtr read_, record_;
};

// A batch the server rolled back whole (a deadlock with a live write; on Galera a
// certification failure) or whose statement waited too long for a lock (1205) is done again:
// Transaction rolled the rest of it back, nothing of it committed.
bool worth_again(int code, int& failures) {
    return ++failures < 10 && (Db::rolls_back_transaction(code) || code == 1205);
}

std::uint64_t walk(Progress& progress, const char* name, unsigned batch, const BatchFn& fn,
                   const KeepGoing& keep_going) {
    std::uint64_t total = 0;
    for (int failures = 0;;) {
        if (keep_going && !keep_going()) {
            return total;
        }
        std::optional<Batch> done;
        try {
            done = progress.one_batch(name, batch, fn);
        } catch (const sql::SQLException& e) {
            if (!worth_again(e.getErrorCode(), failures)) {
                throw;
            }
            continue;
        } catch (const DbError& e) {
            if (!worth_again(e.error_code, failures)) {
                throw;
            }
            continue;
        }
        if (!done) {
            return total;
        }
        failures = 0;
        total += done->records;
        if (total / (100 * batch) != (total - done->records) / (100 * batch)) {
            log::info("search re-index: " + std::to_string(total) + " " + name + " so far");
        }
    }
}

// Restarts the walks a migrate asked to be rechecked; true when there was one. One
// transaction: two tasks starting at once (two hosts' pools) reset it once.
bool restart_requested_walks(Db& db) {
    Transaction tx(db);
    StatementPtr restart =
        prepare(db,
                "UPDATE search_reindex SET done_through = 0, finished_at = NULL, "
                "recheck = 0 WHERE recheck = 1");
    const bool restarted = restart->executeUpdate() > 0;
    tx.commit();
    return restarted;
}

}  // namespace

ReindexTotals reindex_search_words(Db& db, unsigned batch, const KeepGoing& keep_going) {
    ReindexTotals totals;
    Progress progress(db);
    TicketBatches tickets(db);
    totals.tickets = walk(progress, "tickets", batch, std::ref(tickets), keep_going);
    CustomerBatches customers(db);
    totals.customers = walk(progress, "customers", batch, std::ref(customers), keep_going);
    return totals;
}

void request_recheck(Db& db) {
    prepare(db, "UPDATE search_reindex SET recheck = 1")->executeUpdate();
}

TakeoverReindex reindex_after_takeover(Db& db, const KeepGoing& keep_going, unsigned batch) {
    TakeoverReindex done;
    done.rechecked = restart_requested_walks(db);
    done.totals = reindex_search_words(db, batch, keep_going);
    return done;
}

}  // namespace supportcrm
