// common/file_links (extensions.md §E13): filenames that are never paths, the RFC 6266/5987
// Content-Disposition, and the signed links. The expected signatures were computed outside the
// code, with `printf '<id>\n<filename>\n<expires>' | openssl dgst -sha256 -hmac <secret>`.
#include "common/file_links.h"

#include <gtest/gtest.h>

#include <cctype>
#include <string>

namespace supportcrm::file_links {
namespace {

const std::string kSecret = "a-link-secret-of-at-least-32-characters";
const std::string kLabelSig = "8ed59348ee2acd12c07b56f37617794ad2cec67ae9e79950d8213506dfdc13ad";

TEST(FileLinks, CleanFilenameReplacesPathAndControlCharacters) {
    EXPECT_EQ(clean_filename("report Q3.pdf"), "report Q3.pdf");
    EXPECT_EQ(clean_filename("../../etc/passwd"), ".._.._etc_passwd");
    EXPECT_EQ(clean_filename("a\\b"), "a_b");
    EXPECT_EQ(clean_filename(std::string("a\0b\r\n\x7f", 7)), "a_b____");
    EXPECT_EQ(clean_filename("r\xc3\xa9sum\xc3\xa9.pdf"), "r\xc3\xa9sum\xc3\xa9.pdf")
        << "UTF-8 bytes are kept";
}

TEST(FileLinks, PercentEncodeKeepsOnlyTheUnreservedCharacters) {
    EXPECT_EQ(percent_encode("AZaz09-._~"), "AZaz09-._~");
    EXPECT_EQ(percent_encode("a b/c?d&e=f%"), "a%20b%2Fc%3Fd%26e%3Df%25");
    EXPECT_EQ(percent_encode("\xc3\xa9"), "%C3%A9");
    EXPECT_EQ(percent_encode(std::string("\0", 1)), "%00");
    EXPECT_EQ(percent_encode(""), "");
}

TEST(FileLinks, ContentDispositionIsTheRfc5987Form) {
    EXPECT_EQ(content_disposition("label.pdf"), "attachment; filename*=UTF-8''label.pdf");
    EXPECT_EQ(content_disposition("r\xc3\xa9sum\xc3\xa9 \"Q3\";.pdf"),
              "attachment; filename*=UTF-8''r%C3%A9sum%C3%A9%20%22Q3%22%3B.pdf");
}

TEST(FileLinks, SignIsTheHmacSha256OfIdFilenameAndExpiry) {
    EXPECT_EQ(sign(kSecret, 9, "label.pdf", 1795472943), kLabelSig);
    EXPECT_EQ(sign(kSecret, 42, "r\xc3\xa9sum\xc3\xa9 Q3.pdf", 1700000000),
              "1242e9b69857efb65a26a4f5a77991a575e593ee8ee4058610eb0f27251329d7");
}

TEST(FileLinks, VerifyAcceptsOnlyTheSameIdFilenameExpiryAndSecret) {
    EXPECT_TRUE(verify(kSecret, 9, "label.pdf", 1795472943, kLabelSig, 1795472000));
    EXPECT_FALSE(verify(kSecret, 10, "label.pdf", 1795472943, kLabelSig, 1795472000));
    EXPECT_FALSE(verify(kSecret, 9, "label.pdF", 1795472943, kLabelSig, 1795472000));
    EXPECT_FALSE(verify(kSecret, 9, "label.pdf", 1795472944, kLabelSig, 1795472000));
    EXPECT_FALSE(verify(kSecret + "x", 9, "label.pdf", 1795472943, kLabelSig, 1795472000));
    std::string flipped = kLabelSig;
    flipped.back() = flipped.back() == '0' ? '1' : '0';
    EXPECT_FALSE(verify(kSecret, 9, "label.pdf", 1795472943, flipped, 1795472000));
    EXPECT_FALSE(verify(kSecret, 9, "label.pdf", 1795472943, kLabelSig.substr(1), 1795472000));
    EXPECT_FALSE(verify(kSecret, 9, "label.pdf", 1795472943, "", 1795472000));
    std::string upper = kLabelSig;
    for (char& c : upper) {
        c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    }
    EXPECT_FALSE(verify(kSecret, 9, "label.pdf", 1795472943, upper, 1795472000))
        << "the signature is lowercase hex, compared as bytes";
}

TEST(FileLinks, VerifyHoldsUntilTheExpirySecondAndNotAfter) {
    EXPECT_TRUE(verify(kSecret, 9, "label.pdf", 1795472943, kLabelSig, 1795472943));
    EXPECT_FALSE(verify(kSecret, 9, "label.pdf", 1795472943, kLabelSig, 1795472944));
}

TEST(FileLinks, LinkIsTheBaseThePathAndTheSignedQuery) {
    EXPECT_EQ(
        link("https://support.shop.example.com", kSecret, 9, "label.pdf", 1795472943),
        "https://support.shop.example.com/files/9/label.pdf?expires=1795472943&sig=" + kLabelSig);
    EXPECT_EQ(link("https://support.shop.example.com//", kSecret, 9, "label.pdf", 1795472943),
              link("https://support.shop.example.com", kSecret, 9, "label.pdf", 1795472943))
        << "trailing slashes of the base are dropped";
    const std::string encoded =
        link("https://h.example", kSecret, 42, "r\xc3\xa9sum\xc3\xa9 Q3.pdf", 1700000000);
    EXPECT_EQ(encoded,
              "https://h.example/files/42/r%C3%A9sum%C3%A9%20Q3.pdf?expires=1700000000&sig="
              "1242e9b69857efb65a26a4f5a77991a575e593ee8ee4058610eb0f27251329d7");
}

}  // namespace
}  // namespace supportcrm::file_links
