// A client of ClamAV's scanning daemon, clamd(8), on its unix socket: one file streamed with
// the zINSTREAM command (clamd reads the bytes from the connection, so it needs no access to
// the file, and the file needs no path). The caller decides what "unavailable" means for it
// (refuse the upload, or accept it unscanned and log why).
#pragma once

#include <chrono>
#include <string>

namespace supportcrm::clamd {

struct Verdict {
    enum Kind { clean, found, unavailable } kind = unavailable;
    std::string detail;  // found: the signature name; unavailable: why (for the log)
};

// Streams the bytes of `fd` (from offset 0 to EOF, read with pread so the caller's offset is
// untouched) to clamd on the Unix socket `socket_path` with zINSTREAM; never throws.
// `timeout` bounds the whole exchange (connect, stream, clamd's scan and reply): past it the
// verdict is unavailable. A reply that ends in "ERROR" (e.g. "INSTREAM size limit exceeded.
// ERROR", past clamd's StreamMaxLength) or is not clamd's is unavailable as well.
Verdict scan(const std::string& socket_path, int fd, std::chrono::milliseconds timeout);

}  // namespace supportcrm::clamd
