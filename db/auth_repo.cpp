#include "db/auth_repo.h"

#include "db/auth_sql.h"

namespace supportcrm {

Shop read_shop(const sql::ResultSet& rs, ColumnRun key) {
    Shop shop;
    shop.id = rs.getUInt64(key[key_col::id]);
    shop.domain = rs.getString(key[key_col::domain]);
    shop.brand_id = optional_uint(rs, key[key_col::brand_id]);
    shop.deleted = rs.getBoolean(key[key_col::deleted]);
    shop.webhook_events = rs.getUInt(key[key_col::webhook_events]);
    return shop;
}

Shop read_keyed_shop(const sql::ResultSet& rs, ColumnRun key) {
    Shop shop = read_shop(rs, key);
    KeyTerms& terms = shop.key;
    terms.known = true;
    terms.id = rs.getUInt64(key[key_col::key_id]);
    terms.scopes = rs.getUInt(key[key_col::key_scopes]);
    if (!rs.isNull(key[key_col::key_expires])) {
        terms.expires_ms = rs.getInt64(key[key_col::key_expires]);
    }
    if (!rs.isNull(key[key_col::key_rate])) {
        terms.rate_count = rs.getUInt(key[key_col::key_rate]);
        terms.rate_period_s = rs.getUInt(key[key_col::key_period]);
    }
    return shop;
}

std::optional<Shop> find_shop_by_key_digest(Db& db, const std::string& digest_hex) {
    return db.run(Stmt::shop_by_key_hash, [&](sql::PreparedStatement& st) -> std::optional<Shop> {
        st.setString(1, digest_hex);
        ResultSetPtr rs(st.executeQuery());
        if (!rs->next()) {
            return std::nullopt;
        }
        return read_keyed_shop(*rs, layout::shop_by_key_hash::key);
    });
}

bool touch_key(Db& db, std::uint64_t key_id) {
    try {
        db.run(Stmt::key_touch, [&](sql::PreparedStatement& st) {
            st.setUInt64(1, key_id);
            st.executeUpdate();
        });
        return true;
    } catch (const DbUnavailable&) {
        db.disconnect();  // the connection is gone: the next request reconnects, as always
        return false;
    } catch (const DbError&) {
        return false;  // a lock held elsewhere (or any refusal): lastUsedAt can wait a minute
    }
}

}  // namespace supportcrm
