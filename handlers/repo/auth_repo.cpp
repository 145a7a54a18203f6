#include "handlers/repo/auth_repo.h"

namespace supportcrm {

std::optional<Shop> find_shop_by_key_digest(Db& db, const std::string& digest_hex) {
    return db.run(Stmt::shop_by_key_hash, [&](sql::PreparedStatement& st) -> std::optional<Shop> {
        st.setString(1, digest_hex);
        ResultSetPtr rs(st.executeQuery());
        if (!rs->next()) {
            return std::nullopt;
        }
        Shop shop;
        shop.id = rs->getUInt64(1);
        shop.domain = rs->getString(2);
        if (!rs->isNull(3)) {
            shop.brand_id = rs->getUInt64(3);
        }
        shop.deleted = rs->getBoolean(4);
        return shop;
    });
}

}  // namespace supportcrm
