#include "db/search/upkeep.h"

#include <string_view>
#include <vector>

#include "common/log.h"
#include "common/words.h"
#include "db/search/sql.h"
#include "db/statement_params.h"

namespace supportcrm::search {
namespace {
template <Stmt id>
void add_words(Db& db, std::uint64_t owner, std::uint64_t shop_id,
               const std::vector<std::string>& list) {
    if (list.empty()) {
        return;
    }
    db.run(bound<id>(owner, shop_id, words::json_array(list)),
           [&](sql::PreparedStatement& st) { st.executeUpdate(); });
}

template <Stmt id>
void delete_by_id(Db& db, std::uint64_t owner) {
    db.run(bound<id>(owner), [&](sql::PreparedStatement& st) { st.executeUpdate(); });
}

// Whether `has_words` finds words under a new record's id.
template <Stmt has_words>
bool id_has_words(Db& db, std::uint64_t id) {
    return db.run(bound<has_words>(id), [&](sql::PreparedStatement& st) {
        ResultSetPtr rs(st.executeQuery());
        return rs->next() && rs->getBoolean(1);
    });
}

void log_reused_id(const char* what, std::uint64_t id) {
    log::warning(std::string("new ") + what + " " + std::to_string(id) +
                 ": cleared the search rows of an earlier record with its id, left by a dump "
                 "restored into the existing database (docs/operations.md, \"Backup and "
                 "restore\")");
}

// A new ticket's (customer's) id, before its words and tags are written: words (and tags) under
// it are an earlier record's, left by a restore into the existing database (issue 43:
// AUTO_INCREMENT hands its ids out again), and go, so that they never describe the new record.
// One plain read of the id's words, one seek (there are none but after such a restore).
void clear_reused_ticket_id(Db& db, std::uint64_t ticket_id) {
    if (!id_has_words<Stmt::ticket_id_has_words>(db, ticket_id)) {
        return;  // always, but after such a restore
    }
    delete_by_id<Stmt::ticket_words_clear>(db, ticket_id);
    delete_by_id<Stmt::ticket_tags_clear>(db, ticket_id);
    log_reused_id("ticket", ticket_id);
}

// A ticket's name, new (created: there is nothing to drop) or changed: the words only the old
// name had go, the new name's join.
void index_ticket_name(Db& db, std::uint64_t shop_id, std::uint64_t ticket_id,
                       const std::optional<std::string>& name, bool created) {
    if (!created) {
        delete_by_id<Stmt::ticket_words_drop_name>(db, ticket_id);
    }
    if (name) {
        add_words<Stmt::ticket_words_add_name>(db, ticket_id, shop_id, words::distinct({*name}));
    }
}

// A ticket's tags (conversations.tags, the JSON array it stores), new or changed: the `tag`
// filter's index (ticket_tags) holds exactly them.
void index_ticket_tags(Db& db, std::uint64_t shop_id, std::uint64_t ticket_id,
                       const std::string& tags_json, bool created) {
    if (!created) {
        delete_by_id<Stmt::ticket_tags_clear>(db, ticket_id);
    }
    if (tags_json == "[]") {
        return;  // the usual ticket: nothing to write
    }
    db.run(bound<Stmt::ticket_tags_add>(ticket_id, shop_id, tags_json),
           [&](sql::PreparedStatement& st) { st.executeUpdate(); });
}

// The customer's words become those of its searched fields; created: it had none.
void index_customer(Db& db, std::uint64_t shop_id, std::uint64_t customer_id,
                    const CustomerFields& c) {
    delete_by_id<Stmt::customer_words_clear>(db, customer_id);
    std::vector<std::string_view> texts;
    for (const auto* field :
         {&c.email, &c.phone_number, &c.first_name, &c.last_name, &c.full_name}) {
        if (*field) {
            texts.push_back(**field);
        }
    }
    add_words<Stmt::customer_words_add>(db, customer_id, shop_id, words::distinct(texts));
}

}  // namespace

void upkeep(Db& db, const TicketWrite& w) {
    if (w.created) {
        clear_reused_ticket_id(db, w.ticket_id);
    }
    if (w.name) {
        index_ticket_name(db, w.shop_id, w.ticket_id, *w.name, w.created);
    }
    if (w.tags_json) {
        index_ticket_tags(db, w.shop_id, w.ticket_id, *w.tags_json, w.created);
    }
}

void upkeep(Db&, const CommentWrite&) {
    // Nothing in the comment's transaction: its insert queued it (sql/023's trigger), and the
    // search indexer writes its words after the commit (db/search/indexer.h).
}

void upkeep(Db& db, const CustomerWrite& w) {
    if (w.unlisted) {
        delete_by_id<Stmt::customer_words_clear>(db, w.customer_id);
        return;
    }
    if (w.created) {
        return;  // the search indexer's, after the commit (sql/024's trigger queued it)
    }
    if (w.fields) {
        index_customer(db, w.shop_id, w.customer_id, *w.fields);
    }
}

bool searched_fields_differ(const CustomerFields& a, const CustomerFields& b) {
    return a.email != b.email || a.phone_number != b.phone_number || a.first_name != b.first_name ||
           a.last_name != b.last_name || a.full_name != b.full_name;
}

void erase_customer_words(Db& db, std::uint64_t customer_id) {
    db.run(bound<Stmt::erase_customer_words>(customer_id, customer_id),
           [&](sql::PreparedStatement& st) { st.executeUpdate(); });
}

void erase_tickets_words(Db& db, std::uint64_t customer_id, std::uint64_t after,
                         std::uint64_t through) {
    db.run(bound<Stmt::erase_tickets_words>(customer_id, after, through),
           [&](sql::PreparedStatement& st) { st.executeUpdate(); });
}

unsigned erase_ticket_words_batch(Db& db, std::uint64_t ticket_id, unsigned batch) {
    return db.run(
        bound<Stmt::erase_ticket_words>(ticket_id, batch),
        [&](sql::PreparedStatement& st) { return static_cast<unsigned>(st.executeUpdate()); });
}

}  // namespace supportcrm::search
