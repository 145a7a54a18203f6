#include "fcgi/parking.h"

#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include "common/log.h"

namespace supportcrm {

Fd& Fd::operator=(Fd&& other) noexcept {
    if (this != &other) {
        reset();
        fd_ = std::exchange(other.fd_, -1);
    }
    return *this;
}

void Fd::reset() {
    if (fd_ >= 0) {
        close(fd_);
        fd_ = -1;
    }
}

Pending pending(int fd) {
    char byte;
    const ssize_t n = recv(fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
    if (n > 0) {
        return Pending::request;
    }
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
        return Pending::nothing;
    }
    return Pending::closed;
}

namespace {

// One hand-off message: one byte of data (a SOCK_SEQPACKET message cannot be empty) and room
// for one descriptor. Not movable: msg points into the object itself.
struct FdMessage {
    char byte = 'c';
    iovec iov{&byte, 1};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
    msghdr msg{};

    FdMessage() {
        msg.msg_iov = &iov;
        msg.msg_iovlen = 1;
        msg.msg_control = control;
        msg.msg_controllen = sizeof control;
    }
    FdMessage(const FdMessage&) = delete;
    FdMessage& operator=(const FdMessage&) = delete;
};

}  // namespace

bool send_fd(int channel, int fd) {
    FdMessage m;
    cmsghdr* c = CMSG_FIRSTHDR(&m.msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    std::memcpy(CMSG_DATA(c), &fd, sizeof(int));
    ssize_t n;
    do {
        n = sendmsg(channel, &m.msg, MSG_DONTWAIT | MSG_NOSIGNAL);
    } while (n < 0 && errno == EINTR);
    return n == 1;
}

Fd receive_fd(int channel) {
    FdMessage m;
    ssize_t n;
    do {
        n = recvmsg(channel, &m.msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
    } while (n < 0 && errno == EINTR);
    if (n < 0) {
        if (errno != EAGAIN && errno != EWOULDBLOCK) {
            log::error_errno("recvmsg (parked connection)", errno);
        }
        return Fd();
    }
    // MSG_CTRUNC: the descriptor did not fit (the open-files limit); the kernel closed it.
    if ((m.msg.msg_flags & MSG_CTRUNC) != 0) {
        log::error("a parked FastCGI connection was lost: no descriptor left (open-files limit)");
    }
    for (cmsghdr* c = CMSG_FIRSTHDR(&m.msg); c != nullptr; c = CMSG_NXTHDR(&m.msg, c)) {
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS &&
            c->cmsg_len == CMSG_LEN(sizeof(int))) {
            int fd = -1;
            std::memcpy(&fd, CMSG_DATA(c), sizeof(int));
            return Fd(fd);
        }
    }
    return Fd();
}

HandoffChannel::HandoffChannel() {
    int ends[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, ends) != 0) {
        throw std::runtime_error(std::string("socketpair (hand-off channel): ") +
                                 std::strerror(errno));
    }
    master_ = Fd(ends[0]);
    pool_ = Fd(ends[1]);
}

namespace {

bool watch(int epoll, int fd, std::uint32_t events) {
    epoll_event ev{};
    ev.events = events;
    ev.data.fd = fd;
    return epoll_ctl(epoll, EPOLL_CTL_ADD, fd, &ev) == 0;
}

}  // namespace

Parking::Parking(int master_end, const std::vector<int>& adopted)
    : master_end_(master_end), epoll_(epoll_create1(EPOLL_CLOEXEC)) {
    if (!epoll_ || !watch(epoll_.get(), master_end_, EPOLLIN)) {
        throw std::runtime_error(std::string("epoll (parked connections): ") +
                                 std::strerror(errno));
    }
    for (int fd : adopted) {
        park(Fd(fd));
    }
}

void Parking::park(Fd fd) {
    const int n = fd.get();
    if (!watch(epoll_.get(), n, EPOLLIN | EPOLLRDHUP)) {
        // Not watched, it could be neither served nor closed on time: handing it straight
        // back lets a worker read what comes (or the close).
        log::error_errno("epoll_ctl (parked connection)", errno);
        if (!send_fd(master_end_, n)) {
            log::error_errno("a parked connection could not be handed back; closing it", errno);
        }
        return;
    }
    parked_[n] = Parked{std::move(fd), Clock::now(), true};
}

void Parking::forget(int fd) {
    auto it = parked_.find(fd);
    if (it == parked_.end()) {
        return;
    }
    if (it->second.watched) {
        epoll_ctl(epoll_.get(), EPOLL_CTL_DEL, fd, nullptr);
    } else {
        --held_;
    }
    parked_.erase(it);  // closes our copy
}

// Sent to one worker; our copy closes. When the pool's queue is full (every worker busy and
// hundreds of connections handed on already) it waits, unwatched, for expire() to try again.
bool Parking::hand_to_pool(Parked& p) {
    if (send_fd(master_end_, p.fd.get())) {
        forget(p.fd.get());
        return true;
    }
    if (errno != EAGAIN && errno != EWOULDBLOCK && errno != ENOBUFS) {
        log::error_errno("handing a parked connection to the pool", errno);
    }
    if (p.watched) {
        epoll_ctl(epoll_.get(), EPOLL_CTL_DEL, p.fd.get(), nullptr);
        p.watched = false;
        ++held_;
    }
    return false;
}

void Parking::on_ready(int fd) {
    auto it = parked_.find(fd);
    if (it == parked_.end()) {
        return;
    }
    switch (pending(fd)) {
        case Pending::request:
            hand_to_pool(it->second);
            break;
        case Pending::closed:
            forget(fd);  // nginx closed it: the one close that races nothing
            break;
        case Pending::nothing:
            break;
    }
}

void Parking::service() {
    epoll_event events[64];
    while (true) {
        const int n = epoll_wait(epoll_.get(), events, 64, 0);
        if (n <= 0) {
            if (n < 0 && errno != EINTR) {
                log::error_errno("epoll_wait (parked connections)", errno);
            }
            return;
        }
        for (int i = 0; i < n; ++i) {
            if (events[i].data.fd != master_end_) {
                on_ready(events[i].data.fd);
                continue;
            }
            while (Fd fd = receive_fd(master_end_)) {
                park(std::move(fd));
            }
        }
        if (n < 64) {
            return;
        }
    }
}

void Parking::expire() {
    const Clock::time_point now = Clock::now();
    std::vector<int> old;
    for (auto& [fd, p] : parked_) {
        if (!p.watched) {
            hand_to_pool(p);  // may erase: only this entry, after which we stop using it
            break;            // one retry a second is plenty for a queue that is full
        }
    }
    for (const auto& [fd, p] : parked_) {
        if (p.watched && now - p.since > kIdleTimeout) {
            old.push_back(fd);
        }
    }
    for (int fd : old) {
        log::warning("closing a FastCGI connection parked for more than " +
                     std::to_string(kIdleTimeout.count()) +
                     " s: nginx's upstream keepalive_timeout should have closed it first");
        forget(fd);
    }
}

void Parking::close_in_child() {
    for (auto& [fd, p] : parked_) {
        close(p.fd.release());
    }
    close(epoll_.release());
}

std::vector<int> Parking::fds() const {
    std::vector<int> out;
    for (const auto& [fd, p] : parked_) {
        out.push_back(fd);
    }
    return out;
}

std::string encode_fds(const std::vector<int>& fds) {
    std::string out;
    for (int fd : fds) {
        out += (out.empty() ? "" : ",") + std::to_string(fd);
    }
    return out;
}

std::vector<int> decode_fds(const std::string& text) {
    std::vector<int> out;
    if (text.empty()) {
        return out;
    }
    std::size_t at = 0;
    while (at <= text.size()) {  // "3," ends with an empty item: refused
        std::size_t comma = text.find(',', at);
        comma = comma == std::string::npos ? text.size() : comma;
        const std::string item = text.substr(at, comma - at);
        char* end = nullptr;
        errno = 0;
        const long n = std::strtol(item.c_str(), &end, 10);
        if (item.empty() || *end != '\0' || errno != 0 || n < 0 || n > 1 << 24) {
            throw std::runtime_error("re-exec handover: bad descriptor '" + item + "'");
        }
        out.push_back(static_cast<int>(n));
        at = comma + 1;
    }
    return out;
}

void raise_open_files_limit() {
    rlimit limit{};
    if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < limit.rlim_max) {
        limit.rlim_cur = limit.rlim_max;
        setrlimit(RLIMIT_NOFILE, &limit);
    }
}

}  // namespace supportcrm
