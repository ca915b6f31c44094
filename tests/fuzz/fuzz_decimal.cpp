// Fuzz target: Decimal::parse (every amount the codec reads) and Decimal's arithmetic.
// Input: "<a>\n<b>"; the input length also picks the digits for to_fixed.
// Properties: parse and try_parse agree and refuse only with Error(validation); the canonical text
// is canonical and re-parses to an equal value; + and * commute, (a + b) - b == a, a * 1 == a,
// compare is antisymmetric and agrees with the sign of a - b; to_fixed(n) has n fractional digits
// and is the nearest such value, ties away from zero.
#include <optional>
#include <string>

#include "fuzz_common.hpp"
#include "paywasm/decimal.hpp"

using namespace paywasm;

namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// -?(0|[1-9][0-9]*)(\.[0-9]*[1-9])?, and never "-0".
bool canonical(const std::string& s) {
    std::size_t i = 0;
    if (i < s.size() && s[i] == '-') ++i;
    if (i >= s.size() || !is_digit(s[i])) return false;
    if (s[i] == '0' && i + 1 < s.size() && is_digit(s[i + 1])) return false;
    while (i < s.size() && is_digit(s[i])) ++i;
    if (i < s.size()) {
        if (s[i] != '.' || i + 1 >= s.size() || s.back() == '0') return false;
        for (++i; i < s.size(); ++i)
            if (!is_digit(s[i])) return false;
    }
    return s != "-0";
}

Decimal absolute(const Decimal& d) { return d.is_negative() ? Decimal() - d : d; }

int sign(const Decimal& d) { return d.is_zero() ? 0 : d.is_negative() ? -1 : 1; }

std::optional<Decimal> parsed(std::string_view text) {
    Decimal out;
    bool ok = Decimal::try_parse(text, out);
    bool threw = !fuzz::accepts({ErrorCode::validation}, [&] {
        Decimal p = Decimal::parse(text);
        PAYWASM_FUZZ_CHECK(p == out && p.to_string() == out.to_string(), "parse and try_parse give the same value");
    });
    PAYWASM_FUZZ_CHECK(ok != threw, "parse throws exactly when try_parse returns false");
    if (!ok) return std::nullopt;
    return out;
}

void check_canonical(const Decimal& a) {
    const std::string text = a.to_string();
    PAYWASM_FUZZ_CHECK(canonical(text), "canonical text: " + text);
    PAYWASM_FUZZ_CHECK(a.is_zero() == (text == "0"), "is_zero agrees with the text " + text);
    PAYWASM_FUZZ_CHECK(a.is_negative() == (text[0] == '-'), "is_negative agrees with the text " + text);
    auto dot = text.find('.');
    PAYWASM_FUZZ_CHECK(a.scale() == (dot == std::string::npos ? 0 : static_cast<int>(text.size() - dot - 1)),
                       "scale counts the fractional digits of " + text);
    Decimal again;
    PAYWASM_FUZZ_CHECK(Decimal::try_parse(text, again), "canonical text re-parses: " + text);
    PAYWASM_FUZZ_CHECK(again == a && again.to_string() == text, "canonical text re-parses equal: " + text);
}

void check_fixed(const Decimal& a, int digits) {
    const std::string fixed = a.to_fixed(digits);
    auto dot = fixed.find('.');
    if (digits == 0) {
        PAYWASM_FUZZ_CHECK(dot == std::string::npos, "to_fixed(0) has no point: " + fixed);
    } else {
        PAYWASM_FUZZ_CHECK(dot != std::string::npos && fixed.size() - dot - 1 == static_cast<std::size_t>(digits),
                           "to_fixed(" + std::to_string(digits) + ") has that many digits: " + fixed);
    }
    Decimal f;
    if (!Decimal::try_parse(fixed, f)) {
        // Only Decimal's own limits may stop the re-parse: more than 18 fractional digits, or a
        // carry into a 31st integer digit.
        std::size_t integer_digits = (dot == std::string::npos ? fixed.size() : dot) - (fixed[0] == '-' ? 1 : 0);
        PAYWASM_FUZZ_CHECK(digits > Decimal::kMaxFractionDigits || integer_digits > Decimal::kMaxIntegerDigits,
                           "to_fixed text parses: " + fixed);
        return;
    }
    Decimal scale_up = Decimal::from_int(2);
    for (int i = 0; i < digits; ++i) scale_up = scale_up * Decimal::from_int(10);
    // |a - f| * 2 * 10^digits <= 1: f is within half a unit of the last place.
    Decimal error = absolute(a - f) * scale_up;
    PAYWASM_FUZZ_CHECK(error <= Decimal::from_int(1), a.to_string() + " to_fixed(" + std::to_string(digits) +
                                                          ") = " + fixed + " is not the nearest");
    if (error == Decimal::from_int(1)) {
        PAYWASM_FUZZ_CHECK(absolute(f) > absolute(a), "a tie rounds away from zero: " + a.to_string() + " -> " + fixed);
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string_view input = fuzz::as_text(data, size);
    auto newline = input.find('\n');
    std::string_view text_a = input.substr(0, newline);
    std::string_view text_b = newline == std::string_view::npos ? input : input.substr(newline + 1);

    auto a = parsed(text_a);
    auto b = parsed(text_b);
    if (a) {
        check_canonical(*a);
        check_fixed(*a, static_cast<int>(size % 37));
        PAYWASM_FUZZ_CHECK(*a * Decimal::from_int(1) == *a, "a * 1 == a");
        PAYWASM_FUZZ_CHECK((*a * Decimal()).is_zero(), "a * 0 == 0");
        PAYWASM_FUZZ_CHECK((*a - *a).is_zero() && (*a - *a).to_string() == "0", "a - a is 0, written \"0\"");
    }
    if (a && b) {
        const Decimal sum = *a + *b, diff = *a - *b, product = *a * *b;
        PAYWASM_FUZZ_CHECK(sum == *b + *a, "+ commutes");
        PAYWASM_FUZZ_CHECK(product == *b * *a && product.to_string() == (*b * *a).to_string(), "* commutes");
        PAYWASM_FUZZ_CHECK(sum - *b == *a, "(a + b) - b == a");
        PAYWASM_FUZZ_CHECK((diff + (*b - *a)).is_zero(), "(a - b) + (b - a) == 0");
        PAYWASM_FUZZ_CHECK(Decimal::compare(*a, *b) == -Decimal::compare(*b, *a), "compare is antisymmetric");
        PAYWASM_FUZZ_CHECK(Decimal::compare(*a, *b) == sign(diff), "compare agrees with the sign of a - b");
        PAYWASM_FUZZ_CHECK(product.scale() <= 2 * Decimal::kMaxFractionDigits, "a product keeps at most 36 digits");
        for (const Decimal* r : {&sum, &diff, &product}) {
            PAYWASM_FUZZ_CHECK(canonical(r->to_string()), "arithmetic results are canonical: " + r->to_string());
        }
    }
    return 0;
}
