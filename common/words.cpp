#include "common/words.h"

#include <locale.h>
#include <wctype.h>

#include <algorithm>
#include <stdexcept>

#include "common/text.h"

namespace supportcrm::words {
namespace {

// The C.UTF-8 locale's character classes, opened once per process (thread-safe *_l calls; the
// process's global locale stays "C").
locale_t utf8_locale() {
    static const locale_t loc = [] {
        locale_t l = newlocale(LC_CTYPE_MASK, "C.UTF-8", static_cast<locale_t>(0));
        if (l == static_cast<locale_t>(0)) {
            throw std::runtime_error("the C.UTF-8 locale is not available (full-text search)");
        }
        return l;
    }();
    return loc;
}

// Decodes one well-formed UTF-8 sequence at s[i]; returns its code point and advances i, or
// returns -1 and advances by one byte for anything else.
long decode(std::string_view s, std::size_t& i) {
    const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
    const unsigned char c = b(i);
    if (c < 0x80) {
        ++i;
        return c;
    }
    std::size_t n = 0;
    long cp = 0, min = 0;
    if ((c & 0xE0) == 0xC0) {
        n = 1, cp = c & 0x1F, min = 0x80;
    } else if ((c & 0xF0) == 0xE0) {
        n = 2, cp = c & 0x0F, min = 0x800;
    } else if ((c & 0xF8) == 0xF0) {
        n = 3, cp = c & 0x07, min = 0x10000;
    } else {
        ++i;
        return -1;
    }
    if (i + n >= s.size()) {  // the sequence is cut short
        ++i;
        return -1;
    }
    for (std::size_t k = 1; k <= n; ++k) {
        if ((b(i + k) & 0xC0) != 0x80) {
            ++i;
            return -1;
        }
        cp = (cp << 6) | (b(i + k) & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
        ++i;
        return -1;
    }
    i += n + 1;
    return cp;
}

// C.UTF-8's iswalnum for a code point under 0x80 (its towlower(towupper(c)) there is the
// ASCII lower case): the common case of a comment's text, decided without the locale's tables.
bool ascii_alnum(char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

// Ends the word in hand: kept when long enough.
void finish(std::vector<std::string>& out, std::string& word, std::size_t& chars) {
    if (chars >= kMinWord) {
        out.push_back(std::move(word));
    }
    word.clear();
    chars = 0;
}

}  // namespace

std::vector<std::string> split(std::string_view s) {
    const locale_t loc = utf8_locale();
    std::vector<std::string> out;
    std::string word;
    std::size_t chars = 0;
    for (std::size_t i = 0; i < s.size();) {
        const long cp = decode(s, i);
        if (cp >= 0 && cp < 0x80) {  // ASCII: what C.UTF-8 says, without its table look-ups
            const char c = static_cast<char>(cp);
            if (!ascii_alnum(c)) {
                finish(out, word, chars);
                continue;
            }
            if (chars < kMaxWord) {
                word.push_back(c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c);
            }
            ++chars;
            continue;
        }
        if (cp < 0 || !iswalnum_l(static_cast<wint_t>(cp), loc)) {
            finish(out, word, chars);
            continue;
        }
        if (chars < kMaxWord) {
            text::append_utf8(word, static_cast<std::uint32_t>(
                                        towlower_l(towupper_l(static_cast<wint_t>(cp), loc), loc)));
        }
        ++chars;
    }
    finish(out, word, chars);
    return out;
}

std::vector<std::string> distinct(const std::vector<std::string_view>& texts) {
    std::vector<std::string> out;
    for (std::string_view t : texts) {
        std::vector<std::string> w = split(t);
        out.insert(out.end(), std::make_move_iterator(w.begin()), std::make_move_iterator(w.end()));
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

std::vector<std::string> query(std::string_view q) {
    std::vector<std::string> sorted = distinct({q});
    // Sorted, a word that starts another comes right before one it starts (or before a run of
    // words it starts all of): dropping each word that starts its successor leaves no such pair.
    std::vector<std::string> out;
    for (std::size_t i = 0; i < sorted.size(); ++i) {
        const bool starts_next =
            i + 1 < sorted.size() && sorted[i + 1].compare(0, sorted[i].size(), sorted[i]) == 0;
        if (!starts_next) {
            out.push_back(std::move(sorted[i]));
        }
    }
    std::stable_sort(out.begin(), out.end(), [](const std::string& a, const std::string& b) {
        return a.size() > b.size();
    });
    return out;
}

std::string json_array(const std::vector<std::string>& words) {
    std::string out = "[";
    for (const std::string& w : words) {
        if (out.size() > 1) {
            out.push_back(',');
        }
        out.push_back('"');
        out.append(w);
        out.push_back('"');
    }
    out.push_back(']');
    return out;
}

namespace {

// Is w one of the space-separated words of list? (w is never empty nor holds a space.)
bool listed(std::string_view list, std::string_view w) {
    for (std::size_t at = list.find(w); at != std::string_view::npos; at = list.find(w, at + 1)) {
        const std::size_t end = at + w.size();
        if ((at == 0 || list[at - 1] == ' ') && (end == list.size() || list[end] == ' ')) {
            return true;
        }
    }
    return false;
}

}  // namespace

std::vector<std::string> missing_from(std::string_view known,
                                      const std::vector<std::string>& words) {
    std::vector<std::string> out;
    for (const std::string& w : words) {
        if (!listed(known, w)) {
            out.push_back(w);
        }
    }
    return out;
}

std::optional<std::string> known_addition(std::string_view known,
                                          const std::vector<std::string>& fresh) {
    std::string out;
    for (const std::string& w : fresh) {
        if (!out.empty()) {
            out.push_back(' ');
        }
        out.append(w);
    }
    if (known.size() + (known.empty() ? 0 : 1) + out.size() > kKnownBytes) {
        return std::nullopt;
    }
    return out;
}

}  // namespace supportcrm::words
