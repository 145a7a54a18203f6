#include "common/words.h"

#include <unicode/bytestream.h>
#include <unicode/normalizer2.h>
#include <unicode/uchar.h>
#include <unicode/utf8.h>

#include <algorithm>
#include <stdexcept>

namespace supportcrm::words {
namespace {

// ICU's NFKC_Casefold: a process-wide instance of ICU's own, loaded with its data on first use
// and looked up once here (split() runs on every comment write: nothing per call).
const icu::Normalizer2& nfkc_casefold() {
    static const icu::Normalizer2* const instance = [] {
        UErrorCode status = U_ZERO_ERROR;
        const icu::Normalizer2* n = icu::Normalizer2::getNFKCCasefoldInstance(status);
        if (U_FAILURE(status) || n == nullptr) {
            throw std::runtime_error(std::string("ICU's NFKC_Casefold is not available: ") +
                                     u_errorName(status));
        }
        return n;
    }();
    return *instance;
}

bool is_ascii(char c) {
    return static_cast<unsigned char>(c) < 0x80;
}

// The length of the well-formed UTF-8 sequence of a code point at s[i] (a non-ASCII lead
// byte), or 0 when it is not one (cut short, overlong, a surrogate, past U+10FFFF).
std::size_t sequence_length(std::string_view s, std::size_t i) {
    std::int32_t at = static_cast<std::int32_t>(i);
    UChar32 c = 0;
    const std::int32_t length =
        static_cast<std::int32_t>(std::min<std::size_t>(s.size(), INT32_MAX));
    U8_NEXT(reinterpret_cast<const std::uint8_t*>(s.data()), at, length, c);
    return c < 0 ? 0 : static_cast<std::size_t>(at) - i;
}

// The words of a text as its folded code points come, one at a time.
class Splitter {
  public:
    explicit Splitter(std::vector<std::string>& out) : out_(out) {}

    // An ASCII character followed by another (or by the end): NFKC_Casefold maps it to itself
    // but A-Z to a-z, and of ASCII only letters and digits are L* or Nd.
    void ascii(char c) {
        if (c >= 'A' && c <= 'Z') {
            c = static_cast<char>(c - 'A' + 'a');
        } else if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))) {
            finish();
            return;
        }
        if (chars_ < kMaxWord) {
            word_.push_back(c);  // not add(): append(p, 1) cost ~2x push_back here (bench/)
        }
        ++chars_;
    }

    // A code point of the folded text, `bytes` long at `at`: a letter, mark or digit goes on
    // with the word (E10: General_Category L*, M* or Nd), anything else ends it.
    void folded(UChar32 c, const char* at, std::size_t bytes) {
        if ((U_GET_GC_MASK(c) & (U_GC_L_MASK | U_GC_M_MASK | U_GC_ND_MASK)) != 0) {
            add(at, bytes);
        } else {
            finish();
        }
    }

    // Ends the word in hand: kept when long enough (in code points of the folded text).
    void finish() {
        if (chars_ >= kMinWord) {
            out_.push_back(std::move(word_));
        }
        word_.clear();
        chars_ = 0;
    }

  private:
    void add(const char* at, std::size_t bytes) {
        if (chars_ < kMaxWord) {  // whole code points only: the cut never splits one
            word_.append(at, bytes);
        }
        ++chars_;
    }

    std::vector<std::string>& out_;
    std::string word_;
    std::size_t chars_ = 0;
};

// Folds a piece of well-formed text that starts at a normalization boundary and feeds its
// code points to `words`; `buffer` holds the folded piece (reused: pieces are short).
void fold_piece(std::string_view piece, std::string& buffer, Splitter& words) {
    buffer.clear();
    icu::StringByteSink<std::string> sink(&buffer);
    UErrorCode status = U_ZERO_ERROR;
    nfkc_casefold().normalizeUTF8(
        0, icu::StringPiece(piece.data(), static_cast<std::int32_t>(piece.size())), sink, nullptr,
        status);
    if (U_FAILURE(status)) {
        throw std::runtime_error(std::string("NFKC_Casefold failed: ") + u_errorName(status));
    }
    const auto* bytes = reinterpret_cast<const std::uint8_t*>(buffer.data());
    const auto length = static_cast<std::int32_t>(buffer.size());
    for (std::int32_t i = 0; i < length;) {
        const std::int32_t from = i;
        UChar32 c = 0;
        U8_NEXT(bytes, i, length, c);
        words.folded(c < 0 ? U_SENTINEL : c, buffer.data() + from,
                     static_cast<std::size_t>(i - from));
    }
}

// Where the piece that starts at s[i] ends: after its first character (an ASCII one that a
// non-ASCII one follows, or a well-formed non-ASCII one), over the well-formed non-ASCII ones
// that follow, up to the next ASCII character or ill-formed byte. i when s[i] is ill-formed.
std::size_t piece_end(std::string_view s, std::size_t i) {
    std::size_t end = is_ascii(s[i]) ? i + 1 : i;
    while (end < s.size() && !is_ascii(s[end])) {
        const std::size_t n = sequence_length(s, end);
        if (n == 0) {
            break;
        }
        end += n;
    }
    return end;
}

}  // namespace

// NFKC_Casefold of the whole text is the folds of pieces that each start at a normalization
// boundary, put together: every ASCII character has one before it (a unit test checks all
// 128), and an ill-formed byte ends a piece as a separator would. So ASCII that only ASCII
// follows is folded here, without ICU (most of a comment's text); the character before a
// non-ASCII one goes with it to ICU (it may compose with it: e + U+0301 is é, < + U+0338 is ≮).
std::vector<std::string> split(std::string_view s) {
    std::vector<std::string> out;
    Splitter words(out);
    std::string buffer;
    for (std::size_t i = 0; i < s.size();) {
        std::size_t ascii_end = i;
        while (ascii_end < s.size() && is_ascii(s[ascii_end])) {
            ++ascii_end;
        }
        // The run's last character goes to ICU with what follows it, if anything does.
        const std::size_t alone = ascii_end < s.size() && ascii_end > i ? ascii_end - 1 : ascii_end;
        for (; i < alone; ++i) {
            words.ascii(s[i]);
        }
        if (i == s.size()) {
            break;
        }
        const std::size_t end = piece_end(s, i);
        if (end == i) {  // an ill-formed byte separates words like punctuation does
            words.finish();
            ++i;
            continue;
        }
        fold_piece(s.substr(i, end - i), buffer, words);
        i = end;
    }
    words.finish();
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

}  // namespace supportcrm::words
