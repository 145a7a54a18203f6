#include "db/ticket_repo.h"

#include <cppconn/datatype.h>

#include <algorithm>
#include <iterator>
#include <optional>
#include <utility>

#include "common/json_writer.h"
#include "common/words.h"
#include "db/search/page.h"
#include "db/search/plan.h"
#include "db/search/reads.h"
#include "db/search/sql.h"
#include "db/search/upkeep.h"
#include "db/statement_params.h"
#include "db/ticket_sql.h"

namespace supportcrm {

constexpr WordChecks kTicketWordChecks{Stmt::ticket_words_check, Stmt::ticket_word_tickets};
namespace {

template <Stmt stmt>
bool row_exists(Db& db, std::uint64_t id, std::uint64_t shop_id) {
    return db.run(bound<stmt>(id, shop_id), [&](sql::PreparedStatement& st) {
        ResultSetPtr rs(st.executeQuery());
        return rs->next();
    });
}

std::string db_time(timeutil::Millis ms) {
    return timeutil::format_db(ms);
}

}  // namespace

PersonRow read_person(const sql::ResultSet& rs, ColumnRun at) {
    PersonRow p;
    p.id = rs.getUInt64(at[person_col::id]);
    p.email = optional_string(rs, at[person_col::email]);
    p.first_name = optional_string(rs, at[person_col::first_name]);
    p.last_name = optional_string(rs, at[person_col::last_name]);
    p.full_name = optional_string(rs, at[person_col::full_name]);
    if (at.count == kPersonWithContactColumns) {
        p.phone_number = optional_string(rs, at[person_col::phone_number]);
        p.storefront_id = optional_string(rs, at[person_col::storefront_id]);
    }
    return p;
}

TicketCustomer ticket_customer(Db& db, std::uint64_t shop_id, std::uint64_t customer_id) {
    return db.run(bound<Stmt::customer_exists>(customer_id, shop_id),
                  [&](sql::PreparedStatement& st) {
                      ResultSetPtr rs(st.executeQuery());
                      if (!rs->next()) {
                          return TicketCustomer::missing;
                      }
                      return rs->getBoolean(1) ? TicketCustomer::erased : TicketCustomer::live;
                  });
}

bool user_in_shop(Db& db, std::uint64_t shop_id, std::uint64_t user_id) {
    return row_exists<Stmt::user_exists>(db, user_id, shop_id);
}

InsertedTicket insert_ticket(Db& db, std::uint64_t shop_id, const NewTicket& t) {
    const bool attached =
        db.run(bound<Stmt::customer_attach>(t.customer_id),
               [&](sql::PreparedStatement& st) { return st.executeUpdate() > 0; });
    if (!attached) {
        return {};  // merged or erased since the check: nothing written
    }
    InsertedTicket out = db.run(
        bound<Stmt::conversation_insert>(
            shop_id, t.customer_id, t.channel, t.name, t.thread_id, t.email_used, db_time(t.date),
            t.last_message, db_time(t.last_message_time), t.contact_reason, t.assigned_to,
            t.is_opened_ticket, t.unread_chat_count, t.tags_json, t.language_code, t.via,
            db_time(t.created_at), db_time(t.created_at), t.is_opened_ticket, t.customer_id),
        [&](sql::PreparedStatement& st) {
            // updated_at: a new ticket's last change
            // the HumanTicket below
            ResultSetPtr rs(st.executeQuery());
            namespace col = layout::conversation_insert;
            return rs->next() ? InsertedTicket{rs->getUInt64(col::id),
                                               rs->getUInt64(col::customer_version)}
                              : InsertedTicket{};
        });
    if (out.id == 0) {
        return {};  // not reached: the customer's row is locked and was checked live
    }
    search::upkeep(db, search::TicketWrite{shop_id, out.id, /*created=*/true, t.name, t.tags_json});
    if (t.is_opened_ticket) {
        open_human_ticket(db, shop_id, out.id, t.created_at);
    }
    return out;
}

Keyed<TicketDetail> find_ticket(Db& db, const std::string& key_digest, std::uint64_t ticket_id) {
    return db.run(bound<Stmt::ticket_detail>(ticket_id, KeyDigest(key_digest)),
                  [&](sql::PreparedStatement& st) {
                      ResultSetPtr rs(st.executeQuery());
                      Keyed<TicketDetail> found(KeyJoin::only_with_record);
                      if (!rs->next()) {
                          return found;
                      }
                      using namespace layout::ticket_detail;
                      found.set_key(read_keyed_shop(*rs, key));
                      TicketDetail& t = found.emplace_record();
                      t.id = rs->getUInt64(id);
                      t.channel = rs->getString(channel);
                      t.name = optional_string(*rs, name);
                      t.customer = read_person(*rs, customer);
                      if (!rs->isNull(user[person_col::id])) {
                          t.user = read_person(*rs, user);
                      }
                      if (!rs->isNull(human_ticket[ht_id])) {
                          HumanTicketRow h;
                          h.id = rs->getUInt64(human_ticket[ht_id]);
                          h.status = rs->getString(human_ticket[ht_status]);
                          h.opened_at = iso_datetime(*rs, human_ticket[ht_opened_at]);
                          h.closed_at = optional_iso_datetime(*rs, human_ticket[ht_closed_at]);
                          t.human_ticket = std::move(h);
                      }
                      t.version = rs->getUInt64(version);
                      t.customer_version = rs->getUInt64(customer_version);
                      return found;
                  });
}

}  // namespace supportcrm

