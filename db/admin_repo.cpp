#include "db/admin_repo.h"

#include <algorithm>

#include "common/key_terms.h"
#include "common/keys.h"
#include "common/text.h"
#include "common/time_util.h"
#include "db/admin_sql.h"
#include "db/statement_params.h"

namespace supportcrm {
namespace {

std::string now_db() {
    return timeutil::format_db(timeutil::now_ms());
}

std::uint64_t returned_id(sql::PreparedStatement& st) {
    ResultSetPtr rs(st.executeQuery());
    rs->next();
    return rs->getUInt64(layout::returned_id::id);
}

}  // namespace

std::uint64_t create_brand(Db& db, const std::string& name) {
    return db.run(bound<Stmt::brand_insert>(name, now_db()),
                  [&](sql::PreparedStatement& st) { return returned_id(st); });
}

std::uint64_t create_shop(Db& db, const std::string& domain,
                          std::optional<std::uint64_t> brand_id) {
    if (brand_id) {
        bool exists = db.run(bound<Stmt::brand_exists>(*brand_id), [&](sql::PreparedStatement& st) {
            ResultSetPtr rs(st.executeQuery());
            return rs->next();
        });
        if (!exists) {
            throw AdminError("no brand with id " + std::to_string(*brand_id));
        }
    }
    try {
        return db.run(bound<Stmt::shop_insert>(domain, brand_id, now_db()),
                      [&](sql::PreparedStatement& st) { return returned_id(st); });
    } catch (const UniqueViolation&) {
        throw AdminError("a shop with domain " + domain + " exists already");
    }
}

Shop live_shop(Db& db, const std::string& domain) {
    auto shop = db.run(bound<Stmt::shop_by_domain>(domain),
                       [&](sql::PreparedStatement& st) -> std::optional<Shop> {
                           ResultSetPtr rs(st.executeQuery());
                           if (!rs->next()) {
                               return std::nullopt;
                           }
                           return read_shop(*rs, layout::shop_by_domain::shop);
                       });
    if (!shop || shop->deleted) {
        throw AdminError("no shop with domain " + domain);
    }
    return *shop;
}

void delete_shop(Db& db, const std::string& domain) {
    Shop shop = live_shop(db, domain);
    db.run(bound<Stmt::shop_soft_delete>(now_db(), shop.id),
           [&](sql::PreparedStatement& st) { st.executeUpdate(); });
}

namespace {

CreatedKey insert_key(Db& db, std::uint64_t shop_id, const NewKeyTerms& terms,
                      std::optional<std::uint64_t> replaces) {
    CreatedKey key{0, keys::generate()};
    const std::optional<std::string> expires_at =
        terms.expires_ms ? std::optional<std::string>(timeutil::format_db(*terms.expires_ms))
                         : std::nullopt;
    // No rate limit: both NULL.
    const bool limited = terms.rate_count > 0;
    const std::optional<unsigned> rate_count =
        limited ? std::optional<unsigned>(terms.rate_count) : std::nullopt;
    const std::optional<unsigned> rate_period_s =
        limited ? std::optional<unsigned>(terms.rate_period_s) : std::nullopt;
    key.id = db.run(bound<Stmt::key_insert>(shop_id, terms.label, keys::digest_hex(key.secret),
                                            now_db(), key_terms::scope_set_literal(terms.scopes),
                                            expires_at, rate_count, rate_period_s, replaces),
                    [&](sql::PreparedStatement& st) { return returned_id(st); });
    return key;
}

std::optional<std::int64_t> optional_ms(const sql::ResultSet& rs, unsigned column) {
    if (rs.isNull(column)) {
        return std::nullopt;
    }
    return rs.getInt64(column);
}

KeyRow read_key_row(const sql::ResultSet& rs) {
    namespace col = layout::key_row;
    KeyRow row;
    row.id = rs.getUInt64(col::id);
    if (!rs.isNull(col::label)) {
        row.terms.label = rs.getString(col::label);
    }
    row.terms.scopes = rs.getUInt(col::scopes);
    row.created_ms = rs.getInt64(col::created);
    row.terms.expires_ms = optional_ms(rs, col::expires);
    row.last_used_ms = optional_ms(rs, col::last_used);
    row.revoked = rs.getBoolean(col::revoked);
    if (!rs.isNull(col::rate_count)) {
        row.terms.rate_count = rs.getUInt(col::rate_count);
        row.terms.rate_period_s = rs.getUInt(col::rate_period);
    }
    return row;
}

}  // namespace

CreatedKey create_key(Db& db, const std::string& shop_domain, const NewKeyTerms& terms) {
    Shop shop = live_shop(db, shop_domain);
    return insert_key(db, shop.id, terms, std::nullopt);
}

std::vector<KeyRow> keys_of_shop(Db& db, const std::string& shop_domain) {
    Shop shop = live_shop(db, shop_domain);
    return db.run(bound<Stmt::keys_of_shop>(shop.id), [&](sql::PreparedStatement& st) {
        ResultSetPtr rs(st.executeQuery());
        std::vector<KeyRow> rows;
        while (rs->next()) {
            rows.push_back(read_key_row(*rs));
        }
        return rows;
    });
}

namespace {

// A key is rotated once, while it lives: a second rotation of it would leave two live
// successors, and a revoked or expired key has nothing left to hand over.
void refuse_rotation(Db& db, std::uint64_t key_id, const KeyRow& old, std::int64_t now) {
    const std::string key = "key " + std::to_string(key_id);
    if (old.revoked) {
        throw AdminError(key + " is revoked: create a new one");
    }
    if (old.terms.expires_ms && *old.terms.expires_ms <= now) {
        throw AdminError(key + " has expired: create a new one");
    }
    std::optional<std::uint64_t> successor = db.run(
        bound<Stmt::key_successor>(key_id),
        [&](sql::PreparedStatement& st) -> std::optional<std::uint64_t> {
            ResultSetPtr rs(st.executeQuery());
            return rs->next() ? std::optional<std::uint64_t>(rs->getUInt64(1)) : std::nullopt;
        });
    if (successor) {
        throw AdminError(key + " was rotated already: its successor is key " +
                         std::to_string(*successor) + " (rotate that one)");
    }
}

}  // namespace

RotatedKey rotate_key(Db& db, std::uint64_t key_id, std::int64_t overlap_ms) {
    Transaction tx(db);
    std::uint64_t shop_id = 0;
    std::optional<KeyRow> old = db.run(bound<Stmt::key_for_rotation>(key_id),
                                       [&](sql::PreparedStatement& st) -> std::optional<KeyRow> {
                                           ResultSetPtr rs(st.executeQuery());
                                           if (!rs->next()) {
                                               return std::nullopt;
                                           }
                                           shop_id = rs->getUInt64(layout::key_row::shop_id);
                                           return read_key_row(*rs);
                                       });
    if (!old) {
        throw AdminError("no key with id " + std::to_string(key_id));
    }
    const std::int64_t now = timeutil::now_ms();
    refuse_rotation(db, key_id, *old, now);
    RotatedKey out;
    out.old_expires_ms = now + overlap_ms;
    if (old->terms.expires_ms && *old->terms.expires_ms < out.old_expires_ms) {
        out.old_expires_ms = *old->terms.expires_ms;  // never later than it was
    }
    // The successor keeps every term, its expiry too: a rotation changes the secret, not what
    // the key may do or for how long (issue 43: an --expires key's successor never expired).
    out.key = insert_key(db, shop_id, old->terms, key_id);
    db.run(bound<Stmt::key_set_expiry>(timeutil::format_db(out.old_expires_ms), key_id),
           [&](sql::PreparedStatement& st) { st.executeUpdate(); });
    tx.commit();
    return out;
}

void revoke_key(Db& db, std::uint64_t key_id) {
    bool exists = db.run(bound<Stmt::key_by_id>(key_id), [&](sql::PreparedStatement& st) {
        ResultSetPtr rs(st.executeQuery());
        return rs->next();
    });
    if (!exists) {
        throw AdminError("no key with id " + std::to_string(key_id));
    }
    db.run(bound<Stmt::key_revoke>(now_db(), key_id),
           [&](sql::PreparedStatement& st) { st.executeUpdate(); });
}

std::uint64_t create_user(Db& db, const std::string& shop_domain, const NewUser& user) {
    Shop shop = live_shop(db, shop_domain);
    std::optional<std::string> full_name = text::join_names(user.first_name, user.last_name);
    try {
        return db.run(bound<Stmt::user_insert>(shop.id, user.email, user.first_name, user.last_name,
                                               full_name, now_db()),
                      [&](sql::PreparedStatement& st) { return returned_id(st); });
    } catch (const UniqueViolation&) {
        throw AdminError("shop " + shop_domain + " has a user " + user.email + " already");
    }
}

}  // namespace supportcrm
