// Files (extensions.md §E13) through nginx: uploads, the file shape, downloads sent by nginx
// (X-Accel-Redirect), signed links, comments' files, erasure and the sweep. Suites Files (JSON
// answers) and FileDownloads (the bytes, which no JSON check may read).
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>
#include <utime.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "common/file_links.h"
#include "harness.h"
#include "raw_socket.h"
#include "tickets_fixtures.h"

namespace {

using it::HttpResponse;
using it::Shop;

std::string files_dir() {
    return it::read_ini(it::env().config).at("files-dir");
}
std::string public_base() {
    return it::read_ini(it::env().config).at("public-base-url");
}
std::string link_secret() {
    std::string secret = it::read_file(it::read_ini(it::env().config).at("file-link-secret-file"));
    while (!secret.empty() && (secret.back() == '\n' || secret.back() == '\r')) {
        secret.pop_back();
    }
    return secret;
}

std::string content_path(const std::string& sha256) {
    return files_dir() + "/" + sha256.substr(0, 2) + "/" + sha256.substr(2, 2) + "/" + sha256;
}

bool exists(const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0;
}

HttpResponse upload(const Shop& shop, const std::string& query, const std::string& bytes,
                    const std::optional<std::string>& content_type = std::string("text/plain"),
                    it::Headers extra = {}) {
    it::Headers h = it::key_header(shop);
    if (content_type) {
        h.emplace_back("Content-Type", *content_type);
    }
    h.insert(h.end(), extra.begin(), extra.end());
    return it::http("POST", "/api/v1/files" + query, h, bytes);
}

// The "file" of a 201 upload; fails the test otherwise.
Json::Value uploaded(const Shop& shop, const std::string& filename, const std::string& bytes) {
    HttpResponse r = upload(shop, "?filename=" + filename, bytes);
    EXPECT_TRUE(it::is_success(r, 201)) << r.describe();
    return r.json()["file"];
}

// The link's path and query on this stack's nginx (the link starts with public-base-url).
std::string link_path(const std::string& url) {
    const std::string base = public_base();
    EXPECT_TRUE(it::starts_with(url, base + "/files/")) << url;
    return url.substr(base.size());
}

HttpResponse download(const std::string& path, it::Headers headers = {}) {
    return it::http_any_body("GET", path, headers);
}

// A tmpfs of `bytes` mounted over `dir` (its owner and mode) for the scope of the object; the
// pool, in the same mount namespace, writes into it.
class TmpfsOver {
  public:
    TmpfsOver(std::string dir, std::size_t bytes) : dir_(std::move(dir)) {
        struct stat st {};
        if (::stat(dir_.c_str(), &st) != 0) {
            throw std::runtime_error("cannot stat " + dir_);
        }
        char options[128];
        std::snprintf(options, sizeof options, "size=%zu,uid=%u,gid=%u,mode=%o", bytes,
                      static_cast<unsigned>(st.st_uid), static_cast<unsigned>(st.st_gid),
                      static_cast<unsigned>(st.st_mode & 07777));
        if (::mount("supportcrm-test", dir_.c_str(), "tmpfs", MS_NOSUID | MS_NODEV, options) != 0) {
            throw std::runtime_error("cannot mount a tmpfs over " + dir_ + ": " +
                                     std::strerror(errno));
        }
    }
    ~TmpfsOver() { ::umount2(dir_.c_str(), MNT_DETACH); }
    TmpfsOver(const TmpfsOver&) = delete;
    TmpfsOver& operator=(const TmpfsOver&) = delete;

  private:
    std::string dir_;
};

// The line of text that contains needle, without its newline; empty when none does.
std::string line_with(const std::string& text, const std::string& needle) {
    const std::size_t at = text.find(needle);
    if (at == std::string::npos) {
        return "";
    }
    const std::size_t begin = text.rfind('\n', at);
    const std::size_t end = text.find('\n', at);
    const std::size_t from = begin == std::string::npos ? 0 : begin + 1;
    return text.substr(from, (end == std::string::npos ? text.size() : end) - from);
}

// The regular files anywhere under dir (directories are not listed).
std::vector<std::string> regular_files_under(const std::string& dir) {
    std::vector<std::string> found;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
        if (entry.is_regular_file()) {
            found.push_back(entry.path().string());
        }
    }
    return found;
}

std::string unique_bytes(std::size_t size) {
    std::string bytes = "supportcrm test bytes " + it::unique_suffix() + "\n";
    while (bytes.size() < size) {
        bytes += static_cast<char>('a' + bytes.size() % 26);
    }
    bytes.resize(size);
    return bytes;
}

