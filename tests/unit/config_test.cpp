// The configuration keys are declared once (common/config.cpp, defaults in config.h and
// db_settings.h); the shipped example config and the two documentation tables are copies a
// person writes. These tests hold the copies to the declaration: every key, no other key, and
// each key's real default.
#include "common/config.h"

#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <boost/program_options.hpp>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace po = boost::program_options;
using supportcrm::Config;
using supportcrm::config_keys;
using supportcrm::config_options;

using KeyDefaults = std::map<std::string, std::string>;  // key -> default as text

std::string read_file(const std::string& path) {
    std::ifstream in(path);
    EXPECT_TRUE(in) << "cannot read " << path;
    std::ostringstream out;
    out << in.rdbuf();
    return out.str();
}

std::string trim(const std::string& s) {
    const auto b = s.find_first_not_of(" \t");
    if (b == std::string::npos) {
        return "";
    }
    return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

std::vector<std::string> split(const std::string& s, const std::string& separator) {
    std::vector<std::string> parts;
    std::size_t from = 0;
    for (std::size_t at; (at = s.find(separator, from)) != std::string::npos;
         from = at + separator.size()) {
        parts.push_back(trim(s.substr(from, at - from)));
    }
    parts.push_back(trim(s.substr(from)));
    return parts;
}

// Adds key -> value, failing on a key listed twice.
void add(KeyDefaults& keys, const std::string& key, const std::string& value,
         const std::string& where) {
    EXPECT_TRUE(keys.emplace(key, value).second) << where << " lists " << key << " twice";
}

KeyDefaults declared() {
    KeyDefaults keys;
    for (const auto& key : config_keys()) {
        add(keys, key.name, key.default_text, "config_keys()");
    }
    return keys;
}

// The first Markdown table after the heading that starts with `heading`: | key | default | …
// "a / b" in both of the first two cells is two keys, "(empty)" an empty default and <prefix>
// the install prefix; backticks are dropped.
KeyDefaults markdown_table(const std::string& path, const std::string& heading) {
    std::istringstream in(read_file(path));
    std::string line;
    bool in_section = false;
    bool in_table = false;
    int row = 0;
    KeyDefaults keys;
    while (std::getline(in, line)) {
        if (!in_section) {
            in_section = line.rfind(heading, 0) == 0;
            continue;
        }
        if (line.empty() || line[0] != '|') {
            if (in_table) {
                break;
            }
            continue;
        }
        in_table = true;
        if (++row <= 2) {  // the header and the |---| line
            continue;
        }
        line.erase(std::remove(line.begin(), line.end(), '`'), line.end());
        const std::vector<std::string> cells = split(line.substr(1), "|");
        if (cells.size() < 2) {
            ADD_FAILURE() << path << ": a row with fewer than two cells: " << line;
            continue;
        }
        const std::vector<std::string> names = split(cells[0], " / ");
        const std::vector<std::string> defaults = split(cells[1], " / ");
        if (names.size() != defaults.size()) {
            ADD_FAILURE() << path << ": " << names.size() << " keys but " << defaults.size()
                          << " defaults: " << line;
            continue;
        }
        for (std::size_t i = 0; i < names.size(); ++i) {
            std::string value = defaults[i] == "(empty)" ? "" : defaults[i];
            if (value.rfind("<prefix>", 0) == 0) {
                value.replace(0, 8, SUPPORTCRM_INSTALL_PREFIX);
            }
            add(keys, names[i], value, path);
        }
    }
    EXPECT_TRUE(in_section) << path << " has no heading starting with '" << heading << "'";
    EXPECT_TRUE(in_table) << path << " has no table under '" << heading << "'";
    return keys;
}

// The installed example: every key as "#key = default" (or uncommented).
KeyDefaults example_config(const std::string& path) {
    static const std::regex key_line("^#?([a-z][a-z0-9-]*)[ \t]*=(.*)$");
    std::istringstream in(read_file(path));
    std::string line;
    KeyDefaults keys;
    while (std::getline(in, line)) {
        std::smatch m;
        if (std::regex_match(line, m, key_line)) {
            add(keys, m[1], trim(m[2]), path);
        }
    }
    return keys;
}

// Names a missing, an extra and a differing key each by name.
void expect_same_keys(const KeyDefaults& copy, const std::string& where) {
    const KeyDefaults real = declared();
    for (const auto& [key, value] : real) {
        const auto it = copy.find(key);
        if (it == copy.end()) {
            ADD_FAILURE() << where << " does not list the key " << key << " (default '" << value
                          << "')";
        } else {
            EXPECT_EQ(it->second, value) << where << ": the default of " << key;
        }
    }
    for (const auto& [key, value] : copy) {
        EXPECT_TRUE(real.count(key)) << where << " lists " << key << ", which is not a key";
    }
}

TEST(Config, ShippedExampleListsEveryKeyWithItsDefault) {
    // The copy CMake configured from etc/supportcrm.conf.in (@VAR@ substituted): what installs.
    expect_same_keys(example_config(SUPPORTCRM_BINARY_DIR "/etc/supportcrm.conf"),
                     "etc/supportcrm.conf.in");
}

TEST(Config, ReadmeTableListsEveryKeyWithItsDefault) {
    expect_same_keys(markdown_table(SUPPORTCRM_SOURCE_DIR "/README.md", "## Configuration"),
                     "README.md's Configuration table");
}

TEST(Config, InterfacesTableListsEveryKeyWithItsDefault) {
    expect_same_keys(markdown_table(SUPPORTCRM_SOURCE_DIR "/docs/INTERFACES.md", "## Config keys"),
                     "docs/INTERFACES.md's Config keys table");
}

TEST(Config, TheChecksSeeAMissingAnExtraAndADifferentKey) {
    KeyDefaults copy = declared();
    copy.erase("workers");
    copy["no-such-key"] = "1";
    copy["db-port"] = "3307";
    ::testing::TestPartResultArray failures;
    {
        ::testing::ScopedFakeTestPartResultReporter reporter(
            ::testing::ScopedFakeTestPartResultReporter::INTERCEPT_ONLY_CURRENT_THREAD, &failures);
        expect_same_keys(copy, "copy");
    }
    ASSERT_EQ(failures.size(), 3);
    std::string all;
    for (int i = 0; i < failures.size(); ++i) {
        all += failures.GetTestPartResult(i).message();
    }
    EXPECT_NE(all.find("does not list the key workers"), std::string::npos) << all;
    EXPECT_NE(all.find("no-such-key, which is not a key"), std::string::npos) << all;
    EXPECT_NE(all.find("the default of db-port"), std::string::npos) << all;
}

// --help shows each default as the table has it ("arg (=0660)"; an empty one shows none).
TEST(Config, HelpShowsTheTablesDefaults) {
    const po::options_description options = config_options();
    const auto keys = config_keys();
    ASSERT_EQ(options.options().size(), keys.size());
    for (const auto& key : keys) {
        const po::option_description& option = options.find(key.name, false);
        EXPECT_EQ(option.format_parameter(),
                  key.default_text.empty() ? "arg" : "arg (=" + key.default_text + ")")
            << key.name;
        EXPECT_EQ(option.description(), key.help) << key.name;
    }
}

// With no file and no flags, load_config yields the struct's own defaults: the table reads
// each key back into the member its default came from.
TEST(Config, NoKeysGiveTheStructsDefaults) {
    char path[] = "/tmp/supportcrm-config-test-XXXXXX";
    const int fd = mkstemp(path);
    ASSERT_GE(fd, 0);
    close(fd);
    po::options_description options;
    options.add_options()("config", po::value<std::string>());
    options.add(config_options());
    const char* argv[] = {"test", "--config", path};
    po::variables_map command_line;
    po::store(po::parse_command_line(3, argv, options), command_line);
    const Config c = supportcrm::load_config(command_line);
    std::remove(path);

    const Config d;
    EXPECT_EQ(c.config_file, path);
    EXPECT_EQ(c.listen, d.listen);
    EXPECT_EQ(c.listen_mode, d.listen_mode);
    EXPECT_EQ(c.listen_backlog, d.listen_backlog);
    EXPECT_GE(c.workers, 1u);  // 0 means one per CPU
    EXPECT_EQ(d.workers, 0u);
    EXPECT_EQ(c.shutdown_timeout, d.shutdown_timeout);
    EXPECT_EQ(c.db.host, d.db.host);
    EXPECT_EQ(c.db.port, d.db.port);
    EXPECT_EQ(c.db.socket, d.db.socket);
    EXPECT_EQ(c.db.name, d.db.name);
    EXPECT_EQ(c.db.user, d.db.user);
    EXPECT_EQ(c.db.password, d.db.password);
    EXPECT_EQ(c.db_password_file, d.db_password_file);
    EXPECT_EQ(c.max_body_bytes, d.max_body_bytes);
    EXPECT_EQ(c.log_level, d.log_level);
    EXPECT_EQ(c.migrations_dir, d.migrations_dir);
}

}  // namespace
