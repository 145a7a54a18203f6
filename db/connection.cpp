// Db's connection: opening it with the session every request relies on, db-hosts failover to
// the first ready server, and the lazily prepared statements' home.
#include <cppconn/driver.h>
#include <cppconn/exception.h>
#include <cppconn/metadata.h>
#include <mysql_driver.h>

#include "db/db.h"

namespace supportcrm {

Db::Db(DbSettings settings) : settings_(std::move(settings)), statements_(statement_count()) {}

Db::~Db() {
    disconnect();
}

void Db::disconnect() {
    ledger_.transaction_abandoned();
    transaction_depth_ = 0;
    rollback_only_ = false;
    for (auto& s : statements_) {
        s.reset();
    }
    plain_.reset();
    if (connection_) {
        try {
            connection_->close();
        } catch (const sql::SQLException&) {
            // Closing a connection the server already dropped; nothing left to release.
        }
        connection_.reset();
    }
}

void Db::connect() {
    disconnect();
    lost_ = false;
    if (!settings_.socket.empty()) {
        sql::ConnectOptionsMap options;
        options["hostName"] = sql::SQLString("localhost");
        options["socket"] = sql::SQLString(settings_.socket);
        open(options, settings_.socket);
        return;
    }
    if (settings_.hosts.empty()) {
        connect_tcp(DbEndpoint{settings_.host, settings_.port});
        return;
    }
    // db-hosts: the first server that answers and is ready serves. A Galera node that is up but
    // outside the primary component (wsrep_ready OFF) would refuse every statement with 1047.
    std::string failures;
    for (const DbEndpoint& endpoint : settings_.hosts) {
        try {
            connect_tcp(endpoint);
            if (cluster_node_ready()) {
                return;
            }
            failures += (failures.empty() ? "" : "; ") + where_ + ": not ready (wsrep_ready OFF)";
        } catch (const DbUnavailable& e) {
            failures += (failures.empty() ? "" : "; ") + std::string(e.what());
        }
        disconnect();
    }
    throw DbUnavailable("no server of db-hosts is ready: " + failures);
}

void Db::connect_tcp(const DbEndpoint& endpoint) {
    sql::ConnectOptionsMap options;
    options["hostName"] = sql::SQLString(endpoint.host);
    options["port"] = static_cast<int>(endpoint.port);
    open(options, endpoint.host + ":" + std::to_string(endpoint.port));
}

bool Db::cluster_node_ready() {
    try {
        ResultSetPtr rs(plain_->executeQuery("SHOW GLOBAL STATUS LIKE 'wsrep_ready'"));
        // No such variable: not a Galera node, a single server is always ready.
        return !rs->next() || std::string(rs->getString(2)) == "ON";
    } catch (const sql::SQLException& e) {
        throw DbUnavailable("database " + where_ + ": cannot read wsrep_ready: code " +
                            std::to_string(e.getErrorCode()));
    }
}

void Db::open(sql::ConnectOptionsMap& options, const std::string& where) {
    where_ = where;
    options["userName"] = sql::SQLString(settings_.user);
    options["password"] = sql::SQLString(settings_.password);
    options["schema"] = sql::SQLString(settings_.name);
    options["OPT_CHARSET_NAME"] = sql::SQLString("utf8mb4");
    options["OPT_CONNECT_TIMEOUT"] = 5;
    options["OPT_READ_TIMEOUT"] = 30;
    options["OPT_WRITE_TIMEOUT"] = 30;
    // Never let the library reconnect behind our back: it would drop the prepared statements
    // and session settings silently. We reconnect ourselves (Db::connect) and re-prepare.
    options["OPT_RECONNECT"] = false;
    // An UPDATE reports the rows it matched, not only those it changed: "is the row there?"
    options["CLIENT_FOUND_ROWS"] = true;
    try {
        sql::mysql::MySQL_Driver* driver = sql::mysql::get_mysql_driver_instance();
        connection_.reset(driver->connect(options));
        plain_.reset(connection_->createStatement());
        // UTC everywhere; strict mode so the server never truncates or coerces silently.
        plain_->execute(
            "SET time_zone = '+00:00', sql_mode = 'STRICT_ALL_TABLES,NO_ZERO_DATE,"
            "NO_ZERO_IN_DATE,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION', "
            "NAMES utf8mb4 COLLATE utf8mb4_bin");
    } catch (const sql::SQLException& e) {
        connection_.reset();
        plain_.reset();
        throw DbUnavailable("cannot connect to the database " + where + ": code " +
                            std::to_string(e.getErrorCode()) + ", SQLSTATE " + e.getSQLStateCStr() +
                            ": " + e.what());
    }
}

std::string Db::server_version() {
    if (!connection_) {
        return "";
    }
    try {
        return std::string(connection_->getMetaData()->getDatabaseProductVersion());
    } catch (const sql::SQLException&) {
        return "";  // only for the log line; never worth failing a request for
    }
}

sql::Connection& Db::connection() {
    if (!connection_) {
        connect();
    }
    return *connection_;
}

sql::Statement& Db::plain() {
    connection();
    return *plain_;
}

}  // namespace supportcrm
