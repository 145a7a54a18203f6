#include "api/idempotency.h"

#include <chrono>
#include <stdexcept>

#include "api/api_error.h"
#include "api/handler.h"
#include "common/keys.h"
#include "common/log.h"

namespace supportcrm::idempotency {

bool valid_key(std::string_view value) {
    if (value.empty() || value.size() > 255) {
        return false;
    }
    for (unsigned char c : value) {
        if (c < 0x21 || c > 0x7E) {
            return false;
        }
    }
    return true;
}

std::string request_hash(std::string_view method, std::string_view path, std::string_view body,
                         bool body_too_large) {
    // The prefixes keep the two forms apart; NUL separates the parts (neither method nor path
    // holds one).
    std::string input(body_too_large ? "too-large" : "request");
    input += '\0';
    input += method;
    input += '\0';
    input += path;
    input += '\0';
    if (!body_too_large) {
        input += body;
    }
    return keys::digest_hex(input);
}

bool stored(int status) {
    return status >= 200 && status < 300;
}

Verdict decide(IdempotencyClaim::Result claim, const std::optional<StoredAnswer>& answer,
               const std::string& request_hash) {
    using Result = IdempotencyClaim::Result;
    switch (claim) {
        case Result::claimed:
            return Verdict::process;
        case Result::no_shop:
            return Verdict::key_error;
        case Result::in_progress:
            return Verdict::in_progress;
        case Result::taken:
            break;
    }
    if (!answer) {
        // The committed row was purged between the claim and the read (it was 25 hours old):
        // the client's retry is processed afresh.
        return Verdict::in_progress;
    }
    return answer->request_hash == request_hash ? Verdict::replay : Verdict::reused;
}

Response replay(const StoredAnswer& answer) {
    Response r;
    r.status = answer.status;
    r.body = answer.body;
    r.headers.emplace_back("Idempotency-Replayed", "true");
    if (answer.etag) {
        r.headers.emplace_back("ETag", *answer.etag);
    }
    return r;
}

namespace {

std::optional<std::string> etag_of(const Response& r) {
    for (const auto& [name, value] : r.headers) {
        if (name == "ETag") {
            return value;
        }
    }
    return std::nullopt;
}

}  // namespace

bool applies(const Request& request) {
    // extensions.md §E8: PATCH too.
    return (request.method == "POST" || request.method == "PATCH") &&
           request.idempotency_key.has_value();
}

Response run_once(Request& request, Caller& caller, Db& db, std::size_t max_body_bytes,
                  const std::function<Response()>& handler) {
    const std::string& key = *request.idempotency_key;
    if (!valid_key(key)) {
        if (!caller.resolve(db)) {
            return *caller.error();
        }
        return errors::invalid_idempotency_key();
    }
    // An upload binds its query and digest (its bytes are on disk, api/files.h), anything
    // else its body.
    const bool too_large = !request.body_identity &&
                           request.load_body(max_body_bytes) == Request::BodyState::too_large;
    const std::string hash = request_hash(request.method, request.path,
                                          request.body_identity ? *request.body_identity
                                          : too_large           ? ""
                                                                : request.body(),
                                          too_large);
    IdempotencyClaim claim;
    {
        Transaction tx(db);
        claim = claim_idempotency_key(db, caller.key_digest(), key, hash);
        if (claim.result == IdempotencyClaim::Result::claimed) {
            caller.settle_by_write(*claim.shop);
            Response r = handler();
            if (!stored(r.status)) {
                return r;  // tx rolls back the claim with whatever was written: not stored
            }
            if (db.rollback_only()) {
                throw std::logic_error("a handler answered " + std::to_string(r.status) +
                                       " after rolling its transaction back");
            }
            store_idempotency_answer(db, claim.shop->id, key, r.status, r.body, etag_of(r));
            tx.commit();
            return r;
        }
    }  // a claim that failed rolled back: nothing of this request was written
    std::optional<StoredAnswer> answer;
    if (claim.result == IdempotencyClaim::Result::taken) {
        Keyed<StoredAnswer> stored = find_idempotency_answer(db, caller.key_digest(), key);
        Checked<Opened<StoredAnswer>> found = KeyedOpener::open(caller, db, stored);
        if (found.error) {
            return std::move(*found.error);
        }
        if (found.value.record) {
            answer = std::move(*found.value.record);
        }
    }
    switch (decide(claim.result, answer, hash)) {
        case Verdict::key_error:
            if (!caller.resolve(db)) {
                return *caller.error();
            }
            // The key came to life after the claim looked: this request came first.
            return errors::invalid_api_key();
        case Verdict::in_progress:
            return errors::idempotency_key_in_use();
        case Verdict::replay:
            return replay(*answer);
        case Verdict::reused:
            return errors::idempotency_key_reused();
        case Verdict::process:
            break;
    }
    throw std::logic_error("idempotency: a claimed key was not processed");
}

void maintain(Db& db) noexcept {
    using Clock = std::chrono::steady_clock;
    static Clock::time_point last{};
    const Clock::time_point now = Clock::now();
    if (last != Clock::time_point{} && now - last < std::chrono::minutes(1)) {
        return;
    }
    last = now;
    if (!db.connected()) {
        return;  // the next request reconnects; retention can wait a minute
    }
    try {
        db.start_request();
        const std::uint64_t deleted = purge_expired_idempotency_keys(db);
        if (deleted > 0) {
            log::info("deleted " + std::to_string(deleted) + " expired Idempotency-Keys");
        }
    } catch (const DbUnavailable& e) {
        db.disconnect();
        log::warning(std::string("Idempotency-Key retention: ") + e.what());
    } catch (const std::exception& e) {
        log::warning(std::string("Idempotency-Key retention: ") + e.what());
    }
}

}  // namespace supportcrm::idempotency
