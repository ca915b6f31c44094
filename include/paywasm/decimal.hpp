// paywasm/decimal.hpp — exact decimal money. No binary floating point touches an amount.
//
// A Decimal is sign × digits × 10^-scale, held as text digits, so "0.1" + "0.2" == "0.3" exactly.
// Accepted text: optional '-', at least one digit, optional '.' followed by 1..18 digits. Not
// accepted: exponents ("1e3"), "NaN", "Infinity", '+', leading/trailing spaces, a bare '.'. The
// integer part may have at most 30 digits (so products of two amounts stay exact and bounded).
#pragma once

#include <string>
#include <string_view>

namespace paywasm {

class Decimal {
public:
    static constexpr int kMaxFractionDigits = 18;
    static constexpr int kMaxIntegerDigits = 30;

    Decimal() = default;  // zero

    // Parses `text` as above; throws Error(validation, field = `field`) naming the reason.
    static Decimal parse(std::string_view text, const std::string& field = "amount");
    // Same, returning false instead of throwing.
    static bool try_parse(std::string_view text, Decimal& out);
    static Decimal from_int(long long v);

    // Canonical text: no leading zeros, no trailing fractional zeros, no '.' when integral,
    // "0" for zero (never "-0"). This is also how the value is written as a JSON number.
    std::string to_string() const;
    // Fixed number of fractional digits, rounding half away from zero ("1.005" -> "1.01" at 2).
    std::string to_fixed(int fraction_digits) const;

    bool is_zero() const { return digits_ == "0"; }
    bool is_negative() const { return negative_; }
    int scale() const { return scale_; }  // fractional digits in canonical form

    // Exact arithmetic. The result of * may have up to 36 fractional digits; that is kept.
    friend Decimal operator+(const Decimal& a, const Decimal& b);
    friend Decimal operator-(const Decimal& a, const Decimal& b);
    friend Decimal operator*(const Decimal& a, const Decimal& b);
    Decimal& operator+=(const Decimal& b) { return *this = *this + b; }

    // -1, 0 or 1; 1.50 and 1.5 compare equal.
    static int compare(const Decimal& a, const Decimal& b);
    friend bool operator==(const Decimal& a, const Decimal& b) { return compare(a, b) == 0; }
    friend bool operator!=(const Decimal& a, const Decimal& b) { return compare(a, b) != 0; }
    friend bool operator<(const Decimal& a, const Decimal& b) { return compare(a, b) < 0; }
    friend bool operator>(const Decimal& a, const Decimal& b) { return compare(a, b) > 0; }
    friend bool operator<=(const Decimal& a, const Decimal& b) { return compare(a, b) <= 0; }
    friend bool operator>=(const Decimal& a, const Decimal& b) { return compare(a, b) >= 0; }

private:
    bool negative_ = false;
    std::string digits_ = "0";  // all digits, no leading zeros (except "0"), no trailing fractional zeros
    int scale_ = 0;             // how many of digits_ are fractional
    void normalize();
};

}  // namespace paywasm
