// GET /api/v1/files/{fileId} — extensions.md §E13. The worker only authorises: key, shop and
// scope, then X-Accel-Redirect; nginx's internal location sends the bytes (Range, sendfile).
#include "api/api_error.h"
#include "api/files.h"
#include "api/handler.h"

namespace supportcrm {

Response download_file(HandlerContext& ctx) {
    std::optional<FileRow> file = find_shop_file(ctx.db, ctx.caller.shop().id, ctx.path_id);
    if (!file) {
        return errors::file_not_found();
    }
    return files::send_file(ctx.request, *file);
}

}  // namespace supportcrm
