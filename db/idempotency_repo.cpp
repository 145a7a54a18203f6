#include "db/idempotency_repo.h"

#include <stdexcept>

#include "db/idempotency_sql.h"
#include "db/statement_params.h"

namespace supportcrm {
IdempotencyClaim claim_idempotency_key(Db& db, const std::string& key_digest,
                                       const std::string& idem_key,
                                       const std::string& request_hash) {
    IdempotencyClaim out;
    try {
        db.run(bound<Stmt::idempotency_claim>(idem_key, request_hash, KeyDigest(key_digest)),
               [&](sql::PreparedStatement& st) {
                   ResultSetPtr rs(st.executeQuery());
                   if (rs->next()) {
                       namespace col = layout::idempotency_claim;
                       Shop shop;
                       shop.id = rs->getUInt64(col::shop_id);
                       shop.domain = rs->getString(col::shop_domain);
                       shop.brand_id = optional_uint(*rs, col::shop_brand_id);
                       shop.webhook_events = rs->getUInt(col::shop_webhook_events);
                       out.shop = std::move(shop);
                       out.result = IdempotencyClaim::Result::claimed;
                   }
               });
    } catch (const UniqueViolation&) {
        out.result = IdempotencyClaim::Result::taken;
    } catch (const DbError& e) {
        // Only this statement is undone (innodb_rollback_on_timeout is off); the caller rolls
        // the transaction back.
        if (e.error_code != kErLockWaitTimeout) {
            throw;
        }
        out.result = IdempotencyClaim::Result::in_progress;
    }
    return out;
}

Keyed<StoredAnswer> find_idempotency_answer(Db& db, const std::string& key_digest,
                                            const std::string& idem_key) {
    return db.run(bound<Stmt::idempotency_answer_for_key>(idem_key, KeyDigest(key_digest)),
                  [&](sql::PreparedStatement& st) {
                      ResultSetPtr rs(st.executeQuery());
                      Keyed<StoredAnswer> found(KeyJoin::whenever_key_exists);
                      if (!rs->next()) {
                          return found;
                      }
                      namespace col = layout::idempotency_answer_for_key;
                      found.set_key(read_keyed_shop(*rs, col::key));
                      if (!rs->isNull(col::request_hash)) {
                          StoredAnswer a;
                          a.request_hash = rs->getString(col::request_hash);
                          a.status = rs->getInt(col::status);
                          a.body = rs->getString(col::body);
                          a.etag = optional_string(*rs, col::etag);
                          found.set_record(std::move(a));
                      }
                      return found;
                  });
}

void store_idempotency_answer(Db& db, std::uint64_t shop_id, const std::string& idem_key,
                              int status, const std::string& body,
                              const std::optional<std::string>& etag) {
    const int rows = db.run(bound<Stmt::idempotency_store>(status, body, etag, shop_id, idem_key),
                            [&](sql::PreparedStatement& st) { return st.executeUpdate(); });
    if (rows != 1) {
        throw std::logic_error("the claimed Idempotency-Key row is gone before its answer");
    }
}

std::uint64_t purge_expired_idempotency_keys(Db& db) {
    return db.run(bound<Stmt::idempotency_purge>(), [](sql::PreparedStatement& st) {
        return static_cast<std::uint64_t>(st.executeUpdate());
    });
}

}  // namespace supportcrm
