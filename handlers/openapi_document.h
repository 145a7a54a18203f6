// The OpenAPI description served at GET /api/v1/openapi.json: docs/openapi.yaml as compact
// JSON, compiled in by the build (tools/openapi/embed.py), so the binary always serves the
// description of the tree it was built from and needs no file at run time.
#pragma once

#include <string_view>

namespace supportcrm::openapi {

extern const std::string_view kDocument;
extern const std::string_view kEtag;  // quoted, as the ETag header carries it

}  // namespace supportcrm::openapi
