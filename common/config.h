// Every configuration key declared once, as one row of config.cpp's key table (name, the member
// it fills, help, check), with its default written only here, as the initialiser of its member
// (and in db_settings.h). The same
// list serves the config file (INI) and the command line, for the server and the admin tool;
// unit tests check that etc/supportcrm.conf.in, README and docs/INTERFACES.md list exactly these
// keys with these defaults (tests/unit/config_test.cpp).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "common/db_settings.h"
#include "common/log.h"

// Only declared here: the full <boost/program_options.hpp> costs about 2.5 s of compile time in
// each of the files that include this one for Config alone; the few that build or parse a
// command line include it themselves.
namespace boost::program_options {
class options_description;
class variables_map;
}  // namespace boost::program_options

namespace supportcrm {

// supportcrm-webhooks (extensions.md §E5); the pool and the admin tool read but ignore them.
struct WebhookSettings {
    bool allow_private = false;       // deliver to loopback, private and link-local addresses
    unsigned poll_ms = 1000;          // how often the deliverer looks for due work when idle
    unsigned batch = 20;              // deliveries claimed per transaction
    unsigned max_in_flight = 32;      // attempts running at once
    unsigned max_per_host = 8;        // attempts running at once to one scheme://host:port
    unsigned retry_first_ms = 10000;  // the delay before the first retry (then doubling)
    unsigned retry_max_ms = 3600000;  // the longest delay between two attempts
    unsigned retry_for = 86400;       // seconds after the event when a failure is final
    unsigned retention_days = 30;     // finished deliveries and their events are kept this long
    // The changes feed's retention (Config::changes), copied here by load_config: the events
    // are the feed's entries too, and the deliverer prunes them.
    unsigned changes_retention_days = 30;
};

// The changes feed (extensions.md §E11).
struct ChangesSettings {
    unsigned retention_days = 30;  // entries kept; an older cursor answers 410
    unsigned max_waiting = 0;      // long-polls waiting at once in the pool; 0: workers / 4, >= 1
};

// Files (extensions.md §E13; common/file_store.h, common/file_links.h).
struct FileSettings {
    std::string dir = "/var/lib/supportcrm/files";  // content-addressed bytes, tmp/ uploads
    std::size_t max_bytes = 26214400;               // an upload's largest body (25 MiB)
    unsigned url_ttl = 3600;                        // seconds a signed link is valid
    std::string public_base_url;  // what signed links start with; empty: uploads answer 503
    std::string link_secret_file = "/etc/supportcrm/file-link-secret";
    std::string link_secret;   // its first line, read by load_config when public_base_url is set
    std::string clamd_socket;  // clamd's unix socket: every upload is scanned; empty: none
};

struct Config {
    std::string config_file;
    std::vector<std::string> config_drop_ins;  // conf.d/*.conf beside config_file, as read
    std::string listen = "/run/supportcrm/supportcrm.sock";
    std::string listen_owner;  // empty: the user the server runs as
    std::string listen_group;  // empty: that user's group
    unsigned listen_mode = 0660;
    // listen-owner and listen-group resolved by load_config; -1 (chown's "leave it") when empty.
    uid_t listen_uid = static_cast<uid_t>(-1);
    gid_t listen_gid = static_cast<gid_t>(-1);
    int listen_backlog = 511;
    unsigned workers = 0;  // resolved to the CPU count by load_config
    unsigned shutdown_timeout = 30;
    unsigned ready_timeout = 30;
    // The master's re-index task after each start and reload (fcgi/reindex_task.h).
    bool search_reindex_task = true;
    // The master's search indexer task (fcgi/indexer_task.h): comments' words after commit.
    bool search_indexer = true;
    // extensions.md §E6, as php-fpm's request_slowlog_timeout / request_terminate_timeout.
    unsigned slowlog_threshold = 0;           // ms; 0: no slow log
    unsigned request_terminate_timeout = 30;  // s; 0: never kill a busy worker
    // s; the same for a route that streams (handlers/router.cpp: the exports); 0: never
    unsigned stream_terminate_timeout = 1800;
    DbSettings db;
    std::string db_password_file;
    std::size_t max_body_bytes = 1048576;
    FileSettings files;
    log::Level log_level = log::Level::info;
    std::string migrations_dir = SUPPORTCRM_MIGRATIONS_DIR;
    WebhookSettings webhooks;
    ChangesSettings changes;
};

// Thrown for a bad or unreadable configuration; the message names the key. Binaries exit 78.
struct ConfigError : std::runtime_error {
    using std::runtime_error::runtime_error;
};
constexpr int kExitConfig = 78;  // EX_CONFIG

// The options every binary shares (config file + server + database keys).
boost::program_options::options_description config_options();

// The command line of a daemon (supportcrm-fcgi, supportcrm-webhooks): --help, --version,
// --config FILE, --test-config, then every key of config_options().
boost::program_options::options_description daemon_command_line(const std::string& program);

// One row of the same list, for the documentation checks: the key, its default as a config
// file spells it ("" when empty) and its help.
struct ConfigKey {
    std::string name;
    std::string default_text;
    std::string help;
};
// Every key of config_options(), in its order.
std::vector<ConfigKey> config_keys();

// Reads the config file named by --config (default /etc/supportcrm/supportcrm.conf; missing,
// either is an error), then its drop-ins: conf.d/*.conf in the same directory, in lexical order
// (the same keys and checks; a later file's key wins over an earlier one's and over the main
// file's; an unknown key is an error there too). Merges them under the command line values,
// validates every key (listen:
// a unix path, or host:port with a port 1-65535; listen-owner and listen-group: existing
// names) and reads db-password-file, unless --db-password was given on the command line: that
// wins over both file keys. Throws ConfigError.
Config load_config(const boost::program_options::variables_map& command_line);

// For a unix `listen` path: its directory must exist (what --test-config adds to
// load_config's checks; at start the bind itself reports it). Throws ConfigError.
void check_listen_directory(const Config& config);

// One line for the start-up log: the settings that matter, never the password.
std::string describe(const Config& config);

}  // namespace supportcrm
