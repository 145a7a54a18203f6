#include "api/api_error.h"

#include "common/json_writer.h"

namespace supportcrm::errors {

Response make(int status, std::string_view code, std::string_view message) {
    Response r;
    r.status = status;
    JsonWriter w(r.body);
    w.begin_object().field("success", false).field("code", code).field("message", message);
    w.end_object();
    return r;
}

namespace {

// An error body with one more member: `member` is followed by what `value` writes.
template <typename Fn>
Response make_with(int status, std::string_view code, std::string_view message,
                   std::string_view member, Fn&& value) {
    Response r;
    r.status = status;
    JsonWriter w(r.body);
    w.begin_object().field("success", false).field("code", code).field("message", message);
    w.key(member);
    value(w);
    w.end_object();
    return r;
}

}  // namespace

Response missing_api_key() {
    Response r = make(401, "missing_api_key", "API key is required");
    r.headers.emplace_back("WWW-Authenticate", "Bearer");
    return r;
}
Response invalid_api_key() {
    return make(401, "invalid_api_key", "Invalid API key");
}
Response api_key_expired() {
    return make(401, "invalid_api_key", "API key expired");
}
Response insufficient_scope(std::string_view scope) {
    return make(403, "insufficient_scope", "API key lacks the " + std::string(scope) + " scope");
}
Response rate_limited(unsigned retry_after_s) {
    Response r = make(429, "rate_limited", "Too many requests");
    r.headers.emplace_back("Retry-After", std::to_string(retry_after_s));
    return r;
}
Response shop_not_found() {
    return make(404, "shop_not_found", "Shop not found");
}
Response invalid_json() {
    return make(400, "invalid_json", "Invalid JSON body");
}
Response invalid_body() {
    return make(400, "invalid_body", "Request body must be a JSON object");
}
Response unsupported_media_type() {
    return make(415, "unsupported_media_type", "Content-Type must be application/json");
}
Response body_too_large() {
    return make(413, "body_too_large", "Request body too large");
}
Response validation(std::string_view message) {
    return make(400, "validation_failed", message);
}
Response invalid_id(std::string_view message) {
    return make(400, "invalid_id", message);
}
Response customer_not_found() {
    return make(404, "customer_not_found", "Customer not found");
}
Response ticket_not_found() {
    return make(404, "ticket_not_found", "Ticket not found");
}
Response file_not_found() {
    return make(404, "file_not_found", "File not found");
}
Response file_rejected(std::string_view name) {
    return make(422, "file_rejected", "File rejected: " + std::string(name));
}
Response invalid_file_link() {
    return make(403, "forbidden", "Invalid or expired link");
}
Response user_not_found() {
    return make(404, "user_not_found", "User not found");
}
Response invalid_query(std::string_view message) {
    return make(400, "invalid_query", message);
}
Response route_not_found() {
    return make(404, "not_found", "Not found");
}
Response method_not_allowed(std::string_view allow) {
    Response r = make(405, "method_not_allowed", "Method not allowed");
    r.headers.emplace_back("Allow", std::string(allow));
    return r;
}
Response unavailable() {
    return make(503, "unavailable", "Service temporarily unavailable");
}
Response internal_error() {
    return make(500, "internal_error", "Internal server error");
}
Response invalid_idempotency_key() {
    return make(400, "invalid_idempotency_key", "Invalid Idempotency-Key");
}
Response idempotency_key_reused() {
    return make(422, "idempotency_key_reused",
                "Idempotency-Key was already used for a different request");
}
Response idempotency_key_in_use() {
    return make(409, "idempotency_key_in_use",
                "A request with this Idempotency-Key is in progress");
}

Response invalid_if_match() {
    return make(400, "invalid_if_match", "Invalid If-Match");
}
Response precondition_failed(std::string_view message, std::string_view member,
                             std::string_view current_json, std::string_view etag) {
    Response r = make_with(412, "precondition_failed", message, member,
                           [&](JsonWriter& w) { w.raw(current_json); });
    r.headers.emplace_back("ETag", std::string(etag));
    return r;
}
Response too_many_tags(std::size_t max_tags) {
    return make(422, "too_many_tags", "tags: at most " + std::to_string(max_tags));
}

Response invalid_transition(std::string_view from, std::string_view to,
                            const std::vector<std::string_view>& allowed) {
    const std::string message =
        "Cannot change HumanTicketStatus from " + std::string(from) + " to " + std::string(to);
    return make_with(422, "invalid_transition", message, "allowed", [&](JsonWriter& w) {
        w.begin_array();
        for (std::string_view status : allowed) {
            w.string(status);
        }
        w.end_array();
    });
}
Response customer_exists(std::string_view field, std::uint64_t customer_id) {
    return make_with(409, "customer_exists", "Another customer has this " + std::string(field),
                     "customerId", [&](JsonWriter& w) { w.uinteger(customer_id); });
}

Response customer_merged(std::uint64_t target_id) {
    Response r = make_with(308, "customer_merged", "Customer was merged", "mergedInto",
                           [&](JsonWriter& w) { w.uinteger(target_id); });
    r.headers.emplace_back("Location", "/api/v1/customers/" + std::to_string(target_id));
    return r;
}

Response customer_erased() {
    return make(410, "customer_erased", "Customer was erased");
}

Response cursor_expired() {
    return make(410, "cursor_expired", "Cursor has expired");
}

std::optional<Response> customer_gone(const std::optional<std::uint64_t>& merged_into,
                                      bool erased) {
    if (merged_into) {
        return customer_merged(*merged_into);
    }
    if (erased) {
        return customer_erased();
    }
    return std::nullopt;
}

}  // namespace supportcrm::errors
