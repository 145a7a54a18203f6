// The clamd client (common/clamd.h) against a fake clamd on a unix socket, one connection served
// by a thread as each test scripts it: the zINSTREAM framing it sends, how it reads the verdicts
// (OK, FOUND, ERROR, nonsense), and that every failure (no daemon, a closed connection, silence,
// an unreadable file) is "unavailable" within the timeout. With SUPPORTCRM_CLAMD_DIR set to a
// directory that scripts/lib/clamd.sh's clamd_start prepared, RealClamd scans against that clamd.
#include "common/clamd.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace supportcrm::clamd {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

constexpr std::size_t kChunk = 64 * 1024;

class Fd {
  public:
    explicit Fd(int fd = -1) : fd_(fd) {}
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;
    ~Fd() {
        if (fd_ >= 0) {
            close(fd_);
        }
    }
    int get() const { return fd_; }

  private:
    int fd_;
};

// A private directory, removed with what is in it.
class TempDir {
  public:
    TempDir() {
        std::string pattern = (fs::temp_directory_path() / "clamd_test.XXXXXX").string();
        if (mkdtemp(pattern.data()) != nullptr) {
            path_ = pattern;
        }
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    ~TempDir() {
        std::error_code ignored;
        fs::remove_all(path_, ignored);
    }
    const fs::path& path() const { return path_; }

  private:
    fs::path path_;
};

// A file with `content`, open for reading.
Fd file_with(const TempDir& dir, const std::string& name, const std::string& content) {
    const fs::path path = dir.path() / name;
    std::ofstream(path, std::ios::binary) << content;
    return Fd(open(path.c_str(), O_RDONLY | O_CLOEXEC));
}

std::string pattern_bytes(std::size_t size) {
    std::string bytes(size, '\0');
    for (std::size_t i = 0; i < size; ++i) {
        bytes[i] = static_cast<char>((i * 7 + i / 251) & 0xff);
    }
    return bytes;
}

// Blocking helpers of the fake's side; false at EOF or on an error.
bool read_exact(int fd, char* data, std::size_t size) {
    while (size > 0) {
        const ssize_t n = recv(fd, data, size, 0);
        if (n <= 0) {
            return false;
        }
        data += n;
        size -= static_cast<std::size_t>(n);
    }
    return true;
}

bool write_all(int fd, const std::string& bytes) {
    return send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(bytes.size());
}

// Waits (10 s at most, so that a failing test cannot hang) until the client closes.
void wait_for_close(int fd) {
    char byte;
    pollfd p{fd, POLLIN, 0};
    while (poll(&p, 1, 10'000) > 0 && recv(fd, &byte, 1, 0) > 0) {
    }
}

// A one-connection clamd. The handler gets the accepted connection; the fake records what the
// client sent through read_command and read_stream. Call join() before looking at them.
class FakeClamd {
  public:
    using Handler = std::function<void(FakeClamd&, int connection)>;

    explicit FakeClamd(Handler handler) : socket_path_((dir_.path() / "clamd.sock").string()) {
        sockaddr_un addr{};
        addr.sun_family = AF_UNIX;
        std::strncpy(addr.sun_path, socket_path_.c_str(), sizeof addr.sun_path - 1);
        listener_ = std::make_unique<Fd>(socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
        const bool listening =
            bind(listener_->get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
            listen(listener_->get(), 1) == 0;
        EXPECT_TRUE(listening) << std::strerror(errno);
        thread_ = std::thread([this, handler] { serve(handler); });
    }
    FakeClamd(const FakeClamd&) = delete;
    FakeClamd& operator=(const FakeClamd&) = delete;
    ~FakeClamd() { join(); }

    void join() {
        if (thread_.joinable()) {
            thread_.join();
        }
    }
    const std::string& socket_path() const { return socket_path_; }

    // "zINSTREAM" and its NUL, when the client sent them.
    bool read_command(int connection) {
        command.assign(10, '\0');
        return read_exact(connection, command.data(), command.size());
    }
    // The chunks up to the zero-length one, or until `limit` bytes came (false then, or at EOF).
    bool read_stream(int connection, std::size_t limit = SIZE_MAX) {
        for (;;) {
            unsigned char header[4];
            if (!read_exact(connection, reinterpret_cast<char*>(header), 4)) {
                return false;
            }
            const std::uint32_t length = std::uint32_t{header[0]} << 24 |
                                         std::uint32_t{header[1]} << 16 |
                                         std::uint32_t{header[2]} << 8 | header[3];
            chunk_sizes.push_back(length);
            if (length == 0) {
                return true;
            }
            const std::size_t old = data.size();
            data.resize(old + length);
            if (!read_exact(connection, data.data() + old, length) || data.size() >= limit) {
                return false;
            }
        }
    }

    std::string command;
    std::string data;
    std::vector<std::uint32_t> chunk_sizes;

  private:
    void serve(const Handler& handler) {
        pollfd p{listener_->get(), POLLIN, 0};
        if (poll(&p, 1, 10'000) != 1) {
            return;
        }
        const Fd connection(accept4(listener_->get(), nullptr, nullptr, SOCK_CLOEXEC));
        if (connection.get() >= 0) {
            handler(*this, connection.get());
        }
    }

    TempDir dir_;
    std::string socket_path_;
    std::unique_ptr<Fd> listener_;
    std::thread thread_;
};

// A fake that reads the whole request, then answers `reply` (a NUL appended, as clamd does).
FakeClamd::Handler answering(const std::string& reply) {
    return [reply](FakeClamd& fake, int connection) {
        if (fake.read_command(connection) && fake.read_stream(connection)) {
            write_all(connection, reply + std::string(1, '\0'));
        }
    };
}

Verdict scan_text(const std::string& socket_path, const std::string& content,
                  std::chrono::milliseconds timeout = 5s) {
    TempDir dir;
    const Fd file = file_with(dir, "upload", content);
    return scan(socket_path, file.get(), timeout);
}

TEST(Clamd, StreamsTheWholeFileInChunksAndReadsOk) {
    FakeClamd fake(answering("stream: OK"));
    TempDir dir;
    const std::string content = pattern_bytes(3 * kChunk + 1234);
    const Fd file = file_with(dir, "upload", content);
    // The caller's offset: where the caller left it, before and after.
    ASSERT_EQ(lseek(file.get(), 17, SEEK_SET), 17);

    const Verdict verdict = scan(fake.socket_path(), file.get(), 5s);
    fake.join();
    EXPECT_EQ(verdict.kind, Verdict::clean) << verdict.detail;
    EXPECT_EQ(verdict.detail, "");
    EXPECT_EQ(lseek(file.get(), 0, SEEK_CUR), 17);
    EXPECT_EQ(fake.command, std::string("zINSTREAM\0", 10));
    EXPECT_TRUE(fake.data == content) << fake.data.size() << " bytes of " << content.size();
    ASSERT_FALSE(fake.chunk_sizes.empty());
    EXPECT_EQ(fake.chunk_sizes.back(), 0u);
    for (const std::uint32_t size : fake.chunk_sizes) {
        EXPECT_LE(size, kChunk);
    }
}

TEST(Clamd, AnEmptyFileIsJustTheTerminatingChunk) {
    FakeClamd fake(answering("stream: OK"));
    EXPECT_EQ(scan_text(fake.socket_path(), "").kind, Verdict::clean);
    fake.join();
    EXPECT_EQ(fake.chunk_sizes, std::vector<std::uint32_t>{0});
}

TEST(Clamd, FoundGivesTheSignatureName) {
    for (const std::string name : {"Eicar-Signature", "Supportcrm.Test.Signature.UNOFFICIAL"}) {
        FakeClamd fake(answering("stream: " + name + " FOUND"));
        const Verdict verdict = scan_text(fake.socket_path(), "X5O!P%@AP");
        EXPECT_EQ(verdict.kind, Verdict::found) << verdict.detail;
        EXPECT_EQ(verdict.detail, name);
    }
}

TEST(Clamd, AReplyInPiecesIsReadToItsNul) {
    FakeClamd fake([](FakeClamd& f, int connection) {
        if (f.read_command(connection) && f.read_stream(connection)) {
            write_all(connection, "stream: Win.Te");
            std::this_thread::sleep_for(50ms);
            write_all(connection, std::string("st.Split FOUND\0", 15));
        }
    });
    const Verdict verdict = scan_text(fake.socket_path(), "payload");
    EXPECT_EQ(verdict.kind, Verdict::found) << verdict.detail;
    EXPECT_EQ(verdict.detail, "Win.Test.Split");
}

TEST(Clamd, AnErrorReplyIsUnavailableAndQuoted) {
    FakeClamd fake(answering("stream: Can't allocate memory ERROR"));
    const Verdict verdict = scan_text(fake.socket_path(), "payload");
    EXPECT_EQ(verdict.kind, Verdict::unavailable);
    EXPECT_NE(verdict.detail.find("Can't allocate memory ERROR"), std::string::npos)
        << verdict.detail;
    EXPECT_NE(verdict.detail.find(fake.socket_path()), std::string::npos) << verdict.detail;
}

TEST(Clamd, RepliesThatAreNoVerdictAreUnavailable) {
    for (const std::string reply : {"PONG", "stream:  FOUND", "stream: OK FOUND ERROR", "",
                                    "stream: ok", "UNKNOWN COMMAND"}) {
        FakeClamd fake(answering(reply));
        const Verdict verdict = scan_text(fake.socket_path(), "payload");
        EXPECT_EQ(verdict.kind, Verdict::unavailable) << '"' << reply << "\" " << verdict.detail;
    }
}

// clamd past its StreamMaxLength: it answers in the middle of the stream and closes.
TEST(Clamd, ARefusalInTheMiddleOfTheStreamIsUnavailable) {
    FakeClamd fake([](FakeClamd& f, int connection) {
        if (f.read_command(connection)) {
            f.read_stream(connection, 1024 * 1024);
            write_all(connection, std::string("INSTREAM size limit exceeded. ERROR\0", 36));
        }
    });
    const Verdict verdict = scan_text(fake.socket_path(), pattern_bytes(16 * 1024 * 1024));
    EXPECT_EQ(verdict.kind, Verdict::unavailable);
    EXPECT_NE(verdict.detail.find("INSTREAM size limit exceeded. ERROR"), std::string::npos)
        << verdict.detail;
}

// An early "OK" covers only part of the file: no verdict on the whole of it.
TEST(Clamd, AnOkBeforeTheEndOfTheStreamIsUnavailable) {
    FakeClamd fake([](FakeClamd& f, int connection) {
        if (f.read_command(connection)) {
            f.read_stream(connection, 1024 * 1024);
            write_all(connection, std::string("stream: OK\0", 11));
        }
    });
    const Verdict verdict = scan_text(fake.socket_path(), pattern_bytes(16 * 1024 * 1024));
    EXPECT_EQ(verdict.kind, Verdict::unavailable) << verdict.detail;
}

TEST(Clamd, AConnectionClosedWithoutAReplyIsUnavailable) {
    FakeClamd fake([](FakeClamd& f, int connection) {
        if (f.read_command(connection)) {
            f.read_stream(connection);
        }
    });
    const Verdict verdict = scan_text(fake.socket_path(), "payload");
    EXPECT_EQ(verdict.kind, Verdict::unavailable);
    EXPECT_NE(verdict.detail.find("closed"), std::string::npos) << verdict.detail;
}

TEST(Clamd, AConnectionClosedAtOnceIsUnavailable) {
    FakeClamd fake([](FakeClamd&, int) {});
    EXPECT_EQ(scan_text(fake.socket_path(), pattern_bytes(4 * kChunk)).kind, Verdict::unavailable);
}

TEST(Clamd, AReplyCutShortIsUnavailable) {
    FakeClamd fake([](FakeClamd& f, int connection) {
        if (f.read_command(connection) && f.read_stream(connection)) {
            write_all(connection, "stream: OK");  // no NUL, then the close
        }
    });
    EXPECT_EQ(scan_text(fake.socket_path(), "payload").kind, Verdict::unavailable);
}

TEST(Clamd, NoReplyWithinTheTimeoutIsUnavailable) {
    FakeClamd fake([](FakeClamd& f, int connection) {
        if (f.read_command(connection) && f.read_stream(connection)) {
            wait_for_close(connection);
        }
    });
    const auto start = std::chrono::steady_clock::now();
    const Verdict verdict = scan_text(fake.socket_path(), "payload", 200ms);
    const auto elapsed = std::chrono::steady_clock::now() - start;
    EXPECT_EQ(verdict.kind, Verdict::unavailable);
    EXPECT_NE(verdict.detail.find("waiting for the reply: timed out after 200 ms"),
              std::string::npos)
        << verdict.detail;
    EXPECT_GE(elapsed, 200ms);
    EXPECT_LT(elapsed, 3s);
}

// A clamd that accepts but never reads: the socket's buffers fill and sending must not block
// past the deadline.
TEST(Clamd, AStreamNobodyReadsTimesOut) {
    FakeClamd fake([](FakeClamd&, int connection) { wait_for_close(connection); });
    const auto start = std::chrono::steady_clock::now();
    const Verdict verdict = scan_text(fake.socket_path(), pattern_bytes(16 * 1024 * 1024), 200ms);
    const auto elapsed = std::chrono::steady_clock::now() - start;
    EXPECT_EQ(verdict.kind, Verdict::unavailable);
    EXPECT_NE(verdict.detail.find("sending: timed out"), std::string::npos) << verdict.detail;
    EXPECT_LT(elapsed, 3s);
}

TEST(Clamd, NoDaemonIsUnavailable) {
    TempDir dir;
    const Verdict verdict = scan_text((dir.path() / "nothing.sock").string(), "payload");
    EXPECT_EQ(verdict.kind, Verdict::unavailable);
    EXPECT_NE(verdict.detail.find("connect"), std::string::npos) << verdict.detail;
    EXPECT_EQ(scan_text("", "payload").kind, Verdict::unavailable);
    EXPECT_EQ(scan_text(std::string(200, 'x'), "payload").kind, Verdict::unavailable);
}

TEST(Clamd, AFileThatCannotBeReadIsUnavailable) {
    FakeClamd fake(answering("stream: OK"));
    int ends[2];
    ASSERT_EQ(pipe2(ends, O_CLOEXEC), 0);
    const Fd read_end(ends[0]);
    const Fd write_end(ends[1]);
    const Verdict verdict = scan(fake.socket_path(), read_end.get(), 5s);  // pread: ESPIPE
    EXPECT_EQ(verdict.kind, Verdict::unavailable);
    EXPECT_NE(verdict.detail.find("reading the file"), std::string::npos) << verdict.detail;
}

// Against a real clamd (scripts/lib/clamd.sh: clamd_start DIR), when SUPPORTCRM_CLAMD_DIR
// names DIR: its test file carries the generated signature, other bytes are clean.
TEST(Clamd, RealClamd) {
    const char* dir = std::getenv("SUPPORTCRM_CLAMD_DIR");
    if (dir == nullptr || *dir == '\0') {
        GTEST_SKIP() << "SUPPORTCRM_CLAMD_DIR is not set";
    }
    const std::string socket_path = std::string(dir) + "/clamd.sock";
    const std::string signed_path = std::string(dir) + "/test-signature.txt";
    const Fd signed_file(open(signed_path.c_str(), O_RDONLY | O_CLOEXEC));
    ASSERT_GE(signed_file.get(), 0) << signed_path;
    const Verdict found = scan(socket_path, signed_file.get(), 30s);
    std::cout << "test-signature.txt: kind " << found.kind << ", detail \"" << found.detail
              << "\"\n";
    EXPECT_EQ(found.kind, Verdict::found) << found.detail;
    EXPECT_EQ(found.detail.rfind("Supportcrm.Test.Signature", 0), 0u) << found.detail;

    const Verdict clean = scan_text(socket_path, pattern_bytes(3 * kChunk + 5), 30s);
    std::cout << "pattern bytes: kind " << clean.kind << ", detail \"" << clean.detail << "\"\n";
    EXPECT_EQ(clean.kind, Verdict::clean) << clean.detail;
}

}  // namespace
}  // namespace supportcrm::clamd
