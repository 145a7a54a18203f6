// GET /files/{fileId}/{filename}?expires=E&sig=S — extensions.md §E13: a signed link, no key.
// The signature (common/file_links.h) covers the id, the filename as stored and the expiry;
// anything else about the link (a tampered name, a missing or malformed parameter, another
// file's signature, an expired link) is the same 403.
#include <ctime>

#include "api/api_error.h"
#include "api/files.h"
#include "api/handler.h"
#include "api/query.h"
#include "common/file_links.h"
#include "common/text.h"

namespace supportcrm {
namespace {

// The path's last segment, percent-decoded: the filename the link was signed for.
std::string linked_filename(std::string_view path) {
    return percent_decode(path.substr(path.rfind('/') + 1));
}

// The link's expiry: its `expires`, a unix time in seconds; nullopt when absent or malformed.
std::optional<std::int64_t> link_expiry(const QueryParams& query) {
    const std::optional<std::string> expires = query.get("expires");
    const std::optional<std::uint64_t> value =
        expires ? text::parse_u64(*expires) : std::optional<std::uint64_t>();
    if (!value || *value > static_cast<std::uint64_t>(INT64_MAX)) {
        return std::nullopt;
    }
    return static_cast<std::int64_t>(*value);
}

}  // namespace

Response download_signed_file(HandlerContext& ctx) {
    const FileSettings& s = files::settings();
    const QueryParams query(ctx.request.query);
    const std::optional<std::int64_t> expires = link_expiry(query);
    const std::optional<std::string> sig = query.get("sig");
    if (s.link_secret.empty() || !sig || !expires ||
        !file_links::verify(s.link_secret, ctx.path_id, linked_filename(ctx.request.path), *expires,
                            *sig, ::time(nullptr))) {
        return errors::invalid_file_link();
    }
    std::optional<FileRow> file = find_file(ctx.db, ctx.path_id);
    if (!file || file->filename != linked_filename(ctx.request.path)) {
        return errors::file_not_found();
    }
    return files::send_file(ctx.request, *file);
}

}  // namespace supportcrm
