// Writing a Response as the FastCGI stdout stream: CGI headers, then the JSON body.
#pragma once

#include <string>
#include <string_view>

#include "api/response.h"

namespace supportcrm {

// "Status: 201 Created\r\nContent-Type: ...\r\n...\r\n\r\n" for this response.
std::string render_head(const Response& response, std::string_view request_id);

const char* reason_phrase(int status);

}  // namespace supportcrm
