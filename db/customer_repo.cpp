#include "db/customer_repo.h"

#include <iterator>
#include <utility>

#include "common/text.h"
#include "common/words.h"
#include "db/customer_sql.h"
#include "db/search/page.h"
#include "db/search/plan.h"
#include "db/search/reads.h"
#include "db/search/sql.h"
#include "db/search/upkeep.h"
#include "db/statement_params.h"

namespace supportcrm {

constexpr WordChecks kCustomerWordChecks{Stmt::customer_words_check, Stmt::customer_word_customers};
namespace {

// The run of SUPPORTCRM_CUSTOMER_COLUMNS in a row.
CustomerRow read_customer(const sql::ResultSet& rs, ColumnRun at) {
    using namespace customer_col;
    CustomerRow c;
    c.id = rs.getUInt64(at[id]);
    c.email = optional_string(rs, at[email]);
    c.phone_number = optional_string(rs, at[phone_number]);
    c.first_name = optional_string(rs, at[first_name]);
    c.last_name = optional_string(rs, at[last_name]);
    c.full_name = optional_string(rs, at[full_name]);
    c.storefront_id = optional_string(rs, at[storefront_id]);
    c.site_cms_id = optional_string(rs, at[site_cms_id]);
    c.storefront_b_id = optional_string(rs, at[storefront_b_id]);
    c.social_a_user_id = optional_string(rs, at[social_a_user_id]);
    c.social_b_user_id = optional_string(rs, at[social_b_user_id]);
    c.messaging_id = optional_string(rs, at[messaging_id]);
    c.helpdesk_a_id = optional_string(rs, at[helpdesk_a_id]);
    c.helpdesk_b_id = optional_string(rs, at[helpdesk_b_id]);
    c.helpdesk_c_id = optional_string(rs, at[helpdesk_c_id]);
    c.helpdesk_d_id = optional_string(rs, at[helpdesk_d_id]);
    c.social_b_pseudo = optional_string(rs, at[social_b_pseudo]);
    c.cms = optional_string(rs, at[cms]);
    c.number_of_orders = rs.getUInt64(at[number_of_orders]);
    c.created_at = iso_datetime(rs, at[created_at]);
    c.cms_created_at = optional_iso_datetime(rs, at[cms_created_at]);
    c.version = rs.getUInt64(at[version]);
    if (std::optional<std::uint64_t> gone_as = optional_uint(rs, at[gone])) {
        c.erased = *gone_as == 0;
        if (!c.erased) {
            c.merged_into = gone_as;
        }
    }
    return c;
}

std::optional<CustomerRow> find_one(Db& db, Stmt id, std::uint64_t shop_id,
                                    const std::string& key) {
    return db.run(
        bound_one_of<Stmt::customer_by_email_key, Stmt::customer_by_phone_key>(id, shop_id, key),
        [&](sql::PreparedStatement& st) -> std::optional<CustomerRow> {
            ResultSetPtr rs(st.executeQuery());
            if (!rs->next()) {
                return std::nullopt;
            }
            return read_customer(*rs, layout::customer_by_key::customer);
        });
}

std::optional<std::string> trimmed(const std::optional<std::string>& v) {
    if (!v) {
        return std::nullopt;
    }
    return std::string(text::trim(*v));
}

// The duplicate-detection keys of a customer's email and phone_number (trimmed).
struct DuplicateKeys {
    explicit DuplicateKeys(const CustomerFields& c)
        : email(trimmed(c.email)), phone(trimmed(c.phone_number)) {}
    std::optional<std::string> email, phone;
};

// customer_insert and customer_update: parameters 1..12 are the client's fields, each of email
// and phone_number followed by its duplicate-detection key, then the statement's own (`rest`).
template <Stmt id, typename... Rest>
auto bound_customer_fields(const CustomerFields& c, const DuplicateKeys& keys,
                           const Rest&... rest) {
    return bound<id>(c.email, keys.email, c.phone_number, keys.phone, c.first_name, c.last_name,
                     c.full_name, c.storefront_id, c.site_cms_id, c.social_a_user_id,
                     c.social_b_user_id, c.messaging_id, rest...);
}

}  // namespace

CustomerRow row_of_new_customer(std::uint64_t id, const NewCustomer& c) {
    CustomerRow row;
    static_cast<CustomerFields&>(row) = c;
    row.id = id;
    row.created_at = timeutil::format_iso(c.created_at);
    return row;
}

std::optional<CustomerRow> find_existing_customer(Db& db, std::uint64_t shop_id,
                                                  const NewCustomer& c) {
    if (auto email = trimmed(c.email)) {
        if (auto found = find_one(db, Stmt::customer_by_email_key, shop_id, *email)) {
            return found;
        }
    }
    if (auto phone = trimmed(c.phone_number)) {
        return find_one(db, Stmt::customer_by_phone_key, shop_id, *phone);
    }
    return std::nullopt;
}

InsertedCustomer insert_customer(Db& db, const std::string& key_digest, const NewCustomer& c) {
    InsertedCustomer out;
    // The row and its words (extensions.md §E10) commit together. A duplicate writes nothing
    // and commits that nothing: an enclosing transaction (Idempotency-Key) goes on.
    Transaction tx(db);
    try {
        const DuplicateKeys keys(c);
        db.run(bound_customer_fields<Stmt::customer_insert>(
                   c, keys, timeutil::format_db(c.created_at), KeyDigest(key_digest)),
               [&](sql::PreparedStatement& st) {
                   ResultSetPtr rs(st.executeQuery());
                   if (rs->next()) {
                       out.result = InsertedCustomer::Result::inserted;
                       out.id = rs->getUInt64(layout::customer_insert::id);
                       out.shop.id = rs->getUInt64(layout::customer_insert::shop_id);
                       out.shop.domain = rs->getString(layout::customer_insert::shop_domain);
                   }
               });
    } catch (const UniqueViolation&) {
        out.result = InsertedCustomer::Result::duplicate;
    }
    if (out.result == InsertedCustomer::Result::inserted) {
        search::upkeep(db, search::CustomerWrite{out.shop.id, out.id, /*created=*/true,
                                                 /*unlisted=*/false, c});
    }
    tx.commit();
    return out;
}

namespace {

using search::Tuning;

// Appends to `out` up to `rows` customers having every word, with an id below `before_id`:
// from the customers having the word `like` ('word%'), or along the shop's down to `floor`.
void read_search_rows(Db& db, std::uint64_t shop_id, const std::string& words_json,
                      const std::string* like, std::uint64_t floor, std::uint64_t before_id,
                      std::uint64_t rows, std::vector<CustomerRow>& out) {
    db.run_positional(like ? Stmt::customers_search_by_word : Stmt::customers_search_scan,
                      [&](sql::PreparedStatement& st) {
                          unsigned i = 1;
                          st.setUInt64(i++, shop_id);
                          if (like) {
                              st.setString(i++, *like);
                              st.setUInt64(i++, shop_id);
                          } else {
                              st.setUInt64(i++, floor);
                          }
                          st.setString(i++, words_json);
                          st.setUInt64(i++, before_id);
                          st.setUInt64(i++, rows);
                          ResultSetPtr rs(st.executeQuery());
                          while (rs->next()) {
                              out.push_back(read_customer(*rs, layout::customers_page::customer));
                          }
                      });
}

// The customers matching the first kIntersectedWords words of `list` with an id in [low,
// high), newest first, up to `rows` (db/search/sql.h, customers_in_window_by_*).
constexpr Stmt kCustomersInWindowByWords[] = {Stmt::customers_in_window_by_word,
                                              Stmt::customers_in_window_by_two_words,
                                              Stmt::customers_in_window_by_three_words};
static_assert(std::size(kCustomersInWindowByWords) == Tuning::kIntersectedWords);

void read_word_window(Db& db, std::uint64_t shop_id, const std::vector<WindowedWord>& words,
                      std::uint64_t low, std::uint64_t high, std::uint64_t rows,
                      std::vector<CustomerRow>& out) {
    db.run_positional(kCustomersInWindowByWords[words.size() - 1], [&](sql::PreparedStatement& st) {
        unsigned i = 1;
        bind_windowed_words(st, i, shop_id, words, low, high);
        st.setUInt64(i++, shop_id);
        st.setUInt64(i++, high);
        st.setUInt64(i++, rows);
        ResultSetPtr rs(st.executeQuery());
        while (rs->next()) {
            out.push_back(read_customer(*rs, layout::customers_page::customer));
        }
    });
}

// Customers as db/search/page.h's entity: its sources are q's first counted words.
struct CustomerSearch {
    Db& db;
    std::uint64_t shop_id;
    const std::vector<std::string>& list;
    std::vector<SearchSource> sources;
    std::string words_json;

