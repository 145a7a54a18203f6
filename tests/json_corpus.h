// nst/JSONTestSuite's test_parsing/ files (../shared/corpora/JSONTestSuite, beside the repo) with
// what extensions.md §E1 expects of each, for the unit, integration and fuzz tests alike.
#pragma once

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#ifndef SUPPORTCRM_JSON_CORPUS_DIR
#error "SUPPORTCRM_JSON_CORPUS_DIR must name the JSONTestSuite test_parsing directory"
#endif

namespace supportcrm::corpus {

enum class Expect { accept, refuse, either };

struct Case {
    std::string name;  // file name, e.g. "n_number_01.json"
    std::string body;  // its bytes
    Expect expect;
};

inline std::string directory() {
    return SUPPORTCRM_JSON_CORPUS_DIR;
}

// What a strict reader does with the file: y_ accepted, n_ refused, i_ either way. The
// contract refuses duplicate member names, which JSONTestSuite counts as valid.
inline Expect expectation(const std::string& name) {
    if (name.rfind("y_object_duplicated_key", 0) == 0) {
        return Expect::refuse;
    }
    switch (name.empty() ? '?' : name[0]) {
        case 'y':
            return Expect::accept;
        case 'n':
            return Expect::refuse;
        default:
            return Expect::either;
    }
}

// Every .json file of the corpus, sorted by name; empty when the directory is missing (the
// tests then fail on the count, never pass vacuously).
inline std::vector<Case> load() {
    std::vector<Case> cases;
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(directory(), ec)) {
        if (entry.path().extension() != ".json") {
            continue;
        }
        std::ifstream in(entry.path(), std::ios::binary);
        std::string body((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        std::string name = entry.path().filename().string();
        Expect expect = expectation(name);
        cases.push_back({std::move(name), std::move(body), expect});
    }
    std::sort(cases.begin(), cases.end(),
              [](const Case& a, const Case& b) { return a.name < b.name; });
    return cases;
}

}  // namespace supportcrm::corpus
