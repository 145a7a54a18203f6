// What build this is (issue 43, "know what runs"): the package's version (the CMake project's
// version outside a package) and the git revision it was built from, with "+dirty" when the work
// tree had changes. Both come from one generated file (tools/build_info/build_info.cmake), so a
// new commit recompiles that file only. Shown by --version, the start-up log line, GET /status
// and the supportcrm_build_info metric.
#pragma once

#include <string>
#include <string_view>

namespace supportcrm::build_info {

std::string_view version();   // e.g. "0.1.0", "0.1.0+upgradetest1"
std::string_view revision();  // e.g. "1a2b3c4d5e6f", "1a2b3c4d5e6f+dirty", "unknown"

// "0.1.0 (revision 1a2b3c4d5e6f)": what --version prints after the program's name.
inline std::string describe() {
    return std::string(version()) + " (revision " + std::string(revision()) + ")";
}

}  // namespace supportcrm::build_info
