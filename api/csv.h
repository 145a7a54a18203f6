// CSV cells for the CSAT export (extensions.md §E4): RFC 4180 quoting, and the rule against
// formula injection (a cell a spreadsheet would evaluate is prefixed with ').
#pragma once

#include <string>
#include <string_view>

namespace supportcrm::csv {

// Appends one cell: prefixed with ' when it begins with =, +, -, @, tab or carriage return;
// then quoted (inner quotes doubled) when it holds a comma, a quote, CR or LF.
void append_cell(std::string& out, std::string_view value);

// Line ends of RFC 4180.
inline constexpr std::string_view kLineEnd = "\r\n";

}  // namespace supportcrm::csv
