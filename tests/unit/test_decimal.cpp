// Decimal: exact money. Parse rules, canonical text, arithmetic, comparison and rounding.
#include <doctest/doctest.h>

#include <climits>
#include <string>

#include "paywasm/decimal.hpp"
#include "paywasm/error.hpp"

using paywasm::Decimal;
using paywasm::Error;
using paywasm::ErrorCode;

namespace {

Decimal d(const char* text) { return Decimal::parse(text); }

}  // namespace

TEST_CASE("Decimal parses plain decimal text and writes it in canonical form") {
    struct Case {
        const char* in;
        const char* canonical;
        int scale;
    };
    const Case cases[] = {
        {"0", "0", 0},
        {"-0", "0", 0},
        {"0.000", "0", 0},
        {"-0.00", "0", 0},
        {"007", "7", 0},
        {"1.50", "1.5", 1},
        {"0.10", "0.1", 1},
        {"-12.3400", "-12.34", 2},
        {"100", "100", 0},
        {"1.000", "1", 0},
        {"0.05", "0.05", 2},
        {"-0.000000000000000001", "-0.000000000000000001", 18},
        {"123456789012345678901234567890", "123456789012345678901234567890", 0},
        {"999999999999999999999999999999.999999999999999999",
         "999999999999999999999999999999.999999999999999999", 18},
    };
    for (const Case& c : cases) {
        CAPTURE(c.in);
        Decimal v = d(c.in);
        CHECK(v.to_string() == c.canonical);
        CHECK(v.scale() == c.scale);
        // Canonical text parses back to the same text.
        CHECK(Decimal::parse(v.to_string()).to_string() == c.canonical);
    }
    CHECK(Decimal().to_string() == "0");
    CHECK(Decimal().is_zero());
    CHECK(d("-0").is_negative() == false);
    CHECK(d("-0.5").is_negative());
    CHECK_FALSE(d("0.5").is_negative());
}

TEST_CASE("Decimal rejects NaN, infinities, exponents, signs, spaces and oversized text") {
    struct Case {
        std::string in;
        const char* reason;
    };
    const Case cases[] = {
        {"", "is empty"},
        {" 1", "has leading or trailing spaces"},
        {"1 ", "has leading or trailing spaces"},
        {"\t1", "has leading or trailing spaces"},
        {"1\n", "has leading or trailing spaces"},
        {"+1", "has a '+' sign"},
        {"NaN", "is not a finite number"},
        {"nan", "is not a finite number"},
        {"-NaN", "is not a finite number"},
        {"Infinity", "is not a finite number"},
        {"-Infinity", "is not a finite number"},
        {"inf", "is not a finite number"},
        {"1e3", "uses exponent notation"},
        {"1E3", "uses exponent notation"},
        {"1.5e-2", "uses exponent notation"},
        {".5", "needs a digit before the '.'"},
        {"-.5", "needs a digit before the '.'"},
        {"5.", "needs a digit after the '.'"},
        {".", "needs a digit before the '.'"},
        {"-", "needs a digit before the '.'"},
        {"--1", "is not a plain decimal number"},
        {"1.2.3", "is not a plain decimal number"},
        {"1,5", "is not a plain decimal number"},
        {"0x10", "is not a plain decimal number"},
        {"1_000", "is not a plain decimal number"},
        {"\xD9\xA1", "is not a plain decimal number"},  // ARABIC-INDIC DIGIT ONE
        {"1.0000000000000000001", "has more than 18 fractional digits"},
        {"1234567890123456789012345678901", "has more than 30 integer digits"},
        {"0000000000000000000000000000001", "has more than 30 integer digits"},
    };
    for (const Case& c : cases) {
        CAPTURE(c.in);
        Decimal untouched = d("42");
        CHECK_FALSE(Decimal::try_parse(c.in, untouched));
        CHECK(untouched.to_string() == "42");
        try {
            Decimal::parse(c.in, "cart[2].price");
            FAIL("accepted");
        } catch (const Error& e) {
            CHECK(e.code() == ErrorCode::validation);
            CHECK(e.field() == "cart[2].price");
            CHECK(std::string(e.what()).rfind(std::string("cart[2].price: ") + c.reason, 0) == 0);
        }
    }
    // The limits themselves are accepted.
    Decimal out;
    CHECK(Decimal::try_parse("1.000000000000000001", out));
    CHECK(out.to_string() == "1.000000000000000001");
    CHECK(Decimal::try_parse("123456789012345678901234567890", out));
    CHECK(out.to_string() == "123456789012345678901234567890");
}

TEST_CASE("0.1 + 0.2 is exactly 0.3") {
    Decimal sum = d("0.1") + d("0.2");
    CHECK(sum == d("0.3"));
    CHECK(sum.to_string() == "0.3");
    Decimal acc;
    for (int i = 0; i < 10; ++i) acc += d("0.1");
    CHECK(acc.to_string() == "1");
}