namespace supportcrm {
namespace {

// The create shape's columns (SUPPORTCRM_TICKET_COLUMNS, from the first column of a row).
void read_created_ticket(const sql::ResultSet& rs, NewTicket& t) {
    using namespace layout::tickets_page;
    t.customer_id = rs.getUInt64(customer_id);
    t.channel = rs.getString(channel);
    t.name = optional_string(rs, name);
    t.thread_id = optional_string(rs, thread_id);
    t.email_used = optional_string(rs, email_used);
    t.date = rs.getInt64(date);
    t.last_message = optional_string(rs, last_message);
    t.last_message_time = rs.getInt64(last_message_time);
    t.contact_reason = optional_string(rs, contact_reason);
    t.assigned_to = optional_uint(rs, assigned_to);
    t.is_opened_ticket = rs.getBoolean(is_opened_ticket);
    t.unread_chat_count = rs.getInt64(unread_chat_count);
    t.tags_json = rs.getString(tags);
    t.language_code = optional_string(rs, language_code);
    t.via = optional_string(rs, via);
}

TicketRow read_ticket_row(const sql::ResultSet& rs) {
    TicketRow row;
    row.id = rs.getUInt64(layout::tickets_page::id);
    read_created_ticket(rs, row.ticket);
    return row;
}

// Binds a filter's pair of placeholders (SUPPORTCRM_TICKET_FILTERS): NULL twice when absent.
template <typename T, typename Set>
void bind_pair(sql::PreparedStatement& st, unsigned& i, const std::optional<T>& v, Set set) {
    if (v) {
        set(i++, *v);
        set(i++, *v);
    } else {
        st.setNull(i++, sql::DataType::VARCHAR);
        st.setNull(i++, sql::DataType::VARCHAR);
    }
}

std::optional<std::string> tags_json(const std::vector<std::string>& tags) {
    if (tags.empty()) {
        return std::nullopt;
    }
    std::string out;
    JsonWriter w(out);
    w.begin_array();
    for (const std::string& t : tags) {
        w.string(t);
    }
    w.end_array();
    return out;
}

// The filters on the ticket's own columns: customerId, updatedSince, Channel, assignedTo.
void bind_ticket_columns(sql::PreparedStatement& st, unsigned& i, const TicketFilter& f) {
    const auto str = [&](unsigned at, const std::string& v) { st.setString(at, v); };
    const auto u64 = [&](unsigned at, std::uint64_t v) { st.setUInt64(at, v); };
    bind_pair(st, i, f.customer_id, u64);
    bind_pair(
        st, i,
        f.updated_since ? std::optional<std::string>(db_time(*f.updated_since)) : std::nullopt,
        str);
    bind_pair(st, i, f.channel, str);
    bind_pair(st, i, f.assigned_to, u64);
}

void bind_ticket_filters(sql::PreparedStatement& st, unsigned& i, const TicketFilter& f) {
    const auto str = [&](unsigned at, const std::string& v) { st.setString(at, v); };
    bind_ticket_columns(st, i, f);
    bind_pair(st, i, f.status, str);
    bind_pair(st, i, tags_json(f.tags), str);
    bind_pair(
        st, i,
        f.words.empty() ? std::nullopt : std::optional<std::string>(words::json_array(f.words)),
        str);
}

using search::Tuning;

// The filters of f to check on each ticket a words statement lists: it intersects q's first
// three words already, so with no more the check ticket by ticket is left out.
TicketFilter filters_beside_words(const TicketFilter& f) {
    TicketFilter rest = f;
    if (f.words.size() <= Tuning::kCountedWords) {
        rest.words.clear();
    }
    return rest;
}

// customerId, assignedTo (0: none) and Channel as sources (db/search/sql.h), each one value.
void add_column_sources(const TicketFilter& f, std::vector<SearchSource>& out) {
    const auto add = [&](Stmt count, Stmt page, const std::string& value) {
        out.push_back({count, page, {value}, {value}, false});
    };
    if (f.customer_id) {
        add(Stmt::ticket_customer_count, Stmt::tickets_filtered_by_customer,
            std::to_string(*f.customer_id));
    }
    if (f.assigned_to) {
        add(Stmt::ticket_assigned_count, Stmt::tickets_filtered_by_assigned,
            std::to_string(*f.assigned_to));
    }
    if (f.channel) {
        add(Stmt::ticket_channel_count, Stmt::tickets_filtered_by_channel, *f.channel);
    }
}

// The filters that can start a page from their own index (db/search/sql.h): the tags, the
// statuses (unless `none`, a ticket without HumanTicket, is one of them; `none` alone lists
// its tickets by conversations.has_human_ticket, sql/017), the words of q, and beside any of
// those customerId, assignedTo and Channel.
std::vector<SearchSource> ticket_sources(const TicketFilter& f) {
    std::vector<SearchSource> out;
    for (std::size_t i = 0; i < f.tags.size() && i < Tuning::kCountedTags; ++i) {
        out.push_back({Stmt::ticket_tag_count,
                       Stmt::tickets_filtered_by_tag,
                       {f.tags[i]},
                       {f.tags[i]},
                       false});
    }
    if (f.status && f.status->find("none") == std::string::npos) {
        std::vector<std::string> statuses;
        for (std::string_view rest = *f.status; !rest.empty();) {
            const std::size_t comma = std::min(rest.find(','), rest.size());
            statuses.emplace_back(rest.substr(0, comma));
            rest.remove_prefix(std::min(comma + 1, rest.size()));
        }
        statuses.resize(4, statuses.front());  // the statement's four: repeats match alike
        out.push_back({Stmt::ticket_status_count, Stmt::tickets_filtered_by_status, statuses,
                       statuses, false});
    } else if (f.status == "none") {  // alone: its own index (sql/017)
        out.push_back({Stmt::ticket_no_human_ticket_count,
                       Stmt::tickets_filtered_no_human_ticket,
                       {},
                       {},
                       false});
    }
    // A word starts the page from its rows, intersected with those of the next two counted
    // words (itself again when q has fewer).
    const std::size_t counted = std::min(f.words.size(), Tuning::kCountedWords);
    for (std::size_t i = 0; i < counted; ++i) {
        std::vector<std::string> page{f.words[i] + "%"};
        for (std::size_t k = 1; k < 3; ++k) {
            page.push_back(k < counted ? f.words[(i + k) % counted] + "%" : page.front());
        }
        out.push_back({Stmt::ticket_word_count,
                       Stmt::tickets_filtered_by_word,
                       {f.words[i] + "%"},
                       std::move(page),
                       true});
    }
    // Beside those, the ticket's own indexed columns are sources too: otherwise a page whose
    // tag, status or word is common goes on past the scan window from it, reading its
    // thousands of tickets, while the customer, the agent or the channel has a handful.
    // Alone, the scan statement's own choice of index covers them (they stay out: no count).
    if (!out.empty()) {
        add_column_sources(f, out);
    }
    return out;
}

// Appends to `out` up to `rows` tickets matching f with an id below `before_id`: from the
// source's rows (a by_* statement), or without one along the shop's tickets down to `floor`.
void read_search_rows(Db& db, std::uint64_t shop_id, const TicketFilter& f,
                      const SearchSource* source, std::uint64_t floor, std::uint64_t before_id,
                      std::uint64_t rows, std::vector<TicketRow>& out) {
    db.run_positional(
        source ? source->page : Stmt::tickets_filtered_scan, [&](sql::PreparedStatement& st) {
            unsigned i = 1;
            st.setUInt64(i++, shop_id);
            if (source) {
                for (std::size_t k = 0; k < source->page_values.size(); ++k) {
                    if (k > 0 && source->shop_per_value) {
                        st.setUInt64(i++, shop_id);
                    }
                    st.setString(i++, source->page_values[k]);
                }
                st.setUInt64(i++, shop_id);
            } else {
                st.setUInt64(i++, floor);
            }
            bind_ticket_filters(st, i,
                                source && source->shop_per_value ? filters_beside_words(f) : f);
            st.setUInt64(i++, before_id);
            st.setUInt64(i++, rows);
            ResultSetPtr rs(st.executeQuery());
            while (rs->next()) {
                out.push_back(read_ticket_row(*rs));
            }
        });
}

// The statement for 1, 2 or 3 words.
constexpr Stmt kTicketsInWindowByWords[] = {Stmt::tickets_in_window_by_word,
                                            Stmt::tickets_in_window_by_two_words,
                                            Stmt::tickets_in_window_by_three_words};
static_assert(std::size(kTicketsInWindowByWords) == Tuning::kIntersectedWords);

// Appends to `out` up to `rows` tickets matching f with an id in [low, high), by q's words.
void read_word_window(Db& db, std::uint64_t shop_id, const TicketFilter& f,
                      const std::vector<WindowedWord>& words, std::uint64_t low, std::uint64_t high,
                      std::uint64_t rows, std::vector<TicketRow>& out) {
    db.run_positional(kTicketsInWindowByWords[words.size() - 1], [&](sql::PreparedStatement& st) {
        unsigned i = 1;
        bind_windowed_words(st, i, shop_id, words, low, high);
        st.setUInt64(i++, shop_id);
        bind_ticket_filters(st, i, filters_beside_words(f));
        st.setUInt64(i++, high);
        st.setUInt64(i++, rows);
        ResultSetPtr rs(st.executeQuery());
        while (rs->next()) {
            out.push_back(read_ticket_row(*rs));
        }
    });
}

// Whether a ticket of the window has the columns f asks for (ticket_columns_in_window).
bool window_has_columns(Db& db, std::uint64_t shop_id, const TicketFilter& f, std::uint64_t low,
                        std::uint64_t high) {
    return db.run_positional(Stmt::ticket_columns_in_window, [&](sql::PreparedStatement& st) {
        unsigned i = 1;
        st.setUInt64(i++, shop_id);
        st.setUInt64(i++, low);
        st.setUInt64(i++, high);
        bind_ticket_columns(st, i, f);
        ResultSetPtr rs(st.executeQuery());
        return rs->next();
    });
}

// Past the scan window, by q's words (walk_id_windows, db/search/reads.h). With filters on the
// ticket's own columns, a window none of whose tickets has them is skipped first: a few of
// their index rows instead of its words' rows, which an empty combination of common values
// (an agent who has no Chat tickets, and q=order) read in every window of the shop.
void read_words_in_windows(Db& db, std::uint64_t shop_id, const TicketFilter& f,
                           std::uint64_t floor, std::uint64_t rows, std::vector<TicketRow>& out) {
    const std::vector<WindowedWord> words =
        windowed_words(db, Stmt::ticket_word_next_form, shop_id, f.words);
    const bool columns = f.customer_id || f.updated_since || f.channel || f.assigned_to;
    walk_id_windows(floor, [&](std::uint64_t low, std::uint64_t high) {
        if (!columns || window_has_columns(db, shop_id, f, low, high)) {
            read_word_window(db, shop_id, f, words, low, high, rows - out.size(), out);
        }
        return out.size() < rows;
    });
}

// Tickets as db/search/page.h's entity: its sources are ticket_sources(f).
struct TicketSearch {
    Db& db;
    std::uint64_t shop_id;
    const TicketFilter& f;
    std::vector<SearchSource> sources;

