#include "db/admin_repo.h"

#include "common/keys.h"
#include "common/text.h"
#include "common/time_util.h"
#include "db/admin_sql.h"

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
    return db.run(Stmt::brand_insert, [&](sql::PreparedStatement& st) {
        st.setString(1, name);
        st.setString(2, now_db());
        return returned_id(st);
    });
}

std::uint64_t create_shop(Db& db, const std::string& domain,
                          std::optional<std::uint64_t> brand_id) {
    if (brand_id) {
        bool exists = db.run(Stmt::brand_exists, [&](sql::PreparedStatement& st) {
            st.setUInt64(1, *brand_id);
            ResultSetPtr rs(st.executeQuery());
            return rs->next();
        });
        if (!exists) {
            throw AdminError("no brand with id " + std::to_string(*brand_id));
        }
    }
    try {
        return db.run(Stmt::shop_insert, [&](sql::PreparedStatement& st) {
            st.setString(1, domain);
            bind_optional(st, 2, brand_id);
            st.setString(3, now_db());
            return returned_id(st);
        });
    } catch (const UniqueViolation&) {
        throw AdminError("a shop with domain " + domain + " exists already");
    }
}

Shop live_shop(Db& db, const std::string& domain) {
    auto shop =
        db.run(Stmt::shop_by_domain, [&](sql::PreparedStatement& st) -> std::optional<Shop> {
            st.setString(1, domain);
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
    db.run(Stmt::shop_soft_delete, [&](sql::PreparedStatement& st) {
        st.setString(1, now_db());
        st.setUInt64(2, shop.id);
        st.executeUpdate();
    });
}

CreatedKey create_key(Db& db, const std::string& shop_domain,
                      const std::optional<std::string>& label) {
    Shop shop = live_shop(db, shop_domain);
    CreatedKey key{0, keys::generate()};
    key.id = db.run(Stmt::key_insert, [&](sql::PreparedStatement& st) {
        st.setUInt64(1, shop.id);
        bind_optional(st, 2, label);
        st.setString(3, keys::digest_hex(key.secret));
        st.setString(4, now_db());
        return returned_id(st);
    });
    return key;
}

void revoke_key(Db& db, std::uint64_t key_id) {
    bool exists = db.run(Stmt::key_by_id, [&](sql::PreparedStatement& st) {
        st.setUInt64(1, key_id);
        ResultSetPtr rs(st.executeQuery());
        return rs->next();
    });
    if (!exists) {
        throw AdminError("no key with id " + std::to_string(key_id));
    }
    db.run(Stmt::key_revoke, [&](sql::PreparedStatement& st) {
        st.setString(1, now_db());
        st.setUInt64(2, key_id);
        st.executeUpdate();
    });
}

std::uint64_t create_user(Db& db, const std::string& shop_domain, const NewUser& user) {
    Shop shop = live_shop(db, shop_domain);
    std::optional<std::string> full_name = text::join_names(user.first_name, user.last_name);
    try {
        return db.run(Stmt::user_insert, [&](sql::PreparedStatement& st) {
            st.setUInt64(1, shop.id);
            st.setString(2, user.email);
            bind_optional(st, 3, user.first_name);
            bind_optional(st, 4, user.last_name);
            bind_optional(st, 5, full_name);
            st.setString(6, now_db());
            return returned_id(st);
        });
    } catch (const UniqueViolation&) {
        throw AdminError("shop " + shop_domain + " has a user " + user.email + " already");
    }
}

}  // namespace supportcrm