TEST_CASE("Addition and subtraction are exact across scales and signs") {
    struct Case {
        const char *a, *b, *sum, *difference;
    };
    const Case cases[] = {
        {"1", "2", "3", "-1"},
        {"1.5", "2.25", "3.75", "-0.75"},
        {"-1.5", "2.25", "0.75", "-3.75"},
        {"-1.5", "-2.25", "-3.75", "0.75"},
        {"0.999", "0.001", "1", "0.998"},
        {"100", "0.01", "100.01", "99.99"},
        {"5", "5", "10", "0"},
        {"-5", "5", "0", "-10"},
        {"0", "-0.000000000000000001", "-0.000000000000000001", "0.000000000000000001"},
        {"999999999999999999999999999999.999999999999999999", "0.000000000000000001",
         "1000000000000000000000000000000", "999999999999999999999999999999.999999999999999998"},
        {"89.99", "49", "138.99", "40.99"},
    };
    for (const Case& c : cases) {
        CAPTURE(c.a);
        CAPTURE(c.b);
        CHECK((d(c.a) + d(c.b)).to_string() == c.sum);
        CHECK((d(c.a) - d(c.b)).to_string() == c.difference);
        CHECK((d(c.b) + d(c.a)).to_string() == c.sum);
    }
    CHECK((d("5") - d("5")).is_negative() == false);  // never a negative zero
}

TEST_CASE("Multiplication is exact and keeps up to 36 fractional digits") {
    CHECK((d("24.5") * d("2")).to_string() == "49");
    CHECK((d("12.1") * d("3")).to_string() == "36.3");
    CHECK((d("-1.5") * d("1.5")).to_string() == "-2.25");
    CHECK((d("-1.5") * d("-2")).to_string() == "3");
    CHECK((d("0") * d("-7.25")).to_string() == "0");
    CHECK((d("0") * d("-7.25")).is_negative() == false);
    Decimal tiny = d("0.000000000000000001") * d("0.000000000000000001");
    CHECK(tiny.to_string() == "0.000000000000000000000000000000000001");
    CHECK(tiny.scale() == 36);
    Decimal big = d("999999999999999999999999999999") * d("999999999999999999999999999999");
    CHECK(big.to_string() == "999999999999999999999999999998000000000000000000000000000001");
    CHECK((d("19.99") * d("3") + d("4.95")).to_string() == "64.92");
}

TEST_CASE("Comparison orders by value and ignores trailing zeros") {
    CHECK(d("1.50") == d("1.5"));
    CHECK(Decimal::compare(d("1.50"), d("1.5")) == 0);
    CHECK(d("1.5") != d("1.51"));
    CHECK(d("0.05") < d("0.5"));
    CHECK(d("10") > d("9.999999999999999999"));
    CHECK(d("-1") < d("0"));
    CHECK(d("-2") < d("-1.5"));
    CHECK(d("-0.001") > d("-0.01"));
    CHECK(d("100") >= d("100.000"));
    CHECK(d("99.99") <= d("100"));
    CHECK(Decimal::compare(d("-3"), d("3")) == -1);
    CHECK(Decimal::compare(d("3"), d("-3")) == 1);
    CHECK(Decimal::compare(d("0"), d("-0")) == 0);
    CHECK(d("123456789012345678901234567890") > d("123456789012345678901234567889.9"));
}

TEST_CASE("to_fixed rounds half away from zero") {
    struct Case {
        const char* in;
        int digits;
        const char* out;
    };
    const Case cases[] = {
        {"1.005", 2, "1.01"},   {"-1.005", 2, "-1.01"}, {"1.004", 2, "1.00"},
        {"1.0049999", 2, "1.00"}, {"2.5", 0, "3"},        {"-2.5", 0, "-3"},
        {"2.4", 0, "2"},        {"0.995", 2, "1.00"},   {"9.999", 2, "10.00"},
        {"-9.995", 2, "-10.00"}, {"-0.001", 2, "0.00"},  {"0.004", 2, "0.00"},
        {"0.005", 2, "0.01"},   {"1", 2, "1.00"},       {"1.5", 3, "1.500"},
        {"123.456", 0, "123"},  {"0", 0, "0"},          {"0", 3, "0.000"},
        {"0.000000000000000005", 17, "0.00000000000000001"},
    };
    for (const Case& c : cases) {
        CAPTURE(c.in);
        CAPTURE(c.digits);
        CHECK(d(c.in).to_fixed(c.digits) == c.out);
    }
    CHECK(d("1.5").to_fixed(36) == "1.500000000000000000000000000000000000");
    CHECK_THROWS_AS(d("1").to_fixed(-1), Error);
    CHECK_THROWS_AS(d("1").to_fixed(37), Error);
}

TEST_CASE("from_int covers the whole long long range") {
    CHECK(Decimal::from_int(0).to_string() == "0");
    CHECK(Decimal::from_int(-1).to_string() == "-1");
    CHECK(Decimal::from_int(200).to_string() == "200");
    CHECK(Decimal::from_int(LLONG_MAX).to_string() == "9223372036854775807");
    CHECK(Decimal::from_int(LLONG_MIN).to_string() == "-9223372036854775808");
    CHECK(Decimal::from_int(3) == d("3.000"));
}
