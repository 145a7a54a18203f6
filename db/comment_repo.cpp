#include "db/comment_repo.h"

#include <stdexcept>

namespace supportcrm {

std::optional<AddedComment> add_comment(Db& db, const std::string& key_digest,
                                        std::uint64_t ticket_id, const NewComment& c) {
    Transaction tx(db);
    std::string time = timeutil::format_db(c.time);
    bool touched = db.run(Stmt::conversation_touch, [&](sql::PreparedStatement& st) {
        st.setString(1, c.text);
        st.setString(2, time);
        st.setBoolean(3, !c.is_from_shop);
        st.setUInt64(4, ticket_id);
        st.setString(5, key_digest);
        return st.executeUpdate() > 0;
    });
    if (!touched) {
        return std::nullopt;  // the destructor rolls back (nothing was written)
    }
    AddedComment added = db.run(Stmt::message_insert, [&](sql::PreparedStatement& st) {
        st.setString(1, c.text);
        st.setString(2, time);
        bind_optional(st, 3, c.channel);
        st.setBoolean(4, c.is_from_shop);
        bind_optional(st, 5, c.subject);
        bind_optional(st, 6, c.from_email);
        st.setString(7, c.to_emails_json);
        bind_optional(st, 8, c.attachments_json);
        st.setString(9, c.tags_json);
        st.setString(10, timeutil::format_db(c.created_at));
        st.setUInt64(11, ticket_id);
        ResultSetPtr rs(st.executeQuery());
        if (!rs->next()) {
            throw std::logic_error("message insert returned no row for a locked ticket");
        }
        return AddedComment{rs->getUInt64(1), rs->getString(2), rs->getUInt64(3)};
    });
    tx.commit();
    return added;
}

namespace {

PersonRow read_customer_columns(const sql::ResultSet& rs) {
    return {rs.getUInt64(1),
            optional_string(rs, 2),
            optional_string(rs, 3),
            optional_string(rs, 4),
            optional_string(rs, 5),
            std::nullopt,
            std::nullopt};
}

// Columns 6.. of comments_of_ticket.
CommentRow read_comment(const sql::ResultSet& rs) {
    CommentRow c;
    c.id = rs.getUInt64(6);
    c.text = rs.getString(7);
    c.time = iso_datetime(rs, 8);
    c.channel = rs.getString(9);
    c.is_from_shop = rs.getBoolean(10);
    c.subject = optional_string(rs, 11);
    c.from_email = optional_string(rs, 12);
    c.to_emails_json = rs.getString(13);
    c.attachments_json = optional_string(rs, 14);
    c.tags_json = rs.getString(15);
    if (!rs.isNull(16)) {
        c.user = PersonRow{rs.getUInt64(16),
                           optional_string(rs, 17),
                           optional_string(rs, 18),
                           optional_string(rs, 19),
                           optional_string(rs, 20),
                           std::nullopt,
                           std::nullopt};
    }
    return c;
}

}  // namespace

Keyed<TicketComments> list_comments(Db& db, const std::string& key_digest,
                                    std::uint64_t ticket_id) {
    return db.run(Stmt::comments_of_ticket, [&](sql::PreparedStatement& st) {
        st.setUInt64(1, ticket_id);
        st.setString(2, key_digest);
        ResultSetPtr rs(st.executeQuery());
        Keyed<TicketComments> found;
        while (rs->next()) {
            if (!found.value) {
                found.key = read_keyed_shop(*rs, 21);
                found.value.emplace().customer = read_customer_columns(*rs);
            }
            found.value->comments.push_back(read_comment(*rs));
        }
        return found;
    });
}

std::optional<TicketComments> ticket_without_comments(Db& db, std::uint64_t shop_id,
                                                      std::uint64_t ticket_id) {
    return db.run(Stmt::ticket_customer,
                  [&](sql::PreparedStatement& st) -> std::optional<TicketComments> {
                      st.setUInt64(1, ticket_id);
                      st.setUInt64(2, shop_id);
                      ResultSetPtr rs(st.executeQuery());
                      if (!rs->next()) {
                          return std::nullopt;
                      }
                      return TicketComments{read_customer_columns(*rs), {}};
                  });
}

}  // namespace supportcrm
