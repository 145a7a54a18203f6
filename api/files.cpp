#include "api/files.h"

#include <ctime>

#include "api/api_error.h"
#include "api/handler.h"
#include "common/file_links.h"
#include "common/log.h"

namespace supportcrm::files {
namespace {

FileSettings& current() {
    static FileSettings settings;
    return settings;
}

// Where nginx's internal location (nginx/supportcrm.conf) maps to files-dir.
constexpr const char* kInternalPrefix = "/.supportcrm/files/";

// The body, chunk by chunk, into the spool; false when it grew past `max`.
bool copy_body(BodySource& source, file_store::Spool& spool, std::size_t max) {
    char buffer[65536];
    std::size_t total = 0;
    while (const std::size_t n = source.read_some(buffer, sizeof buffer)) {
        total += n;
        if (total > max) {
            return false;
        }
        spool.write(buffer, n);
    }
    return true;
}

}  // namespace

void configure(const FileSettings& settings) {
    current() = settings;
}

const FileSettings& settings() {
    return current();
}

std::optional<Response> spool_upload(Request& request) {
    if (request.upload) {
        return std::nullopt;
    }
    const std::size_t max = current().max_bytes;
    if (request.content_length && *request.content_length > max) {
        return errors::body_too_large();
    }
    try {
        auto upload = std::make_shared<SpooledUpload>(current().dir);
        StringBody empty("");
        BodySource& source = request.body_source ? *request.body_source : empty;
        if (!copy_body(source, upload->spool, max)) {
            return errors::body_too_large();
        }
        upload->spool.finish();
        request.body_identity = "upload\n" + request.query + "\n" + request.content_type + "\n" +
                                upload->spool.sha256();
        request.upload = std::move(upload);
        return std::nullopt;
    } catch (const file_store::Error& e) {
        log::error(std::string("upload not stored: ") + e.what() +
                   (e.no_space ? " (the file system is full)" : ""));
        return errors::unavailable();
    }
}

void write_file(JsonWriter& w, const FileRow& f) {
    const FileSettings& s = current();
    const std::int64_t expires = static_cast<std::int64_t>(::time(nullptr)) + s.url_ttl;
    w.begin_object();
    w.key("id").id_string(f.id);
    w.field("filename", f.filename).field("contentType", f.content_type);
    w.field("size", f.size).field("sha256", f.sha256);
    w.field("createdAt", timeutil::format_iso(f.created_at));
    w.field("url", file_links::link(s.public_base_url, s.link_secret, f.id, f.filename, expires));
    w.end_object();
}

Response send_file(const Request& request, const FileRow& f) {
    const std::string tag = "\"" + f.sha256 + "\"";
    if (std::optional<Response> unchanged = not_modified(request, tag)) {
        unchanged->cache_control = "private, no-cache";
        return std::move(*unchanged);
    }
    Response r;
    r.content_type = nullptr;  // the file's own, below; nginx sends the bytes
    r.cache_control = "private, no-cache";
    r.headers.emplace_back("Content-Type", f.content_type);
    r.headers.emplace_back("Content-Disposition", file_links::content_disposition(f.filename));
    r.headers.emplace_back("ETag", tag);
    r.headers.emplace_back("X-Accel-Redirect",
                           kInternalPrefix + file_store::relative_path(f.sha256));
    return r;
}

void remove_unnamed_bytes(Db& db, const std::string& sha256) {
    if (file_bytes_named(db, sha256)) {
        return;
    }
    try {
        file_store::remove_content(current().dir, sha256);
    } catch (const file_store::Error& e) {
        log::warning(std::string("erased file's bytes left for the sweep: ") + e.what());
    }
}

}  // namespace supportcrm::files