TEST(Files, UploadAnswersTheFileShape) {
    const Shop shop = it::make_shop();
    const std::string bytes = unique_bytes(1000);
    HttpResponse r = upload(shop, "?filename=report%20Q3.txt", bytes, "text/plain; charset=utf-8");
    ASSERT_TRUE(it::is_success(r, 201)) << r.describe();
    const Json::Value& f = r.json()["file"];
    EXPECT_EQ(it::member_names(f), (std::vector<std::string>{"contentType", "createdAt", "filename",
                                                             "id", "sha256", "size", "url"}));
    ASSERT_TRUE(f["id"].isString());
    EXPECT_FALSE(f["id"].asString().empty());
    EXPECT_EQ(f["filename"], "report Q3.txt");
    EXPECT_EQ(f["contentType"], "text/plain; charset=utf-8");
    EXPECT_TRUE(it::is_json_integer(f["size"]));
    EXPECT_EQ(f["size"].asInt64(), 1000);
    EXPECT_EQ(f["sha256"], it::sha256_hex(bytes));
    EXPECT_TRUE(it::parse_utc_millis(f["createdAt"].asString())) << f["createdAt"];
    EXPECT_TRUE(it::starts_with(
        f["url"].asString(),
        public_base() + "/files/" + f["id"].asString() + "/report%20Q3.txt?expires="))
        << f["url"];
    EXPECT_TRUE(exists(content_path(f["sha256"].asString())));
    HttpResponse meta = it::get("/api/v1/files/" + f["id"].asString() + "/meta", shop);
    ASSERT_TRUE(it::is_success(meta, 200)) << meta.describe();
    EXPECT_EQ(meta.json()["file"]["sha256"], f["sha256"]);
    EXPECT_EQ(meta.json()["file"]["createdAt"], f["createdAt"]);
}

TEST(Files, ContentTypeDefaultsAndAnEmptyBodyIsAFile) {
    const Shop shop = it::make_shop();
    HttpResponse r = upload(shop, "?filename=empty.bin", "", std::nullopt);
    ASSERT_TRUE(it::is_success(r, 201)) << r.describe();
    EXPECT_EQ(r.json()["file"]["contentType"], "application/octet-stream");
    EXPECT_EQ(r.json()["file"]["size"].asInt64(), 0);
    EXPECT_EQ(r.json()["file"]["sha256"], it::sha256_hex(""));
    // A JSON Content-Type is just a type here: the body is not read as JSON.
    HttpResponse json = upload(shop, "?filename=x.json", "{not json", "application/json");
    ASSERT_TRUE(it::is_success(json, 201)) << json.describe();
    EXPECT_EQ(json.json()["file"]["contentType"], "application/json");
}

TEST(Files, FilenameIsRequiredBoundedAndNeverAPath) {
    const Shop shop = it::make_shop();
    for (const std::string query : {"", "?filename=", "?other=1"}) {
        EXPECT_TRUE(it::is_error(upload(shop, query, "x"), 400, "validation_failed",
                                 "filename is required"))
            << query;
    }
    std::string long_name;
    for (int i = 0; i < 255; ++i) {
        long_name += "%C3%A9";  // é: 255 characters, 510 bytes
    }
    HttpResponse ok = upload(shop, "?filename=" + long_name, "x");
    ASSERT_TRUE(it::is_success(ok, 201)) << ok.describe();
    EXPECT_EQ(ok.json()["file"]["filename"].asString().size(), 510U);
    EXPECT_TRUE(it::is_error(upload(shop, "?filename=" + long_name + "e", "x"), 400,
                             "validation_failed", "filename must be at most 255 characters"));
    EXPECT_TRUE(it::is_error(upload(shop, "?filename=%FF.txt", "x"), 400, "validation_failed",
                             "filename must be UTF-8"));
    HttpResponse path = upload(shop, "?filename=..%2F..%2Fetc%5Cpasswd%01%7F", "x");
    ASSERT_TRUE(it::is_success(path, 201)) << path.describe();
    EXPECT_EQ(path.json()["file"]["filename"], ".._.._etc_passwd__");
}

