// Where the database is and who logs in: the part of the configuration the data layer needs,
// apart from common/config.h so that Boost.Program_options stays out of db/ and above.
#pragma once

#include <string>

namespace supportcrm {

struct DbSettings {
    std::string host = "localhost";
    unsigned port = 3306;
    std::string socket;  // empty: TCP to host:port
    std::string name = "supportcrm";
    std::string user = "supportcrm";
    std::string password;
};

}  // namespace supportcrm