    bool has_sources() const { return !sources.empty(); }
    bool has_words() const { return !f.words.empty(); }
    FewestRows fewest(std::uint64_t bound, bool grow) {
        return fewest_rows(db, shop_id, sources, bound, grow);
    }
    std::uint64_t scan_floor(std::uint64_t before_id) {
        return supportcrm::scan_floor(db, Stmt::ticket_scan_floor, shop_id, before_id);
    }
    void read(const std::size_t* source, std::uint64_t floor, std::uint64_t before_id,
              std::uint64_t rows, std::vector<TicketRow>& out) {
        read_search_rows(db, shop_id, f, source ? &sources[*source] : nullptr, floor, before_id,
                         rows, out);
    }
    void walk_windows(std::uint64_t floor, std::uint64_t rows, std::vector<TicketRow>& out) {
        read_words_in_windows(db, shop_id, f, floor, rows, out);
    }
};

// E10: the statements of db/search/sql.h, in the steps of db/search/plan.h. The rows read stay
// bounded by the rarest filter with an index of its own (docs/performance.md, "Ways to a
// search page"). Filters without a source (status `none` beside others; assignedTo, Channel,
// customerId, updatedSince alone, which the scan reaches by their own indexes) walk the
// shop's tickets.
std::vector<TicketRow> search_tickets_page(Db& db, std::uint64_t shop_id, const TicketFilter& f,
                                           std::uint64_t before_id, std::uint64_t rows) {
    if (f.matches_nothing) {
        return {};
    }
    TicketSearch entity{db, shop_id, f, ticket_sources(f)};
    return search::run_page<TicketRow>(entity, before_id, rows);
}

// E10's q of more words than the statements intersect: candidates by the other filters and
// q's three rarest counted words (search_tickets_page), checked for the others
// (rows_having_every_word, db/search/reads.h).
std::vector<TicketRow> search_many_words_page(Db& db, std::uint64_t shop_id, const TicketFilter& f,
                                              std::uint64_t before_id, std::uint64_t rows) {
    const std::optional<std::vector<std::string>> ranked =
        rank_words(db, shop_id, Stmt::ticket_word_count, f.words);
    if (!ranked) {
        return {};  // a word that starts nothing in the shop
    }
    TicketFilter first = f;
    first.words.assign(ranked->begin(), ranked->begin() + Tuning::kIntersectedWords);
    const std::vector<std::string> rest(ranked->begin() + Tuning::kIntersectedWords, ranked->end());
    const auto candidates = [&](std::uint64_t below, std::uint64_t n) {
        return search_tickets_page(db, shop_id, first, below, n);
    };
    return rows_having_every_word<TicketRow>(db, kTicketWordChecks, shop_id, rest, before_id, rows,
                                             candidates);
}

}  // namespace

std::vector<TicketRow> read_tickets_page(Db& db, std::uint64_t shop_id, const TicketFilter& filter,
                                         std::uint64_t before_id, std::uint64_t rows) {
    if (filter.searching()) {
        return filter.words.size() > Tuning::kIntersectedWords
                   ? search_many_words_page(db, shop_id, filter, before_id, rows)
                   : search_tickets_page(db, shop_id, filter, before_id, rows);
    }
    auto read = [&](sql::PreparedStatement& st) {
        ResultSetPtr rs(st.executeQuery());
        std::vector<TicketRow> out;
        while (rs->next()) {
            out.push_back(read_ticket_row(*rs));
        }
        return out;
    };
    const std::optional<std::uint64_t>& customer = filter.customer_id;
    if (!filter.updated_since) {
        return customer
                   ? db.run(bound<Stmt::tickets_page_customer>(shop_id, *customer, before_id, rows),
                            read)
                   : db.run(bound<Stmt::tickets_page>(shop_id, before_id, rows), read);
    }
    const std::string since = db_time(*filter.updated_since);
    return customer
               ? db.run(bound<Stmt::tickets_page_customer_since>(shop_id, *customer, since,
                                                                 before_id, rows),
                        read)
               : db.run(bound<Stmt::tickets_page_since>(shop_id, since, before_id, rows), read);
}

}  // namespace supportcrm

