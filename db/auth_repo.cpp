#include "db/auth_repo.h"

namespace supportcrm {

Shop read_keyed_shop(const sql::ResultSet& rs, unsigned first_column) {
    Shop shop;
    shop.id = rs.getUInt64(first_column);
    shop.domain = rs.getString(first_column + 1);
    shop.brand_id = optional_uint(rs, first_column + 2);
    shop.deleted = rs.getBoolean(first_column + 3);
    return shop;
}

std::optional<Shop> find_shop_by_key_digest(Db& db, const std::string& digest_hex) {
    return db.run(Stmt::shop_by_key_hash, [&](sql::PreparedStatement& st) -> std::optional<Shop> {
        st.setString(1, digest_hex);
        ResultSetPtr rs(st.executeQuery());
        if (!rs->next()) {
            return std::nullopt;
        }
        return read_keyed_shop(*rs, 1);
    });
}

}  // namespace supportcrm
