// extensions.md §E10's words: maximal runs of Unicode letters, marks and digits after
// NFKC_Casefold, 3 characters or more; and the query rules of GET /api/v1/tickets and /customers
// (E10's filters, their messages, the cursor scope they give).
#include "common/words.h"

#include <gtest/gtest.h>
#include <unicode/normalizer2.h>
#include <unicode/uchar.h>
#include <unicode/unistr.h>

#include "api/list_query.h"

using namespace supportcrm;
using Words = std::vector<std::string>;

TEST(Words, RunsOfLettersAndDigitsFoldedAtLeastThreeLong) {
    EXPECT_EQ(words::split("Hello, World! 42 ab c123 x"), (Words{"hello", "world", "c123"}));
    EXPECT_EQ(words::split("don't foo_bar e-mail a.b@c.example"),
              (Words{"don", "foo", "bar", "mail", "example"}));
    EXPECT_EQ(words::split("+parcel* -\"arrive\" @3 ~the (worry)"),
              (Words{"parcel", "arrive", "the", "worry"}));
    EXPECT_EQ(words::split(""), Words{});
    EXPECT_EQ(words::split("..., ;!? +-*@~()"), Words{});
}

TEST(Words, CaseFoldingGoesBeyondAscii) {
    EXPECT_EQ(words::split("MÜLLER Müller müller"), (Words{"müller", "müller", "müller"}));
    EXPECT_EQ(words::split("ΟΔΟΣ οδος οδοσ"), (Words{"οδοσ", "οδοσ", "οδοσ"}))
        << "final sigma folds like sigma";
    EXPECT_EQ(words::split("ΣΊΣΥΦΟΣ σίσυφος"), (Words{"σίσυφοσ", "σίσυφοσ"}));
    EXPECT_EQ(words::split("ПРИВЕТ ǄEMAL"), (Words{"привет", "džemal"})) << "Ǆ is D and Ž";
    EXPECT_EQ(words::split("中文字 ٣٤٥ 𝐀𝐁𝐂"), (Words{"中文字", "٣٤٥", "abc"}))
        << "letters and digits of every script and plane; 𝐀 is A";
    EXPECT_EQ(words::split("x²y ½ab ⑴⑵"), (Words{"x2y", "2ab"}))
        << "NFKC: ² is 2, ½ is 1⁄2 (⁄ a symbol), ⑴ is (1)";
}

// extensions.md §E10 v1.3: the words of the text after NFKC_Casefold.
TEST(Words, NfkcCasefoldMakesEquivalentSpellingsOneWord) {
    EXPECT_EQ(words::split("e\u0301cole \u00e9cole \u00c9COLE E\u0301COLE"),
              (Words{"\u00e9cole", "\u00e9cole", "\u00e9cole", "\u00e9cole"}))
        << "NFD and NFC, either case";
    EXPECT_EQ(words::split("STRASSE straße Straße GROẞ"),
              (Words{"strasse", "strasse", "strasse", "gross"}))
        << "full case folding: ß and ẞ are ss";
    EXPECT_EQ(words::split("ﬁnance ﬃx"), (Words{"finance", "ffix"})) << "ligatures";
    EXPECT_EQ(words::split("ＡＢＣ１２３ ｶﾀｶﾅ Ⅻ"), (Words{"abc123", "カタカナ", "xii"}))
        << "full-width, half-width and roman numerals";
    EXPECT_EQ(words::split("co\u00adoperate zero\u200bwidth"), (Words{"cooperate", "zerowidth"}))
        << "default ignorables (soft hyphen, zero width space) fold to nothing";
    EXPECT_EQ(words::split("nai\u0308ve q\u0301xy"), (Words{"na\u00efve", "q\u0301xy"}))
        << "marks are word characters, composed or not";
    EXPECT_EQ(words::split("a<\u0338b a=\u0338b"), Words{}) << "<+U+0338 composes to ≮, a symbol";
}

// No Turkish tailoring: Unicode's default folding, the same for every shop.
TEST(Words, DottedCapitalIFoldsToIAndCombiningDot) {
    EXPECT_EQ(words::split("İSTANBUL"), Words{"i\u0307stanbul"});
    EXPECT_EQ(words::split("ISTANBUL istanbul"), (Words{"istanbul", "istanbul"}));
    EXPECT_EQ(words::split("ıstanbul"), Words{"ıstanbul"}) << "dotless ı stays itself";
    EXPECT_EQ(words::query("İstanbul"), words::query("i\u0307stanbul"));
}

