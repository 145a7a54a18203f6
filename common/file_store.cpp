#include "common/file_store.h"

#include <dirent.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <vector>

#include "common/keys.h"
#include "common/text.h"

namespace supportcrm::file_store {
namespace {

constexpr mode_t kDirMode = 0750, kFileMode = 0640;

[[noreturn]] void fail(const std::string& what, int error) {
    throw Error(what + ": " + std::strerror(error), error == ENOSPC || error == EDQUOT);
}

void make_dir(const std::string& path) {
    if (::mkdir(path.c_str(), kDirMode) != 0 && errno != EEXIST) {
        fail("cannot create " + path, errno);
    }
}

void sync_dir(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        fail("cannot open " + path, errno);
    }
    const int rc = ::fsync(fd);
    const int error = errno;
    ::close(fd);
    if (rc != 0) {
        fail("cannot sync " + path, error);
    }
}

EVP_MD_CTX* context(void* hash) {
    return static_cast<EVP_MD_CTX*>(hash);
}

struct DirCloser {
    void operator()(DIR* d) const { ::closedir(d); }
};
using DirPtr = std::unique_ptr<DIR, DirCloser>;

// The entries of a directory but . and ..; empty when it cannot be read.
std::vector<std::string> entries(const std::string& path) {
    std::vector<std::string> names;
    DirPtr dir(::opendir(path.c_str()));
    if (!dir) {
        return names;
    }
    while (dirent* e = ::readdir(dir.get())) {
        const std::string name = e->d_name;
        if (name != "." && name != "..") {
            names.push_back(name);
        }
    }
    return names;
}

bool older_than(const std::string& path, std::chrono::seconds grace) {
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) {
        return false;
    }
    return st.st_mtime + grace.count() < ::time(nullptr);
}

bool is_hex_pair(const std::string& name) {
    return name.size() == 2 && text::hex_digit_value(name[0]) >= 0 &&
           text::hex_digit_value(name[1]) >= 0 && name == text::ascii_lower(name);
}

void sweep_temporary(const std::string& dir, std::chrono::seconds grace, bool dry_run,
                     SweepReport& report) {
    for (const std::string& name : entries(dir + "/tmp")) {
        const std::string path = dir + "/tmp/" + name;
        if (name.rfind("up-", 0) == 0 && older_than(path, grace)) {
            if (dry_run || ::unlink(path.c_str()) == 0) {
                ++report.temporary_removed;
            }
        }
    }
}

void sweep_leaf(const std::string& leaf, std::chrono::seconds grace,
                const std::function<bool(const std::string&)>& named, bool dry_run,
                SweepReport& report) {
    for (const std::string& name : entries(leaf)) {
        const std::string path = leaf + "/" + name;
        if (!is_sha256_hex(name)) {
            continue;  // not ours: never touched
        }
        if (!older_than(path, grace) || named(name)) {
            ++report.kept;
        } else if (dry_run || ::unlink(path.c_str()) == 0) {
            ++report.unnamed_removed;
        }
    }
}

}  // namespace

std::string relative_path(std::string_view sha256) {
    std::string out;
    out.append(sha256.substr(0, 2)).append("/").append(sha256.substr(2, 2)).append("/");
    return out.append(sha256);
}

bool is_sha256_hex(std::string_view name) {
    if (name.size() != 64) {
        return false;
    }
    for (char c : name) {
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
            return false;
        }
    }
    return true;
}

Spool::Spool(std::string files_dir) : dir_(std::move(files_dir)) {
    make_dir(dir_ + "/tmp");
    temp_path_ = dir_ + "/tmp/up-" + keys::random_hex(8);
    // O_RDWR, not O_WRONLY: clamd's scan reads the spool back with pread (fd()).
    fd_ = ::open(temp_path_.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, kFileMode);
    if (fd_ < 0) {
        fail("cannot create " + temp_path_, errno);
    }
    hash_ = EVP_MD_CTX_new();
    if (hash_ == nullptr || EVP_DigestInit_ex(context(hash_), EVP_sha256(), nullptr) != 1) {
        ::close(fd_);
        ::unlink(temp_path_.c_str());
        EVP_MD_CTX_free(context(hash_));
        throw Error("cannot start SHA-256", false);
    }
}

Spool::~Spool() {
    EVP_MD_CTX_free(context(hash_));
    if (fd_ >= 0) {
        ::close(fd_);
    }
    ::unlink(temp_path_.c_str());
}

void Spool::write(const char* data, std::size_t size) {
    EVP_DigestUpdate(context(hash_), data, size);
    size_ += size;
    while (size > 0) {
        const ssize_t n = ::write(fd_, data, size);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n < 0) {
            fail("cannot write " + temp_path_, errno);
        }
        data += n;
        size -= static_cast<std::size_t>(n);
    }
}

void Spool::finish() {
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int length = 0;
    EVP_DigestFinal_ex(context(hash_), digest, &length);
    sha256_.clear();
    for (unsigned int i = 0; i < length; ++i) {
        sha256_ += text::hex_digit(digest[i] >> 4);
        sha256_ += text::hex_digit(digest[i] & 0x0f);
    }
    // Durable before any row can name it (a crash after COMMIT must not leave a short file).
    if (::fsync(fd_) != 0) {
        fail("cannot sync " + temp_path_, errno);
    }
}

void Spool::ensure_installed() {
    const std::string first = dir_ + "/" + sha256_.substr(0, 2);
    const std::string second = first + "/" + sha256_.substr(2, 2);
    const std::string path = dir_ + "/" + relative_path(sha256_);
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0) {
        return;  // the same bytes, stored by an earlier upload (its directories synced then)
    }
    make_dir(first);
    make_dir(second);
    if (::link(temp_path_.c_str(), path.c_str()) != 0 && errno != EEXIST) {
        fail("cannot store " + path, errno);
    }
    sync_dir(second);
    sync_dir(first);
    sync_dir(dir_);
}

void remove_content(const std::string& files_dir, std::string_view sha256) {
    const std::string path = files_dir + "/" + relative_path(sha256);
    if (::unlink(path.c_str()) != 0 && errno != ENOENT) {
        fail("cannot remove " + path, errno);
    }
}

SweepReport sweep(const std::string& files_dir, std::chrono::seconds grace,
                  const std::function<bool(const std::string& sha256)>& named, bool dry_run) {
    SweepReport report;
    sweep_temporary(files_dir, grace, dry_run, report);
    for (const std::string& first : entries(files_dir)) {
        if (!is_hex_pair(first)) {
            continue;
        }
        for (const std::string& second : entries(files_dir + "/" + first)) {
            if (is_hex_pair(second)) {
                sweep_leaf(files_dir + "/" + first + "/" + second, grace, named, dry_run, report);
            }
        }
    }
    return report;
}

}  // namespace supportcrm::file_store
