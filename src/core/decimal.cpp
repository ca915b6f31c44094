// Decimal: sign, a string of decimal digits and a scale. All arithmetic is schoolbook arithmetic on
// those digit strings, so nothing is ever rounded by a binary format and nothing overflows.
#include "paywasm/decimal.hpp"

#include <algorithm>
#include <cstddef>

#include "paywasm/error.hpp"

namespace paywasm {

namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

bool iequals(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
        char x = a[i], y = b[i];
        if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
        if (y >= 'A' && y <= 'Z') y = static_cast<char>(y - 'A' + 'a');
        if (x != y) return false;
    }
    return true;
}

// Why `text` is not an accepted decimal, or nullptr when it is one.
const char* rejection(std::string_view text) {
    if (text.empty()) return "is empty";
    if (text.front() == ' ' || text.back() == ' ' || text.front() == '\t' || text.back() == '\t' ||
        text.find_first_of("\n\r") != std::string_view::npos)
        return "has leading or trailing spaces";
    std::string_view body = text;
    if (body.front() == '+') return "has a '+' sign (write the number without it)";
    if (body.front() == '-') body.remove_prefix(1);
    if (iequals(body, "nan") || iequals(body, "inf") || iequals(body, "infinity"))
        return "is not a finite number";
    if (body.find_first_of("eE") != std::string_view::npos)
        return "uses exponent notation (write all digits, e.g. 1500 not 1.5e3)";
    std::size_t dot = body.find('.');
    std::string_view int_part = body.substr(0, dot);
    std::string_view frac_part =
        dot == std::string_view::npos ? std::string_view() : body.substr(dot + 1);
    for (std::string_view part : {int_part, frac_part})
        for (char c : part)
            if (!is_digit(c)) return "is not a plain decimal number (digits, optional '.' and digits)";
    if (int_part.empty()) return "needs a digit before the '.'";
    if (dot != std::string_view::npos && frac_part.empty()) return "needs a digit after the '.'";
    if (frac_part.size() > static_cast<std::size_t>(Decimal::kMaxFractionDigits))
        return "has more than 18 fractional digits";
    if (int_part.size() > static_cast<std::size_t>(Decimal::kMaxIntegerDigits))
        return "has more than 30 integer digits";
    return nullptr;
}

// ---- Magnitudes: digit strings without sign, aligned to a common scale ----

// `digits` (with `scale` fractional digits) rewritten with `to_scale` >= scale fractional digits.
// Zero stays "0" so that magnitudes never have leading zeros.
std::string rescaled(const std::string& digits, int scale, int to_scale) {
    if (digits == "0") return digits;
    return digits + std::string(static_cast<std::size_t>(to_scale - scale), '0');
}

int compare_magnitudes(const std::string& a, const std::string& b) {
    // Both have no leading zeros (or are "0"), so the longer one is larger.
    if (a.size() != b.size()) return a.size() < b.size() ? -1 : 1;
    int c = a.compare(b);
    return c < 0 ? -1 : (c > 0 ? 1 : 0);
}

std::string strip_leading_zeros(std::string s) {
    std::size_t first = s.find_first_not_of('0');
    if (first == std::string::npos) return "0";
    s.erase(0, first);
    return s;
}

std::string add_magnitudes(const std::string& a, const std::string& b) {
    std::string out;
    out.reserve(std::max(a.size(), b.size()) + 1);
    int carry = 0;
    for (std::size_t i = 0; i < a.size() || i < b.size() || carry; ++i) {
        int sum = carry;
        if (i < a.size()) sum += a[a.size() - 1 - i] - '0';
        if (i < b.size()) sum += b[b.size() - 1 - i] - '0';
        out.push_back(static_cast<char>('0' + sum % 10));
        carry = sum / 10;
    }
    std::reverse(out.begin(), out.end());
    return strip_leading_zeros(std::move(out));
}

// a - b for a >= b.
std::string subtract_magnitudes(const std::string& a, const std::string& b) {
    std::string out;
    out.reserve(a.size());
    int borrow = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        int d = (a[a.size() - 1 - i] - '0') - borrow;
        if (i < b.size()) d -= b[b.size() - 1 - i] - '0';
        borrow = d < 0 ? 1 : 0;
        out.push_back(static_cast<char>('0' + d + 10 * borrow));
    }
    std::reverse(out.begin(), out.end());
    return strip_leading_zeros(std::move(out));
}

std::string multiply_magnitudes(const std::string& a, const std::string& b) {
    std::string acc(a.size() + b.size(), 0);  // little-endian digit values
    for (std::size_t i = 0; i < a.size(); ++i) {
        int carry = 0;
        int da = a[a.size() - 1 - i] - '0';
        for (std::size_t j = 0; j < b.size() || carry; ++j) {
            int cur = acc[i + j] + carry;
            if (j < b.size()) cur += da * (b[b.size() - 1 - j] - '0');
            acc[i + j] = static_cast<char>(cur % 10);
            carry = cur / 10;
        }
    }
    for (char& c : acc) c = static_cast<char>(c + '0');
    std::reverse(acc.begin(), acc.end());
    return strip_leading_zeros(std::move(acc));
}

