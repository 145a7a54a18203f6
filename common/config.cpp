#include "common/config.h"

#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

namespace supportcrm {
namespace po = boost::program_options;

po::options_description config_options() {
    po::options_description d("Configuration (file keys; each is also a --flag)");
    // clang-format off
    d.add_options()
        ("listen", po::value<std::string>()->default_value("/run/supportcrm/supportcrm.sock"),
            "FastCGI listen address: a unix socket path, or host:port")
        ("listen-mode", po::value<std::string>()->default_value("0660"),
            "permissions (octal) of a unix listen socket")
        ("listen-backlog", po::value<int>()->default_value(511), "listen(2) backlog")
        ("workers", po::value<unsigned>()->default_value(0),
            "worker processes; 0 = number of CPUs")
        ("shutdown-timeout", po::value<unsigned>()->default_value(30),
            "seconds in-flight requests get to finish on stop before workers are killed")
        ("db-host", po::value<std::string>()->default_value("localhost"),
            "MariaDB host (unused when db-socket is set)")
        ("db-port", po::value<unsigned>()->default_value(3306), "MariaDB TCP port")
        ("db-socket", po::value<std::string>()->default_value(""), "MariaDB unix socket path")
        ("db-name", po::value<std::string>()->default_value("supportcrm"), "database name")
        ("db-user", po::value<std::string>()->default_value("supportcrm"), "database user")
        ("db-password", po::value<std::string>()->default_value(""),
            "database password (prefer db-password-file: command lines are visible to all)")
        ("db-password-file", po::value<std::string>()->default_value(""),
            "file whose first line is the database password")
        ("max-body-bytes", po::value<std::size_t>()->default_value(1048576),
            "request bodies larger than this are answered 413")
        ("log-level", po::value<std::string>()->default_value("info"),
            "debug, info, warning or error")
        ("migrations-dir", po::value<std::string>()->default_value(SUPPORTCRM_MIGRATIONS_DIR),
            "directory of the NNN_name.sql migrations");
    // clang-format on
    return d;
}

namespace {

po::variables_map merge_config_file(const po::variables_map& command_line, std::string& file) {
    po::variables_map vm = command_line;
    bool named = command_line.count("config") && !command_line["config"].defaulted();
    file = command_line.count("config") ? command_line["config"].as<std::string>()
                                        : std::string(SUPPORTCRM_CONFIG_FILE);
    std::ifstream in(file);
    if (!in) {
        if (named) {
            throw ConfigError("config: cannot read " + file);
        }
        file.clear();
    } else {
        try {
            // Unknown keys are errors (allow_unregistered = false): a typo must not be ignored.
            po::store(po::parse_config_file(in, config_options(), false), vm);
        } catch (const po::error& e) {
            throw ConfigError("config " + file + ": " + e.what());
        }
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
        throw ConfigError("db-password-file: cannot read " + path);
    }
    std::string line;
    std::getline(in, line);
    if (!line.empty() && line.back() == '\r') {
        line.pop_back();
    }
    return line;
}

}  // namespace

Config load_config(const po::variables_map& command_line) {
    Config c;
    po::variables_map vm = merge_config_file(command_line, c.config_file);

    c.listen = vm["listen"].as<std::string>();
    if (c.listen.empty()) {
        throw ConfigError("listen: must not be empty");
    }
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

    c.db.host = vm["db-host"].as<std::string>();
    c.db.port = vm["db-port"].as<unsigned>();
    if (c.db.port == 0 || c.db.port > 65535) {
        throw ConfigError("db-port: must be between 1 and 65535");
    }
    c.db.socket = vm["db-socket"].as<std::string>();
    c.db.name = vm["db-name"].as<std::string>();
    c.db.user = vm["db-user"].as<std::string>();
    if (c.db.name.empty() || c.db.user.empty()) {
        throw ConfigError("db-name and db-user must not be empty");
    }
    c.db.password = vm["db-password"].as<std::string>();
    c.db_password_file = vm["db-password-file"].as<std::string>();
    if (!c.db_password_file.empty()) {
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
    return c;
}

std::string describe(const Config& c) {
    std::ostringstream out;
    out << "config=" << (c.config_file.empty() ? "(none)" : c.config_file) << " listen=" << c.listen
        << " workers=" << c.workers << " db="
        << (c.db.socket.empty() ? c.db.host + ":" + std::to_string(c.db.port) : c.db.socket) << "/"
        << c.db.name << " db-user=" << c.db.user << " max-body-bytes=" << c.max_body_bytes
        << " shutdown-timeout=" << c.shutdown_timeout << "s";
    return out.str();
}

}  // namespace supportcrm
