// load_config's checks beyond the key list (common/config.cpp): a missing config file,
// `listen`'s shape and directory, listen-owner/-group names, which password wins, and the
// conf.d drop-ins.
#include <grp.h>
#include <gtest/gtest.h>
#include <pwd.h>
#include <unistd.h>

#include <boost/program_options.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "common/config.h"

namespace {

namespace po = boost::program_options;
using supportcrm::Config;
using supportcrm::ConfigError;

// A temporary file with the given text, removed at the end of the test.
class TempFile {
  public:
    explicit TempFile(const std::string& text) {
        char path[] = "/tmp/supportcrm-config-validation-XXXXXX";
        const int fd = mkstemp(path);
        EXPECT_GE(fd, 0);
        close(fd);
        path_ = path;
        std::ofstream(path_) << text;
    }
    ~TempFile() { std::remove(path_.c_str()); }
    const std::string& path() const { return path_; }

  private:
    std::string path_;
};

// load_config as a binary calls it: the options of main() plus `args`.
Config load(const std::vector<std::string>& args) {
    po::options_description options;
    options.add_options()("config",
                          po::value<std::string>()->default_value(SUPPORTCRM_CONFIG_FILE));
    options.add(supportcrm::config_options());
    std::vector<const char*> argv{"test"};
    for (const std::string& a : args) {
        argv.push_back(a.c_str());
    }
    po::variables_map command_line;
    po::store(po::parse_command_line(static_cast<int>(argv.size()), argv.data(), options),
              command_line);
    return supportcrm::load_config(command_line);
}

Config load_file(const TempFile& file, std::vector<std::string> args = {}) {
    args.insert(args.begin(), {"--config", file.path()});
    return load(args);
}

// The ConfigError message load() throws, "" when it loads.
std::string error_of(const std::vector<std::string>& args) {
    try {
        load(args);
    } catch (const ConfigError& e) {
        return e.what();
    }
    return "";
}

TEST(ConfigValidation, AMissingNamedConfigFileIsAnErrorWithErrnoAndUser) {
    const std::string message = error_of({"--config", "/nonexistent/supportcrm.conf"});
    EXPECT_NE(message.find("cannot read /nonexistent/supportcrm.conf: No such file or directory "
                           "(errno 2, as user "),
              std::string::npos)
        << message;
}

TEST(ConfigValidation, ListenTakesAUnixPathOrHostAndANumericPort) {
    TempFile file("");
    for (const char* good : {"/run/x.sock", "127.0.0.1:9000", ":9000", "[::1]:1", "h:65535"}) {
        EXPECT_EQ(load_file(file, {"--listen", good}).listen, good);
    }
    for (const char* bad : {"127.0.0.1:notaport", "127.0.0.1", "127.0.0.1:0", "h:65536",
                            "h:", "h:-1", "h:+80", "relative/path.sock", "h:9000000"}) {
        try {
            load_file(file, {"--listen", bad});
            ADD_FAILURE() << "accepted listen = " << bad;
        } catch (const ConfigError& e) {
            EXPECT_EQ(std::string(e.what()).rfind("listen: ", 0), 0u) << e.what();
        }
    }
    EXPECT_THROW(load_file(file, {"--listen", "/" + std::string(120, 'a')}), ConfigError);
}

TEST(ConfigValidation, DbHostsIsAnOrderedListOfHostAndPortNotWithASocket) {
    using supportcrm::DbEndpoint;
    TempFile file("");
    EXPECT_TRUE(load_file(file).db.hosts.empty());
    EXPECT_EQ(load_file(file, {"--db-hosts", "10.0.0.2:3306, db3:3307 ,127.0.0.1:14306"}).db.hosts,
              (std::vector<DbEndpoint>{{"10.0.0.2", 3306}, {"db3", 3307}, {"127.0.0.1", 14306}}));
    EXPECT_EQ(load_file(file, {"--db-hosts", "db1:1"}).db.hosts,
              (std::vector<DbEndpoint>{{"db1", 1}}));
    for (const char* bad :
         {"db1", "db1:", ":3306", "db1:0", "db1:65536", "db1:3306,", "a:1,,b:2", "db1:33x6"}) {
        try {
            load_file(file, {"--db-hosts", bad});
            ADD_FAILURE() << "accepted db-hosts = " << bad;
        } catch (const ConfigError& e) {
            EXPECT_EQ(std::string(e.what()).rfind("db-hosts: ", 0), 0u) << e.what();
        }
    }
    try {
        load_file(file, {"--db-hosts", "db1:3306", "--db-socket", "/run/mysqld/mysqld.sock"});
        ADD_FAILURE() << "accepted db-hosts with db-socket";
    } catch (const ConfigError& e) {
        EXPECT_EQ(std::string(e.what()).rfind("db-hosts and db-socket", 0), 0u) << e.what();
    }
}

TEST(ConfigValidation, TheDirectoryOfAUnixListenPathMustExist) {
    TempFile file("");
    EXPECT_NO_THROW(supportcrm::check_listen_directory(load_file(file, {"--listen", "/tmp/s"})));
    EXPECT_NO_THROW(
        supportcrm::check_listen_directory(load_file(file, {"--listen", "127.0.0.1:9000"})));
    try {
        supportcrm::check_listen_directory(load_file(file, {"--listen", "/nonexistent/d/s"}));
        ADD_FAILURE() << "accepted a socket in a missing directory";
    } catch (const ConfigError& e) {
        EXPECT_NE(std::string(e.what()).find("/nonexistent/d"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("as user"), std::string::npos) << e.what();
    }
    // A file where the directory should be.
    EXPECT_THROW(
        supportcrm::check_listen_directory(load_file(file, {"--listen", file.path() + "/s.sock"})),
        ConfigError);
}

TEST(ConfigValidation, ListenOwnerAndGroupAreResolvedOrRejected) {
    TempFile file("");
    const Config none = load_file(file);
    EXPECT_EQ(none.listen_uid, static_cast<uid_t>(-1));
    EXPECT_EQ(none.listen_gid, static_cast<gid_t>(-1));

    const passwd* me = getpwuid(geteuid());
    const group* my_group = getgrgid(getegid());
    ASSERT_NE(me, nullptr);
    ASSERT_NE(my_group, nullptr);
    const std::string user = me->pw_name;
    const std::string group_name = my_group->gr_name;
    TempFile named("listen-owner = " + user + "\nlisten-group = " + group_name + "\n");
    const Config c = load_file(named);
    EXPECT_EQ(c.listen_uid, geteuid());
    EXPECT_EQ(c.listen_gid, getegid());

    EXPECT_NE(error_of({"--config", file.path(), "--listen-owner", "no-such-user-x"})
                  .find("listen-owner: no such user 'no-such-user-x'"),
              std::string::npos);
    EXPECT_NE(error_of({"--config", file.path(), "--listen-group", "no-such-group-x"})
                  .find("listen-group: no such group 'no-such-group-x'"),
              std::string::npos);
}

TEST(ConfigValidation, ThePasswordFlagWinsOverThePasswordFileWhichWinsOverTheFileKey) {
    TempFile password("from-the-password-file\n");
    TempFile file("db-password = from-the-config-file\ndb-password-file = " + password.path() +
                  "\n");
    EXPECT_EQ(load_file(file).db.password, "from-the-password-file");
    EXPECT_EQ(load_file(file, {"--db-password", "from-the-flag"}).db.password, "from-the-flag");
    TempFile key_only("db-password = from-the-config-file\n");
    EXPECT_EQ(load_file(key_only).db.password, "from-the-config-file");
}

TEST(ConfigValidation, AnUnreadablePasswordFileSaysWhyAndAsWhom) {
    TempFile file("db-password-file = /nonexistent/db-password\n");
    const std::string message = error_of({"--config", file.path()});
    EXPECT_NE(message.find("db-password-file: cannot read /nonexistent/db-password: No such file "
                           "or directory (errno 2, as user "),
              std::string::npos)
        << message;
}

}  // namespace

namespace {

TEST(ConfigValidation, WebhookRetentionDefaultsTo30DaysAndMustCoverTheRetryWindow) {
    TempFile file("");
    EXPECT_EQ(load_file(file).webhooks.retention_days, 30u);
    EXPECT_EQ(load_file(file, {"--webhook-retention-days", "1"}).webhooks.retention_days, 1u);
    // 1 day is 86400 s: exactly the default retry window, still covered.
    EXPECT_EQ(load_file(file, {"--webhook-retention-days", "1", "--webhook-retry-for", "86400"})
                  .webhooks.retention_days,
              1u);
    for (const std::vector<std::string>& bad :
         {std::vector<std::string>{"--webhook-retention-days", "0"},
          std::vector<std::string>{"--webhook-retention-days", "1", "--webhook-retry-for", "86401"},
          std::vector<std::string>{"--webhook-retention-days", "2", "--webhook-retry-for",
                                   "604800"}}) {
        try {
            load_file(file, bad);
            ADD_FAILURE() << "accepted " << bad[1];
        } catch (const ConfigError& e) {
            EXPECT_EQ(std::string(e.what()).rfind("webhook-retention-days: ", 0), 0u) << e.what();
        }
    }
}

// The exports' own terminate timer: longer than the other routes' by default, never shorter
// (0, off, is the longest).
TEST(ConfigValidation, StreamTerminateTimeoutIsOffOrAtLeastTheRequestTimeout) {
    TempFile file("");
    const Config defaults = load_file(file);
    EXPECT_EQ(defaults.request_terminate_timeout, 30u);
    EXPECT_EQ(defaults.stream_terminate_timeout, 1800u);
    const Config set =
        load_file(file, {"--request-terminate-timeout", "6", "--stream-terminate-timeout", "6"});
    EXPECT_EQ(set.stream_terminate_timeout, 6u);
    EXPECT_EQ(load_file(file, {"--stream-terminate-timeout", "0"}).stream_terminate_timeout, 0u);
    EXPECT_EQ(
        load_file(file, {"--request-terminate-timeout", "0", "--stream-terminate-timeout", "5"})
            .stream_terminate_timeout,
        5u);
    EXPECT_EQ(error_of({"--config", file.path(), "--stream-terminate-timeout", "29"}),
              "stream-terminate-timeout: must be 0 (off) or at least request-terminate-timeout "
              "(30)");
    EXPECT_EQ(error_of({"--config", file.path(), "--stream-terminate-timeout", "86401"}),
              "stream-terminate-timeout: must be between 0 and 86400 (seconds)");
}

// conf.d/*.conf beside the config file (common/config.h): read after it, in lexical order, with
// the same keys and checks.
class ConfigDir {
  public:
    ConfigDir() {
        char path[] = "/tmp/supportcrm-config-dir-XXXXXX";
        EXPECT_NE(mkdtemp(path), nullptr);
        dir_ = path;
    }
    ~ConfigDir() { std::filesystem::remove_all(dir_); }
    // Writes `name` (a path under the directory) with `text`.
    std::string write(const std::string& name, const std::string& text) {
        const std::filesystem::path path = dir_ / name;
        std::filesystem::create_directories(path.parent_path());
        std::ofstream(path) << text;
        return path.string();
    }
    std::string main_file() const { return (dir_ / "supportcrm.conf").string(); }