// Signed sum of two values given as aligned magnitudes; returns (negative, magnitude).
std::pair<bool, std::string> signed_add(bool neg_a, const std::string& a, bool neg_b,
                                        const std::string& b) {
    if (neg_a == neg_b) return {neg_a, add_magnitudes(a, b)};
    int c = compare_magnitudes(a, b);
    if (c == 0) return {false, "0"};
    if (c > 0) return {neg_a, subtract_magnitudes(a, b)};
    return {neg_b, subtract_magnitudes(b, a)};
}

}  // namespace

// ---- Construction ----

Decimal Decimal::parse(std::string_view text, const std::string& field) {
    Decimal d;
    if (!try_parse(text, d)) fail_validation(field, rejection(text));
    return d;
}

bool Decimal::try_parse(std::string_view text, Decimal& out) {
    if (rejection(text) != nullptr) return false;
    Decimal d;
    d.negative_ = text.front() == '-';
    if (d.negative_) text.remove_prefix(1);
    std::size_t dot = text.find('.');
    if (dot == std::string_view::npos) {
        d.digits_ = std::string(text);
        d.scale_ = 0;
    } else {
        d.digits_ = std::string(text.substr(0, dot));
        d.digits_.append(text.substr(dot + 1));
        d.scale_ = static_cast<int>(text.size() - dot - 1);
    }
    d.normalize();
    out = std::move(d);
    return true;
}

Decimal Decimal::from_int(long long v) {
    Decimal d;
    d.negative_ = v < 0;
    // Through unsigned so that the most negative value has a magnitude too.
    unsigned long long m = d.negative_ ? 0ULL - static_cast<unsigned long long>(v)
                                       : static_cast<unsigned long long>(v);
    d.digits_ = std::to_string(m);
    d.normalize();
    return d;
}

void Decimal::normalize() {
    // Drop trailing fractional zeros, then leading zeros of the integer part.
    std::size_t drop = 0;
    while (drop < static_cast<std::size_t>(scale_) && drop < digits_.size() &&
           digits_[digits_.size() - 1 - drop] == '0')
        ++drop;
    digits_.erase(digits_.size() - drop);
    scale_ -= static_cast<int>(drop);
    std::size_t first = digits_.find_first_not_of('0');
    if (first == std::string::npos) {
        digits_ = "0";
        scale_ = 0;
        negative_ = false;
        return;
    }
    digits_.erase(0, first);
}

// ---- Text ----

std::string Decimal::to_string() const {
    std::string out = negative_ ? "-" : "";
    std::size_t scale = static_cast<std::size_t>(scale_);
    if (scale == 0) return out + digits_;
    if (digits_.size() <= scale) {
        out += "0.";
        out.append(scale - digits_.size(), '0');
        out += digits_;
    } else {
        out.append(digits_, 0, digits_.size() - scale);
        out += '.';
        out.append(digits_, digits_.size() - scale, std::string::npos);
    }
    return out;
}

std::string Decimal::to_fixed(int fraction_digits) const {
    constexpr int kMaxFixedDigits = 2 * kMaxFractionDigits;
    if (fraction_digits < 0 || fraction_digits > kMaxFixedDigits)
        fail_validation("fraction_digits", "must be between 0 and 36");
    Decimal r = *this;
    if (fraction_digits < scale_) {
        // Cut the extra digits; round the magnitude up when the first one cut is 5 or more.
        std::size_t cut = static_cast<std::size_t>(scale_ - fraction_digits);
        bool round_up = digits_.size() >= cut && digits_[digits_.size() - cut] >= '5';
        std::string kept = digits_.size() > cut ? digits_.substr(0, digits_.size() - cut) : "0";
        if (round_up) kept = add_magnitudes(kept, "1");
        r.digits_ = kept;
        r.scale_ = fraction_digits;
        r.normalize();  // "-0.001" at 2 digits is zero, written "0.00" (no negative zero)
    }
    std::string out = r.to_string();
    if (fraction_digits == 0) return out;
    int have = r.scale_;
    if (have == 0) out += '.';
    out.append(static_cast<std::size_t>(fraction_digits - have), '0');
    return out;
}

// ---- Arithmetic ----

Decimal operator+(const Decimal& a, const Decimal& b) {
    int scale = std::max(a.scale_, b.scale_);
    auto [neg, mag] = signed_add(a.negative_, rescaled(a.digits_, a.scale_, scale), b.negative_,
                                 rescaled(b.digits_, b.scale_, scale));
    Decimal r;
    r.negative_ = neg;
    r.digits_ = std::move(mag);
    r.scale_ = scale;
    r.normalize();
    return r;
}

Decimal operator-(const Decimal& a, const Decimal& b) {
    Decimal negated_b = b;
    if (!negated_b.is_zero()) negated_b.negative_ = !negated_b.negative_;
    return a + negated_b;
}

Decimal operator*(const Decimal& a, const Decimal& b) {
    Decimal r;
    r.negative_ = a.negative_ != b.negative_;
    r.digits_ = multiply_magnitudes(a.digits_, b.digits_);
    r.scale_ = a.scale_ + b.scale_;
    r.normalize();
    return r;
}

int Decimal::compare(const Decimal& a, const Decimal& b) {
    if (a.negative_ != b.negative_) return a.negative_ ? -1 : 1;
    int scale = std::max(a.scale_, b.scale_);
    int c = compare_magnitudes(rescaled(a.digits_, a.scale_, scale),
                               rescaled(b.digits_, b.scale_, scale));
    return a.negative_ ? -c : c;
}

}  // namespace paywasm
