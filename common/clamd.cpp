#include "common/clamd.h"

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

namespace supportcrm::clamd {
namespace {

using Clock = std::chrono::steady_clock;

// clamd's own example client streams 64 KiB chunks; clamd accepts any size up to its limits.
constexpr std::size_t kChunkSize = 64 * 1024;
// clamd answers one short line; anything longer is not clamd speaking.
constexpr std::size_t kMaxReply = 4096;
// The 'z' prefix makes clamd end its reply with '\0' (rather than '\n'), which sizeof counts
// here: the command itself is NUL-terminated too.
constexpr char kCommand[] = "zINSTREAM";
// Keeps now() + timeout clear of steady_clock's overflow whatever the caller passes.
constexpr std::chrono::milliseconds kMaxTimeout = std::chrono::hours(24 * 365);

// An owned descriptor (common/ cannot use fcgi/'s Fd: layers only point downward).
class Fd {
  public:
    Fd() = default;
    explicit Fd(int fd) : fd_(fd) {}
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;
    Fd& operator=(Fd&& other) noexcept {
        std::swap(fd_, other.fd_);
        return *this;
    }
    ~Fd() {
        if (fd_ >= 0) {
            close(fd_);
        }
    }
    int get() const { return fd_; }

  private:
    int fd_ = -1;
};

// The connection and the one deadline that every wait on it shares; `error` says why the
// last step failed.
struct Channel {
    Fd fd;
    Clock::time_point deadline;
    std::chrono::milliseconds timeout;
    std::string error;
};

// How sending went: all of it, stopped because clamd spoke first (it does so only to refuse
// the stream, and its reply says why), or failed (Channel::error).
enum class Sent { all, answered, failed };

std::string failure(std::string_view what, int err) {
    return std::string(what) + ": " + std::strerror(err);
}

Verdict unavailable(std::string why) {
    return {Verdict::unavailable, std::move(why)};
}

bool ends_with(std::string_view text, std::string_view suffix) {
    return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

// Waits until the connection has one of `events` (POLLERR and POLLHUP always count) and returns
// them; 0 with ch.error set when the deadline passes first or poll fails. `step` names what
// was being waited for, for the log.
short wait_for(Channel& ch, short events, std::string_view step) {
    for (;;) {
        const auto left = std::chrono::ceil<std::chrono::milliseconds>(ch.deadline - Clock::now());
        if (left.count() <= 0) {
            ch.error = std::string(step) + ": timed out after " +
                       std::to_string(ch.timeout.count()) + " ms";
            return 0;
        }
        pollfd p{ch.fd.get(), events, 0};
        const int n = poll(&p, 1, static_cast<int>(std::min<std::int64_t>(left.count(), INT_MAX)));
        if (n > 0) {
            return p.revents;
        }
        if (n < 0 && errno != EINTR) {
            ch.error = failure("poll", errno);
            return 0;
        }
    }
}

// A non-blocking socket, so that no send or recv can outlast the deadline. A unix socket's
// connect completes or fails at once (EAGAIN: clamd's listen queue is full, i.e. overloaded).
bool connect_to(Channel& ch, const std::string& path) {
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    if (path.empty() || path.size() >= sizeof addr.sun_path) {
        ch.error = "socket path empty or too long for a unix socket";
        return false;
    }
    std::memcpy(addr.sun_path, path.data(), path.size());
    ch.fd = Fd(socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
    if (ch.fd.get() < 0) {
        ch.error = failure("socket", errno);
        return false;
    }
    if (connect(ch.fd.get(), reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) {
        ch.error = failure("connect", errno);
        return false;
    }
    return true;
}

Sent send_all(Channel& ch, const char* data, std::size_t size) {
    while (size > 0) {
        const short ready = wait_for(ch, POLLOUT | POLLIN, "sending");
        if (ready == 0) {
            return Sent::failed;
        }
        if ((ready & POLLIN) != 0) {
            return Sent::answered;
        }
        const ssize_t n = send(ch.fd.get(), data, size, MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK) {
                continue;
            }
            ch.error = failure("send", errno);
            return Sent::failed;
        }
        data += n;
        size -= static_cast<std::size_t>(n);
    }
    return Sent::all;
}

// The file as INSTREAM chunks (a 4-byte big-endian length, then the bytes), ending with the
// zero-length chunk that the read at EOF makes.
Sent stream_file(Channel& ch, int fd) {
    std::vector<char> frame(4 + kChunkSize);
    off_t offset = 0;
    for (;;) {
        const ssize_t n = pread(fd, frame.data() + 4, kChunkSize, offset);
        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            ch.error = failure("reading the file", errno);
            return Sent::failed;
        }
        const auto length = static_cast<std::uint32_t>(n);
        for (int i = 0; i < 4; ++i) {
            frame[i] = static_cast<char>((length >> (24 - 8 * i)) & 0xff);
        }
        const Sent sent = send_all(ch, frame.data(), 4 + static_cast<std::size_t>(n));
        if (sent != Sent::all || n == 0) {
            return sent;
        }
        offset += n;
    }
}

// clamd's reply up to its '\0'; nullopt (ch.error set) when none comes complete.
std::optional<std::string> read_reply(Channel& ch) {
    std::string reply;
    char buffer[512];
    for (;;) {
        if (wait_for(ch, POLLIN, "waiting for the reply") == 0) {
            return std::nullopt;
        }
        const ssize_t n = recv(ch.fd.get(), buffer, sizeof buffer, 0);
        if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)) {
            continue;
        }
        if (n <= 0) {
            ch.error = n < 0 ? failure("recv", errno)
                             : "connection closed before the end of the reply \"" + reply + "\"";
            return std::nullopt;
        }
        reply.append(buffer, static_cast<std::size_t>(n));
        if (const auto end = reply.find('\0'); end != std::string::npos) {
            reply.resize(end);
            return reply;
        }
        if (reply.size() > kMaxReply) {
            ch.error = "reply longer than " + std::to_string(kMaxReply) + " bytes";
            return std::nullopt;
        }
    }
}

// "stream: OK", "stream: <name> FOUND"; every error reply ends in "ERROR" (e.g. "INSTREAM size
// limit exceeded. ERROR"). Anything else is not a verdict.
Verdict interpret(const std::string& reply) {
    constexpr std::string_view kPrefix = "stream: ";
    constexpr std::string_view kFound = " FOUND";
    if (reply == "stream: OK") {
        return {Verdict::clean, {}};
    }
    const bool found = reply.compare(0, kPrefix.size(), kPrefix) == 0 &&
                       reply.size() > kPrefix.size() + kFound.size() && ends_with(reply, kFound);
    if (found && !ends_with(reply, "ERROR")) {
        return {Verdict::found,
                reply.substr(kPrefix.size(), reply.size() - kPrefix.size() - kFound.size())};
    }
    return unavailable("clamd answered \"" + reply + "\"");
}

Verdict exchange(Channel& ch, const std::string& socket_path, int fd) {
    if (!connect_to(ch, socket_path)) {
        return unavailable(ch.error);
    }
    Sent sent = send_all(ch, kCommand, sizeof kCommand);
    if (sent == Sent::all) {
        sent = stream_file(ch, fd);
    }
    if (sent == Sent::failed) {
        return unavailable(ch.error);
    }
    const std::optional<std::string> reply = read_reply(ch);
    if (!reply) {
        return unavailable(ch.error);
    }
    Verdict verdict = interpret(*reply);
    // Not all of the file was scanned, so "no virus" would say more than clamd knows.
    if (sent == Sent::answered && verdict.kind == Verdict::clean) {
        return unavailable("clamd answered \"" + *reply + "\" before the end of the stream");
    }
    return verdict;
}

}  // namespace

Verdict scan(const std::string& socket_path, int fd, std::chrono::milliseconds timeout) {
    try {
        timeout = std::clamp(timeout, std::chrono::milliseconds(0), kMaxTimeout);
        Channel ch{Fd(), Clock::now() + timeout, timeout, {}};
        Verdict verdict = exchange(ch, socket_path, fd);
        if (verdict.kind == Verdict::unavailable) {
            verdict.detail = "clamd on " + socket_path + ": " + verdict.detail;
        }
        return verdict;
    } catch (...) {
        // Only std::bad_alloc gets here; a short literal fits std::string's inline buffer, so
        // this answer allocates nothing and cannot throw again.
        return {Verdict::unavailable, "out of memory"};
    }
}

}  // namespace supportcrm::clamd
