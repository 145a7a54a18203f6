// Every error the API answers, in one place: status, code and message exactly as
// ../shared/spec/contract.md §4 names them. Bad client input is a value (a Response), never an
// exception; exceptions are for failures of the service itself (see api/dispatch.cpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/response.h"

namespace supportcrm::errors {

// {"success":false,"code":...,"message":...}
Response make(int status, std::string_view code, std::string_view message);

Response missing_api_key();  // 401, with WWW-Authenticate: Bearer
Response invalid_api_key();  // 401
Response api_key_expired();  // 401 invalid_api_key "API key expired"
// 403 insufficient_scope "API key lacks the <scope> scope" (extensions.md §E12)
Response insufficient_scope(std::string_view scope);
// 429 rate_limited "Too many requests", with Retry-After (seconds)
Response rate_limited(unsigned retry_after_s);
Response shop_not_found();                            // 404
Response invalid_json();                              // 400
Response invalid_body();                              // 400
Response unsupported_media_type();                    // 415
Response body_too_large();                            // 413
Response validation(std::string_view message);        // 400 validation_failed
Response invalid_id(std::string_view message);        // 400 invalid_id
Response customer_not_found();                        // 404
Response ticket_not_found();                          // 404
Response user_not_found();                            // 404
Response invalid_query(std::string_view message);     // 400
Response route_not_found();                           // 404
Response method_not_allowed(std::string_view allow);  // 405, with Allow
Response unavailable();                               // 503
Response internal_error();                            // 500
// extensions.md §E2
Response invalid_idempotency_key();  // 400
Response idempotency_key_reused();   // 422
Response idempotency_key_in_use();   // 409
// extensions.md §E8
Response invalid_if_match();  // 400: If-Match is not `*` or a list of entity tags
// 412 precondition_failed: `message`, the current state under `member` (JSON text) and its ETag.
Response precondition_failed(std::string_view message, std::string_view member,
                             std::string_view current_json, std::string_view etag);
// 422 too_many_tags "tags: at most <max_tags>": the ticket's list would grow past the limit
// (a PATCH's addTags; E16's merge).
Response too_many_tags(std::size_t max_tags);
// 422 invalid_transition "Cannot change HumanTicketStatus from <from> to <to>", with "allowed".
Response invalid_transition(std::string_view from, std::string_view to,
                            const std::vector<std::string_view>& allowed);
// 409 customer_exists "Another customer has this <field>", with "customerId".
Response customer_exists(std::string_view field, std::uint64_t customer_id);
// extensions.md §E9
// 308 customer_merged "Customer was merged", with Location: /api/v1/customers/<target> and
// "mergedInto".
Response customer_merged(std::uint64_t target_id);
Response customer_erased();                     // 410 "Customer was erased"
Response file_not_found();                      // 404 (extensions.md §E13)
Response file_rejected(std::string_view name);  // 422: clamd found `name`
Response invalid_file_link();                   // 403 forbidden "Invalid or expired link"
Response cursor_expired();  // 410: the changes feed's entries after it may be gone (E11)
// What a request naming a customer that was merged (308) or erased (410) is answered; nullopt
// for a live customer.
std::optional<Response> customer_gone(const std::optional<std::uint64_t>& merged_into, bool erased);

}  // namespace supportcrm::errors
