#include "common/time_zone.h"

#include <algorithm>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <set>

namespace supportcrm::tz {
namespace {

constexpr const char* kZoneDir = "/usr/share/zoneinfo/";
// tzdata's compact source: every zone ("Z") and link ("L", the backward names) it installs.
constexpr const char* kZoneList = "/usr/share/zoneinfo/tzdata.zi";
constexpr std::int64_t kSecondsPerDay = 86400;

std::int64_t floor_div(std::int64_t a, std::int64_t b) {
    std::int64_t q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

// Big-endian readers over a byte range that tell when they run past its end.
class Reader {
  public:
    explicit Reader(std::string_view bytes) : bytes_(bytes) {}
    bool ok() const { return ok_; }
    std::size_t pos() const { return pos_; }
    std::string_view rest() const { return bytes_.substr(std::min(pos_, bytes_.size())); }
    void skip(std::size_t n) {
        if (!need(n)) {
            return;
        }
        pos_ += n;
    }
    std::uint64_t be(std::size_t n) {
        if (!need(n)) {
            return 0;
        }
        std::uint64_t v = 0;
        for (std::size_t i = 0; i < n; ++i) {
            v = (v << 8) | static_cast<unsigned char>(bytes_[pos_ + i]);
        }
        pos_ += n;
        return v;
    }

  private:
    bool need(std::size_t n) {
        if (!ok_ || bytes_.size() - pos_ < n) {
            ok_ = false;
        }
        return ok_;
    }
    std::string_view bytes_;
    std::size_t pos_ = 0;
    bool ok_ = true;
};

struct Header {
    char version = 0;
    std::uint64_t isutcnt = 0, isstdcnt = 0, leapcnt = 0, timecnt = 0, typecnt = 0, charcnt = 0;
};

bool read_header(Reader& r, std::string_view bytes, Header& h) {
    if (bytes.substr(r.pos(), 4) != "TZif") {
        return false;
    }
    r.skip(4);
    h.version = static_cast<char>(r.be(1));
    r.skip(15);
    h.isutcnt = r.be(4);
    h.isstdcnt = r.be(4);
    h.leapcnt = r.be(4);
    h.timecnt = r.be(4);
    h.typecnt = r.be(4);
    h.charcnt = r.be(4);
    return r.ok() && h.typecnt > 0;
}

// ---- the POSIX TZ string of the footer

class RuleParser {
  public:
    explicit RuleParser(std::string_view s) : s_(s) {}
    bool at_end() const { return i_ == s_.size(); }
    bool eat(char c) {
        if (i_ < s_.size() && s_[i_] == c) {
            ++i_;
            return true;
        }
        return false;
    }
    bool name() {
        if (eat('<')) {
            std::size_t close = s_.find('>', i_);
            if (close == std::string_view::npos) {
                return false;
            }
            i_ = close + 1;
            return true;
        }
        std::size_t from = i_;
        while (i_ < s_.size() &&
               ((s_[i_] >= 'A' && s_[i_] <= 'Z') || (s_[i_] >= 'a' && s_[i_] <= 'z'))) {
            ++i_;
        }
        return i_ - from >= 3;
    }
    bool peek_offset() const {
        return i_ < s_.size() &&
               (s_[i_] == '+' || s_[i_] == '-' || (s_[i_] >= '0' && s_[i_] <= '9'));
    }
    // [+-]h[hh][:mm[:ss]] as seconds, the sign as written.
    bool time(std::int32_t& out) {
        int sign = eat('-') ? -1 : (eat('+'), 1);
        std::int32_t parts[3] = {0, 0, 0};
        for (int k = 0; k < 3; ++k) {
            if (k > 0 && !eat(':')) {
                break;
            }
            std::size_t from = i_;
            while (i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9' && i_ - from < 3) {
                parts[k] = parts[k] * 10 + (s_[i_] - '0');
                ++i_;
            }
            if (i_ == from) {
                return false;
            }
        }
        out = sign * (parts[0] * 3600 + parts[1] * 60 + parts[2]);
        return true;
    }
    bool number(unsigned& out) {
        std::size_t from = i_;
        out = 0;
        while (i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9' && i_ - from < 2) {
            out = out * 10 + static_cast<unsigned>(s_[i_] - '0');
            ++i_;
        }
        return i_ > from;
    }
    bool rule_day(RuleDay& d) {
        if (!eat('M') || !number(d.month) || !eat('.') || !number(d.week) || !eat('.') ||
            !number(d.weekday)) {
            return false;
        }
        if (d.month < 1 || d.month > 12 || d.week < 1 || d.week > 5 || d.weekday > 6) {
            return false;
        }
        return !eat('/') || time(d.time);
    }

  private:
    std::string_view s_;
    std::size_t i_ = 0;
};

// The UTC second a rule day starts at in a year, given the offset in effect before it.
std::int64_t rule_instant(int year, const RuleDay& d, std::int32_t offset_before) {
    std::int64_t first = timeutil::days_from_civil(year, d.month, 1);
    std::int64_t weekday_of_first = ((first + 4) % 7 + 7) % 7;  // 1970-01-01 was a Thursday
    std::int64_t day = first + (static_cast<std::int64_t>(d.weekday) - weekday_of_first + 7) % 7 +
                       (static_cast<std::int64_t>(d.week) - 1) * 7;
    std::int64_t next_month = d.month == 12 ? timeutil::days_from_civil(year + 1, 1, 1)
                                            : timeutil::days_from_civil(year, d.month + 1, 1);
    while (day >= next_month) {
        day -= 7;  // week 5 is "the last"
    }
    return day * kSecondsPerDay + d.time - offset_before;
}

std::optional<std::string> read_small_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        return std::nullopt;
    }
    constexpr std::size_t kMaxBytes = 1 << 20;  // zone files are a few KiB, tzdata.zi ~120
    std::string bytes;
    char buf[4096];
    while (in.read(buf, sizeof buf) || in.gcount() > 0) {
        bytes.append(buf, static_cast<std::size_t>(in.gcount()));
        if (bytes.size() > kMaxBytes) {
            return std::nullopt;
        }
    }
    return bytes;
}

// Names as the tz database spells them ("America/Argentina/Buenos_Aires", "Etc/GMT+5"): no
// empty, "." or ".." component, so a name never leaves kZoneDir.
bool plausible_zone_name(std::string_view name) {
    if (name.empty() || name.size() > 128) {
        return false;
    }
    std::size_t from = 0;
    while (from <= name.size()) {
        std::size_t slash = name.find('/', from);
        std::string_view part =
            name.substr(from, slash == std::string_view::npos ? slash : slash - from);
        if (part.empty() || part == "." || part == "..") {
            return false;
        }
        for (char c : part) {
            bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                      c == '_' || c == '-' || c == '+' || c == '.';
            if (!ok) {
                return false;
            }
        }
        if (slash == std::string_view::npos) {
            break;
        }
        from = slash + 1;
    }
    return true;
}

}  // namespace

