#include "api/etag.h"

#include <charconv>
#include <cstddef>
#include <initializer_list>

namespace supportcrm::etag {

namespace {

// "\"<kind><n0>.<n1>[.<n2>]\"", formatted on the stack: a tag of a record with a short id and
// version fits the string's own buffer, so the hot reads' ETag costs no allocation (callgrind,
// S1/S3: issue 26).
std::string format_tag(Kind kind, std::initializer_list<std::uint64_t> numbers) {
    constexpr std::size_t kDigits = 20;  // of the largest uint64_t
    char buf[2 + 3 * (kDigits + 1) + 1];
    char* p = buf;
    *p++ = '"';
    *p++ = static_cast<char>(kind);
    for (std::uint64_t n : numbers) {
        if (p != buf + 2) {
            *p++ = '.';
        }
        p = std::to_chars(p, p + kDigits, n).ptr;
    }
    *p++ = '"';
    return std::string(buf, static_cast<std::size_t>(p - buf));
}

}  // namespace

std::string of(Kind kind, std::uint64_t id, std::uint64_t version) {
    return format_tag(kind, {id, version});
}

std::string of_ticket(std::uint64_t id, std::uint64_t version, std::uint64_t customer_version) {
    return format_tag(Kind::ticket, {id, version, customer_version});
}

namespace {

bool is_ows(char c) {
    return c == ' ' || c == '\t';
}

// etagc = %x21 / %x23-7E / obs-text
bool is_etagc(unsigned char c) {
    return c == 0x21 || (c >= 0x23 && c != 0x7F);
}

}  // namespace

std::optional<Condition> parse(std::string_view header) {
    std::size_t i = 0;
    const std::size_t n = header.size();
    auto skip_ows = [&] {
        while (i < n && is_ows(header[i])) {
            ++i;
        }
    };
    skip_ows();
    std::size_t end = n;
    while (end > i && is_ows(header[end - 1])) {
        --end;
    }
    if (header.substr(i, end - i) == "*") {
        Condition any;
        any.any = true;
        return any;
    }
    Condition out;
    while (true) {
        skip_ows();
        if (i < n && header[i] == ',') {  // an empty list element
            ++i;
            continue;
        }
        if (i >= n) {
            break;
        }
        Condition::Tag tag;
        if (header.compare(i, 2, "W/") == 0) {
            tag.weak = true;
            i += 2;
        }
        if (i >= n || header[i] != '"') {
            return std::nullopt;
        }
        const std::size_t start = i++;
        while (i < n && is_etagc(static_cast<unsigned char>(header[i]))) {
            ++i;
        }
        if (i >= n || header[i] != '"') {
            return std::nullopt;
        }
        ++i;
        tag.quoted = std::string(header.substr(start, i - start));
        out.tags.push_back(std::move(tag));
        skip_ows();
        if (i < n && header[i] != ',') {
            return std::nullopt;
        }
    }
    if (out.tags.empty()) {
        return std::nullopt;  // an empty value names nothing: not a list the client meant
    }
    return out;
}

bool matches_strong(const Condition& condition, std::string_view current) {
    if (condition.any) {
        return true;
    }
    for (const Condition::Tag& tag : condition.tags) {
        if (!tag.weak && tag.quoted == current) {
            return true;
        }
    }
    return false;
}

bool matches_weak(const Condition& condition, std::string_view current) {
    if (condition.any) {
        return true;
    }
    for (const Condition::Tag& tag : condition.tags) {
        if (tag.quoted == current) {
            return true;
        }
    }
    return false;
}

}  // namespace supportcrm::etag