namespace supportcrm {

Keyed<TicketForPatch> find_ticket_for_patch(Db& db, const std::string& key_digest,
                                            std::uint64_t ticket_id,
                                            const std::optional<std::uint64_t>& user_id) {
    return db.run(bound<Stmt::ticket_for_patch>(user_id, ticket_id, KeyDigest(key_digest)),
                  [&](sql::PreparedStatement& st) {
                      ResultSetPtr rs(st.executeQuery());
                      Keyed<TicketForPatch> found(KeyJoin::only_with_record);
                      if (!rs->next()) {
                          return found;
                      }
                      namespace col = layout::ticket_for_patch;
                      namespace ht =
                          layout::ticket_detail;  // the ht_* offsets into the HumanTicket's run
                      found.set_key(read_keyed_shop(*rs, col::key));
                      TicketForPatch& row = found.emplace_record();
                      FullTicket& t = row.ticket;
                      t.id = rs->getUInt64(layout::tickets_page::id);
                      read_created_ticket(*rs, t.ticket);
                      if (!rs->isNull(col::human_ticket[ht::ht_id])) {
                          HumanTicketState& h = t.human_ticket.emplace();
                          h.id = rs->getUInt64(col::human_ticket[ht::ht_id]);
                          h.status = rs->getString(col::human_ticket[ht::ht_status]);
                          h.opened_at = rs->getInt64(col::human_ticket[ht::ht_opened_at]);
                          if (!rs->isNull(col::human_ticket[ht::ht_closed_at])) {
                              h.closed_at = rs->getInt64(col::human_ticket[ht::ht_closed_at]);
                          }
                      }
                      t.updated_at = rs->getInt64(col::updated_at);
                      t.version = rs->getUInt64(col::version);
                      t.customer_version = rs->getUInt64(col::customer_version);
                      row.user_found = rs->getInt64(col::user_found) > 0;
                      return found;
                  });
}

namespace {

// What a PATCH changed of the ticket's searched fields: its name's words, its tags' index.
search::TicketWrite search_change(std::uint64_t shop_id, const FullTicket& before,
                                  const FullTicket& after) {
    search::TicketWrite w;
    w.shop_id = shop_id;
    w.ticket_id = after.id;
    if (after.ticket.name != before.ticket.name) {
        w.name = after.ticket.name;
    }
    if (after.ticket.tags_json != before.ticket.tags_json) {
        w.tags_json = after.ticket.tags_json;
    }
    return w;
}

}  // namespace

void update_ticket(Db& db, std::uint64_t shop_id, const FullTicket& before,
                   const FullTicket& after) {
    const std::uint64_t expected_version = before.version;
    const NewTicket& t = after.ticket;
    const std::optional<HumanTicketState>& h = after.human_ticket;
    const bool has_human_ticket = h.has_value();  // the status=none index (sql/017)
    const std::optional<std::string> status =
        h ? std::optional<std::string>(h->status) : std::nullopt;
    const std::optional<std::string> closed_at =
        h && h->closed_at ? std::optional<std::string>(db_time(*h->closed_at)) : std::nullopt;
    db.run(bound<Stmt::ticket_update>(t.name, t.contact_reason, t.language_code, t.assigned_to,
                                      t.tags_json, t.unread_chat_count, t.is_opened_ticket,
                                      db_time(after.updated_at), has_human_ticket, status,
                                      closed_at, after.id, expected_version),
           [&](sql::PreparedStatement& st) {
               if (st.executeUpdate() == 0) {  // matched rows (CLIENT_FOUND_ROWS)
                   throw version_changed();
               }
           });
    search::upkeep(db, search_change(shop_id, before, after));
}

std::uint64_t open_human_ticket(Db& db, std::uint64_t shop_id, std::uint64_t ticket_id,
                                timeutil::Millis opened_at) {
    return db.run(bound<Stmt::human_ticket_insert>(ticket_id, shop_id, db_time(opened_at)),
                  [&](sql::PreparedStatement& st) {
                      ResultSetPtr rs(st.executeQuery());
                      rs->next();
                      return rs->getUInt64(layout::returned_id::id);
                  });
}

}  // namespace supportcrm

namespace supportcrm {

std::vector<std::uint64_t> customer_ticket_ids(Db& db, std::uint64_t customer_id,
                                               std::uint64_t after_id, std::uint64_t rows) {
    return db.run(bound<Stmt::customer_export_ticket_ids>(customer_id, after_id, rows),
                  [&](sql::PreparedStatement& st) {
                      ResultSetPtr rs(st.executeQuery());
                      std::vector<std::uint64_t> ids;
                      while (rs->next()) {
                          ids.push_back(rs->getUInt64(1));
                      }
                      return ids;
                  });
}

}  // namespace supportcrm
