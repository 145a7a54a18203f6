// A raw TCP connection to the stack's nginx, for requests curl would normalise or never send:
// a broken request line, odd whitespace, a body the client stops sending half-way.
#pragma once

#include <chrono>
#include <string>
#include <string_view>

namespace it {

struct Endpoint {
    std::string host;
    int port = 0;
};

// "http://127.0.0.1:18080" -> {127.0.0.1, 18080}; throws on anything but http://IPv4:PORT.
Endpoint endpoint_of(const std::string& url);

class Socket {
  public:
    explicit Socket(const Endpoint& to);  // connects; throws when it cannot
    ~Socket();
    Socket(const Socket&) = delete;
    Socket& operator=(const Socket&) = delete;

    void send_all(std::string_view bytes);
    // Everything the server sends until it closes the connection (bounded by `timeout`).
    std::string read_to_close(std::chrono::milliseconds timeout);
    // Closes now (idempotent): the server sees the client go.
    void close();

  private:
    int fd_;
};

}  // namespace it
