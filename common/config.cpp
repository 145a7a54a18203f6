#include "common/config.h"

#include <grp.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <boost/lexical_cast.hpp>
#include <boost/program_options.hpp>
#include <cerrno>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <type_traits>
#include <vector>

namespace supportcrm {
namespace po = boost::program_options;

namespace {

// Collects the key list twice over: as program options (typed, with their defaults) and as
// ConfigKey rows (the same defaults as text, exactly as --help shows them).
class KeyList {
  public:
    KeyList() : options_("Configuration (file keys; each is also a --flag)") {}

    template <class T>
    void add(const char* name, const T& default_value, const char* help) {
        std::string text;
        if constexpr (std::is_same_v<T, bool>) {
            text = default_value ? "true" : "false";  // as a config file spells it
        } else {
            text = boost::lexical_cast<std::string>(default_value);
        }
        options_.add_options()(name, po::value<T>()->default_value(default_value, text), help);
        rows_.push_back({name, std::move(text), help});
    }

    po::options_description options_;
    std::vector<ConfigKey> rows_;
};

std::string octal(unsigned mode) {
    std::ostringstream out;
    out << '0' << std::oct << mode;
    return out.str();
}

unsigned parse_mode(const std::string& text) {
    std::size_t used = 0;
    unsigned long mode = 0;
    try {
        mode = std::stoul(text, &used, 8);
    } catch (const std::exception&) {
        used = 0;
    }
    if (used != text.size() || text.empty() || mode > 0777) {
        throw ConfigError("listen-mode: expected an octal mode like 0660, got '" + text + "'");
    }
    return static_cast<unsigned>(mode);
}

std::string read_password_file(const std::string& path) {
    std::ifstream in(path);
    if (!in) {
        const int err = errno;
        throw ConfigError("db-password-file: cannot read " + path + ": " + log::errno_as_user(err));
    }
    std::string line;
    std::getline(in, line);
    if (!line.empty() && line.back() == '\r') {
        line.pop_back();
    }
    return line;
}

// The signed links' key: the first line of file-link-secret-file, at least 32 characters
// (debian/postinst writes 64 hex digits).
std::string read_link_secret(const std::string& path) {
    std::ifstream in(path);
    if (!in) {
        const int err = errno;
        throw ConfigError("file-link-secret-file: cannot read " + path + ": " +
                          log::errno_as_user(err));
    }
    std::string line;
    std::getline(in, line);
    if (!line.empty() && line.back() == '\r') {
        line.pop_back();
    }
    if (line.size() < 32) {
        throw ConfigError("file-link-secret-file: " + path +
                          " must hold at least 32 characters on its first line");
    }
    return line;
}

// A unix path, or host:port whose port is a number 1-65535 (host empty: every address).
void check_listen(const std::string& listen) {
    if (listen.empty()) {
        throw ConfigError("listen: must not be empty");
    }
    if (listen.front() == '/') {
        if (listen.size() >= 108) {  // sizeof sockaddr_un::sun_path
            throw ConfigError("listen: unix socket path longer than 107 bytes: " + listen);
        }
        return;
    }
    const auto colon = listen.rfind(':');
    const std::string port = colon == std::string::npos ? "" : listen.substr(colon + 1);
    const bool digits = !port.empty() && port.size() <= 5 &&
                        port.find_first_not_of("0123456789") == std::string::npos;
    if (!digits || std::stoul(port) < 1 || std::stoul(port) > 65535) {
        throw ConfigError("listen: expected a unix socket path (/...) or host:port with a port " +
                          std::string("1-65535, got '") + listen + "'");
    }
}

// db-hosts: "host:port" items separated by commas (blanks around them ignored); "" is none.
std::vector<DbEndpoint> parse_db_hosts(const std::string& text) {
    std::vector<DbEndpoint> hosts;
    std::size_t start = 0;
    while (text.find_first_not_of(" \t") != std::string::npos && start <= text.size()) {
        const std::size_t comma = std::min(text.find(',', start), text.size());
        std::string item = text.substr(start, comma - start);
        item.erase(0, item.find_first_not_of(" \t"));
        item.erase(item.find_last_not_of(" \t") + 1);
        const auto colon = item.rfind(':');
        const std::string port = colon == std::string::npos ? "" : item.substr(colon + 1);
        const bool digits = !port.empty() && port.size() <= 5 &&
                            port.find_first_not_of("0123456789") == std::string::npos;
        if (colon == 0 || !digits || std::stoul(port) < 1 || std::stoul(port) > 65535) {
            throw ConfigError(
                "db-hosts: expected host:port,host:port,... with ports 1-65535, got '" + item +
                "'");
        }
        hosts.push_back(DbEndpoint{item.substr(0, colon), static_cast<unsigned>(std::stoul(port))});
        start = comma + 1;
    }
    return hosts;
}

// For the start-up line: where the database is.
std::string describe_db_server(const DbSettings& db) {
    if (!db.socket.empty()) {
        return db.socket;
    }
    if (db.hosts.empty()) {
        return db.host + ":" + std::to_string(db.port);
    }
    std::string all;
    for (const DbEndpoint& e : db.hosts) {
        all += (all.empty() ? "" : ",") + e.host + ":" + std::to_string(e.port);
    }
    return all;
}

uid_t user_id(const std::string& name) {
    if (name.empty()) {
        return static_cast<uid_t>(-1);
    }
    errno = 0;
    const passwd* entry = getpwnam(name.c_str());
    if (entry == nullptr) {
        throw ConfigError("listen-owner: no such user '" + name + "'");
    }
    return entry->pw_uid;
}

unsigned cpu_count() {
    const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    return cpus > 0 ? static_cast<unsigned>(cpus) : 1;
}

gid_t group_id(const std::string& name) {
    if (name.empty()) {
        return static_cast<gid_t>(-1);
    }
    const group* entry = getgrnam(name.c_str());
    if (entry == nullptr) {
        throw ConfigError("listen-group: no such group '" + name + "'");
    }
    return entry->gr_gid;
}

void require(bool ok, const std::string& message) {
    if (!ok) {
        throw ConfigError(message);
    }
}

// One row of the key table, as nginx's ngx_command_t: the key's name and help, `declare` (its
// type and default: those of the Config member's initialiser in config.h or db_settings.h) and
// `read` (the value read, checked — a ConfigError names the key — into the Config).
struct Key {
    const char* name;
    const char* help;
    void (*declare)(KeyList& keys, const Key& key);
    void (*read)(Config& c, const po::variables_map& vm, const Key& key);
};

// clang-format off
// A key that is the Config member `m` itself; the statement `...` checks `v`, the value read.
#define SUPPORTCRM_KEY(key_name, m, key_help, ...)                                                     \
    Key{key_name, key_help,                                                                 \
        [](KeyList& keys, const Key& k) { keys.add(k.name, Config{}.m, k.help); },            \
        [](Config& c, const po::variables_map& vm, const Key& k) {                            \
            const auto& v = vm[k.name].as<std::remove_cvref_t<decltype(c.m)>>();              \
            __VA_ARGS__;                                                                      \
            c.m = v;                                                                          \
        }}
// A key spelt as a `Value` (listen-mode's "0660"), `default_value` that of the member it
// fills; the statement `...` stores `v`, the value read, converted and checked.
#define SUPPORTCRM_KEY_AS(Value, key_name, default_value, key_help, ...)                                \
    Key{key_name, key_help,                                                                     \
        [](KeyList& keys, const Key& k) { keys.add(k.name, Value(default_value), k.help); },    \
        [](Config& c, const po::variables_map& vm, const Key& k) {                              \
            const Value& v = vm[k.name].as<Value>();                                            \
            __VA_ARGS__;                                                                        \
        }}
// clang-format on

// THE key table: each key once, with its name, default, help and check, in --help's and the
// documentation's order. The checks between keys follow in check_together.
const Key kKeys[] = {
    SUPPORTCRM_KEY("listen", listen, "FastCGI listen address: a unix socket path, or host:port",
                   check_listen(v)),
    SUPPORTCRM_KEY(
        "listen-owner", listen_owner,
        "owner (user name) of a unix listen socket the server binds; empty: its own user",
        c.listen_uid = user_id(v)),
    SUPPORTCRM_KEY("listen-group", listen_group,
                   "group of a unix listen socket the server binds (e.g. www-data); empty: its own",
                   c.listen_gid = group_id(v)),
    SUPPORTCRM_KEY_AS(std::string, "listen-mode", octal(Config{}.listen_mode),
                      "permissions (octal) of a unix listen socket", c.listen_mode = parse_mode(v)),
    SUPPORTCRM_KEY("listen-backlog", listen_backlog, "listen(2) backlog",
                   require(v >= 1, "listen-backlog: must be at least 1")),
    SUPPORTCRM_KEY_AS(unsigned, "workers", Config{}.workers, "worker processes; 0 = number of CPUs",
                      c.workers = v == 0 ? cpu_count() : v;
                      require(c.workers <= 1024, "workers: at most 1024")),
    SUPPORTCRM_KEY("shutdown-timeout", shutdown_timeout,
                   "seconds in-flight requests get to finish on stop before workers are killed"),
    SUPPORTCRM_KEY("ready-timeout", ready_timeout,
                   "seconds new workers get to connect to the database: then a start fails (exit "
                   "1) and a reload is abandoned (the old workers keep serving)",
                   require(v != 0, "ready-timeout: must be at least 1")),
    SUPPORTCRM_KEY("search-reindex-task", search_reindex_task,
                   "after a start or reload, once only this binary's workers serve, one child "
                   "process does the search re-index a migrate asked for; false on all app "
                   "hosts of a cluster but one"),
    SUPPORTCRM_KEY("search-indexer", search_indexer,
                   "one child process of the master writes the words of committed comments to the "
                   "search index (E10: found within 1 s of the commit); safe on every app host of "
                   "a cluster at once; false only where another host's indexer does the work"),
    // (A negative value is out of range too: Boost reads "-5" into an unsigned as 2^32 - 5.)
    SUPPORTCRM_KEY(
        "slowlog-threshold", slowlog_threshold,
        "milliseconds: a request slower than this is logged once, with its request id, "
        "route and the time of each SQL statement it ran; 0 = off",
        require(v <= 3'600'000, "slowlog-threshold: must be between 0 and 3600000 (milliseconds)")),
    SUPPORTCRM_KEY(
        "request-terminate-timeout", request_terminate_timeout,
        "seconds: the master kills a worker busy on one request longer than this and "
        "starts another (the client gets 503); 0 = off",
        require(v <= 86'400, "request-terminate-timeout: must be between 0 and 86400 (seconds)")),
    SUPPORTCRM_KEY(
        "stream-terminate-timeout", stream_terminate_timeout,
        "seconds: request-terminate-timeout for the routes whose answer is long by nature (the "
        "exports), which the short timer of the others must not cut; 0 = off",
        require(v <= 86'400, "stream-terminate-timeout: must be between 0 and 86400 (seconds)")),
    SUPPORTCRM_KEY("db-host", db.host, "MariaDB host (unused when db-socket is set)"),
    SUPPORTCRM_KEY("db-port", db.port, "MariaDB TCP port",
                   require(v != 0 && v <= 65535, "db-port: must be between 1 and 65535")),
    SUPPORTCRM_KEY("db-socket", db.socket, "MariaDB unix socket path"),
    SUPPORTCRM_KEY_AS(std::string, "db-hosts", "",
                      "host:port,host:port,...: servers of one Galera cluster, tried in this "
                      "order on every connect (instead of db-host and db-port; not with db-socket)",
                      c.db.hosts = parse_db_hosts(v)),
    SUPPORTCRM_KEY("db-name", db.name, "database name"),
    SUPPORTCRM_KEY("db-user", db.user, "database user"),
    SUPPORTCRM_KEY("db-password", db.password,
                   "database password (prefer db-password-file: command lines are visible to "
                   "all); given on the command line, it wins over db-password-file"),
    SUPPORTCRM_KEY("db-password-file", db_password_file,
                   "file whose first line is the database password"),
    SUPPORTCRM_KEY("max-body-bytes", max_body_bytes,
                   "request bodies larger than this are answered 413",
                   require(v != 0, "max-body-bytes: must be at least 1")),
    SUPPORTCRM_KEY("files-dir", files.dir,
                   "directory of uploaded files (E13): the bytes under ab/cd/<sha256>, uploads "
                   "being received under tmp/; shared by every app host of a cluster",
                   require(!v.empty() && v.front() == '/', "files-dir: must be an absolute path")),
    SUPPORTCRM_KEY("file-max-bytes", files.max_bytes,
                   "uploads larger than this are answered 413; nginx's client_max_body_size on "
                   "the upload location must allow as much",
                   require(v != 0, "file-max-bytes: must be at least 1")),
    SUPPORTCRM_KEY("file-url-ttl", files.url_ttl, "seconds a signed file link (url) is valid",
                   require(v != 0, "file-url-ttl: must be at least 1")),
    SUPPORTCRM_KEY("public-base-url", files.public_base_url,
                   "scheme://host[:port] the signed file links start with (never taken from a "
                   "request's Host); empty: uploads are refused (503) until it is set",
                   require(v.empty() || v.rfind("http://", 0) == 0 || v.rfind("https://", 0) == 0,
                           "public-base-url: must start with http:// or https://")),
    SUPPORTCRM_KEY("file-link-secret-file", files.link_secret_file,
                   "file whose first line (at least 32 characters) keys the signed file links; "
                   "replacing it invalidates every link given out"),
    SUPPORTCRM_KEY("clamd-socket", files.clamd_socket,
                   "clamd's unix socket: every upload is scanned (INSTREAM) before it is stored; "
                   "empty: no scan"),
    SUPPORTCRM_KEY_AS(std::string, "log-level", log::level_key(Config{}.log_level),
                      "debug, info, warning or error",
                      require(log::parse_level(v, c.log_level),
                              "log-level: expected debug, info, warning or error")),
    SUPPORTCRM_KEY("migrations-dir", migrations_dir, "directory of the NNN_name.sql migrations"),
    SUPPORTCRM_KEY("webhook-allow-private", webhooks.allow_private,
                   "supportcrm-webhooks delivers to loopback, private and link-local addresses "
                   "too (tests and development only)"),
    SUPPORTCRM_KEY("webhook-poll-ms", webhooks.poll_ms,
                   "milliseconds supportcrm-webhooks waits before looking again when it found "
                   "no work"),
    SUPPORTCRM_KEY("webhook-batch", webhooks.batch,
                   "deliveries supportcrm-webhooks claims at a time"),
    SUPPORTCRM_KEY("webhook-max-in-flight", webhooks.max_in_flight,
                   "deliveries supportcrm-webhooks attempts at once (receivers are contacted "
                   "concurrently)"),
    SUPPORTCRM_KEY("webhook-max-per-host", webhooks.max_per_host,
                   "deliveries supportcrm-webhooks attempts at once to one receiver (scheme, "
                   "host, port)"),
    SUPPORTCRM_KEY("webhook-retry-first-ms", webhooks.retry_first_ms,
                   "milliseconds before the first retry of a failed delivery; each retry waits "
                   "twice as long as the one before (with jitter)"),
    SUPPORTCRM_KEY("webhook-retry-max-ms", webhooks.retry_max_ms,
                   "the longest wait, in milliseconds, between two attempts of a delivery"),
    SUPPORTCRM_KEY("webhook-retry-for", webhooks.retry_for,
                   "seconds after its event when a delivery that still fails is marked failed"),
    SUPPORTCRM_KEY("webhook-retention-days", webhooks.retention_days,
                   "days supportcrm-webhooks keeps finished deliveries, their attempts and their "
                   "events before deleting them; at least the retry window (webhook-retry-for)"),
    SUPPORTCRM_KEY("changes-retention-days", changes.retention_days,
                   "days the changes feed (GET /api/v1/changes) keeps its entries; an older "
                   "cursor answers 410 cursor_expired",
                   require(v != 0, "changes-retention-days: must be at least 1")),
    SUPPORTCRM_KEY("changes-max-waiting", changes.max_waiting,
                   "GET /api/v1/changes requests that may wait (wait=N) at once in the pool; "
                   "others are answered at once; 0 = a quarter of the workers, at least 1"),
};

// The checks that involve more than one key, after every key was read.
void check_together(Config& c, const po::variables_map& command_line) {
    if (c.request_terminate_timeout != 0 && c.slowlog_threshold != 0 &&
        c.slowlog_threshold >= c.request_terminate_timeout * 1000U) {
        throw ConfigError(
            "slowlog-threshold: must be below request-terminate-timeout (in milliseconds: " +
            std::to_string(c.request_terminate_timeout * 1000U) +
            "), or a slow request is killed before it is logged");
    }
    // 0 is off, the longest: an export never gets less time than any other request.
    if (c.request_terminate_timeout != 0 && c.stream_terminate_timeout != 0 &&
        c.stream_terminate_timeout < c.request_terminate_timeout) {
        throw ConfigError(
            "stream-terminate-timeout: must be 0 (off) or at least "
            "request-terminate-timeout (" +
            std::to_string(c.request_terminate_timeout) + ")");
    }
    require(c.db.hosts.empty() || c.db.socket.empty(),
            "db-hosts and db-socket: set one of them, not both");
    require(!c.db.name.empty() && !c.db.user.empty(), "db-name and db-user must not be empty");
    // A password typed on the command line is the operator's override of this run.
    const bool password_flag =
        command_line.count("db-password") && !command_line["db-password"].defaulted();
    if (!c.db_password_file.empty() && !password_flag) {
        c.db.password = read_password_file(c.db_password_file);
    }
    if (!c.files.public_base_url.empty()) {
        c.files.link_secret = read_link_secret(c.files.link_secret_file);
    }
    c.webhooks.changes_retention_days = c.changes.retention_days;
    const WebhookSettings& w = c.webhooks;
    if (w.poll_ms == 0 || w.batch == 0 || w.retry_first_ms == 0 || w.max_in_flight == 0 ||
        w.max_per_host == 0 || w.retry_max_ms < w.retry_first_ms) {
        throw ConfigError(
            "webhook-poll-ms, webhook-batch, webhook-max-in-flight, webhook-max-per-host and "
            "webhook-retry-first-ms must be at least 1, "
            "webhook-retry-max-ms at least webhook-retry-first-ms");
    }
    // A pending delivery keeps its event whatever its age, but its attempts' history would be
    // cut short if finished ones went before a retry window is over: keep at least one window.
    if (w.retention_days == 0 || std::uint64_t{w.retention_days} * 86400 < w.retry_for) {
        throw ConfigError(
            "webhook-retention-days: must be at least 1 and cover webhook-retry-for (" +
            std::to_string(w.retry_for) + " s)");
    }
}

KeyList declare_keys() {
    KeyList keys;
    for (const Key& k : kKeys) {
        k.declare(keys, k);
    }
    return keys;
}

}  // namespace

po::options_description config_options() {
    return declare_keys().options_;
}

po::options_description daemon_command_line(const std::string& program) {
    po::options_description general(program + " [options]");
    // clang-format off
    general.add_options()
        ("help,h", "show this help and exit")
        ("version", "print the version and exit")
        ("config,c", po::value<std::string>()->default_value(SUPPORTCRM_CONFIG_FILE),
            "config file (INI)")
        ("test-config,t", "check the configuration, print a summary and exit");
    // clang-format on
    general.add(config_options());
    return general;
}

std::vector<ConfigKey> config_keys() {
    return declare_keys().rows_;
}

namespace {

// The keys of one config file. Unknown keys are errors (allow_unregistered = false): a typo
// must not be ignored.
po::parsed_options parse_file(const std::string& file, const po::options_description& keys,
                              const std::string& hint) {
    std::ifstream in(file);
    if (!in) {
        const int err = errno;
        throw ConfigError("config: cannot read " + file + ": " + log::errno_as_user(err) + hint);
    }
    try {
        return po::parse_config_file(in, keys, false);
    } catch (const po::error& e) {
        throw ConfigError("config " + file + ": " + e.what());
    }
}

// The drop-ins of a config file: conf.d/*.conf beside it, in lexical order (none when there is
// no such directory). Other names (editor and package manager leftovers) are not read.
std::vector<std::string> drop_in_files(const std::string& file) {
    const std::filesystem::path dir = std::filesystem::path(file).parent_path() / "conf.d";
    std::error_code ec;
    if (!std::filesystem::is_directory(dir, ec)) {
        return {};
    }
    std::vector<std::string> files;
    std::filesystem::directory_iterator it(dir, ec);
    for (; !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (name.size() > 5 && name.front() != '.' && name.ends_with(".conf") &&
            !it->is_directory()) {
            files.push_back(it->path().string());
        }
    }
    if (ec) {
        throw ConfigError("config: cannot list " + dir.string() + ": " + ec.message());
    }
    std::sort(files.begin(), files.end());
    return files;
}

// The command line, then the drop-ins from the last to the first, then the config file: the
// first value stored for a key wins (po::store keeps it), so a later drop-in overrides an
// earlier one and the file, and a flag overrides them all.
po::variables_map merge_config_file(const po::variables_map& command_line, std::string& file,
                                    std::vector<std::string>& drop_ins) {
    po::variables_map vm = command_line;
    bool named = command_line.count("config") && !command_line["config"].defaulted();
    file = command_line.count("config") ? command_line["config"].as<std::string>()
                                        : std::string(SUPPORTCRM_CONFIG_FILE);
    const po::options_description keys = config_options();
    const po::parsed_options main_file =
        parse_file(file, keys, named ? "" : "; install it or name another with --config FILE");
    drop_ins = drop_in_files(file);
    std::vector<po::parsed_options> parsed;
    for (const std::string& drop_in : drop_ins) {
        parsed.push_back(parse_file(drop_in, keys, ""));
    }
    for (auto it = parsed.rbegin(); it != parsed.rend(); ++it) {
        po::store(*it, vm);
    }
    po::store(main_file, vm);
    po::notify(vm);
    return vm;
}

}  // namespace

void check_listen_directory(const Config& config) {
    if (config.listen.empty() || config.listen.front() != '/') {
        return;
    }
    const std::string dir = config.listen.substr(0, config.listen.rfind('/'));
    struct stat st {};
    if (stat(dir.empty() ? "/" : dir.c_str(), &st) != 0) {
        const int err = errno;
        throw ConfigError("listen: cannot use directory " + dir + " of " + config.listen + ": " +
                          log::errno_as_user(err));
    }
    if (!S_ISDIR(st.st_mode)) {
        throw ConfigError("listen: " + dir + " (directory of " + config.listen +
                          ") is not a directory");
    }
}

Config load_config(const po::variables_map& command_line) {
    Config c;
    po::variables_map vm = merge_config_file(command_line, c.config_file, c.config_drop_ins);
    for (const Key& k : kKeys) {
        k.read(c, vm, k);
    }
    check_together(c, command_line);
    return c;
}

std::string describe(const Config& c) {
    std::ostringstream out;
    out << "config=" << c.config_file;
    for (const std::string& drop_in : c.config_drop_ins) {
        out << "+" << drop_in;
    }
    out << " listen=" << c.listen << " workers=" << c.workers << " db=" << describe_db_server(c.db)
        << "/" << c.db.name << " db-user=" << c.db.user << " max-body-bytes=" << c.max_body_bytes
        << " shutdown-timeout=" << c.shutdown_timeout << "s ready-timeout=" << c.ready_timeout
        << "s slowlog-threshold=" << c.slowlog_threshold
        << "ms request-terminate-timeout=" << c.request_terminate_timeout
        << "s stream-terminate-timeout=" << c.stream_terminate_timeout << "s";
    return out.str();
}

}  // namespace supportcrm
