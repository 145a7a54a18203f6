#include "fcgi/listen_socket.h"

#include <fcntl.h>
#include <grp.h>
#include <netdb.h>
#include <pwd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <stdexcept>

#include "common/log.h"

namespace supportcrm {
namespace {

constexpr int kSdListenFdsStart = 3;

// Throws "<what>: <errno text> (errno N, as user U uid N)": whether a bind or chown works
// depends on who runs the server, so every such message says it.
[[noreturn]] void fail(const std::string& what) {
    int err = errno;
    throw std::runtime_error(what + ": " + log::errno_as_user(err));
}

// Closes fd and throws like fail(), keeping the errno of the call that failed; a unix socket
// file we created is removed first.
[[noreturn]] void close_and_fail(int fd, const std::string& path, const std::string& what) {
    int err = errno;
    close(fd);
    if (!path.empty()) {
        unlink(path.c_str());
    }
    errno = err;
    fail(what);
}

std::string user_name(uid_t uid) {
    const passwd* entry = getpwuid(uid);
    return entry != nullptr ? entry->pw_name : std::to_string(uid);
}

std::string group_name(gid_t gid) {
    const group* entry = getgrgid(gid);
    return entry != nullptr ? entry->gr_name : std::to_string(gid);
}

// "unix:/run/x.sock owner=supportcrm:www-data mode=0660", for the start-up log line: the
// first thing to look at when nginx gets EACCES.
std::string describe_unix(const std::string& path) {
    std::string text = "unix:" + path;
    struct stat st {};
    if (stat(path.c_str(), &st) == 0) {
        char mode[8];
        std::snprintf(mode, sizeof mode, "%04o", st.st_mode & 07777);
        text += " owner=" + user_name(st.st_uid) + ":" + group_name(st.st_gid) + " mode=" + mode;
    }
    return text;
}

// The path of a unix socket fd (empty for any other kind).
std::string unix_path_of(int fd) {
    sockaddr_un addr{};
    socklen_t len = sizeof addr;
    if (getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0 ||
        addr.sun_family != AF_UNIX || addr.sun_path[0] == '\0') {
        return "";
    }
    return std::string(addr.sun_path, strnlen(addr.sun_path, sizeof addr.sun_path));
}

// The fd systemd passed us, if this process is the one it was meant for.
int inherited_fd() {
    const char* pid = std::getenv("LISTEN_PID");
    const char* fds = std::getenv("LISTEN_FDS");
    if (pid == nullptr || fds == nullptr || std::strtol(pid, nullptr, 10) != getpid() ||
        std::strtol(fds, nullptr, 10) < 1) {
        return -1;
    }
    // Not for our children: they must not take the variables as theirs.
    unsetenv("LISTEN_PID");
    unsetenv("LISTEN_FDS");
    unsetenv("LISTEN_FDNAMES");
    fcntl(kSdListenFdsStart, F_SETFD, FD_CLOEXEC);
    return kSdListenFdsStart;
}

bool live_server_at(const sockaddr_un& addr) {
    int probe = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (probe < 0) {
        return false;
    }
    bool live = connect(probe, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0;
    close(probe);
    return live;
}

int bind_unix(const Config& config) {
    const std::string& path = config.listen;
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    if (path.size() >= sizeof addr.sun_path) {
        throw std::runtime_error("listen: unix socket path too long: " + path);
    }
    std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
    struct stat st {};
    if (lstat(path.c_str(), &st) == 0) {
        if (!S_ISSOCK(st.st_mode)) {
            throw std::runtime_error("listen: " + path + " exists and is not a socket");
        }
        if (live_server_at(addr)) {
            throw std::runtime_error("listen: another server is accepting on " + path);
        }
        unlink(path.c_str());  // stale socket of a previous run
    }
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        fail("socket(AF_UNIX)");
    }
    if (bind(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) {
        close_and_fail(fd, "", "cannot bind " + path);
    }
    // Owner, group and mode are set on the file before listen(2): no client can connect while
    // they are still those of the bind. (fchown on the fd would change the socket inode, not
    // the file nginx opens.)
    if (chown(path.c_str(), config.listen_uid, config.listen_gid) != 0) {
        close_and_fail(fd, path,
                       "cannot chown " + path + " to listen-owner '" + config.listen_owner +
                           "' listen-group '" + config.listen_group + "'");
    }
    if (chmod(path.c_str(), config.listen_mode) != 0) {
        close_and_fail(fd, path, "cannot chmod " + path);
    }
    if (listen(fd, config.listen_backlog) != 0) {
        close_and_fail(fd, path, "cannot listen on " + path);
    }
    return fd;
}

int bind_tcp(const std::string& address, int backlog) {
    auto colon = address.rfind(':');
    if (colon == std::string::npos) {
        throw std::runtime_error("listen: expected a unix path or host:port, got " + address);
    }
    std::string host = address.substr(0, colon);
    std::string port = address.substr(colon + 1);
    if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
        host = host.substr(1, host.size() - 2);
    }
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
    addrinfo* found = nullptr;
    int rc = getaddrinfo(host.empty() ? nullptr : host.c_str(), port.c_str(), &hints, &found);
    if (rc != 0) {
        throw std::runtime_error("listen " + address + ": " + gai_strerror(rc));
    }
    std::unique_ptr<addrinfo, decltype(&freeaddrinfo)> guard(found, freeaddrinfo);
    int fd = socket(found->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        fail("socket");
    }
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(fd, found->ai_addr, found->ai_addrlen) != 0 || listen(fd, backlog) != 0) {
        close_and_fail(fd, "", "cannot bind/listen " + address);
    }
    return fd;
}

}  // namespace

ListenSocket ListenSocket::open(const Config& config) {
    int fd = inherited_fd();
    if (fd >= 0) {
        const std::string path = unix_path_of(fd);
        return ListenSocket(fd, "",
                            "fd 3 from systemd (LISTEN_FDS)" +
                                (path.empty() ? std::string() : " " + describe_unix(path)));
    }
    if (!config.listen.empty() && config.listen[0] == '/') {
        fd = bind_unix(config);
        return ListenSocket(fd, config.listen, describe_unix(config.listen));
    }
    fd = bind_tcp(config.listen, config.listen_backlog);
    return ListenSocket(fd, "", "tcp:" + config.listen);
}

ListenSocket ListenSocket::adopt(int fd, std::string unix_path) {
    std::string description = "fd " + std::to_string(fd) + " kept across re-exec";
    if (!unix_path.empty()) {
        description += " (unix:" + unix_path + ")";
    }
    return ListenSocket(fd, std::move(unix_path), std::move(description));
}

ListenSocket::ListenSocket(ListenSocket&& other) noexcept
    : fd_(other.fd_),
      unix_path_(std::move(other.unix_path_)),
      description_(std::move(other.description_)) {
    other.fd_ = -1;
    other.unix_path_.clear();
}

ListenSocket::~ListenSocket() {
    if (fd_ >= 0) {
        close(fd_);
    }
    if (!unix_path_.empty()) {
        unlink(unix_path_.c_str());
    }
}

}  // namespace supportcrm
