#include "db/comment_repo.h"

#include <atomic>
#include <stdexcept>

#include "common/strict_json.h"
#include "db/comment_sql.h"
#include "db/search/upkeep.h"
#include "db/statement_params.h"

namespace supportcrm {
namespace {

// A number the connection's session never saw in @supportcrm_reopened before (each worker has
// its connection; a new connection starts without the variable): conversation_touch's token.
std::string next_reopen_token() {
    static std::atomic<std::uint64_t> last{0};
    return std::to_string(++last);
}

// One JSON value of the reopened ticket's array, as a string or nullopt.
std::optional<std::string> optional_text(const Json::Value& v) {
    return v.isNull() ? std::nullopt : std::optional<std::string>(v.asString());
}

// The ticket this request's touch reopened: @supportcrm_reopened, read back by message_insert's
// RETURNING, holds "<token> <JSON array of SUPPORTCRM_REOPENED_TICKET_COLUMNS>" when it did;
// anything else (NULL, or an earlier request's token) means it did not. The columns the touch
// changes are the comment's own values (what conversation_touch wrote).
std::optional<ReopenedTicket> reopened_ticket(const sql::ResultSet& rs, const std::string& token,
                                              std::uint64_t ticket_id, const NewComment& c) {
    using layout::message_insert::reopened;
    if (token.empty() || rs.isNull(reopened)) {
        return std::nullopt;
    }
    const std::string value = rs.getString(reopened);
    if (value.size() <= token.size() + 1 || value.compare(0, token.size(), token) != 0 ||
        value[token.size()] != ' ') {
        return std::nullopt;
    }
    Json::Value row;
    if (!strict_json::parse(std::string_view(value).substr(token.size() + 1), row) ||
        !row.isArray() || row.size() != layout::reopened_ticket::kColumns) {
        throw std::logic_error("the reopened ticket's row is not the array the touch writes");
    }
    namespace col = layout::reopened_ticket;
    ReopenedTicket out;
    out.from = row[col::status].asString();
    out.shop_domain = row[col::domain].asString();
    FullTicket& f = out.ticket;
    f.id = ticket_id;
    NewTicket& t = f.ticket;
    t.customer_id = row[col::customer_id].asUInt64();
    t.channel = row[col::channel].asString();
    t.name = optional_text(row[col::name]);
    t.thread_id = optional_text(row[col::thread_id]);
    t.email_used = optional_text(row[col::email_used]);
    t.date = row[col::date].asInt64();
    t.last_message = c.text;
    t.last_message_time = c.time;
    t.contact_reason = optional_text(row[col::contact_reason]);
    if (!row[col::assigned_to].isNull()) {
        t.assigned_to = row[col::assigned_to].asUInt64();
    }
    t.is_opened_ticket = row[col::is_opened_ticket].asInt64() != 0;
    t.unread_chat_count = 1;  // a customer's message marks it unread
    t.tags_json = row[col::tags].asString();
    t.language_code = optional_text(row[col::language_code]);
    t.via = optional_text(row[col::via]);
    f.human_ticket = HumanTicketState{row[col::ht_id].asUInt64(), "OPEN",
                                      row[col::opened_at].asInt64(), std::nullopt};
    f.updated_at = c.created_at;
    f.version = 0;  // not read
    return out;
}

// The ticket's lastMessage, updatedAt and version, under its row lock; false when the key's
// live shop has no such ticket. A customer's message also marks it unread and reopens its
// HumanTicket here, leaving the status it left and the ticket, after the token, in
// @supportcrm_reopened; a shop's message touches the ticket alone.
bool touch_by_customer(Db& db, const std::string& key_digest, std::uint64_t ticket_id,
                       const NewComment& c, const std::string& time, const std::string& token) {
    return db.run(
        bound<Stmt::conversation_touch>(c.text, time, true, timeutil::format_db(c.created_at),
                                        token, ticket_id, KeyDigest(key_digest)),
        [&](sql::PreparedStatement& st) {
            // unread
            // updated_at
            return st.executeUpdate() > 0;
        });
}

bool touch_by_shop(Db& db, const std::string& key_digest, std::uint64_t ticket_id,
                   const NewComment& c, const std::string& time) {
    return db.run(
        bound<Stmt::conversation_touch_by_shop>(c.text, time, timeutil::format_db(c.created_at),
                                                ticket_id, KeyDigest(key_digest)),
        [&](sql::PreparedStatement& st) {
            // updated_at
            return st.executeUpdate() > 0;
        });
}

}  // namespace

namespace {

// The comment's files (extensions.md §E13), the shop's own only: false, with
// added.unknown_file set, when an id is not one of them. The shared locks keep the files until
// the comment commits (an erasure deleting one waits, then finds the comment naming it).
bool attach_files(Db& db, AddedComment& added, const NewComment& c) {
    const std::uint64_t attached = db.run(
        bound<Stmt::message_files_insert>(added.id, c.file_ids_json, added.shop_id),
        [](sql::PreparedStatement& st) { return static_cast<std::uint64_t>(st.executeUpdate()); });
    if (attached == c.file_count) {
        return true;
    }
    added.unknown_file = db.run(bound<Stmt::file_unknown_of_shop>(c.file_ids_json, added.shop_id),
                                [](sql::PreparedStatement& st) {
                                    ResultSetPtr rs(st.executeQuery());
                                    return rs->next() ? rs->getUInt64(1) : std::uint64_t{0};
                                });
    return false;
}

}  // namespace

std::optional<AddedComment> add_comment(Db& db, const std::string& key_digest,
                                        std::uint64_t ticket_id, const NewComment& c) {
    Transaction tx(db);
    std::string time = timeutil::format_db(c.time);
    const std::string token = c.is_from_shop ? std::string() : next_reopen_token();
    const bool touched = c.is_from_shop
                             ? touch_by_shop(db, key_digest, ticket_id, c, time)
                             : touch_by_customer(db, key_digest, ticket_id, c, time, token);
    if (!touched) {
        return std::nullopt;  // the destructor rolls back (nothing was written)
    }
    AddedComment added = db.run(
        bound<Stmt::message_insert>(c.text, time, c.channel, c.is_from_shop, c.subject,
                                    c.from_email, c.to_emails_json, c.attachments_json, c.tags_json,
                                    timeutil::format_db(c.created_at), ticket_id),
        [&](sql::PreparedStatement& st) {
            ResultSetPtr rs(st.executeQuery());
            if (!rs->next()) {
                throw std::logic_error("message insert returned no row for a locked ticket");
            }
            using namespace layout::message_insert;
            AddedComment row;
            row.id = rs->getUInt64(id);
            row.channel = rs->getString(channel);
            row.shop_id = rs->getUInt64(shop_id);
            row.shop_webhook_events = rs->getUInt(shop_webhook_events);
            row.reopened = reopened_ticket(*rs, token, ticket_id, c);
            return row;
        });
    if (c.file_count > 0 && !attach_files(db, added, c)) {
        return added;  // unknown_file set: tx is not committed, so the comment rolls back whole
    }
    search::upkeep(db, search::CommentWrite{added.shop_id, ticket_id, added.id});
    tx.commit();
    return added;
}

bool ticket_of_erased_customer(Db& db, const std::string& key_digest, std::uint64_t ticket_id) {
    return db.run(bound<Stmt::ticket_customer_erased>(ticket_id, KeyDigest(key_digest)),
                  [&](sql::PreparedStatement& st) {
                      ResultSetPtr rs(st.executeQuery());
                      return rs->next();
                  });
}

namespace {

// SUPPORTCRM_COMMENT_FILES_COLUMN's array, as rows.
std::vector<FileRow> read_comment_files(const std::string& json) {
    Json::Value array;
    if (!strict_json::parse(json, array) || !array.isArray()) {
        throw std::runtime_error("a comment's files did not read as a JSON array");
    }
    std::vector<FileRow> files;
    for (const Json::Value& f : array) {
        files.push_back(FileRow{f[0].asUInt64(), f[1].asString(), f[2].asString(), f[3].asUInt64(),
                                f[4].asString(), f[5].asInt64()});
    }
    return files;
}

// The run of SUPPORTCRM_COMMENT_COLUMNS in a row, and the run of its user.
CommentRow read_comment(const sql::ResultSet& rs, ColumnRun at, ColumnRun user) {
    using namespace comment_col;
    CommentRow c;
    c.id = rs.getUInt64(at[id]);
    c.text = rs.getString(at[text]);
    c.time = iso_datetime(rs, at[time]);
    c.time_ms = rs.getInt64(at[time]);
    c.channel = rs.getString(at[channel]);
    c.is_from_shop = rs.getBoolean(at[is_from_shop]);
    c.subject = optional_string(rs, at[subject]);
    c.from_email = optional_string(rs, at[from_email]);
    c.to_emails_json = rs.getString(at[to_emails]);
    c.attachments_json = optional_string(rs, at[attachments]);
    c.tags_json = rs.getString(at[tags]);
    if (!rs.isNull(at[files])) {
        c.files = read_comment_files(rs.getString(at[files]));
    }
    if (!rs.isNull(user[person_col::id])) {
        c.user = read_person(rs, user);
    }
    return c;
}

}  // namespace

Keyed<TicketComments> list_comments(Db& db, const std::string& key_digest, std::uint64_t ticket_id,
                                    const std::optional<CommentPage>& page) {
    auto read = [&](sql::PreparedStatement& st) {
        ResultSetPtr rs(st.executeQuery());
        Keyed<TicketComments> found(KeyJoin::only_with_record);
        TicketComments* listed = nullptr;
        while (rs->next()) {
            using namespace layout::comments_of_ticket;
            if (!listed) {
                found.set_key(read_keyed_shop(*rs, key));
                listed = &found.emplace_record();
                listed->customer = read_person(*rs, customer);
            }
            listed->comments.push_back(read_comment(*rs, comment, user));
        }
        return found;
    };
    const KeyDigest key(key_digest);
    if (!page) {
        return db.run(bound<Stmt::comments_of_ticket>(ticket_id, key), read);
    }
    if (!page->after) {
        return db.run(bound<Stmt::comments_page_first>(ticket_id, key, page->rows), read);
    }
    const std::string time = timeutil::format_db(page->after->time);
    return db.run(
        bound<Stmt::comments_page_after>(ticket_id, time, time, page->after->id, key, page->rows),
        read);
}

std::optional<TicketComments> ticket_without_comments(Db& db, std::uint64_t shop_id,
                                                      std::uint64_t ticket_id) {
    return db.run(
        bound<Stmt::ticket_customer>(ticket_id, shop_id),
        [&](sql::PreparedStatement& st) -> std::optional<TicketComments> {
            ResultSetPtr rs(st.executeQuery());
            if (!rs->next()) {
                return std::nullopt;
            }
            return TicketComments{read_person(*rs, layout::ticket_customer::customer), {}};
        });
}

}  // namespace supportcrm