TEST(Files, SameBytesAreStoredOnceAndShopsNeverSeeEachOther) {
    const Shop a = it::make_shop();
    const Shop b = it::make_shop();
    const std::string bytes = unique_bytes(5000);
    const Json::Value fa = uploaded(a, "a.txt", bytes);
    const Json::Value fb = uploaded(b, "b.txt", bytes);
    EXPECT_NE(fa["id"], fb["id"]);
    EXPECT_EQ(fa["sha256"], fb["sha256"]);
    struct stat st {};
    ASSERT_EQ(::stat(content_path(fa["sha256"].asString()).c_str(), &st), 0);
    EXPECT_EQ(st.st_nlink, 1U) << "the upload's temporary name was left behind";
    EXPECT_EQ(st.st_mode & 0777, 0640U);
    const std::string of_a = "/api/v1/files/" + fa["id"].asString();
    EXPECT_TRUE(it::is_error(it::get(of_a + "/meta", b), 404, "file_not_found", "File not found"));
    EXPECT_TRUE(it::is_error(it::get(of_a, b), 404, "file_not_found", "File not found"));
    EXPECT_TRUE(it::is_error(it::get("/api/v1/files/99999999999/meta", a), 404, "file_not_found"));
    EXPECT_TRUE(it::is_error(it::get("/api/v1/files/abc/meta", a), 400, "invalid_id"));
}

TEST(Files, ScopesAndKeysApply) {
    const Shop shop = it::make_shop();
    const Json::Value f = uploaded(shop, "s.txt", "scoped");
    const Json::Value reader =
        it::admin({"key", "create", "--shop", shop.domain, "--scopes", "read"});
    Shop read_only = shop;
    read_only.key = reader["key"].asString();
    EXPECT_TRUE(it::is_error(upload(read_only, "?filename=r.txt", "x"), 403, "insufficient_scope"));
    EXPECT_TRUE(
        it::is_success(it::get("/api/v1/files/" + f["id"].asString() + "/meta", read_only), 200));
    EXPECT_TRUE(it::is_error(it::http("POST", "/api/v1/files?filename=x", {}, "x"), 401,
                             "missing_api_key"));
    EXPECT_TRUE(it::is_error(it::http("GET", "/api/v1/files/" + f["id"].asString()), 401,
                             "missing_api_key"));
}

TEST(Files, BodyOverTheLimitIs413Json) {
    const Shop shop = it::make_shop();
    const std::size_t limit = std::stoull(it::read_ini(it::env().config).count("file-max-bytes")
                                              ? it::read_ini(it::env().config).at("file-max-bytes")
                                              : "26214400");
    HttpResponse r = upload(shop, "?filename=big.bin", std::string(limit + 1, 'x'));
    EXPECT_TRUE(it::is_error(r, 413, "body_too_large", "Request body too large")) << r.describe();
    // The rest of the API keeps its own limit.
    HttpResponse json = it::post_raw("/api/v1/customers", shop, std::string(2 * 1048576, ' '));
    EXPECT_EQ(json.status, 413);
}

