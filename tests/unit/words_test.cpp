// extensions.md §E10's words: maximal runs of Unicode letters and digits, case-folded beyond
// ASCII, 3 characters or more; and the query rules of GET /api/v1/tickets and /customers (E10's
// filters, their messages, the cursor scope they give).
#include "common/words.h"

#include <gtest/gtest.h>
#include <locale.h>
#include <wctype.h>

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
    EXPECT_EQ(words::split("ПРИВЕТ ǄEMAL"), (Words{"привет", "ǆemal"}));
    EXPECT_EQ(words::split("中文字 ٣٤٥ 𝐀𝐁𝐂"), (Words{"中文字", "٣٤٥", "𝐀𝐁𝐂"}))
        << "letters and digits of every script and plane";
    EXPECT_EQ(words::split("x²y ½ab"), (Words{})) << "² and ½ are not digits: x, y, ab";
}

// split() decides ASCII without the locale's tables: the same as C.UTF-8's classes and folding.
TEST(Words, AsciiIsWhatTheUtf8LocaleSays) {
    const locale_t loc = newlocale(LC_CTYPE_MASK, "C.UTF-8", static_cast<locale_t>(0));
    ASSERT_NE(loc, static_cast<locale_t>(0));
    for (int c = 1; c < 0x80; ++c) {
        const auto wc = static_cast<wint_t>(c);
        Words expected;
        if (iswalnum_l(wc, loc)) {
            expected.push_back(
                std::string(3, static_cast<char>(towlower_l(towupper_l(wc, loc), loc))));
        }
        EXPECT_EQ(words::split(std::string(3, static_cast<char>(c))), expected) << c;
    }
    freelocale(loc);
}

TEST(Words, InvalidUtf8SeparatesAndLongWordsAreCut) {
    EXPECT_EQ(words::split("abc\xff"
                           "def\xc3"
                           "ghi\xed\xa0\x80jkl"),
              (Words{"abc", "def", "ghi", "jkl"}));
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

// A ticket's list of words known to have their rows (its list rows, joined in any order): a
// comment writes exactly the words the list lacks (never fewer: no hashing), and lists them in
// a row of its own until the whole list would pass kKnownBytes.
TEST(Words, KnownListsLeaveOutExactlyTheirWords) {
    EXPECT_EQ(words::missing_from("", {"abc", "def"}), (Words{"abc", "def"}));
    EXPECT_EQ(words::missing_from("abc def", {"abc", "def"}), Words{});
    EXPECT_EQ(words::missing_from("abc def", {"abcd", "de", "deff", "zzz", "bc", "ef"}),
              (Words{"abcd", "de", "deff", "zzz", "bc", "ef"}))
        << "a word that starts, ends or extends a known one is another word";
    EXPECT_EQ(words::missing_from("bbb ddd", {"aaa", "bbb", "ccc", "ddd", "eee"}),
              (Words{"aaa", "ccc", "eee"}));
    EXPECT_EQ(words::missing_from("  bbb  ddd ", {"bbb", "ddd"}), Words{}) << "stray spaces";
    EXPECT_EQ(words::missing_from("zzz aaa mmm abc", {"aaa", "abc", "mmm", "zzz"}), Words{})
        << "list rows joined: in no order";
    EXPECT_EQ(words::missing_from("xabc abcx abc", {"abc"}), Words{}) << "found after near misses";
    EXPECT_EQ(words::missing_from("xabc abcx", {"abc"}), Words{"abc"});
    const Words sorted = words::distinct({"Zoë zoe ärger apfel 中文字 ΟΔΟΣ"});
    EXPECT_EQ(words::missing_from(*words::known_addition("", sorted), sorted), Words{})
        << "beyond ASCII";
    EXPECT_EQ(words::missing_from("zoe " + *words::known_addition("zoe", {"Zoë"}), {"zoë"}),
              Words{"zoë"})
        << "byte for byte: the list holds folded words only";

    EXPECT_EQ(words::known_addition("", {"abc", "def"}), "abc def");
    EXPECT_EQ(words::known_addition("bbb ddd", {"aaa", "ccc", "eee"}), "aaa ccc eee")
        << "only the new words: the list's other rows stay as they are";

    std::string full;  // 3-digit words with room left for one more word
    for (int i = 100; full.size() + 20 <= words::kKnownBytes; ++i) {
        full += (full.empty() ? "" : " ") + std::to_string(i);
    }
    const std::size_t room = words::kKnownBytes - full.size() - 1;  // after the space
    EXPECT_EQ(words::known_addition(full, {std::string(room + 1, 'z')}), std::nullopt)
        << "one byte over the size limit";
    EXPECT_EQ(words::known_addition(full, {std::string(room / 2, 'y'), std::string(room / 2, 'z')}),
              std::nullopt)
        << "two words: their space counts";
    const std::optional<std::string> to_the_byte =
        words::known_addition(full, {std::string(room, 'z')});
    ASSERT_TRUE(to_the_byte);
    EXPECT_EQ(full.size() + 1 + to_the_byte->size(), words::kKnownBytes);
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
