#include "db/search/indexer.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string_view>
#include <tuple>

#include "common/words.h"
#include "db/search/sql.h"
#include "db/statement_params.h"

namespace supportcrm::search {
namespace {

struct Claimed {
    std::vector<QueueEntry> taken;
    std::string entries_json;   // the queue rows' ids
    std::string comments_json;  // their comments' (customers') ids
    unsigned entries = 0;
    std::int64_t oldest_ms = -1;
};

template <typename BoundStatement>
void run_update(Db& db, const BoundStatement& statement) {
    db.run(statement, [&](sql::PreparedStatement& st) { st.executeUpdate(); });
}

void append_id(std::string& json, std::uint64_t id) {
    json.append(json.empty() ? "[" : ",").append(std::to_string(id));
}

// The oldest queue rows of `Claim` (comment_words_claim, customer_words_claim), locked.
template <Stmt Claim>
Claimed claim(Db& db, unsigned batch) {
    Claimed c;
    db.run(bound<Claim>(batch), [&](sql::PreparedStatement& st) {
        for (ResultSetPtr rs(st.executeQuery()); rs->next(); ++c.entries) {
            c.taken.push_back({rs->getUInt64(1), rs->getUInt64(2)});
            append_id(c.entries_json, c.taken.back().entry);
            append_id(c.comments_json, c.taken.back().subject);
            c.oldest_ms = std::max(c.oldest_ms, rs->getInt64(3));
        }
    });
    c.entries_json.append("]");
    c.comments_json.append("]");
    return c;
}

std::vector<QueuedComment> read_comments(Db& db, const std::string& ids_json) {
    return db.run(bound<Stmt::comment_words_texts>(ids_json), [&](sql::PreparedStatement& st) {
        std::vector<QueuedComment> out;
        for (ResultSetPtr rs(st.executeQuery()); rs->next();) {
            out.push_back({rs->getUInt64(1), rs->getUInt64(2), 0, std::string(rs->getString(3))});
        }
        return out;
    });
}

// Each comment's shop, its ticket's, read for the whole batch in one statement (a plain read:
// a ticket's shop never changes). A comment with no text (scrubbed by an erasure) needs none.
void read_shops(Db& db, std::vector<QueuedComment>& comments) {
    std::set<std::uint64_t> tickets;
    for (const QueuedComment& c : comments) {
        if (!c.text.empty()) {
            tickets.insert(c.ticket);
        }
    }
    std::string tickets_json;
    for (std::uint64_t t : tickets) {
        append_id(tickets_json, t);
    }
    if (tickets_json.empty()) {
        return;
    }
    std::map<std::uint64_t, std::uint64_t> shops;
    db.run(bound<Stmt::comment_words_shops>(tickets_json.append("]")),
           [&](sql::PreparedStatement& st) {
               for (ResultSetPtr rs(st.executeQuery()); rs->next();) {
                   shops[rs->getUInt64(1)] = rs->getUInt64(2);
               }
           });
    for (QueuedComment& c : comments) {
        const auto shop = shops.find(c.ticket);
        c.shop = shop == shops.end() ? 0 : shop->second;
    }
}

// The words of one ticket's comments in the batch, [begin, end), as plan_comment_words says.
void plan_ticket(std::vector<CommentWordRow>& out, std::vector<QueuedComment>::const_iterator begin,
                 std::vector<QueuedComment>::const_iterator end) {
    std::vector<std::string_view> texts;
    for (auto it = begin; it != end; ++it) {
        texts.push_back(it->text);
    }
    for (std::string& w : words::distinct(texts)) {
        out.push_back({begin->ticket, begin->shop, std::move(w)});
    }
}

}  // namespace

std::vector<CommentWordRow> plan_comment_words(const std::vector<QueuedComment>& comments) {
    std::vector<QueuedComment> sorted = comments;
    std::stable_sort(
        sorted.begin(), sorted.end(),
        [](const QueuedComment& a, const QueuedComment& b) { return a.ticket < b.ticket; });
    std::vector<CommentWordRow> rows;
    for (auto begin = sorted.begin(); begin != sorted.end();) {
        auto end = std::find_if(begin, sorted.end(),
                                [&](const QueuedComment& c) { return c.ticket != begin->ticket; });
        plan_ticket(rows, begin, end);
        begin = end;
    }
    std::sort(rows.begin(), rows.end(), [](const CommentWordRow& a, const CommentWordRow& b) {
        return std::tie(a.ticket, a.word) < std::tie(b.ticket, b.word);
    });
    return rows;
}

std::string comment_word_rows_json(const std::vector<CommentWordRow>& rows) {
    std::string json = "[";
    for (const CommentWordRow& r : rows) {
        json.append(json.size() == 1 ? "" : ",");
        json.append("{\"t\":").append(std::to_string(r.ticket));
        json.append(",\"s\":").append(std::to_string(r.shop));
        json.append(",\"w\":\"").append(r.word).append("\"}");
    }
    return json.append("]");
}

void prepare_indexer_session(Db& db) {
    db.execute("SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED", "indexer isolation");
}

IndexedBatch index_comment_batch(Db& db, unsigned batch) {
    Transaction tx(db);
    const Claimed claimed = claim<Stmt::comment_words_claim>(db, batch);
    IndexedBatch done{claimed.entries, 0, claimed.oldest_ms};
    if (claimed.entries == 0) {
        tx.commit();
        return done;
    }
    std::vector<QueuedComment> comments = read_comments(db, claimed.comments_json);
    read_shops(db, comments);
    const std::vector<CommentWordRow> rows = plan_comment_words(comments);
    if (!rows.empty()) {
        run_update(db, bound<Stmt::comment_words_add>(comment_word_rows_json(rows)));
    }
    run_update(db, bound<Stmt::comment_words_done>(claimed.entries_json));
    tx.commit();
    done.rows = static_cast<unsigned>(rows.size());
    return done;
}

namespace {

std::optional<std::string> optional_field(const sql::ResultSet& rs, unsigned column) {
    return rs.isNull(column) ? std::nullopt : std::optional<std::string>(rs.getString(column));
}

std::vector<QueuedCustomer> read_customers(Db& db, const std::string& ids_json) {
    return db.run(bound<Stmt::customer_words_rows>(ids_json), [&](sql::PreparedStatement& st) {
        std::vector<QueuedCustomer> out;
        for (ResultSetPtr rs(st.executeQuery()); rs->next();) {
            QueuedCustomer c;
            c.customer = rs->getUInt64(1);
            c.shop = rs->getUInt64(2);
            c.listed = rs->getBoolean(3);
            for (unsigned column = 4; column <= 8; ++column) {
                if (std::optional<std::string> field = optional_field(*rs, column)) {
                    c.fields.push_back(std::move(*field));
                }
            }
            out.push_back(std::move(c));
        }
        return out;
    });
}

}  // namespace

std::vector<CustomerWordRow> plan_customer_words(const std::vector<QueuedCustomer>& customers) {
    std::vector<CustomerWordRow> rows;
    for (const QueuedCustomer& c : customers) {
        if (!c.listed) {
            continue;  // merged or erased: no words
        }
        std::vector<std::string_view> texts(c.fields.begin(), c.fields.end());
        for (std::string& w : words::distinct(texts)) {
            rows.push_back({c.customer, c.shop, std::move(w)});
        }
    }
    std::sort(rows.begin(), rows.end(), [](const CustomerWordRow& a, const CustomerWordRow& b) {
        return std::tie(a.customer, a.word) < std::tie(b.customer, b.word);
    });
    rows.erase(std::unique(rows.begin(), rows.end(),
                           [](const CustomerWordRow& a, const CustomerWordRow& b) {
                               return a.customer == b.customer && a.word == b.word;
                           }),
               rows.end());
    return rows;
}

std::string customer_word_rows_json(const std::vector<CustomerWordRow>& rows) {
    std::vector<CommentWordRow> same;
    same.reserve(rows.size());
    for (const CustomerWordRow& r : rows) {
        same.push_back({r.customer, r.shop, r.word});
    }
    return comment_word_rows_json(same);
}

CustomerSettlement settle_customers(const std::vector<QueueEntry>& claimed,
                                    const std::vector<std::uint64_t>& read,
                                    const std::vector<std::uint64_t>& present) {
    const std::set<std::uint64_t> locked(read.begin(), read.end());
    const std::set<std::uint64_t> held(present.begin(), present.end());
    std::set<std::uint64_t> entries;
    std::set<std::uint64_t> customers;
    for (const QueueEntry& e : claimed) {
        if (locked.count(e.subject) != 0 || held.count(e.subject) == 0) {
            entries.insert(e.entry);
            customers.insert(e.subject);
        }
    }
    return {{entries.begin(), entries.end()}, {customers.begin(), customers.end()}};
}

namespace {

std::string ids_json(const std::vector<std::uint64_t>& ids) {
    std::string json;
    for (std::uint64_t id : ids) {
        append_id(json, id);
    }
    return json.empty() ? "[]" : json.append("]");
}

// Of the claimed customers the locking read skipped, those that exist (a writer holds them).
std::vector<std::uint64_t> skipped_but_present(Db& db, const Claimed& claimed,
                                               const std::vector<QueuedCustomer>& read) {
    std::set<std::uint64_t> skipped;
    for (const QueueEntry& e : claimed.taken) {
        skipped.insert(e.subject);
    }
    for (const QueuedCustomer& c : read) {
        skipped.erase(c.customer);
    }
    std::vector<std::uint64_t> present;
    if (skipped.empty()) {
        return present;
    }
    const std::vector<std::uint64_t> asked(skipped.begin(), skipped.end());
    db.run(bound<Stmt::customer_words_present>(ids_json(asked)), [&](sql::PreparedStatement& st) {
        for (ResultSetPtr rs(st.executeQuery()); rs->next();) {
            present.push_back(rs->getUInt64(1));
        }
    });
    return present;
}

}  // namespace

IndexedBatch index_customer_batch(Db& db, unsigned batch) {
    Transaction tx(db);
    const Claimed claimed = claim<Stmt::customer_words_claim>(db, batch);
    IndexedBatch done{claimed.entries, 0, claimed.oldest_ms};
    if (claimed.entries == 0) {
        tx.commit();
        return done;
    }
    const std::vector<QueuedCustomer> read = read_customers(db, claimed.comments_json);
    std::vector<std::uint64_t> read_ids;
    for (const QueuedCustomer& c : read) {
        read_ids.push_back(c.customer);
    }
    const CustomerSettlement settled =
        settle_customers(claimed.taken, read_ids, skipped_but_present(db, claimed, read));
    const std::vector<CustomerWordRow> rows = plan_customer_words(read);
    if (!settled.customers.empty()) {
        run_update(db, bound<Stmt::customer_words_clear_batch>(ids_json(settled.customers)));
    }
    if (!rows.empty()) {
        run_update(db, bound<Stmt::customer_words_write>(customer_word_rows_json(rows)));
    }
    if (!settled.entries.empty()) {
        run_update(db, bound<Stmt::customer_words_done>(ids_json(settled.entries)));
    }
    tx.commit();
    done.entries = static_cast<unsigned>(settled.entries.size());
    done.rows = static_cast<unsigned>(rows.size());
    return done;
}

IndexerLag comment_words_lag(Db& db) {
    return db.run(bound<Stmt::comment_words_lag>(), [&](sql::PreparedStatement& st) {
        ResultSetPtr rs(st.executeQuery());
        IndexerLag lag;
        if (rs->next()) {
            lag.oldest_ms = rs->isNull(1) ? 0 : std::max<std::int64_t>(0, rs->getInt64(1));
            lag.queued = rs->getUInt64(2);
        }
        return lag;
    });
}

}  // namespace supportcrm::search