std::optional<PosixRule> parse_posix_rule(std::string_view text) {
    RuleParser p(text);
    PosixRule r;
    if (!p.name() || !p.time(r.std_offset)) {
        return std::nullopt;
    }
    r.std_offset = -r.std_offset;  // POSIX counts west of Greenwich
    if (p.at_end()) {
        return r;
    }
    if (!p.name()) {
        return std::nullopt;
    }
    r.has_dst = true;
    r.dst_offset = r.std_offset + 3600;
    if (p.peek_offset()) {
        if (!p.time(r.dst_offset)) {
            return std::nullopt;
        }
        r.dst_offset = -r.dst_offset;
    }
    if (!p.eat(',') || !p.rule_day(r.start) || !p.eat(',') || !p.rule_day(r.end) || !p.at_end()) {
        return std::nullopt;
    }
    return r;
}

Zone::Zone(std::vector<std::int64_t> transitions, std::vector<std::int32_t> offsets,
           std::int32_t initial_offset, std::optional<PosixRule> rule)
    : transitions_(std::move(transitions)),
      offsets_(std::move(offsets)),
      initial_offset_(initial_offset),
      rule_(std::move(rule)) {}

std::int32_t Zone::rule_offset_at(std::int64_t t) const {
    const PosixRule& r = *rule_;
    if (!r.has_dst) {
        return r.std_offset;
    }
    int year;
    unsigned m, d;
    timeutil::civil_from_days(floor_div(t + r.std_offset, kSecondsPerDay), year, m, d);
    std::int64_t start = rule_instant(year, r.start, r.std_offset);
    std::int64_t end = rule_instant(year, r.end, r.dst_offset);
    bool dst = start < end ? (t >= start && t < end) : !(t >= end && t < start);
    return dst ? r.dst_offset : r.std_offset;
}

std::int32_t Zone::offset_at(std::int64_t t) const {
    auto after = std::upper_bound(transitions_.begin(), transitions_.end(), t);
    if (after == transitions_.begin()) {
        return transitions_.empty() && rule_ ? rule_offset_at(t) : initial_offset_;
    }
    if (after == transitions_.end() && rule_) {
        return rule_offset_at(t);
    }
    return offsets_[static_cast<std::size_t>(after - transitions_.begin() - 1)];
}

std::int64_t Zone::local_day(timeutil::Millis utc) const {
    std::int64_t s = floor_div(utc, 1000);
    return floor_div(s + offset_at(s), kSecondsPerDay);
}

