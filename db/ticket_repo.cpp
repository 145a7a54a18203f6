#include "db/ticket_repo.h"

namespace supportcrm {
namespace {

bool row_exists(Db& db, Stmt stmt, std::uint64_t id, std::uint64_t shop_id) {
    return db.run(stmt, [&](sql::PreparedStatement& st) {
        st.setUInt64(1, id);
        st.setUInt64(2, shop_id);
        ResultSetPtr rs(st.executeQuery());
        return rs->next();
    });
}

std::string db_time(timeutil::Millis ms) {
    return timeutil::format_db(ms);
}

}  // namespace

bool customer_in_shop(Db& db, std::uint64_t shop_id, std::uint64_t customer_id) {
    return row_exists(db, Stmt::customer_exists, customer_id, shop_id);
}

bool user_in_shop(Db& db, std::uint64_t shop_id, std::uint64_t user_id) {
    return row_exists(db, Stmt::user_exists, user_id, shop_id);
}

std::uint64_t insert_ticket(Db& db, std::uint64_t shop_id, const NewTicket& t) {
    std::uint64_t id = db.run(Stmt::conversation_insert, [&](sql::PreparedStatement& st) {
        st.setUInt64(1, shop_id);
        st.setUInt64(2, t.customer_id);
        st.setString(3, t.channel);
        bind_optional(st, 4, t.name);
        bind_optional(st, 5, t.thread_id);
        bind_optional(st, 6, t.email_used);
        st.setString(7, db_time(t.date));
        bind_optional(st, 8, t.last_message);
        st.setString(9, db_time(t.last_message_time));
        bind_optional(st, 10, t.contact_reason);
        bind_optional(st, 11, t.assigned_to);
        st.setBoolean(12, t.is_opened_ticket);
        st.setInt64(13, t.unread_chat_count);
        st.setString(14, t.tags_json);
        bind_optional(st, 15, t.language_code);
        bind_optional(st, 16, t.via);
        st.setString(17, db_time(t.created_at));
        ResultSetPtr rs(st.executeQuery());
        rs->next();
        return rs->getUInt64(1);
    });
    if (t.is_opened_ticket) {
        db.run(Stmt::human_ticket_insert, [&](sql::PreparedStatement& st) {
            st.setUInt64(1, id);
            st.setString(2, db_time(t.created_at));
            ResultSetPtr rs(st.executeQuery());
        });
    }
    return id;
}

Keyed<TicketDetail> find_ticket(Db& db, const std::string& key_digest, std::uint64_t ticket_id) {
    return db.run(Stmt::ticket_detail, [&](sql::PreparedStatement& st) {
        st.setUInt64(1, ticket_id);
        st.setString(2, key_digest);
        ResultSetPtr rs(st.executeQuery());
        Keyed<TicketDetail> found;
        if (!rs->next()) {
            return found;
        }
        found.key = read_keyed_shop(*rs, 20);
        TicketDetail& t = found.value.emplace();
        t.id = rs->getUInt64(1);
        t.channel = rs->getString(2);
        t.name = optional_string(*rs, 3);
        t.customer = {rs->getUInt64(4),        optional_string(*rs, 5), optional_string(*rs, 6),
                      optional_string(*rs, 7), optional_string(*rs, 8), optional_string(*rs, 9),
                      optional_string(*rs, 10)};
        if (!rs->isNull(11)) {
            t.user = PersonRow{rs->getUInt64(11),
                               optional_string(*rs, 12),
                               optional_string(*rs, 13),
                               optional_string(*rs, 14),
                               optional_string(*rs, 15),
                               std::nullopt,
                               std::nullopt};
        }
        if (!rs->isNull(16)) {
            HumanTicketRow h;
            h.id = rs->getUInt64(16);
            h.status = rs->getString(17);
            h.opened_at = iso_datetime(*rs, 18);
            h.closed_at = optional_iso_datetime(*rs, 19);
            t.human_ticket = std::move(h);
        }
        return found;
    });
}

}  // namespace supportcrm
