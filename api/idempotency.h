// Idempotency-Key on POST and PATCH (extensions.md §E2, §E8), applied by api/dispatch.cpp to every
// POST and PATCH route: a request carrying the header runs at most once per key of its shop, and
// its 2xx answer is stored in the same transaction as its write and replayed byte for byte
// afterwards.
//
// How it is kept (docs/operations.md "Idempotency-Key"): dispatch opens one transaction around
// the handler (Db's transactions nest, so the repositories' own ones join it). Its first
// statement claims the key: the uncommitted row is the "in progress" state, which a concurrent
// request meets as a row lock (409), and which a request that dies takes with it (the server
// rolls it back with the write). A 2xx answer is written into the row and committed with the
// write; any other answer, or any failure, rolls both back, so a retry is processed afresh. A
// committed row always carries its answer: a retry after a COMMIT whose outcome was unknown
// (503) either replays it or, if nothing was committed, runs the request for the first time.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "api/caller.h"
#include "api/request.h"
#include "api/response.h"
#include "db/db.h"
#include "db/idempotency_repo.h"

namespace supportcrm::idempotency {

// 1..255 characters, each visible ASCII (0x21..0x7E).
bool valid_key(std::string_view value);

// SHA-256 (hex) of the request a key is bound to: method, path and body bytes. A body over the
// limit (never read whole) gets a hash of its own that matches no request that was stored.
std::string request_hash(std::string_view method, std::string_view path, std::string_view body,
                         bool body_too_large);

// Whether an answer with this status is stored (2xx only).
bool stored(int status);

// What a request whose claim did not succeed is answered.
enum class Verdict {
    process,      // claimed: run the handler
    key_error,    // the key has no live shop: the key's own 401/404
    in_progress,  // 409 idempotency_key_in_use
    replay,       // the stored answer, with Idempotency-Replayed: true
    reused,       // 422 idempotency_key_reused
};
// `answer` is the committed row, read after a `taken` claim.
Verdict decide(IdempotencyClaim::Result claim, const std::optional<StoredAnswer>& answer,
               const std::string& request_hash);

// The stored status and body, byte for byte, with Idempotency-Replayed: true (and the stored
// ETag of an answer about one ticket or customer).
Response replay(const StoredAnswer& answer);

// A POST or PATCH that carries the header (on any other method it is ignored).
bool applies(const Request& request);

// Runs `handler` under the request's key as described above. Checks the key's format after the
// API key and its shop (their errors win), before anything the handler checks.
Response run_once(Request& request, Caller& caller, Db& db, std::size_t max_body_bytes,
                  const std::function<Response()>& handler);

// Retention, called by the worker after a response went out: at most once a minute, deletes
// one batch of keys older than 25 hours. Never throws (a failure is logged and retried later).
void maintain(Db& db) noexcept;

}  // namespace supportcrm::idempotency
