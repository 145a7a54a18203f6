#include "db/search_reindex.h"

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

// The JSON rows of one insert (JSON_TABLE, as the service writes words: db/search_sql.h),
// sent when they pass kRowsBytes so that no statement nears max_allowed_packet (16 MiB by
// default). Words and lists hold only letters, marks, digits and spaces: no JSON escaping.
class WordRows {
  public:
    explicit WordRows(sql::PreparedStatement& insert) : insert_(insert) {}

    void add(std::uint64_t owner, std::uint64_t shop, std::string_view word, int in_comments,
             const std::string* known = nullptr) {
        json_.append(json_.empty() ? "[" : ",");
        json_.append("{\"t\":").append(std::to_string(owner));
        json_.append(",\"s\":").append(std::to_string(shop));
        json_.append(",\"w\":\"").append(word).append("\"");
        if (in_comments >= 0) {
            json_.append(",\"c\":").append(std::to_string(in_comments));
        }
        if (known != nullptr) {
            json_.append(",\"k\":\"").append(*known).append("\"");
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

constexpr const char* kTicketRowsInsert =
    "INSERT INTO ticket_words (conversation_id, word, shop_id, in_comments, known_words) "
    "SELECT j.t, j.w, j.s, j.c, j.k FROM JSON_TABLE(?, '$[*]' COLUMNS ("
    "t BIGINT UNSIGNED PATH '$.t', s INT UNSIGNED PATH '$.s', "
    "w VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$.w', "
    "c TINYINT PATH '$.c', k VARBINARY(2048) PATH '$.k')) j";
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

struct TicketText {
    std::uint64_t id = 0;
    std::uint64_t shop = 0;
    std::optional<std::string> name;
    bool erased = false;                // the customer is erased: its words go, none come
    std::vector<std::string> comments;  // the comments' words, with repeats until sorted
};

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
          clear_(prepare(db, "DELETE FROM ticket_words WHERE conversation_id BETWEEN ? AND ?")),
          insert_(prepare(db, kTicketRowsInsert)) {}

    Batch operator()(std::uint64_t after, unsigned batch) {
        std::vector<TicketText> tickets = lock(after, batch);
        if (tickets.empty()) {
            return {0, after};
        }
        const std::uint64_t first = tickets.front().id, last = tickets.back().id;
        read_comments(tickets, first, last);
        run_range(*clear_, first, last);
        WordRows rows(*insert_);
        for (TicketText& t : tickets) {
            if (!t.erased) {
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

    // The erased customers' tickets, and every comment's words (READ COMMITTED: what the
    // comments committed before the lock).
    void read_comments(std::vector<TicketText>& tickets, std::uint64_t first, std::uint64_t last) {
        auto find = [&](std::uint64_t id) {
            auto it =
                std::lower_bound(tickets.begin(), tickets.end(), id,
                                 [](const TicketText& t, std::uint64_t v) { return t.id < v; });
            return it != tickets.end() && it->id == id ? &*it : nullptr;
        };
        erased_->setUInt64(1, first);
        erased_->setUInt64(2, last);
        for (ResultSetPtr rs(erased_->executeQuery()); rs->next();) {
            if (TicketText* t = find(rs->getUInt64(1))) {
                t->erased = true;
            }
        }
        texts_->setUInt64(1, first);
        texts_->setUInt64(2, last);
        for (ResultSetPtr rs(texts_->executeQuery()); rs->next();) {
            TicketText* t = find(rs->getUInt64(1));
            if (t != nullptr && !t->erased) {
                std::vector<std::string> w = words::split(std::string(rs->getString(2)));
                t->comments.insert(t->comments.end(), std::make_move_iterator(w.begin()),
                                   std::make_move_iterator(w.end()));
            }
        }
    }

    // The ticket's rows as the service writes them: its comments' words (in_comments 1), the
    // name's others (0), and sql/016's list row (word '') of the comments' words when they fit.
    static void write(WordRows& rows, TicketText& t) {
        std::sort(t.comments.begin(), t.comments.end());
        t.comments.erase(std::unique(t.comments.begin(), t.comments.end()), t.comments.end());
        for (const std::string& w : t.comments) {
            rows.add(t.id, t.shop, w, 1);
        }
        if (t.name) {
            for (const std::string& w : words::distinct({*t.name})) {
                if (!std::binary_search(t.comments.begin(), t.comments.end(), w)) {
                    rows.add(t.id, t.shop, w, 0);
                }
            }
        }
        const std::optional<std::string> known = words::known_addition("", t.comments);
        if (!t.comments.empty() && known) {
            rows.add(t.id, t.shop, "", 1, &*known);
        }
    }

    StatementPtr lock_, erased_, texts_, clear_, insert_;
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

std::uint64_t walk(Progress& progress, const char* name, unsigned batch, const BatchFn& fn) {
    std::uint64_t total = 0;
    for (int failures = 0;;) {
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

}  // namespace

ReindexTotals reindex_search_words(Db& db, unsigned batch) {
    ReindexTotals totals;
    Progress progress(db);
    TicketBatches tickets(db);
    totals.tickets = walk(progress, "tickets", batch, std::ref(tickets));
    CustomerBatches customers(db);
    totals.customers = walk(progress, "customers", batch, std::ref(customers));
    return totals;
}

}  // namespace supportcrm
