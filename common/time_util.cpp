#include "common/time_util.h"

#include <time.h>

#include <cstdio>

namespace supportcrm::timeutil {

// Howard Hinnant's days_from_civil / civil_from_days: exact for the proleptic Gregorian
// calendar, no time-zone database involved.
std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) {
    y -= m <= 2;
    const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
    const auto yoe = static_cast<unsigned>(y - era * 400);
    const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

void civil_from_days(std::int64_t z, int& y, unsigned& m, unsigned& d) {
    z += 719468;
    const std::int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    const auto doe = static_cast<unsigned>(z - era * 146097);
    const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    const unsigned mp = (5 * doy + 2) / 153;
    d = doy - (153 * mp + 2) / 5 + 1;
    m = mp < 10 ? mp + 3 : mp - 9;
    y = static_cast<int>(static_cast<std::int64_t>(yoe) + era * 400 + (m <= 2));
}

namespace {

bool is_leap(int y) {
    return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

unsigned days_in_month(int y, unsigned m) {
    static const unsigned kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    return m == 2 && is_leap(y) ? 29 : kDays[m - 1];
}

// Reads exactly n digits at s[pos]; advances pos.
bool digits(std::string_view s, std::size_t& pos, int n, int& out) {
    if (pos + static_cast<std::size_t>(n) > s.size()) {
        return false;
    }
    int v = 0;
    for (int i = 0; i < n; ++i) {
        char c = s[pos + static_cast<std::size_t>(i)];
        if (c < '0' || c > '9') {
            return false;
        }
        v = v * 10 + (c - '0');
    }
    pos += static_cast<std::size_t>(n);
    out = v;
    return true;
}

bool expect(std::string_view s, std::size_t& pos, char c) {
    if (pos < s.size() && s[pos] == c) {
        ++pos;
        return true;
    }
    return false;
}

// Fractional seconds: any number of digits, truncated to milliseconds.
int read_fraction_ms(std::string_view s, std::size_t& pos) {
    int ms = 0;
    int n = 0;
    while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') {
        if (n < 3) {
            ms = ms * 10 + (s[pos] - '0');
        }
        ++n;
        ++pos;
    }
    for (; n < 3; ++n) {
        ms *= 10;
    }
    return ms;
}

struct DateParts {
    int year, month, day;
};

bool read_date(std::string_view s, std::size_t& pos, DateParts& d) {
    if (!digits(s, pos, 4, d.year) || !expect(s, pos, '-') || !digits(s, pos, 2, d.month) ||
        !expect(s, pos, '-') || !digits(s, pos, 2, d.day)) {
        return false;
    }
    return d.month >= 1 && d.month <= 12 && d.day >= 1 &&
           static_cast<unsigned>(d.day) <= days_in_month(d.year, static_cast<unsigned>(d.month));
}

struct TimeParts {
    int hh = 0, mm = 0, ss = 0, ms = 0;
};

// hh:mm, hh:mm:ss or hh:mm:ss.f (any number of digits) at s[pos], within one day: 23:59:60 (a
// leap second) is not representable in DATETIME; rejected rather than guessed at.
bool read_time(std::string_view s, std::size_t& pos, TimeParts& t) {
    if (!digits(s, pos, 2, t.hh) || !expect(s, pos, ':') || !digits(s, pos, 2, t.mm)) {
        return false;
    }
    if (expect(s, pos, ':')) {
        if (!digits(s, pos, 2, t.ss)) {
            return false;
        }
        if (expect(s, pos, '.')) {
            std::size_t before = pos;
            t.ms = read_fraction_ms(s, pos);
            if (pos == before) {
                return false;
            }
        }
    }
    return t.hh <= 23 && t.mm <= 59 && t.ss <= 59;
}

// The offset from UTC at s[pos]: Z (or z), or a sign and hh, hhmm or hh:mm.
bool read_offset(std::string_view s, std::size_t& pos, Millis& offset_ms) {
    if (expect(s, pos, 'Z') || expect(s, pos, 'z')) {
        offset_ms = 0;
        return true;
    }
    if (pos >= s.size() || (s[pos] != '+' && s[pos] != '-')) {
        return false;
    }
    const int sign = s[pos] == '-' ? -1 : 1;
    ++pos;
    int oh = 0, om = 0;
    if (!digits(s, pos, 2, oh)) {
        return false;
    }
    if (expect(s, pos, ':')) {
        if (!digits(s, pos, 2, om)) {
            return false;
        }
    } else if (pos < s.size() && !digits(s, pos, 2, om)) {
        return false;
    }
    if (oh > 23 || om > 59) {
        return false;
    }
    offset_ms = sign * (static_cast<Millis>(oh) * 3'600'000 + static_cast<Millis>(om) * 60'000);
    return true;
}

Millis to_ms(const DateParts& d, int hh, int mm, int ss, int ms) {
    std::int64_t days =
        days_from_civil(d.year, static_cast<unsigned>(d.month), static_cast<unsigned>(d.day));
    return ((days * 24 + hh) * 60 + mm) * 60'000 + static_cast<Millis>(ss) * 1000 + ms;
}

// Writes v as exactly `width` decimal digits ending just before `end`.
void put_digits(char* end, unsigned v, int width) {
    for (int i = 0; i < width; ++i) {
        *--end = static_cast<char>('0' + v % 10);
        v /= 10;
    }
}

std::string format(Millis ms, char separator, bool zulu) {
    std::int64_t days = ms >= 0 ? ms / kMillisPerDay : -((-ms + kMillisPerDay - 1) / kMillisPerDay);
    auto in_day = static_cast<unsigned>(ms - days * kMillisPerDay);
    int y;
    unsigned m, d;
    civil_from_days(days, y, m, d);
    if (y < 0 || y > 9999) {  // never from a DATETIME; printf copes with any width and sign
        char buf[64];
        int n = std::snprintf(buf, sizeof buf, "%04d-%02u-%02u%c%02u:%02u:%02u.%03u%s", y, m, d,
                              separator, in_day / 3'600'000, in_day / 60'000 % 60,
                              in_day / 1000 % 60, in_day % 1000, zulu ? "Z" : "");
        return std::string(buf, static_cast<std::size_t>(n));
    }
    // Hand-written: this runs for every timestamp of every response, and printf's format
    // parsing was the largest single cost of a page of comments.
    char buf[] = "YYYY-MM-DD HH:MM:SS.mmmZ";
    put_digits(buf + 4, static_cast<unsigned>(y), 4);
    put_digits(buf + 7, m, 2);
    put_digits(buf + 10, d, 2);
    buf[10] = separator;
    put_digits(buf + 13, in_day / 3'600'000, 2);
    put_digits(buf + 16, in_day / 60'000 % 60, 2);
    put_digits(buf + 19, in_day / 1000 % 60, 2);
    put_digits(buf + 23, in_day % 1000, 3);
    return std::string(buf, zulu ? 24 : 23);
}

// DATETIME holds years 1000..9999; keep instants inside that so the database never rejects
// (or silently mangles) what we validated.
std::optional<ParsedInstant> within_datetime_range(ParsedInstant p) {
    static const Millis kMin = to_ms({1000, 1, 1}, 0, 0, 0, 0);
    static const Millis kMax = to_ms({9999, 12, 31}, 23, 59, 59, 999);
    if (p.ms < kMin || p.ms > kMax) {
        return std::nullopt;
    }
    return p;
}

}  // namespace

Millis now_ms() {
    timespec ts{};
    clock_gettime(CLOCK_REALTIME, &ts);
    return static_cast<Millis>(ts.tv_sec) * 1000 + ts.tv_nsec / 1'000'000;
}

std::optional<ParsedInstant> parse_iso8601(std::string_view s) {
    std::size_t pos = 0;
    DateParts d{};
    if (!read_date(s, pos, d)) {
        return std::nullopt;
    }
    if (pos == s.size()) {
        return within_datetime_range(ParsedInstant{to_ms(d, 0, 0, 0, 0), true});
    }
    if (s[pos] != 'T' && s[pos] != 't' && s[pos] != ' ') {
        return std::nullopt;
    }
    ++pos;
    TimeParts t;
    Millis offset_ms = 0;
    if (!read_time(s, pos, t) || !read_offset(s, pos, offset_ms) || pos != s.size()) {
        return std::nullopt;
    }
    return within_datetime_range(
        ParsedInstant{to_ms(d, t.hh, t.mm, t.ss, t.ms) - offset_ms, false});
}

std::string format_iso(Millis ms) {
    return format(ms, 'T', true);
}

std::string format_db(Millis ms) {
    return format(ms, ' ', false);
}

Millis start_of_utc_day(Millis ms) {
    Millis r = ms % kMillisPerDay;
    return r < 0 ? ms - r - kMillisPerDay : ms - r;
}

}  // namespace supportcrm::timeutil
