#include "common/config.h"

#include <grp.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <boost/lexical_cast.hpp>
#include <cerrno>
#include <cstdint>
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

// THE key list: name, type (that of the default given) and help of every key. Defaults are
// read from a default-constructed Config, so they are written nowhere but config.h and
// db_settings.h; load_config below reads each key back into the member it came from.
KeyList declare_keys() {
    const Config d;
    KeyList keys;
    keys.add("listen", d.listen, "FastCGI listen address: a unix socket path, or host:port");
    keys.add("listen-owner", d.listen_owner,
             "owner (user name) of a unix listen socket the server binds; empty: its own user");
    keys.add("listen-group", d.listen_group,
             "group of a unix listen socket the server binds (e.g. www-data); empty: its own");
    keys.add("listen-mode", octal(d.listen_mode), "permissions (octal) of a unix listen socket");
    keys.add("listen-backlog", d.listen_backlog, "listen(2) backlog");
    keys.add("workers", d.workers, "worker processes; 0 = number of CPUs");
    keys.add("shutdown-timeout", d.shutdown_timeout,
             "seconds in-flight requests get to finish on stop before workers are killed");
    keys.add("ready-timeout", d.ready_timeout,
             "seconds new workers get to connect to the database: then a start fails (exit 1) "
             "and a reload is abandoned (the old workers keep serving)");
    keys.add("slowlog-threshold", d.slowlog_threshold,
             "milliseconds: a request slower than this is logged once, with its request id, "
             "route and the time of each SQL statement it ran; 0 = off");
    keys.add("request-terminate-timeout", d.request_terminate_timeout,
             "seconds: the master kills a worker busy on one request longer than this and "
             "starts another (the client gets 503); 0 = off");
    keys.add("db-host", d.db.host, "MariaDB host (unused when db-socket is set)");
    keys.add("db-port", d.db.port, "MariaDB TCP port");
    keys.add("db-socket", d.db.socket, "MariaDB unix socket path");
    keys.add("db-hosts", std::string(),
             "host:port,host:port,...: servers of one Galera cluster, tried in this order on "
             "every connect (instead of db-host and db-port; not with db-socket)");
    keys.add("db-name", d.db.name, "database name");
    keys.add("db-user", d.db.user, "database user");
    keys.add("db-password", d.db.password,
             "database password (prefer db-password-file: command lines are visible to all); "
             "given on the command line, it wins over db-password-file");
    keys.add("db-password-file", d.db_password_file,
             "file whose first line is the database password");
    keys.add("max-body-bytes", d.max_body_bytes,
             "request bodies larger than this are answered 413");
    keys.add("log-level", std::string(log::level_key(d.log_level)),
             "debug, info, warning or error");
    keys.add("migrations-dir", d.migrations_dir, "directory of the NNN_name.sql migrations");
    keys.add("webhook-allow-private", d.webhooks.allow_private,
             "supportcrm-webhooks delivers to loopback, private and link-local addresses too "
             "(tests and development only)");
    keys.add("webhook-poll-ms", d.webhooks.poll_ms,
             "milliseconds supportcrm-webhooks waits before looking again when it found no work");
    keys.add("webhook-batch", d.webhooks.batch, "deliveries supportcrm-webhooks claims at a time");
    keys.add("webhook-max-in-flight", d.webhooks.max_in_flight,
             "deliveries supportcrm-webhooks attempts at once (receivers are contacted "
             "concurrently)");
    keys.add(
        "webhook-max-per-host", d.webhooks.max_per_host,
        "deliveries supportcrm-webhooks attempts at once to one receiver (scheme, host, port)");
    keys.add("webhook-retry-first-ms", d.webhooks.retry_first_ms,
             "milliseconds before the first retry of a failed delivery; each retry waits twice "
             "as long as the one before (with jitter)");
    keys.add("webhook-retry-max-ms", d.webhooks.retry_max_ms,
             "the longest wait, in milliseconds, between two attempts of a delivery");
    keys.add("webhook-retry-for", d.webhooks.retry_for,
             "seconds after its event when a delivery that still fails is marked failed");
    keys.add("webhook-retention-days", d.webhooks.retention_days,
             "days supportcrm-webhooks keeps finished deliveries, their attempts and their "
             "events before deleting them; at least the retry window (webhook-retry-for)");
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

po::variables_map merge_config_file(const po::variables_map& command_line, std::string& file) {
    po::variables_map vm = command_line;
    bool named = command_line.count("config") && !command_line["config"].defaulted();
    file = command_line.count("config") ? command_line["config"].as<std::string>()
                                        : std::string(SUPPORTCRM_CONFIG_FILE);
    std::ifstream in(file);
    if (!in) {
        const int err = errno;
        throw ConfigError("config: cannot read " + file + ": " + log::errno_as_user(err) +
                          (named ? "" : "; install it or name another with --config FILE"));
    }
    try {
        // Unknown keys are errors (allow_unregistered = false): a typo must not be ignored.
        po::store(po::parse_config_file(in, config_options(), false), vm);
    } catch (const po::error& e) {
        throw ConfigError("config " + file + ": " + e.what());
    }
    po::notify(vm);
    return vm;
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
    po::variables_map vm = merge_config_file(command_line, c.config_file);

    c.listen = vm["listen"].as<std::string>();
    check_listen(c.listen);
    c.listen_owner = vm["listen-owner"].as<std::string>();
    c.listen_uid = user_id(c.listen_owner);
    c.listen_group = vm["listen-group"].as<std::string>();
    c.listen_gid = group_id(c.listen_group);
    c.listen_mode = parse_mode(vm["listen-mode"].as<std::string>());
    c.listen_backlog = vm["listen-backlog"].as<int>();
    if (c.listen_backlog < 1) {
        throw ConfigError("listen-backlog: must be at least 1");
    }
    c.workers = vm["workers"].as<unsigned>();
    if (c.workers == 0) {
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        c.workers = cpus > 0 ? static_cast<unsigned>(cpus) : 1;
    }
    if (c.workers > 1024) {
        throw ConfigError("workers: at most 1024");
    }
    c.shutdown_timeout = vm["shutdown-timeout"].as<unsigned>();
    c.ready_timeout = vm["ready-timeout"].as<unsigned>();
    if (c.ready_timeout == 0) {
        throw ConfigError("ready-timeout: must be at least 1");
    }
    c.slowlog_threshold = vm["slowlog-threshold"].as<unsigned>();
    if (c.slowlog_threshold > 3'600'000) {
        // (Also a negative value: Boost reads "-5" into an unsigned as 2^32 - 5.)
        throw ConfigError("slowlog-threshold: must be between 0 and 3600000 (milliseconds)");
    }
    c.request_terminate_timeout = vm["request-terminate-timeout"].as<unsigned>();
    if (c.request_terminate_timeout > 86'400) {
        throw ConfigError("request-terminate-timeout: must be between 0 and 86400 (seconds)");
    }
    if (c.request_terminate_timeout != 0 && c.slowlog_threshold != 0 &&
        c.slowlog_threshold >= c.request_terminate_timeout * 1000U) {
        throw ConfigError(
            "slowlog-threshold: must be below request-terminate-timeout (in milliseconds: " +
            std::to_string(c.request_terminate_timeout * 1000U) +
            "), or a slow request is killed before it is logged");
    }

    c.db.host = vm["db-host"].as<std::string>();
    c.db.port = vm["db-port"].as<unsigned>();
    if (c.db.port == 0 || c.db.port > 65535) {
        throw ConfigError("db-port: must be between 1 and 65535");
    }
    c.db.socket = vm["db-socket"].as<std::string>();
    c.db.hosts = parse_db_hosts(vm["db-hosts"].as<std::string>());
    if (!c.db.hosts.empty() && !c.db.socket.empty()) {
        throw ConfigError("db-hosts and db-socket: set one of them, not both");
    }
    c.db.name = vm["db-name"].as<std::string>();
    c.db.user = vm["db-user"].as<std::string>();
    if (c.db.name.empty() || c.db.user.empty()) {
        throw ConfigError("db-name and db-user must not be empty");
    }
    c.db.password = vm["db-password"].as<std::string>();
    c.db_password_file = vm["db-password-file"].as<std::string>();
    // A password typed on the command line is the operator's override of this run.
    const bool password_flag =
        command_line.count("db-password") && !command_line["db-password"].defaulted();
    if (!c.db_password_file.empty() && !password_flag) {
        c.db.password = read_password_file(c.db_password_file);
    }

    c.max_body_bytes = vm["max-body-bytes"].as<std::size_t>();
    if (c.max_body_bytes == 0) {
        throw ConfigError("max-body-bytes: must be at least 1");
    }
    if (!log::parse_level(vm["log-level"].as<std::string>(), c.log_level)) {
        throw ConfigError("log-level: expected debug, info, warning or error");
    }
    c.migrations_dir = vm["migrations-dir"].as<std::string>();
    c.webhooks.allow_private = vm["webhook-allow-private"].as<bool>();
    c.webhooks.poll_ms = vm["webhook-poll-ms"].as<unsigned>();
    c.webhooks.batch = vm["webhook-batch"].as<unsigned>();
    c.webhooks.max_in_flight = vm["webhook-max-in-flight"].as<unsigned>();
    c.webhooks.max_per_host = vm["webhook-max-per-host"].as<unsigned>();
    c.webhooks.retry_first_ms = vm["webhook-retry-first-ms"].as<unsigned>();
    c.webhooks.retry_max_ms = vm["webhook-retry-max-ms"].as<unsigned>();
    c.webhooks.retry_for = vm["webhook-retry-for"].as<unsigned>();
    if (c.webhooks.poll_ms == 0 || c.webhooks.batch == 0 || c.webhooks.retry_first_ms == 0 ||
        c.webhooks.max_in_flight == 0 || c.webhooks.max_per_host == 0 ||
        c.webhooks.retry_max_ms < c.webhooks.retry_first_ms) {
        throw ConfigError(
            "webhook-poll-ms, webhook-batch, webhook-max-in-flight, webhook-max-per-host and "
            "webhook-retry-first-ms must be at least 1, "
            "webhook-retry-max-ms at least webhook-retry-first-ms");
    }
    c.webhooks.retention_days = vm["webhook-retention-days"].as<unsigned>();
    // A pending delivery keeps its event whatever its age, but its attempts' history would be
    // cut short if finished ones went before a retry window is over: keep at least one window.
    if (c.webhooks.retention_days == 0 ||
        std::uint64_t{c.webhooks.retention_days} * 86400 < c.webhooks.retry_for) {
        throw ConfigError(
            "webhook-retention-days: must be at least 1 and cover webhook-retry-for (" +
            std::to_string(c.webhooks.retry_for) + " s)");
    }
    return c;
}

std::string describe(const Config& c) {
    std::ostringstream out;
    out << "config=" << c.config_file << " listen=" << c.listen << " workers=" << c.workers
        << " db=" << describe_db_server(c.db) << "/" << c.db.name << " db-user=" << c.db.user
        << " max-body-bytes=" << c.max_body_bytes << " shutdown-timeout=" << c.shutdown_timeout
        << "s ready-timeout=" << c.ready_timeout << "s slowlog-threshold=" << c.slowlog_threshold
        << "ms request-terminate-timeout=" << c.request_terminate_timeout << "s";
    return out.str();
}

}  // namespace supportcrm