timeutil::Millis Zone::day_start(std::int64_t local_day) const {
    const std::int64_t midnight = local_day * kSecondsPerDay;  // as if local time were UTC
    const std::int32_t candidates[3] = {offset_at(midnight - kSecondsPerDay), offset_at(midnight),
                                        offset_at(midnight + kSecondsPerDay)};
    std::optional<std::int64_t> best;
    for (std::int32_t o : candidates) {
        std::int64_t t = midnight - o;
        if (offset_at(t) == o && (!best || t < *best)) {
            best = t;
        }
    }
    if (!best) {
        // Midnight falls in a gap: the day starts at the transition, the first instant whose
        // local time is past midnight.
        auto [lo_o, hi_o] = std::minmax({candidates[0], candidates[1], candidates[2]});
        std::int64_t lo = midnight - hi_o, hi = midnight - lo_o;
        while (lo < hi) {
            std::int64_t mid = lo + (hi - lo) / 2;
            if (mid + offset_at(mid) >= midnight) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        best = lo;
    }
    return *best * 1000;
}

std::optional<Zone> parse_tzif(std::string_view bytes) {
    Reader r(bytes);
    Header v1;
    if (!read_header(r, bytes, v1) || v1.version < '2') {
        return std::nullopt;
    }
    r.skip(v1.timecnt * 5 + v1.typecnt * 6 + v1.charcnt + v1.leapcnt * 8 + v1.isstdcnt +
           v1.isutcnt);
    Header h;
    if (!r.ok() || !read_header(r, bytes, h) || h.leapcnt != 0) {
        return std::nullopt;
    }
    std::vector<std::int64_t> times(h.timecnt);
    for (auto& t : times) {
        t = static_cast<std::int64_t>(r.be(8));
    }
    std::vector<std::uint8_t> type_of(h.timecnt);
    for (auto& i : type_of) {
        i = static_cast<std::uint8_t>(r.be(1));
    }
    std::vector<std::int32_t> type_offset(h.typecnt);
    for (auto& o : type_offset) {
        o = static_cast<std::int32_t>(static_cast<std::uint32_t>(r.be(4)));
        r.skip(2);  // isdst, desigidx
    }
    r.skip(h.charcnt + h.leapcnt * 12 + h.isstdcnt + h.isutcnt);
    if (!r.ok()) {
        return std::nullopt;
    }
    std::vector<std::int32_t> offsets;
    offsets.reserve(type_of.size());
    for (std::uint8_t i : type_of) {
        if (i >= type_offset.size()) {
            return std::nullopt;
        }
        offsets.push_back(type_offset[i]);
    }
    std::optional<PosixRule> rule;
    std::string_view footer = r.rest();
    if (footer.size() >= 2 && footer[0] == '\n') {
        std::size_t close = footer.find('\n', 1);
        if (close != std::string_view::npos && close > 1) {
            rule = parse_posix_rule(footer.substr(1, close - 1));
        }
    }
    return Zone(std::move(times), std::move(offsets), type_offset[0], std::move(rule));
}

std::set<std::string, std::less<>> parse_zone_list(std::string_view tzdata_zi) {
    std::set<std::string, std::less<>> names;
    std::size_t from = 0;
    while (from < tzdata_zi.size()) {
        std::size_t end = tzdata_zi.find('\n', from);
        if (end == std::string_view::npos) {
            end = tzdata_zi.size();
        }
        const std::string_view line = tzdata_zi.substr(from, end - from);
        from = end + 1;
        // "Z NAME ..." a zone; "L TARGET NAME" a link (backward names such as US/Eastern).
        std::string_view name;
        if (line.substr(0, 2) == "Z ") {
            name = line.substr(2, line.find(' ', 2) - 2);
        } else if (line.substr(0, 2) == "L ") {
            const std::size_t target_end = line.find(' ', 2);
            if (target_end == std::string_view::npos) {
                continue;
            }
            name = line.substr(target_end + 1);
            name = name.substr(0, name.find(' '));
        } else {
            continue;
        }
        // "Factory" is a zone of the file but no place's time ("-00").
        if (!name.empty() && name != "Factory") {
            names.emplace(name);
        }
    }
    return names;
}

bool is_listed_zone(std::string_view name) {
    // Read once per process (each worker its own, on its first tz), then kept.
    static const std::set<std::string, std::less<>> names = [] {
        std::optional<std::string> text = read_small_file(kZoneList);  // 114 KiB on Debian 12
        return text ? parse_zone_list(*text) : std::set<std::string, std::less<>>{};
    }();
    return names.find(name) != names.end();
}

const Zone* find_zone(std::string_view name) {
    // Per process (each worker its own): a zone is read from disk once, then kept.
    static std::map<std::string, std::unique_ptr<Zone>, std::less<>> loaded;
    if (auto it = loaded.find(name); it != loaded.end()) {
        return it->second.get();
    }
    // Only tzdata's names: not the other files of the directory (localtime, posixrules,
    // posix/..., right/...), which would reveal the server's zone or are no IANA zone.
    if (!plausible_zone_name(name) || !is_listed_zone(name)) {
        return nullptr;
    }
    std::optional<std::string> bytes = read_small_file(kZoneDir + std::string(name));
    if (!bytes) {
        return nullptr;
    }
    std::optional<Zone> zone = parse_tzif(*bytes);
    if (!zone) {
        return nullptr;
    }
    auto [it, inserted] =
        loaded.emplace(std::string(name), std::make_unique<Zone>(std::move(*zone)));
    return it->second.get();
}

}  // namespace supportcrm::tz
