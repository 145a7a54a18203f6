// words::split's cost (common/words.h), the splitting and folding every comment write and every
// `q` runs: a 2 KB comment split N times (default 100,000), English (all ASCII) and
// German/French (a non-ASCII letter every few words), ns per split and per byte
// (docs/performance.md, "Word index"). Run: build/bin/supportcrm-bench-words-split [N]
#include <time.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "common/words.h"

namespace {

double cpu_ns() {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) * 1e9 + static_cast<double>(t.tv_nsec);
}

std::string repeated_to(const std::string& paragraph, std::size_t bytes) {
    std::string out;
    while (out.size() + paragraph.size() <= bytes) {
        out += paragraph;
    }
    return out;
}

void measure(const char* label, const std::string& text, long n) {
    std::size_t words = 0;
    // CPU time of this thread, not wall time: the machine is shared, and a preempted split
    // should not count.
    const double start = cpu_ns();
    for (long i = 0; i < n; ++i) {
        words += supportcrm::words::split(text).size();
    }
    const double ns = cpu_ns() - start;
    std::printf("%-8s %zu bytes, %zu words: %.0f ns per split, %.2f ns per byte\n", label,
                text.size(), words / static_cast<std::size_t>(n), ns / n, ns / n / text.size());
}

}  // namespace

int main(int argc, char** argv) {
    const long n = argc > 1 ? std::atol(argv[1]) : 100000;
    measure("english",
            repeated_to("Hello, my parcel from order 4521 has not arrived yet and the tracking "
                        "page shows nothing since Monday. Could you please check with the "
                        "carrier (DHL) and tell me when I can expect it? Thanks, Anna. ",
                        2048),
            n);
    measure("german",
            repeated_to("Grüße aus München! Mein Paket (Bestellung 4521) ist noch nicht "
                        "angekommen, die Sendungsverfolgung zeigt seit Montag nichts. Könnten "
                        "Sie bitte beim Zusteller nachfragen? Merci, Élodie Müller. ",
                        2048),
            n);
    return 0;
}
