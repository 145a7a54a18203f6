#include "api/handler.h"

#include "api/api_error.h"
#include "common/strict_json.h"
#include "common/text.h"

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

namespace {

bool is_json_media_type(std::string_view content_type) {
    std::string_view media = content_type.substr(0, content_type.find(';'));
    return text::iequals(text::trim(media), "application/json");
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
    if (!is_json_media_type(req.content_type)) {
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

}  // namespace supportcrm