    bool has_sources() const { return !sources.empty(); }
    bool has_words() const { return true; }
    FewestRows fewest(std::uint64_t bound, bool grow) {
        return fewest_rows(db, shop_id, sources, bound, grow);
    }
    std::uint64_t scan_floor(std::uint64_t before_id) {
        return supportcrm::scan_floor(db, Stmt::customer_scan_floor, shop_id, before_id);
    }
    void read(const std::size_t* source, std::uint64_t floor, std::uint64_t before_id,
              std::uint64_t rows, std::vector<CustomerRow>& out) {
        read_search_rows(db, shop_id, words_json, source ? &sources[*source].values[0] : nullptr,
                         floor, before_id, rows, out);
    }
    // Past the scan window, q's words a window of ids at a time (walk_id_windows,
    // db/search/reads.h: docs/performance.md, "Past the scan window").
    void walk_windows(std::uint64_t floor, std::uint64_t rows, std::vector<CustomerRow>& out) {
        const std::vector<WindowedWord> words =
            windowed_words(db, Stmt::customer_word_next_form, shop_id, list);
        walk_id_windows(floor, [&](std::uint64_t low, std::uint64_t high) {
            read_word_window(db, shop_id, words, low, high, rows - out.size(), out);
            return out.size() < rows;
        });
    }
};

// E10's q (at most kIntersectedWords words: search_customers_many_words_page takes more), in
// the steps of db/search/plan.h, its sources the first counted words.
std::vector<CustomerRow> search_customers_page(Db& db, std::uint64_t shop_id,
                                               const std::vector<std::string>& list,
                                               std::uint64_t before_id, std::uint64_t rows) {
    CustomerSearch entity{db, shop_id, list, {}, words::json_array(list)};
    for (std::size_t i = 0; i < list.size() && i < Tuning::kCountedWords; ++i) {
        entity.sources.push_back({Stmt::customer_word_count,
                                  Stmt::customers_search_by_word,
                                  {list[i] + "%"},
                                  {list[i] + "%"},
                                  false});
    }
    return search::run_page<CustomerRow>(entity, before_id, rows);
}

// E10's q of more words than search_customers_page intersects: as for tickets
// (rows_having_every_word, db/search/reads.h).
std::vector<CustomerRow> search_customers_many_words_page(Db& db, std::uint64_t shop_id,
                                                          const std::vector<std::string>& list,
                                                          std::uint64_t before_id,
                                                          std::uint64_t rows) {
    const std::optional<std::vector<std::string>> ranked =
        rank_words(db, shop_id, Stmt::customer_word_count, list);
    if (!ranked) {
        return {};
    }
    const std::vector<std::string> first(ranked->begin(),
                                         ranked->begin() + Tuning::kIntersectedWords);
    const std::vector<std::string> rest(ranked->begin() + Tuning::kIntersectedWords, ranked->end());
    const auto candidates = [&](std::uint64_t below, std::uint64_t n) {
        return search_customers_page(db, shop_id, first, below, n);
    };
    return rows_having_every_word<CustomerRow>(db, kCustomerWordChecks, shop_id, rest, before_id,
                                               rows, candidates);
}

}  // namespace

std::vector<CustomerRow> read_customers_page(Db& db, std::uint64_t shop_id,
                                             const CustomerFilter& filter, std::uint64_t before_id,
                                             std::uint64_t rows) {
    using Kind = CustomerFilter::Kind;
    if (filter.kind == Kind::q) {
        return filter.words.size() > Tuning::kIntersectedWords
                   ? search_customers_many_words_page(db, shop_id, filter.words, before_id, rows)
                   : search_customers_page(db, shop_id, filter.words, before_id, rows);
    }
    Stmt id = Stmt::customers_page;
    std::string value;
    switch (filter.kind) {
        case Kind::q:  // above
        case Kind::none:
            break;
        case Kind::email:
            id = Stmt::customers_page_email;
            value = text::trim(filter.value);
            break;
        case Kind::phone_number:
            id = Stmt::customers_page_phone;
            value = text::trim(filter.value);
            break;
        case Kind::storefront_id:
            id = Stmt::customers_page_storefront;
            value = filter.value;
            break;
    }
    auto read = [&](sql::PreparedStatement& st) {
        ResultSetPtr rs(st.executeQuery());
        std::vector<CustomerRow> out;
        while (rs->next()) {
            out.push_back(read_customer(*rs, layout::customers_page::customer));
        }
        return out;
    };
    if (filter.kind == Kind::none) {
        return db.run(bound<Stmt::customers_page>(shop_id, before_id, rows), read);
    }
    return db.run(
        bound_one_of<Stmt::customers_page_email, Stmt::customers_page_phone,
                     Stmt::customers_page_storefront>(id, shop_id, value, before_id, rows),
        read);
}

Keyed<CustomerRow> find_customer(Db& db, const std::string& key_digest, std::uint64_t id) {
    return db.run(bound<Stmt::customer_by_id>(id, KeyDigest(key_digest)),
                  [&](sql::PreparedStatement& st) {
                      ResultSetPtr rs(st.executeQuery());
                      Keyed<CustomerRow> found(KeyJoin::whenever_key_exists);
                      if (rs->next()) {
                          using namespace layout::customer_by_id;
                          found.set_key(read_keyed_shop(*rs, key));
                          if (!rs->isNull(customer[customer_col::id])) {
                              found.set_record(read_customer(*rs, customer));
                          }
                      }
                      return found;
                  });
}

}  // namespace supportcrm

