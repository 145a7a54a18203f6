// POST /api/v1/files?filename=NAME — extensions.md §E13. The body was taken into a Spool by
// dispatch (api/files.h) before this runs; here the name is checked, the bytes scanned (with
// clamd-socket), linked to their content path and the row inserted, in that order: the row
// never names bytes that are not on disk and synced.
#include <chrono>

#include "api/api_error.h"
#include "api/files.h"
#include "api/handler.h"
#include "api/query.h"
#include "common/clamd.h"
#include "common/file_links.h"
#include "common/log.h"
#include "common/text.h"

namespace supportcrm {
namespace {

constexpr std::size_t kMaxFilename = 255;  // characters, after URL-decoding
constexpr std::size_t kMaxContentType = 255;
constexpr auto kScanTimeout = std::chrono::seconds(60);

// The filename of the query, cleaned (file_links::clean_filename); or the 400 that answers.
Checked<std::string> read_filename(const Request& request) {
    Checked<std::string> out;
    std::optional<std::string> given = QueryParams(request.query).get("filename");
    if (!given || given->empty()) {
        out.error = errors::validation("filename is required");
    } else if (!text::is_valid_utf8(*given)) {
        out.error = errors::validation("filename must be UTF-8");
    } else if (text::utf8_length(*given) > kMaxFilename) {
        out.error = errors::validation("filename must be at most 255 characters");
    } else {
        out.value = file_links::clean_filename(*given);
    }
    return out;
}

Checked<std::string> read_content_type(const Request& request) {
    Checked<std::string> out;
    out.value = request.content_type.empty() ? "application/octet-stream" : request.content_type;
    if (out.value.size() > kMaxContentType) {
        out.error = errors::validation("Content-Type must be at most 255 characters");
    }
    return out;
}

// clamd's verdict as the answer it gives (nullopt: clean, or no scanner configured).
std::optional<Response> scan(const file_store::Spool& spool) {
    const std::string& socket = files::settings().clamd_socket;
    if (socket.empty()) {
        return std::nullopt;
    }
    const clamd::Verdict v = clamd::scan(socket, spool.fd(), kScanTimeout);
    switch (v.kind) {
        case clamd::Verdict::clean:
            return std::nullopt;
        case clamd::Verdict::found:
            log::info("upload rejected by clamd: " + v.detail);
            return errors::file_rejected(v.detail);
        case clamd::Verdict::unavailable:
            break;
    }
    log::error("clamd at " + socket + " did not scan the upload: " + v.detail);
    return errors::unavailable();
}

// The row, inserted and committed once its bytes are in place (api/files.h).
Response store(HandlerContext& ctx, file_store::Spool& spool, FileRow& file) {
    Transaction tx(ctx.db);
    spool.ensure_installed();
    file.id = insert_file(ctx.db, ctx.caller.shop().id, file);
    // A remover that found no row naming the bytes before this insert may have taken them;
    // from the insert on, its locking read waits for this transaction (common/file_store.h).
    spool.ensure_installed();
    tx.commit();
    Response r;
    r.status = 201;
    JsonWriter w(r.body);
    w.begin_object().field("success", true).key("file");
    files::write_file(w, file);
    w.end_object();
    return r;
}

}  // namespace

Response upload_file(HandlerContext& ctx) {
    Checked<std::string> filename = read_filename(ctx.request);
    if (filename.error) {
        return std::move(*filename.error);
    }
    Checked<std::string> content_type = read_content_type(ctx.request);
    if (content_type.error) {
        return std::move(*content_type.error);
    }
    if (files::settings().public_base_url.empty()) {
        log::error("upload refused: public-base-url is not set, so no file link can be signed");
        return errors::unavailable();
    }
    file_store::Spool& spool = ctx.request.upload->spool;
    if (std::optional<Response> refused = scan(spool)) {
        return std::move(*refused);
    }
    FileRow file{0,
                 std::move(filename.value),
                 std::move(content_type.value),
                 spool.size(),
                 spool.sha256(),
                 timeutil::now_ms()};
    try {
        return store(ctx, spool, file);
    } catch (const file_store::Error& e) {
        log::error(std::string("upload not stored: ") + e.what());
        return errors::unavailable();
    }
}

}  // namespace supportcrm