// kMinWord and kMaxWord count code points of the folded text.
TEST(Words, LengthsAreCodePointsOfTheFoldedText) {
    EXPECT_EQ(words::split("e\u0301t e\u0301te"), Words{"\u00e9te"})
        << "NFD e\u0301t is 3 code points, folded 2";
    EXPECT_EQ(words::split("ﬁx"), Words{"fix"}) << "ﬁx is 2 code points, folded 3";
    const std::string nfd = std::string(words::kMaxWord, 'e') + "\u0301zzz";
    EXPECT_EQ(words::split(nfd), Words{std::string(words::kMaxWord - 1, 'e') + "\u00e9"})
        << "the 64th e composes with its accent, then the cut";
    const Words cut = words::split(std::string(words::kMaxWord - 1, 'a') + "\u00e9\u00e9");
    ASSERT_EQ(cut.size(), 1u);
    EXPECT_EQ(cut[0], std::string(words::kMaxWord - 1, 'a') + "\u00e9")
        << "cut at code points, never inside one";
}

// Every ASCII character has a normalization boundary before it (what lets split() fold ASCII
// that only ASCII follows without ICU), and that path says what ICU says.
TEST(Words, AsciiIsWhatIcuSays) {
    UErrorCode status = U_ZERO_ERROR;
    const icu::Normalizer2* n = icu::Normalizer2::getNFKCCasefoldInstance(status);
    ASSERT_TRUE(U_SUCCESS(status));
    for (int c = 1; c < 0x80; ++c) {
        EXPECT_TRUE(n->hasBoundaryBefore(c)) << c;
        Words expected;
        if (u_isalpha(c) || u_isdigit(c)) {
            expected.push_back(std::string(3, static_cast<char>(u_foldCase(c, 0))));
        }
        EXPECT_EQ(words::split(std::string(3, static_cast<char>(c))), expected) << c;
    }
}

namespace {

// split()'s rule written plainly: NFKC_Casefold of the whole text, then the runs of L*, M*,
// Nd, kMinWord to kMaxWord code points (for well-formed text).
Words reference_split(const std::string& s) {
    UErrorCode status = U_ZERO_ERROR;
    const icu::Normalizer2* n = icu::Normalizer2::getNFKCCasefoldInstance(status);
    const icu::UnicodeString folded = n->normalize(icu::UnicodeString::fromUTF8(s), status);
    Words out;
    icu::UnicodeString word;
    std::int32_t chars = 0;
    auto finish = [&] {
        if (chars >= static_cast<std::int32_t>(words::kMinWord)) {
            out.emplace_back();
            word.toUTF8String(out.back());
        }
        word.remove();
        chars = 0;
    };
    for (std::int32_t i = 0; i < folded.length(); i = folded.moveIndex32(i, 1)) {
        const UChar32 c = folded.char32At(i);
        if ((U_GET_GC_MASK(c) & (U_GC_L_MASK | U_GC_M_MASK | U_GC_ND_MASK)) == 0) {
            finish();
            continue;
        }
        if (chars++ < static_cast<std::int32_t>(words::kMaxWord)) {
            word.append(c);
        }
    }
    finish();
    return out;
}

}  // namespace

// split() folds the text in pieces (ASCII alone, the rest with ICU): the same words as the
// whole text folded at once, for texts made of the pieces that compose, decompose or vanish.
TEST(Words, FoldingInPiecesIsFoldingTheWholeText) {
    const std::vector<std::string> parts = {
        "a",  "E",      "<",      "=",      " ",      "\u0301", "\u0338", "ß",      "ﬁ",
        "Ａ", "\u00ad", "İ",      "Σ",      "ς",      "1",      "²",      "e",      "\u0308",
        "-",  "\u1100", "\u1161", "\u11a8", "\u00e9", "\u0327", "C",      "\u200d", "ǅ",
        "µ",  "½",      "\u00a0", "ä",      "Ω",      "\u0345", "ά",      "ё",      "ة"};
    unsigned seed = 42;
    for (int round = 0; round < 5000; ++round) {
        std::string text;
        for (int k = round % 16; k >= 0; --k) {
            seed = seed * 1103515245u + 12345u;
            text += parts[(seed >> 16) % parts.size()];
        }
        ASSERT_EQ(words::split(text), reference_split(text)) << text;
    }
}

TEST(Words, InvalidUtf8SeparatesAndLongWordsAreCut) {
    EXPECT_EQ(words::split("abc\xff"
                           "def\xc3"
                           "ghi\xed\xa0\x80jkl"),
              (Words{"abc", "def", "ghi", "jkl"}));
    EXPECT_EQ(words::split("ab\xff"
                           "cd ab\xef\xbf\xbd"
                           "cd"),
              Words{})
        << "neither an ill-formed byte nor U+FFFD joins words";
    EXPECT_EQ(words::split("über\xc3"), Words{"über"}) << "a sequence cut short at the end";
    EXPECT_EQ(words::split("cole\xff\xcc\x81"
                           "cole"),
              (Words{"cole", "\u0301cole"}))
        << "nothing composes across an ill-formed byte";
    const Words cut = words::split(std::string(100, 'A') + " zzz");
    ASSERT_EQ(cut.size(), 2u);
    EXPECT_EQ(cut[0], std::string(words::kMaxWord, 'a'));
    EXPECT_EQ(words::split(std::string(100, 'e') + "\xc3\xa9")[0].size(), words::kMaxWord)
        << "cut at characters, never inside one";
}

