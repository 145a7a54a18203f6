#include "api/response_writer.h"

namespace supportcrm {

const char* reason_phrase(int status) {
    switch (status) {
        case 200:
            return "OK";
        case 201:
            return "Created";
        case 202:
            return "Accepted";
        case 304:
            return "Not Modified";
        case 308:
            return "Permanent Redirect";
        case 400:
            return "Bad Request";
        case 401:
            return "Unauthorized";
        case 403:
            return "Forbidden";
        case 404:
            return "Not Found";
        case 405:
            return "Method Not Allowed";
        case 409:
            return "Conflict";
        case 410:
            return "Gone";
        case 412:
            return "Precondition Failed";
        case 413:
            return "Payload Too Large";
        case 415:
            return "Unsupported Media Type";
        case 422:
            return "Unprocessable Content";
        case 429:
            return "Too Many Requests";
        case 500:
            return "Internal Server Error";
        case 503:
            return "Service Unavailable";
        default:
            return "Unknown";
    }
}

std::string render_head(const Response& response, std::string_view request_id) {
    std::string head;
    head.reserve(192);
    head.append("Status: ").append(std::to_string(response.status)).append(" ");
    head.append(reason_phrase(response.status)).append("\r\n");
    if (response.content_type != nullptr) {
        head.append("Content-Type: ").append(response.content_type).append("\r\n");
    }
    if (!response.stream) {
        head.append("Content-Length: ").append(std::to_string(response.body.size())).append("\r\n");
    }
    head.append("Cache-Control: ").append(response.cache_control).append("\r\n");
    // A browser must never render a body (which may echo client text) as anything but JSON.
    head.append("X-Content-Type-Options: nosniff\r\n");
    head.append("X-Request-Id: ").append(request_id).append("\r\n");
    for (const auto& [name, value] : response.headers) {
        head.append(name).append(": ").append(value).append("\r\n");
    }
    head.append("\r\n");
    return head;
}

}  // namespace supportcrm
