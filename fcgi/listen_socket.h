// The FastCGI listen socket: inherited from systemd (LISTEN_FDS) when socket-activated, else
// bound by the master from `listen` (a unix path or host:port). Owned RAII; a unix socket we
// bound ourselves is removed again on close.
#pragma once

#include <string>

#include "common/config.h"

namespace supportcrm {

class ListenSocket {
  public:
    // Throws std::runtime_error with errno text on failure.
    static ListenSocket open(const Config& config);
    // The socket the master's previous image listened on (kept open across its re-exec,
    // fcgi/reexec.h); a non-empty unix_path is removed on close as if bound here.
    static ListenSocket adopt(int fd, std::string unix_path);

    ListenSocket(ListenSocket&& other) noexcept;
    ListenSocket& operator=(ListenSocket&&) = delete;
    ~ListenSocket();

    int fd() const { return fd_; }
    const std::string& description() const { return description_; }
    // The path removed on close: a unix socket this master bound itself ("" otherwise).
    const std::string& unix_path() const { return unix_path_; }

  private:
    ListenSocket(int fd, std::string unix_path, std::string description)
        : fd_(fd), unix_path_(std::move(unix_path)), description_(std::move(description)) {}

    int fd_;
    std::string unix_path_;
    std::string description_;
};

}  // namespace supportcrm