TEST(Words, DistinctAndQuery) {
    EXPECT_EQ(words::distinct({"b a b cat", "Cat dog", "cats"}), (Words{"cat", "cats", "dog"}));
    // A word that starts another is implied by it; longest first.
    EXPECT_EQ(words::query("mül MÜLLER müll tea team"), (Words{"müller", "team"}));
    EXPECT_EQ(words::query("ab ;;"), Words{});
    EXPECT_EQ(words::json_array({"abc", "déf"}), "[\"abc\",\"déf\"]");
    EXPECT_EQ(words::json_array({}), "[]");
}

TEST(ListQuery, TicketFiltersOfE10) {
    auto parse = [](const char* q) { return parse_tickets_query(QueryParams(q)); };
    TicketsQuery ok = parse(
        "status=none,CLOSED,OPEN,OPEN&assignedTo=none&tag=b&tag=a&tag=b"
        "&Channel=Mail&q=Hello+world");
    ASSERT_EQ(ok.error, "");
    EXPECT_EQ(ok.filter.status, "OPEN,CLOSED,none");
    EXPECT_EQ(ok.filter.assigned_to, 0u);
    EXPECT_EQ(ok.filter.tags, (Words{"a", "b"}));
    EXPECT_EQ(ok.filter.channel, "Mail");
    EXPECT_EQ(ok.filter.words, (Words{"hello", "world"}));
    EXPECT_TRUE(ok.filter.searching());
    EXPECT_EQ(parse("assignedTo=0").filter.assigned_to, UINT64_MAX) << "nobody, not none";

    EXPECT_EQ(parse("status=open").error, "Invalid status");
    EXPECT_EQ(parse("status=").error, "Invalid status");
    EXPECT_EQ(parse("status=OPEN,").error, "Invalid status");
    EXPECT_EQ(parse("assignedTo=-1").error, "Invalid assignedTo");
    EXPECT_EQ(parse("assignedTo=").error, "Invalid assignedTo");
    EXPECT_EQ(parse("tag=a&tag=").error, "Invalid tag");
    EXPECT_EQ(parse("q=").error, "q needs a word of at least 3 characters");
    EXPECT_EQ(parse("q=a+bc+%2B%2B").error, "q needs a word of at least 3 characters");
    EXPECT_EQ(parse("limit=0&status=x").error, "Invalid limit") << "limit is checked first";
    EXPECT_EQ(parse("customerId=x&status=x").error, "Invalid customerId");
    EXPECT_TRUE(parse("tag=%FF").filter.matches_nothing);
    EXPECT_TRUE(parse("Channel=%C3").filter.matches_nothing);
}

TEST(ListQuery, E10FiltersBindTheCursorScope) {
    auto print = [](const char* q) {
        return filter_fingerprint(parse_tickets_query(QueryParams(q)).filter);
    };
    EXPECT_EQ(print(""), "customerId=&updatedSince=") << "E3's cursors stay valid";
    EXPECT_EQ(print("status=OPEN,none"), print("status=none,OPEN"));
    EXPECT_EQ(print("tag=a&tag=b"), print("tag=b&tag=a&tag=a"));
    EXPECT_EQ(print("q=MÜLLER+mül"), print("q=müller"));
    EXPECT_NE(print("q=abc"), print("q=abd"));
    EXPECT_NE(print("Channel=a%26tag%3Db"), print("Channel=a&tag=b"));
    EXPECT_NE(print("assignedTo=none"), print("assignedTo=0"));
    EXPECT_NE(print("status=OPEN"), print(""));

    CustomersQuery c = parse_customers_query(QueryParams("q=Anna+M%C3%BCller"));
    ASSERT_EQ(c.error, "");
    EXPECT_EQ(c.filter.kind, CustomerFilter::Kind::q);
    EXPECT_EQ(filter_fingerprint(c.filter), "q=[\"müller\",\"anna\"]");
    EXPECT_EQ(parse_customers_query(QueryParams("q=ab")).error,
              "q needs a word of at least 3 characters");
    EXPECT_EQ(parse_customers_query(QueryParams("q=")).error,
              "q needs a word of at least 3 characters");
    EXPECT_EQ(parse_customers_query(QueryParams("q=anna&storefront_id=1")).error,
              "Use only one of email, phone_number, storefront_id, q");
}