// A client that stops sending half-way: nginx buffers an upload's body before it passes the
// request on (nginx/supportcrm.conf), so the pool never hears of it: no row, no bytes stored.
TEST(Files, AClientThatStopsMidUploadLeavesNoRowAndNoBytes) {
    const Shop shop = it::make_shop();
    const std::string request_id = "files-cut-" + it::unique_suffix();
    const std::string sent = unique_bytes(300000);
    {
        it::Socket client(it::endpoint_of(it::env().base_url));
        const std::string head =
            "POST /api/v1/files?filename=cut.bin HTTP/1.1\r\n"
            "Host: localhost\r\nX-Api-Key: " +
            shop.key + "\r\nX-Request-Id: " + request_id + "\r\nUser-Agent: " + request_id +
            "\r\nContent-Type: application/octet-stream\r\n"
            "Content-Length: 1000000\r\n\r\n";
        client.send_all(head);
        client.send_all(sent);
    }  // closed, 700,000 bytes short
    // nginx writes the request's access-log line once it has seen the client go: 400, nothing
    // sent (the line names the User-Agent; the request id it logs is the answer's).
    const char* access_log = std::getenv("SUPPORTCRM_NGINX_ACCESS_LOG");
    ASSERT_NE(access_log, nullptr) << "SUPPORTCRM_NGINX_ACCESS_LOG is not set (scripts/test)";
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    std::string line;
    while ((line = line_with(it::read_file(access_log), "\"" + request_id + "\"")).empty()) {
        ASSERT_LT(std::chrono::steady_clock::now(), deadline)
            << "nginx never logged the cut upload " << request_id;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    EXPECT_NE(line.find("\"POST /api/v1/files HTTP/1.1\" 400 0 "), std::string::npos) << line;
    EXPECT_EQ(it::read_fcgi_log().find(request_id), std::string::npos) << "the pool saw it";
    it::Db db;
    EXPECT_EQ(db.count("SELECT COUNT(*) FROM files WHERE shop_id = ?", {std::to_string(shop.id)}),
              0);
    EXPECT_FALSE(exists(content_path(it::sha256_hex(sent))));
    EXPECT_TRUE(it::is_success(upload(shop, "?filename=whole.bin", sent), 201)) << "and after it";
}

// files-dir full (a 256 KiB tmpfs mounted over it for the test): 503, and nothing of the
// upload is left, neither bytes nor row nor the Idempotency-Key's answer: once there is room
// again, the same request stores the file.
TEST(Files, DiskFullIs503AndNothingIsHalfWritten) {
    if (::geteuid() != 0) {
        GTEST_SKIP() << "mounting a tmpfs over files-dir needs root";
    }
    const Shop shop = it::make_shop();
    const std::string key = "full-" + it::unique_suffix();
    const std::string bytes = unique_bytes(600 * 1024);
    {
        const TmpfsOver full(files_dir(), 256 * 1024);
        HttpResponse refused = it::http_unchecked(
            "POST", "/api/v1/files?filename=full.bin",
            {{"X-Api-Key", shop.key}, {"Content-Type", "text/plain"}, {"Idempotency-Key", key}},
            bytes);
        EXPECT_TRUE(it::is_error(refused, 503, "unavailable", "Service temporarily unavailable"))
            << refused.describe();
        EXPECT_EQ(regular_files_under(files_dir()), std::vector<std::string>{})
            << "the spool is removed";
    }
    it::Db db;
    EXPECT_EQ(db.count("SELECT COUNT(*) FROM files WHERE shop_id = ?", {std::to_string(shop.id)}),
              0);
    HttpResponse stored =
        upload(shop, "?filename=full.bin", bytes, "text/plain", {{"Idempotency-Key", key}});
    ASSERT_TRUE(it::is_success(stored, 201)) << stored.describe();
    EXPECT_FALSE(stored.header("Idempotency-Replayed")) << "the 503 was not kept as the answer";
    HttpResponse back =
        download("/api/v1/files/" + stored.json()["file"]["id"].asString(), it::key_header(shop));
    EXPECT_EQ(back.body, bytes);
}

TEST(Files, IdempotencyKeyReplaysAnUploadAndBindsItsFilename) {
    const Shop shop = it::make_shop();
    const std::string key = "upload-" + it::unique_suffix();
    const std::string bytes = unique_bytes(300);
    HttpResponse first =
        upload(shop, "?filename=i.txt", bytes, "text/plain", {{"Idempotency-Key", key}});
    ASSERT_TRUE(it::is_success(first, 201)) << first.describe();
    HttpResponse again =
        upload(shop, "?filename=i.txt", bytes, "text/plain", {{"Idempotency-Key", key}});
    EXPECT_EQ(again.status, 201);
    EXPECT_EQ(again.body, first.body);
    EXPECT_EQ(again.header("Idempotency-Replayed").value_or(""), "true");
    EXPECT_TRUE(it::is_error(
        upload(shop, "?filename=other.txt", bytes, "text/plain", {{"Idempotency-Key", key}}), 422,
        "idempotency_key_reused"));
    EXPECT_TRUE(it::is_error(
        upload(shop, "?filename=i.txt", bytes + "x", "text/plain", {{"Idempotency-Key", key}}), 422,
        "idempotency_key_reused"));
    it::Db db;
    EXPECT_EQ(db.count("SELECT COUNT(*) FROM files WHERE shop_id = ?", {std::to_string(shop.id)}),
              1);
}

TEST(Files, CommentsReferenceTheShopsOwnFiles) {
    const it::tickets::World w = it::tickets::make_world();
    const std::string ticket = it::tickets::create_ticket_id(w);
    const Json::Value f1 = uploaded(w.shop, "one.txt", unique_bytes(10));
    const Json::Value f2 = uploaded(w.shop, "two.txt", unique_bytes(20));
    const Shop other = it::make_shop();
    const Json::Value foreign = uploaded(other, "foreign.txt", unique_bytes(30));
    const std::string path = "/api/v1/tickets/" + ticket + "/comments";
    Json::Value body = it::object({{"text", "with files"}});
    body["files"].append(f2["id"]);
    body["files"].append(f1["id"]);
    it::tickets::add_comment(w.shop, ticket, body);
    it::tickets::add_comment(w.shop, ticket, it::object({{"text", "without"}}));
    Json::Value bad = it::object({{"text", "bad"}});
    bad["files"].append(f1["id"]);
    bad["files"].append(foreign["id"]);
    EXPECT_TRUE(it::is_error(it::post_json(path, w.shop, bad), 400, "validation_failed",
                             "Unknown file: " + foreign["id"].asString()));
    Json::Value many = it::object({{"text", "many"}});
    for (int i = 0; i < 21; ++i) {
        many["files"].append(f1["id"]);
    }
    EXPECT_TRUE(it::is_error(it::post_json(path, w.shop, many), 400, "validation_failed",
                             "At most 20 files"));
    const Json::Value listed = it::tickets::list_comments(w.shop, ticket);
    ASSERT_EQ(listed["comments"].size(), 2U) << it::to_json(listed);
    const Json::Value& files = listed["comments"][0]["files"];
    ASSERT_EQ(files.size(), 2U);
    EXPECT_EQ(files[0]["id"], f2["id"]);
    EXPECT_EQ(files[0]["filename"], "two.txt");
    EXPECT_EQ(files[1]["sha256"], f1["sha256"]);
    EXPECT_TRUE(files[1]["url"].isString());
    EXPECT_TRUE(listed["comments"][1]["files"].isArray());
    EXPECT_EQ(listed["comments"][1]["files"].size(), 0U);
}

TEST(Files, ErasureDeletesTheCustomersFilesAndTheirBytes) {
    const it::tickets::World w = it::tickets::make_world();
    const std::string ticket = it::tickets::create_ticket_id(w);
    const Json::Value mine = uploaded(w.shop, "mine.txt", unique_bytes(40));
    const std::string shared_bytes = unique_bytes(50);
    const Json::Value shared = uploaded(w.shop, "shared.txt", shared_bytes);
    const Json::Value kept = uploaded(it::make_shop(), "kept.txt", shared_bytes);
    Json::Value body = it::object({{"text", "attached"}});
    body["files"].append(mine["id"]);
    body["files"].append(shared["id"]);
    it::tickets::add_comment(w.shop, ticket, body);
    HttpResponse export_r =
        it::http_any_body("GET", "/api/v1/customers/" + std::to_string(w.customer_id) + "/export",
                          it::key_header(w.shop));
    ASSERT_EQ(export_r.status, 200) << export_r.describe();
    EXPECT_NE(export_r.body.find(mine["sha256"].asString()), std::string::npos)
        << "the export lists the comment's files";
    const Shop eraser = it::with_erase_key(w.shop);
    HttpResponse erased = it::http("DELETE", "/api/v1/customers/" + std::to_string(w.customer_id),
                                   it::key_header(eraser));
    ASSERT_TRUE(it::is_success(erased, 200)) << erased.describe();
    EXPECT_TRUE(it::is_error(it::get("/api/v1/files/" + mine["id"].asString() + "/meta", w.shop),
                             404, "file_not_found"));
    EXPECT_FALSE(exists(content_path(mine["sha256"].asString())));
    // Another shop's row names the same bytes: they stay, and its file still downloads.
    EXPECT_TRUE(exists(content_path(shared["sha256"].asString())));
    it::Db db;
    EXPECT_EQ(db.count("SELECT COUNT(*) FROM files WHERE id = ?", {kept["id"].asString()}), 1);
}

// Ages a file by a day.
void make_old(const std::string& path) {
    const std::time_t day_ago = std::time(nullptr) - 86400;
    struct utimbuf times {
        day_ago, day_ago
    };
    ASSERT_EQ(::utime(path.c_str(), &times), 0) << path;
}

void write_file(const std::string& path, const std::string& bytes) {
    std::ofstream out(path, std::ios::binary);
    out << bytes;
    ASSERT_TRUE(out.good()) << path;
}

TEST(Files, SweepRemovesOnlyOldStrayBytes) {
    const Shop shop = it::make_shop();
    const Json::Value named = uploaded(shop, "named.txt", unique_bytes(60));
    make_old(content_path(named["sha256"].asString()));
    // Unnamed content (as a failed upload or an erasure that did not finish leaves it), one old,
    // one young; a stray temporary upload, old; a file that is not the store's.
    const std::string old_bytes = unique_bytes(70), young_bytes = unique_bytes(80);
    const std::string old_path = content_path(it::sha256_hex(old_bytes));
    const std::string young_path = content_path(it::sha256_hex(young_bytes));
    for (const std::string& p : {old_path, young_path}) {
        ::mkdir(p.substr(0, p.size() - 68).c_str(), 0750);
        ::mkdir(p.substr(0, p.size() - 65).c_str(), 0750);
    }
    write_file(old_path, old_bytes);
    make_old(old_path);
    write_file(young_path, young_bytes);
    const std::string temp = files_dir() + "/tmp/up-" + it::unique_word("stray");
    write_file(temp, "partial");
    make_old(temp);
    const Json::Value dry = it::admin({"files", "sweep", "--dry-run"});
    EXPECT_EQ(dry["dryRun"], true);
    EXPECT_GE(dry["unnamedRemoved"].asInt64(), 1);
    EXPECT_TRUE(exists(old_path));
    const Json::Value report = it::admin({"files", "sweep"});
    EXPECT_EQ(report["dryRun"], false);
    EXPECT_GE(report["temporaryRemoved"].asInt64(), 1);
    EXPECT_GE(report["unnamedRemoved"].asInt64(), 1);
    EXPECT_FALSE(exists(old_path));
    EXPECT_FALSE(exists(temp));
    EXPECT_TRUE(exists(young_path)) << "younger than the grace period";
    EXPECT_TRUE(exists(content_path(named["sha256"].asString()))) << "a row names it";
    HttpResponse still = download("/api/v1/files/" + named["id"].asString(), it::key_header(shop));
    EXPECT_EQ(still.status, 200);
    ::unlink(young_path.c_str());
}

// Against the private clamd scripts/test starts (scripts/lib/clamd.sh, its socket the stack's
// clamd-socket): the bytes its generated signature names are refused and nothing is stored;
// clamd out of reach (its socket renamed away for a moment) is 503; back, uploads work again.
TEST(Files, ClamdRefusesAMatchAndIs503WhenUnreachable) {
    const std::string socket = it::read_ini(it::env().config)["clamd-socket"];
    const char* clamd_dir = std::getenv("SUPPORTCRM_CLAMD_DIR");
    if (socket.empty() || clamd_dir == nullptr || *clamd_dir == '\0') {
        GTEST_SKIP() << "no clamd-socket in this stack (scripts/test starts one)";
    }
    const Shop shop = it::make_shop();
    const std::string infected = it::read_file(std::string(clamd_dir) + "/test-signature.txt");
    HttpResponse refused = upload(shop, "?filename=eicar.txt", infected);
    ASSERT_TRUE(it::is_error(refused, 422, "file_rejected"));
    EXPECT_TRUE(it::starts_with(refused.json()["message"].asString(),
                                "File rejected: Supportcrm.Test.Signature"))
        << refused.describe();
    EXPECT_FALSE(exists(content_path(it::sha256_hex(infected)))) << "nothing stored";
    EXPECT_TRUE(it::is_success(upload(shop, "?filename=clean.txt", unique_bytes(5000)), 201));

    const std::string away = socket + ".away";
    ASSERT_EQ(std::rename(socket.c_str(), away.c_str()), 0) << socket;
    it::Headers plain = it::key_header(shop);
    plain.emplace_back("Content-Type", "text/plain");
    // http_unchecked: the one 5xx this suite expects.
    HttpResponse down =
        it::http_unchecked("POST", "/api/v1/files?filename=clean.txt", plain, unique_bytes(300));
    const bool back = std::rename(away.c_str(), socket.c_str()) == 0;
    ASSERT_TRUE(back) << "could not put " << socket << " back";
    EXPECT_TRUE(it::is_error(down, 503, "unavailable", "Service temporarily unavailable"));
    EXPECT_TRUE(it::is_success(upload(shop, "?filename=clean.txt", unique_bytes(400)), 201));
}

// --- The bytes ------------------------------------------------------------------------------

TEST(FileDownloads, EveryHeaderOfTheAnswer) {
    const Shop shop = it::make_shop();
    const std::string bytes = unique_bytes(4096);
    HttpResponse up =
        upload(shop, "?filename=h%C3%A9llo%20w%C3%B6rld%20%22x%22.pdf", bytes, "application/pdf");
    ASSERT_TRUE(it::is_success(up, 201)) << up.describe();
    const Json::Value f = up.json()["file"];
    it::Headers h = it::key_header(shop);
    h.emplace_back("X-Request-Id", "files-test-" + it::unique_word("r"));
    HttpResponse r = download("/api/v1/files/" + f["id"].asString(), h);
    ASSERT_EQ(r.status, 200) << r.describe();
    EXPECT_EQ(r.body, bytes);
    EXPECT_EQ(r.header("Content-Type").value_or(""), "application/pdf");
    EXPECT_EQ(r.header("Content-Length").value_or(""), "4096");
    EXPECT_EQ(r.header("Content-Disposition").value_or(""),
              "attachment; filename*=UTF-8''h%C3%A9llo%20w%C3%B6rld%20%22x%22.pdf");
    EXPECT_EQ(r.header("ETag").value_or(""), "\"" + f["sha256"].asString() + "\"");
    EXPECT_EQ(r.header_values("ETag").size(), 1U) << "nginx's own etag must be off";
    EXPECT_EQ(r.header("X-Content-Type-Options").value_or(""), "nosniff");
    EXPECT_EQ(r.header_values("X-Content-Type-Options").size(), 1U);
    EXPECT_EQ(r.header("X-Request-Id").value_or(""), h.back().second);
    EXPECT_EQ(r.header("Accept-Ranges").value_or(""), "bytes");
    EXPECT_EQ(r.header("Cache-Control").value_or(""), "private, no-cache");
    EXPECT_FALSE(r.header("X-Accel-Redirect")) << "the redirect is nginx's business";
}

TEST(FileDownloads, RangeIs206AndAnUnsatisfiableOne416) {
    const Shop shop = it::make_shop();
    const std::string bytes = unique_bytes(1000);
    const Json::Value f = uploaded(shop, "r.bin", bytes);
    it::Headers h = it::key_header(shop);
    h.emplace_back("Range", "bytes=10-19");
    HttpResponse r = download("/api/v1/files/" + f["id"].asString(), h);
    ASSERT_EQ(r.status, 206) << r.describe();
    EXPECT_EQ(r.body, bytes.substr(10, 10));
    EXPECT_EQ(r.header("Content-Range").value_or(""), "bytes 10-19/1000");
    EXPECT_EQ(r.header("ETag").value_or(""), "\"" + f["sha256"].asString() + "\"");
    h.back().second = "bytes=5000-";
    HttpResponse bad = download("/api/v1/files/" + f["id"].asString(), h);
    EXPECT_TRUE(it::is_error(bad, 416, "range_not_satisfiable")) << bad.describe();
}

TEST(FileDownloads, IfNoneMatchIs304FromTheWorker) {
    const Shop shop = it::make_shop();
    const Json::Value f = uploaded(shop, "c.txt", unique_bytes(100));
    const std::string tag = "\"" + f["sha256"].asString() + "\"";
    it::Headers h = it::key_header(shop);
    h.emplace_back("If-None-Match", tag);
    HttpResponse r = download("/api/v1/files/" + f["id"].asString(), h);
    EXPECT_EQ(r.status, 304) << r.describe();
    EXPECT_TRUE(r.body.empty());
    EXPECT_EQ(r.header("ETag").value_or(""), tag);
    h.back().second = "\"" + std::string(64, '0') + "\"";
    EXPECT_EQ(download("/api/v1/files/" + f["id"].asString(), h).status, 200);
}

TEST(FileDownloads, TheInternalLocationIsNotReachable) {
    const Shop shop = it::make_shop();
    const Json::Value f = uploaded(shop, "i.txt", unique_bytes(100));
    const std::string sha = f["sha256"].asString();
    HttpResponse r = it::http(
        "GET", "/.supportcrm/files/" + sha.substr(0, 2) + "/" + sha.substr(2, 2) + "/" + sha);
    EXPECT_EQ(r.status, 404) << r.describe();
    EXPECT_EQ(r.body.find("supportcrm test bytes"), std::string::npos);
}

TEST(FileDownloads, SignedLinkNeedsNoKey) {
    const Shop shop = it::make_shop();
    const std::string bytes = unique_bytes(2000);
    const Json::Value f = uploaded(shop, "s%C3%AEgned.txt", bytes);
    HttpResponse r = download(link_path(f["url"].asString()));
    ASSERT_EQ(r.status, 200) << r.describe();
    EXPECT_EQ(r.body, bytes);
    EXPECT_EQ(r.header("Content-Disposition").value_or(""),
              "attachment; filename*=UTF-8''s%C3%AEgned.txt");
    EXPECT_EQ(r.header("X-Content-Type-Options").value_or(""), "nosniff");
    it::Headers range{{"Range", "bytes=0-4"}};
    HttpResponse part = download(link_path(f["url"].asString()), range);
    EXPECT_EQ(part.status, 206);
    EXPECT_EQ(part.body, bytes.substr(0, 5));
    // /meta signs a fresh link that works as well.
    HttpResponse meta = it::get("/api/v1/files/" + f["id"].asString() + "/meta", shop);
    EXPECT_EQ(download(link_path(meta.json()["file"]["url"].asString())).status, 200);
}

TEST(FileDownloads, ForgedExpiredAndOtherFilesLinksAre403) {
    const Shop shop = it::make_shop();
    const Json::Value f = uploaded(shop, "f.txt", unique_bytes(100));
    const Json::Value g = uploaded(shop, "g.txt", unique_bytes(100));
    const std::string link = link_path(f["url"].asString());
    const std::string sig = link.substr(link.find("&sig=") + 5);
    const std::string fid = f["id"].asString();
    const std::string expires =
        link.substr(link.find("expires=") + 8, link.find('&') - link.find("expires=") - 8);
    std::vector<std::string> bad{
        link.substr(0, link.size() - 1) + (link.back() == '0' ? "1" : "0"),  // tampered sig
        "/files/" + fid + "/g.txt?expires=" + expires + "&sig=" + sig,       // tampered name
        "/files/" + g["id"].asString() + "/f.txt?expires=" + expires + "&sig=" + sig,  // other id
        "/files/" + fid + "/f.txt?expires=" + std::to_string(std::stoll(expires) + 1) +
            "&sig=" + sig,
        "/files/" + fid + "/f.txt?expires=" + expires,  // no sig
        "/files/" + fid + "/f.txt?sig=" + sig,          // no expiry
    };
    // A link signed with the real secret that expired a second ago.
    const std::int64_t past = std::time(nullptr) - 1;
    bad.push_back("/files/" + fid + "/f.txt?expires=" + std::to_string(past) + "&sig=" +
                  supportcrm::file_links::sign(link_secret(), std::stoull(fid), "f.txt", past));
    for (const std::string& path : bad) {
        HttpResponse r = it::http("GET", path);
        EXPECT_TRUE(it::is_error(r, 403, "forbidden", "Invalid or expired link")) << path;
    }
    // The same secret's link a minute ahead works: the expiry, not the signing, failed above.
    const std::int64_t ahead = std::time(nullptr) + 60;
    EXPECT_EQ(
        download("/files/" + fid + "/f.txt?expires=" + std::to_string(ahead) + "&sig=" +
                 supportcrm::file_links::sign(link_secret(), std::stoull(fid), "f.txt", ahead))
            .status,
        200);
}

// /proc/PID/status's value of `field` in kB ("VmRSS", "VmHWM"); -1 when unreadable.
long proc_kb(long pid, const std::string& field) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/status");
    std::string line;
    while (std::getline(in, line)) {
        if (it::starts_with(line, field + ":")) {
            return std::stol(line.substr(field.size() + 1));
        }
    }
    return -1;
}

