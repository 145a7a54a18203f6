// Where the database is and who logs in: the part of the configuration the data layer needs,
// apart from common/config.h so that Boost.Program_options stays out of db/ and above.
#pragma once

#include <string>
#include <vector>

namespace supportcrm {

// One MariaDB server reached over TCP.
struct DbEndpoint {
    std::string host;
    unsigned port = 3306;
    bool operator==(const DbEndpoint& o) const { return host == o.host && port == o.port; }
};

struct DbSettings {
    std::string host = "localhost";
    unsigned port = 3306;
    std::string socket;  // empty: TCP to host:port
    // db-hosts: servers of one Galera cluster tried in this order on every connect (the first
    // that answers and is ready serves); when set, host and port above are not used.
    std::vector<DbEndpoint> hosts;
    std::string name = "supportcrm";
    std::string user = "supportcrm";
    std::string password;
};

}  // namespace supportcrm
