// Idempotency-Key rows (sql/004, extensions.md §E2): claim a key inside the request's
// transaction, store the answer beside the write, read a stored answer, purge old rows.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "db/auth_repo.h"
#include "db/db.h"

namespace supportcrm {

struct IdempotencyClaim {
    enum class Result {
        claimed,      // the row is ours until the transaction ends; shop is the key's live shop
        no_shop,      // no unrevoked key with this digest, or its shop is deleted
        in_progress,  // another open transaction holds the key
        taken,        // a committed row holds the key: read its answer
    };
    Result result = Result::no_shop;
    std::optional<Shop> shop;
};

// Must run inside a transaction (Db::begin): the claim lasts as long as it.
IdempotencyClaim claim_idempotency_key(Db& db, const std::string& key_digest,
                                       const std::string& idem_key,
                                       const std::string& request_hash);

struct StoredAnswer {
    std::string request_hash;
    int status = 0;
    std::string body;
    std::optional<std::string> etag;  // the answer's ETag header (extensions.md §E8), if any
};

// The API key's shop (as a keyed statement reports it, for Caller::learn) and the committed
// answer of its shop's Idempotency-Key, if any.
Keyed<StoredAnswer> find_idempotency_answer(Db& db, const std::string& key_digest,
                                            const std::string& idem_key);

// Completes the claimed row, in the claiming transaction. Throws if the row is not there.
void store_idempotency_answer(Db& db, std::uint64_t shop_id, const std::string& idem_key,
                              int status, const std::string& body,
                              const std::optional<std::string>& etag);

// Deletes up to one batch of rows past retention; returns how many.
std::uint64_t purge_expired_idempotency_keys(Db& db);

}  // namespace supportcrm