namespace supportcrm {

CustomerUpdate update_customer(Db& db, std::uint64_t shop_id, const CustomerRow& before,
                               const CustomerRow& c) {
    const std::uint64_t expected_version = before.version;
    try {
        const DuplicateKeys keys(c);
        db.run(bound_customer_fields<Stmt::customer_update>(c, keys, c.id, expected_version),
               [&](sql::PreparedStatement& st) {
                   if (st.executeUpdate() == 0) {  // matched rows (CLIENT_FOUND_ROWS)
                       throw version_changed();
                   }
               });
    } catch (const UniqueViolation&) {
        return CustomerUpdate::duplicate;
    }
    if (search::searched_fields_differ(before, c)) {
        search::upkeep(db, search::CustomerWrite{shop_id, c.id, /*created=*/false,
                                                 /*unlisted=*/false, c});
    }
    return CustomerUpdate::updated;
}

}  // namespace supportcrm

namespace supportcrm {

MergePair lock_merge_pair(Db& db, std::uint64_t shop_id, std::uint64_t target_id,
                          std::uint64_t source_id) {
    return db.run(bound<Stmt::customer_merge_lock>(shop_id, target_id, source_id),
                  [&](sql::PreparedStatement& st) {
                      ResultSetPtr rs(st.executeQuery());
                      MergePair pair;
                      using namespace layout::customer_merge_lock;
                      while (rs->next()) {
                          CustomerRow row = read_customer(*rs, customer);
                          if (row.id == target_id) {
                              pair.target = std::move(row);
                          } else {
                              pair.source_email_key = optional_string(*rs, email_key);
                              pair.source_phone_key = optional_string(*rs, phone_key);
                              pair.source = std::move(row);
                          }
                      }
                      return pair;
                  });
}

CustomerRow merged_customer(const CustomerRow& target, const CustomerRow& source) {
    CustomerRow out = target;
    auto fill = [](std::optional<std::string>& to, const std::optional<std::string>& from) {
        if (!to) {
            to = from;
        }
    };
    fill(out.email, source.email);
    fill(out.phone_number, source.phone_number);
    fill(out.first_name, source.first_name);
    fill(out.last_name, source.last_name);
    fill(out.full_name, source.full_name);
    fill(out.storefront_id, source.storefront_id);
    fill(out.site_cms_id, source.site_cms_id);
    fill(out.storefront_b_id, source.storefront_b_id);
    fill(out.social_a_user_id, source.social_a_user_id);
    fill(out.social_b_user_id, source.social_b_user_id);
    fill(out.messaging_id, source.messaging_id);
    fill(out.helpdesk_a_id, source.helpdesk_a_id);
    fill(out.helpdesk_b_id, source.helpdesk_b_id);
    fill(out.helpdesk_c_id, source.helpdesk_c_id);
    fill(out.helpdesk_d_id, source.helpdesk_d_id);
    fill(out.social_b_pseudo, source.social_b_pseudo);
    fill(out.cms, source.cms);
    fill(out.cms_created_at, source.cms_created_at);
    out.number_of_orders += source.number_of_orders;
    out.version = target.version + 1;
    return out;
}

bool release_merged_keys(Db& db, const CustomerRow& after) {
    const std::optional<std::string> email = trimmed(after.email);
    const std::optional<std::string> phone = trimmed(after.phone_number);
    return db.run(bound<Stmt::customer_release_merged_keys>(email, phone, after.id, email, phone),
                  [&](sql::PreparedStatement& st) { return st.executeUpdate() > 0; });
}

Moved count_movable(Db& db, std::uint64_t source_id) {
    return db.run(bound<Stmt::customer_merge_counts>(source_id, source_id),
                  [&](sql::PreparedStatement& st) {
                      ResultSetPtr rs(st.executeQuery());
                      Moved m;
                      if (rs->next()) {
                          m.tickets = rs->getUInt64(1);
                          m.surveys = rs->getUInt64(2);
                      }
                      return m;
                  });
}

Moved merge_customers(Db& db, std::uint64_t shop_id, const MergePair& pair, timeutil::Millis now) {
    const CustomerRow& target = *pair.target;
    const CustomerRow& source = *pair.source;
    // The target takes a key only where it has no value of its own (customer_merge_target).
    const bool email_moves = !target.email && pair.source_email_key;
    const bool phone_moves = !target.phone_number && pair.source_phone_key;
    db.run(bound<Stmt::customer_merge_source>(target.id, email_moves, phone_moves, source.id),
           [&](sql::PreparedStatement& st) { st.executeUpdate(); });
    db.run(bound<Stmt::customer_merge_repoint>(target.id, source.id),
           [&](sql::PreparedStatement& st) { st.executeUpdate(); });
    db.run(bound<Stmt::customer_merge_target>(
               source.id, email_moves ? pair.source_email_key : std::nullopt,
               phone_moves ? pair.source_phone_key : std::nullopt, target.id),
           [&](sql::PreparedStatement& st) { st.executeUpdate(); });
    Moved m;
    m.tickets = db.run(
        bound<Stmt::customer_merge_tickets>(target.id, timeutil::format_db(now), source.id),
        [&](sql::PreparedStatement& st) { return static_cast<std::uint64_t>(st.executeUpdate()); });
    m.surveys = db.run(
        bound<Stmt::customer_merge_surveys>(target.id, source.id),
        [&](sql::PreparedStatement& st) { return static_cast<std::uint64_t>(st.executeUpdate()); });
    search::upkeep(db, search::CustomerWrite{shop_id, target.id, /*created=*/false,
                                             /*unlisted=*/false, merged_customer(target, source)});
    search::upkeep(db, search::CustomerWrite{shop_id, source.id, /*created=*/false,
                                             /*unlisted=*/true, std::nullopt});
    return m;
}

}  // namespace supportcrm
