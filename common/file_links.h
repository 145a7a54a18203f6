// The names and links of stored files (extensions.md §E13): how a filename is cleaned, how it
// is sent (RFC 6266 Content-Disposition with RFC 5987/8187 filename*), and the signed link that
// needs no key: HMAC-SHA256 over the id, the filename and the expiry, keyed with the
// installation's link secret (file-link-secret-file). Pure functions, unit-tested.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace supportcrm::file_links {

// `/`, `\` and control characters (C0 and DEL) replaced by `_`: a name is never a path.
std::string clean_filename(std::string_view decoded);

// RFC 3986 percent-encoding: every byte but the unreserved characters, as %XX (upper hex).
std::string percent_encode(std::string_view bytes);

// "attachment; filename*=UTF-8''<percent-encoded name>".
std::string content_disposition(std::string_view filename);

// Lowercase hex HMAC-SHA256(secret, "<id>\n<filename>\n<expires>").
std::string sign(std::string_view secret, std::uint64_t id, std::string_view filename,
                 std::int64_t expires);

// Whether `sig` is the signature of id, filename and expires (compared in constant time) and
// the link has not expired at `now` (unix seconds).
bool verify(std::string_view secret, std::uint64_t id, std::string_view filename,
            std::int64_t expires, std::string_view sig, std::int64_t now);

// "<base>/files/<id>/<percent-encoded filename>?expires=<expires>&sig=<sign(...)>"; a trailing
// '/' of base is dropped.
std::string link(std::string_view base, std::string_view secret, std::uint64_t id,
                 std::string_view filename, std::int64_t expires);

}  // namespace supportcrm::file_links
