// GET /api/v1/openapi.json — extensions.md §E7: the OpenAPI 3.1 description, no key, no
// database. It changes only with the binary, so unlike every other answer it may be cached:
// nginx keeps a copy (nginx/supportcrm.conf) and clients revalidate with the ETag.
#include "api/handler.h"
#include "handlers/openapi_document.h"

namespace supportcrm {

Response get_openapi(HandlerContext&) {
    Response r;
    r.body.assign(openapi::kDocument);
    r.cache_control = "public, max-age=300";
    r.headers.emplace_back("ETag", std::string(openapi::kEtag));
    return r;
}

}  // namespace supportcrm
