// The page kit's ISO-8601 reader (iso8601.hpp).
#include "server/iso8601.hpp"

#include <string>

namespace paywasm::server {

namespace {

// `len` digits at `at` as a number; nullopt when any is not a digit.
std::optional<int> digits(std::string_view text, std::size_t at, std::size_t len) {
    if (at + len > text.size()) return std::nullopt;
    int v = 0;
    for (std::size_t i = at; i < at + len; ++i) {
        if (text[i] < '0' || text[i] > '9') return std::nullopt;
        v = v * 10 + (text[i] - '0');
    }
    return v;
}

int days_in_month(int y, int m) {
    static const int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    return m == 2 && leap ? 29 : kDays[m - 1];
}

// Days since 1970-01-01 of a civil date (proleptic Gregorian).
std::int64_t days_from_civil(int y, int m, int d) {
    const int yy = y - (m <= 2);
    const int era = (yy >= 0 ? yy : yy - 399) / 400;
    const int yoe = yy - era * 400;
    const int doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    const int doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return static_cast<std::int64_t>(era) * 146097 + doe - 719468;
}

}  // namespace

std::optional<std::int64_t> parse_iso8601(std::string_view text, Iso8601 form) {
    const bool zone = !text.empty() && text.back() == 'Z';
    if (zone) text.remove_suffix(1);
    // The fraction: only after seconds, 1 to 9 digits, kept to milliseconds.
    int millis = 0;
    if (text.size() > 19 && text[19] == '.') {
        const std::string_view fraction = text.substr(20);
        if (fraction.empty() || fraction.size() > 9 || !digits(fraction, 0, fraction.size())) return std::nullopt;
        millis = *digits((std::string(fraction) + "00").substr(0, 3), 0, 3);
        text = text.substr(0, 19);
    }
    if (form == Iso8601::seconds_z && (!zone || text.size() != 19)) return std::nullopt;
    // Digits at the given places, separators at the others: YYYY-MM-DD[THH:MM[:SS]].
    if (text.size() != 10 && text.size() != 16 && text.size() != 19) return std::nullopt;
    if (text[4] != '-' || text[7] != '-' || (text.size() > 10 && (text[10] != 'T' || text[13] != ':'))) return std::nullopt;
    if (text.size() == 19 && text[16] != ':') return std::nullopt;
    const auto y = digits(text, 0, 4), mo = digits(text, 5, 2), d = digits(text, 8, 2);
    const auto h = text.size() > 10 ? digits(text, 11, 2) : std::optional<int>(0);
    const auto mi = text.size() > 10 ? digits(text, 14, 2) : std::optional<int>(0);
    const auto sec = text.size() > 16 ? digits(text, 17, 2) : std::optional<int>(0);
    if (!y || !mo || !d || !h || !mi || !sec || *y < 1970 || *mo < 1 || *mo > 12 || *d < 1 || *d > days_in_month(*y, *mo) ||
        *h > 23 || *mi > 59 || *sec > 59) {
        return std::nullopt;
    }
    return ((days_from_civil(*y, *mo, *d) * 24 + *h) * 60 + *mi) * 60000LL + *sec * 1000LL + millis;
}

}  // namespace paywasm::server