TEST(FileDownloads, A25MiBUploadGrowsNoWorkerBy4MiB) {
    it::OneHostOnly one_host;
    const Shop shop = it::make_shop();
    HttpResponse status = it::http("GET", "/status?full");
    ASSERT_EQ(status.status, 200);
    std::vector<std::pair<long, long>> rss;  // pid, VmRSS before (kB)
    for (const Json::Value& w : status.json()["workerList"]) {
        const long pid = static_cast<long>(w["pid"].asInt64());
        std::ofstream("/proc/" + std::to_string(pid) + "/clear_refs") << "5";  // resets VmHWM
        rss.emplace_back(pid, proc_kb(pid, "VmRSS"));
    }
    ASSERT_FALSE(rss.empty());
    const std::string bytes = unique_bytes(25 * 1048576);
    HttpResponse r = upload(shop, "?filename=big.bin", bytes, "application/octet-stream");
    ASSERT_TRUE(it::is_success(r, 201)) << r.describe();
    EXPECT_EQ(r.json()["file"]["sha256"], it::sha256_hex(bytes));
    long growth = 0;
    for (const auto& [pid, before] : rss) {
        const long peak = proc_kb(pid, "VmHWM");
        if (peak >= 0 && before >= 0) {
            growth = std::max(growth, peak - before);
        }
    }
    EXPECT_LT(growth, 4 * 1024) << "kB of peak RSS over the RSS before the upload";
}

}  // namespace
