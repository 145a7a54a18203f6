#include "raw_socket.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <regex>
#include <stdexcept>

namespace it {

Endpoint endpoint_of(const std::string& url) {
    static const std::regex re(R"(^http://([0-9.]+):([0-9]+)/?$)");
    std::smatch m;
    if (!std::regex_match(url, m, re)) {
        throw std::runtime_error("expected http://IPv4:PORT, got " + url);
    }
    return {m[1], std::stoi(m[2])};
}

Socket::Socket(const Endpoint& to) : fd_(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) {
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(to.port));
    if (fd_ < 0 || inet_pton(AF_INET, to.host.c_str(), &addr.sin_addr) != 1 ||
        ::connect(fd_, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) {
        close();
        throw std::runtime_error("cannot connect to " + to.host + ":" + std::to_string(to.port));
    }
}

Socket::~Socket() {
    close();
}

void Socket::close() {
    if (fd_ >= 0) {
        ::close(fd_);
        fd_ = -1;
    }
}

void Socket::send_all(std::string_view bytes) {
    while (!bytes.empty()) {
        const ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
        if (n <= 0) {
            throw std::runtime_error("send failed");
        }
        bytes.remove_prefix(static_cast<size_t>(n));
    }
}

std::string Socket::read_to_close(std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    std::string out;
    char buf[16384];
    for (;;) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
            deadline - std::chrono::steady_clock::now());
        pollfd p{fd_, POLLIN, 0};
        if (left.count() <= 0 || ::poll(&p, 1, static_cast<int>(left.count())) <= 0) {
            throw std::runtime_error("no end of the answer within the timeout; got: " + out);
        }
        const ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
        if (n <= 0) {
            return out;  // closed (a reset after the answer counts as closed too)
        }
        out.append(buf, static_cast<size_t>(n));
    }
}

}  // namespace it
