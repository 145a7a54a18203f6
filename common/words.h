// The words of full-text search (extensions.md §E10, v1.3): the maximal runs of Unicode letters,
// marks and digits (General_Category L*, M*, Nd) of the text after NFKC_Casefold, so that the
// search data and a query compare them byte for byte.
//
// One definition for both sides: the words stored for a ticket (its name, its comments) or a
// customer (email, phone_number, names) and the words of a `q` come from the same function, so
// that "MÜLLER" finds "Müller" whatever the columns' collation (utf8mb4_bin) says.
// NFKC_Casefold is ICU's (Unicode's full case folding, compatibility-decomposed and composed):
// NFD "e\u0301cole" and NFC "école" are one word, "STRASSE" and "straße" fold to "strasse",
// "ﬁnance" to "finance", full-width "ＡＢＣ１" to "abc1", final ς to σ; İ (U+0130) folds to
// "i\u0307" (no Turkish rule: I folds to i, ı stays ı). Words stored before v1.3 are re-indexed
// by sql/018 (db/search/reindex.h).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace supportcrm::words {

// Words shorter than this are not searched for (extensions.md §E10) and so not stored either:
// code points of the folded text (NFD "e\u0301" is 2 of them before folding, é 1 after).
constexpr std::size_t kMinWord = 3;
// A stored or searched word keeps at most this many characters: a longer word matches on its
// first kMaxWord code points (the search data's column, sql/012, and its index stay small).
constexpr std::size_t kMaxWord = 64;

// The folded words of s of kMinWord characters or more (each cut to kMaxWord), in order, with
// repeats. Bytes that are not well-formed UTF-8 separate words like punctuation does (nothing
// composes across them).
std::vector<std::string> split(std::string_view s);

// The distinct words of several texts, sorted: what the search data stores for them.
std::vector<std::string> distinct(const std::vector<std::string_view>& texts);

// The words a query must match, from `q`: distinct, and without a word that starts another
// (whatever has "muller" has "mul"), longest first. Empty: no word of kMinWord characters.
std::vector<std::string> query(std::string_view q);

// A JSON array of words (which hold only letters, marks and digits: no escaping needed), the form
// the statements read them in (JSON_TABLE).
std::string json_array(const std::vector<std::string>& words);

}  // namespace supportcrm::words