  private:
    std::filesystem::path dir_;
};

TEST(ConfigDropIns, ALaterDropInWinsOverAnEarlierOneAndTheMainFileAndAFlagOverAll) {
    ConfigDir dir;
    dir.write("supportcrm.conf", "workers = 3\nmax-body-bytes = 100\ndb-name = main\n");
    dir.write("conf.d/20-late.conf", "workers = 5\n");
    dir.write("conf.d/10-early.conf", "workers = 4\nmax-body-bytes = 200\n");
    Config c = load({"--config", dir.main_file()});
    EXPECT_EQ(c.workers, 5u);           // 20-late.conf over 10-early.conf over the main file
    EXPECT_EQ(c.max_body_bytes, 200u);  // 10-early.conf over the main file
    EXPECT_EQ(c.db.name, "main");       // only in the main file
    ASSERT_EQ(c.config_drop_ins.size(), 2u);
    EXPECT_EQ(c.config_drop_ins[0],
              dir.main_file().substr(0, dir.main_file().rfind('/')) + "/conf.d/10-early.conf");
    EXPECT_NE(supportcrm::describe(c).find("+" + c.config_drop_ins[1]), std::string::npos);
    EXPECT_EQ(load({"--config", dir.main_file(), "--workers", "7"}).workers, 7u);
}

TEST(ConfigDropIns, OnlyConfFilesAreReadAndNoDirectoryIsNoDropIns) {
    ConfigDir dir;
    dir.write("supportcrm.conf", "workers = 3\n");
    EXPECT_TRUE(load({"--config", dir.main_file()}).config_drop_ins.empty());
    dir.write("conf.d/10-x.conf.dpkg-old", "workers = 9\n");
    dir.write("conf.d/.10-hidden.conf", "workers = 9\n");
    dir.write("conf.d/README", "not a config file\n");
    Config c = load({"--config", dir.main_file()});
    EXPECT_EQ(c.workers, 3u);
    EXPECT_TRUE(c.config_drop_ins.empty());
}

TEST(ConfigDropIns, ADropInHasTheSameChecksAndUnknownKeysAreErrors) {
    ConfigDir dir;
    dir.write("supportcrm.conf", "workers = 3\n");
    const std::string typo = dir.write("conf.d/50-typo.conf", "wokers = 4\n");
    std::string message = error_of({"--config", dir.main_file()});
    EXPECT_NE(message.find(typo), std::string::npos) << message;
    EXPECT_NE(message.find("wokers"), std::string::npos) << message;
    dir.write("conf.d/50-typo.conf", "ready-timeout = 0\n");
    EXPECT_EQ(error_of({"--config", dir.main_file()}), "ready-timeout: must be at least 1");
}

}  // namespace
