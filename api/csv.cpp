#include "api/csv.h"

namespace supportcrm::csv {
namespace {

constexpr std::string_view kNoBreakSpace = "\xc2\xa0";  // U+00A0
// Full-width forms (U+FF1D U+FF0B U+FF0D U+FF20) that spreadsheets in East Asian locales
// read as = + - @.
constexpr std::string_view kFullWidthTriggers[] = {"\xef\xbc\x9d", "\xef\xbc\x8b", "\xef\xbc\x8d",
                                                   "\xef\xbc\xa0"};

bool is_trigger(char c) {
    return c == '=' || c == '+' || c == '-' || c == '@' || c == '\t' || c == '\r';
}

// Whether a part a spreadsheet may split out (the cell, or what follows a ',' or ';' in it) would
// be read as a formula: it starts with a trigger, or with a full-width one, after any spaces and
// no-break spaces (spreadsheets skip them).
bool starts_formula(std::string_view part) {
    if (!part.empty() && is_trigger(part[0])) {
        return true;  // a leading tab or CR is itself a trigger
    }
    while (true) {
        if (!part.empty() && part[0] == ' ') {
            part.remove_prefix(1);
        } else if (part.substr(0, kNoBreakSpace.size()) == kNoBreakSpace) {
            part.remove_prefix(kNoBreakSpace.size());
        } else {
            break;
        }
    }
    if (!part.empty() && is_trigger(part[0])) {
        return true;
    }
    for (std::string_view full_width : kFullWidthTriggers) {
        if (part.substr(0, full_width.size()) == full_width) {
            return true;
        }
    }
    return false;
}

}  // namespace

void append_cell(std::string& out, std::string_view value) {
    const bool quoted = value.find_first_of(",;\"\r\n") != std::string_view::npos;
    if (quoted) {
        out += '"';
    }
    bool part_start = true;
    for (std::size_t i = 0; i < value.size(); ++i) {
        if (part_start && starts_formula(value.substr(i))) {
            out += '\'';
        }
        const char c = value[i];
        if (c == '"') {
            out += '"';
        }
        out += c;
        part_start = c == ',' || c == ';';
    }
    if (quoted) {
        out += '"';
    }
}

}  // namespace supportcrm::csv
