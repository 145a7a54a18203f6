// CSV cells for the CSAT export (extensions.md §E4): RFC 4180 quoting, and the rule against
// formula injection (a cell, or a part of one, a spreadsheet would evaluate is prefixed with ').
#pragma once

#include <string>
#include <string_view>

namespace supportcrm::csv {

// Appends one cell. Against formula injection, a ' goes before every part a spreadsheet may
// read as a formula: the cell and each part after a ',' or ';' in it (a ';'-separator locale
// splits there) that begins with =, +, -, @, tab or CR, or with a full-width ＝ ＋ － ＠, after
// any spaces and U+00A0. Then the cell is quoted (inner quotes doubled) when it holds a comma,
// a semicolon, a quote, CR or LF.
void append_cell(std::string& out, std::string_view value);

// Line ends of RFC 4180.
inline constexpr std::string_view kLineEnd = "\r\n";

}  // namespace supportcrm::csv
