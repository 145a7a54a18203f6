// Files (extensions.md §E13), what the handlers of /api/v1/files and the signed links share:
// the upload's body taken from FastCGI stdin into a Spool (never whole in memory), the file
// shape with its freshly signed `url`, and the settings the worker was started with.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "api/request.h"
#include "api/response.h"
#include "common/config.h"
#include "common/file_store.h"
#include "common/json_writer.h"
#include "db/file_repo.h"

namespace supportcrm {

// An upload's bytes, received: on disk under files-dir/tmp, hashed and synced.
struct SpooledUpload {
    explicit SpooledUpload(const std::string& files_dir) : spool(files_dir) {}
    file_store::Spool spool;
};

namespace files {

// The worker's settings, once at start (the secret included: no file is read per request).
void configure(const FileSettings& settings);
const FileSettings& settings();

// Takes the request's body into request.upload (once: a re-run of the request keeps it) and
// sets request.body_identity (what an Idempotency-Key binds: the query and the bytes' digest).
// nullopt when received; else the answer: 413 over file-max-bytes, 503 when the disk refused.
std::optional<Response> spool_upload(Request& request);

// The file shape: {"id","filename","contentType","size","sha256","createdAt","url"}, `url`
// signed now, valid file-url-ttl seconds.
void write_file(JsonWriter& w, const FileRow& file);

// The answer that has nginx send the bytes (X-Accel-Redirect to its internal location) with
// the file's own headers; 304 when If-None-Match names its ETag.
Response send_file(const Request& request, const FileRow& file);

// Removes the bytes of sha256 unless a row names them (file_bytes_named's locking read: an
// upload's row inserted and not yet committed is waited for). A failure is logged: the sweep
// removes them later.
void remove_unnamed_bytes(Db& db, const std::string& sha256);

}  // namespace files
}  // namespace supportcrm
