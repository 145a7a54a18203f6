#include "api/handler.h"

#include "api/api_error.h"
#include "common/json_writer.h"
#include "common/log.h"
#include "common/strict_json.h"
#include "common/text.h"
#include "db/webhook_repo.h"

namespace supportcrm {

Checked<std::uint64_t> parse_path_id(std::string_view segment, std::string_view name) {
    Checked<std::uint64_t> out;
    if (segment.empty()) {
        out.error = errors::validation(std::string(name) + " is required");
    } else if (!text::is_digits(segment)) {
        out.error = errors::invalid_id("Invalid " + std::string(name));
    } else {
        out.value = text::parse_u64(segment).value_or(UINT64_MAX);
    }
    return out;
}

Checked<std::optional<etag::Condition>> read_if_match(const Request& request) {
    Checked<std::optional<etag::Condition>> out;
    if (request.if_match) {
        out.value = etag::parse(*request.if_match);
        if (!out.value) {
            out.error = errors::invalid_if_match();
        }
    }
    return out;
}

Response record_answer(const char* member, const std::string& json, const std::string& tag) {
    Response r;
    JsonWriter w(r.body);
    w.begin_object().field("success", true).key(member).raw(json).end_object();
    r.headers.emplace_back("ETag", tag);
    return r;
}

std::optional<Response> not_modified(const Request& request, const std::string& tag) {
    if (!request.if_none_match) {
        return std::nullopt;
    }
    // A value that is not an entity-tag list names no tag: the GET is answered in full.
    std::optional<etag::Condition> condition = etag::parse(*request.if_none_match);
    if (!condition || !etag::matches_weak(*condition, tag)) {
        return std::nullopt;
    }
    Response r;
    r.status = 304;
    r.content_type = nullptr;
    r.headers.emplace_back("ETag", tag);
    return r;
}

void lost_version_race(const char* what) {
    throw DbError(std::string(what) + ": running the request again", kErLockDeadlock);
}

namespace {

Checked<const Shop*> settled(const Caller& caller, const Shop* shop) {
    Checked<const Shop*> out;
    out.value = shop;
    if (shop == nullptr) {
        out.error = caller.error();
    }
    return out;
}

}  // namespace

Checked<const Shop*> keyed(HandlerContext& ctx) {
    return settled(ctx.caller, ctx.caller.resolve(ctx.db));
}

void settle_by_write(HandlerContext& ctx, const Shop& shop) {
    ctx.caller.settle_by_write(shop);
}

Response created(HandlerContext& ctx, Transaction& tx, const CreatedEvent& event,
                 std::string_view name, const std::string& object, const EventRecord* preceding) {
    const Shop& shop = ctx.caller.shop();
    // Every shop records every event (the changes feed, E11); the deliverer sends it only to
    // the webhooks that want its type.
    const std::string data = event.data != nullptr ? event.data(object, ctx) : object;
    if (preceding != nullptr) {
        record_events(ctx.db, shop, *preceding, {event.type, data, event.at, std::nullopt});
    } else {
        record_event(ctx.db, shop, event.type, data, event.at);
    }
    tx.commit();
    Response r;
    r.status = 201;
    JsonWriter w(r.body);
    w.begin_object().field("success", true).key(name).raw(object);
    w.end_object();
    return r;
}

namespace {

// A PATCH may also say what its body is: a JSON merge patch (RFC 7396; extensions.md §E8).
bool is_json_media_type(std::string_view content_type, std::string_view method) {
    std::string_view media = text::trim(content_type.substr(0, content_type.find(';')));
    return text::iequals(media, "application/json") ||
           (method == "PATCH" && text::iequals(media, "application/merge-patch+json"));
}

}  // namespace

Checked<Json::Value> read_json_object(HandlerContext& ctx) {
    Checked<Json::Value> out;
    Request& req = ctx.request;
    if (req.load_body(ctx.max_body_bytes) == Request::BodyState::too_large) {
        out.error = errors::body_too_large();
        return out;
    }
    const std::string& body = req.body();
    if (body.empty()) {
        out.value = Json::Value(Json::objectValue);
        return out;
    }
    if (!is_json_media_type(req.content_type, req.method)) {
        out.error = errors::unsupported_media_type();
        return out;
    }
    if (!strict_json::parse(body, out.value)) {
        out.error = errors::invalid_json();
    } else if (!out.value.isObject()) {
        out.error = errors::invalid_body();
    }
    return out;
}

bool SnapshotStream::write_to(BodySink& sink) {
    try {
        produce(sink);
        tx_->commit();
        return true;
    } catch (const DbUnavailable& e) {
        db_.disconnect();
        log::error(std::string(e.what()) + "; the export stops here (connection aborted)");
    } catch (const std::exception& e) {
        log::error(std::string(e.what()) + "; the export stops here (connection aborted)");
    }
    return false;
}

}  // namespace supportcrm
