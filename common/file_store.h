// Content-addressed storage of uploaded bytes (extensions.md §E13) under files-dir:
//   files-dir/tmp/up-<16 hex>     an upload being received (the Spool's temporary file)
//   files-dir/ab/cd/<sha256>      the bytes of every row whose sha256 starts "abcd"
// An upload is written to its temporary file and hashed as it goes, synced, then hard-linked to
// its content path (the directory synced too) before the row that names it is inserted; a
// second upload of the same bytes finds the path there and links nothing. The temporary name
// is kept until the request ends, so that an upload whose content path was removed between its
// link and its commit (an erasure or a sweep that found no committed row naming the bytes)
// links it again before COMMIT (ensure_installed(): the removers read the rows with a locking
// read, which waits for an inserted row's commit, so once the row is inserted nothing removes
// the bytes). Directories are created 0750 and files 0640 (the group is nginx's: docs/
// operations.md "Files").
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace supportcrm::file_store {

// A failure of the file system; no_space: ENOSPC or EDQUOT (the caller answers 503 either way).
struct Error : std::runtime_error {
    Error(const std::string& what, bool no_space) : std::runtime_error(what), no_space(no_space) {}
    bool no_space;
};

// "ab/cd/<sha256>": where the bytes of a sha256 live, relative to files-dir.
std::string relative_path(std::string_view sha256);

// Whether `name` is 64 lowercase hex digits (a content file's name).
bool is_sha256_hex(std::string_view name);

class Spool {
  public:
    // Opens a new temporary file under files_dir/tmp (created if missing). Throws Error.
    explicit Spool(std::string files_dir);
    ~Spool();  // removes the temporary file
    Spool(const Spool&) = delete;
    Spool& operator=(const Spool&) = delete;

    // Appends bytes and hashes them. Throws Error.
    void write(const char* data, std::size_t size);
    // No more bytes: syncs the file and fixes the digest. Throws Error.
    void finish();
    // The content path exists (linked from the temporary file unless another upload put the
    // same bytes there) and is durable. Call after finish(); again before COMMIT. Throws Error.
    void ensure_installed();

    const std::string& sha256() const { return sha256_; }  // after finish()
    std::uint64_t size() const { return size_; }
    int fd() const { return fd_; }  // the temporary file, for a scanner (pread from 0)

  private:
    std::string dir_;
    std::string temp_path_;
    int fd_ = -1;
    void* hash_ = nullptr;  // EVP_MD_CTX
    std::string sha256_;
    std::uint64_t size_ = 0;
};

// Removes the bytes of sha256 (a missing file is not an error). Throws Error.
void remove_content(const std::string& files_dir, std::string_view sha256);

struct SweepReport {
    std::size_t temporary_removed = 0;  // temporary files older than the grace period
    std::size_t unnamed_removed = 0;    // content no row names, older than the grace period
    std::size_t kept = 0;               // content a row names, or too young to judge
};

// Walks files_dir: removes temporary files and content files whose mtime is older than `grace`
// and (content) for which `named(sha256)` says no row names them. With dry_run, counts only.
SweepReport sweep(const std::string& files_dir, std::chrono::seconds grace,
                  const std::function<bool(const std::string& sha256)>& named, bool dry_run);

}  // namespace supportcrm::file_store
