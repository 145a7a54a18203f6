// GET /api/v1/files/{fileId}/meta — extensions.md §E13: the file shape, with a fresh `url`.
#include "api/api_error.h"
#include "api/files.h"
#include "api/handler.h"

namespace supportcrm {

Response get_file_meta(HandlerContext& ctx) {
    std::optional<FileRow> file = find_shop_file(ctx.db, ctx.caller.shop().id, ctx.path_id);
    if (!file) {
        return errors::file_not_found();
    }
    Response r;
    JsonWriter w(r.body);
    w.begin_object().field("success", true).key("file");
    files::write_file(w, *file);
    w.end_object();
    return r;
}

}  // namespace supportcrm
