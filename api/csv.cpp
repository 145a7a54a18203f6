#include "api/csv.h"

namespace supportcrm::csv {

void append_cell(std::string& out, std::string_view value) {
    const bool formula =
        !value.empty() && (value[0] == '=' || value[0] == '+' || value[0] == '-' ||
                           value[0] == '@' || value[0] == '\t' || value[0] == '\r');
    const bool quoted = value.find_first_of(",\"\r\n") != std::string_view::npos;
    if (quoted) {
        out += '"';
    }
    if (formula) {
        out += '\'';
    }
    for (char c : value) {
        if (c == '"') {
            out += '"';
        }
        out += c;
    }
    if (quoted) {
        out += '"';
    }
}

}  // namespace supportcrm::csv
