#include "db/auth_repo.h"

#include <charconv>
#include <stdexcept>
#include <string_view>

#include "db/auth_sql.h"
#include "db/statement_params.h"

namespace supportcrm {

namespace {

// The next comma-separated field of text (the rest when there is no comma).
std::string_view next_field(std::string_view& text) {
    const std::size_t comma = text.find(',');
    const std::string_view field = text.substr(0, comma);
    text.remove_prefix(comma == std::string_view::npos ? text.size() : comma + 1);
    return field;
}

// A number field of key_terms into out; false for an empty field (a NULL: out untouched).
template <typename T>
bool number_field(std::string_view& text, T& out) {
    const std::string_view field = next_field(text);
    if (field.empty()) {
        return false;
    }
    T value{};
    const auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), value);
    if (ec != std::errc() || end != field.data() + field.size()) {
        throw std::runtime_error("malformed key_terms column of a keyed statement");
    }
    out = value;
    return true;
}

}  // namespace

Shop read_shop(const sql::ResultSet& rs, ColumnRun shop_run) {
    Shop shop;
    shop.id = rs.getUInt64(shop_run[shop_col::id]);
    shop.domain = rs.getString(shop_run[shop_col::domain]);
    shop.brand_id = optional_uint(rs, shop_run[shop_col::brand_id]);
    shop.deleted = rs.getBoolean(shop_run[shop_col::deleted]);
    shop.webhook_events = rs.getUInt(shop_run[shop_col::webhook_events]);
    return shop;
}

Shop read_keyed_shop(const sql::ResultSet& rs, ColumnRun key) {
    Shop shop;
    shop.id = rs.getUInt64(key[key_col::id]);
    shop.domain = rs.getString(key[key_col::domain]);
    shop.brand_id = optional_uint(rs, key[key_col::brand_id]);
    shop.webhook_events = rs.getUInt(key[key_col::webhook_events]);
    // key_terms (db/auth_sql.h): deleted, id, scopes, expiry, rate count, rate period.
    const sql::SQLString packed = rs.getString(key[key_col::key_terms]);
    std::string_view text(packed.c_str(), packed.length());
    unsigned deleted = 0;
    number_field(text, deleted);
    shop.deleted = deleted != 0;
    KeyTerms& terms = shop.key;
    terms.known = true;
    number_field(text, terms.id);
    number_field(text, terms.scopes);
    if (std::int64_t expires = 0; number_field(text, expires)) {
        terms.expires_ms = expires;
    }
    number_field(text, terms.rate_count);
    number_field(text, terms.rate_period_s);
    return shop;
}

std::optional<Shop> find_shop_by_key_digest(Db& db, const std::string& digest_hex) {
    return db.run(bound<Stmt::shop_by_key_hash>(KeyDigest(digest_hex)),
                  [&](sql::PreparedStatement& st) -> std::optional<Shop> {
                      ResultSetPtr rs(st.executeQuery());
                      if (!rs->next()) {
                          return std::nullopt;
                      }
                      return read_keyed_shop(*rs, layout::shop_by_key_hash::key);
                  });
}

bool touch_key(Db& db, std::uint64_t key_id) {
    try {
        db.run(bound<Stmt::key_touch>(key_id),
               [&](sql::PreparedStatement& st) { st.executeUpdate(); });
        return true;
    } catch (const DbUnavailable&) {
        db.disconnect();  // the connection is gone: the next request reconnects, as always
        return false;
    } catch (const DbError&) {
        return false;  // a lock held elsewhere (or any refusal): lastUsedAt can wait a minute
    }
}

}  // namespace supportcrm
