// Fuzz target: check_payment_uri (the qrString of the QR flow, before it is drawn or linked).
// Properties: only Error(invalid_qr) refuses; an accepted URI is printable ASCII of at most 2048
// bytes, starts with an allow-listed scheme and ':', has a non-empty [A-Za-z0-9._-] address, and
// amount and value of the form digits[.digits] within Decimal's limits (30 integer digits are
// 10^12 ETH in wei; 18 fractional digits), which parse as a non-negative Decimal; it always fits a
// QR code at ECC M, whose SVG has no script.
#include <string>

#include "fuzz_common.hpp"
#include "paywasm/decimal.hpp"
#include "paywasm/qr.hpp"

using namespace paywasm;

namespace {

bool address_char(char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
           c == '-';
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

void check_amount(const std::string& text, const char* what) {
    std::size_t i = 0, integer = 0, fraction = 0;
    for (; i < text.size() && is_digit(text[i]); ++i) ++integer;
    if (i < text.size() && text[i] == '.') {
        for (++i; i < text.size() && is_digit(text[i]); ++i) ++fraction;
    }
    const bool grammar = integer > 0 && i == text.size() && (text.find('.') == std::string::npos || fraction > 0);
    PAYWASM_FUZZ_CHECK(grammar, std::string(what) + " is digits[.digits]: " + text);
    PAYWASM_FUZZ_CHECK(integer <= Decimal::kMaxIntegerDigits && fraction <= Decimal::kMaxFractionDigits,
                       std::string(what) + " is within Decimal's limits: " + text);
    Decimal d;
    PAYWASM_FUZZ_CHECK(Decimal::try_parse(text, d), std::string(what) + " parses as a Decimal: " + text);
    PAYWASM_FUZZ_CHECK(!d.is_negative(), std::string(what) + " is not negative: " + text);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string_view input = fuzz::as_text(data, size);
    PaymentUri uri;
    if (!fuzz::accepts({ErrorCode::invalid_qr}, [&] { uri = check_payment_uri(input); })) return 0;

    PAYWASM_FUZZ_CHECK(size <= 2048, "at most 2048 bytes");
    for (char c : input) {
        auto u = static_cast<unsigned char>(c);
        PAYWASM_FUZZ_CHECK(u > 0x20 && u < 0x7f, "printable ASCII only");
    }
    bool allowed = false;
    for (const auto& s : payment_uri_schemes()) allowed = allowed || s == uri.scheme;
    PAYWASM_FUZZ_CHECK(allowed, "scheme " + uri.scheme + " is on the allow-list");
    PAYWASM_FUZZ_CHECK(input.size() > uri.scheme.size() && input[uri.scheme.size()] == ':', "scheme then ':'");
    PAYWASM_FUZZ_CHECK(!uri.address.empty(), "an address");
    for (char c : uri.address) PAYWASM_FUZZ_CHECK(address_char(c), "address characters: " + uri.address);
    check_amount(uri.amount, "amount");
    check_amount(uri.value, "value");

    fuzz::accepts({}, [&] {
        QrMatrix m = qr_encode(input, Ecc::medium);
        PAYWASM_FUZZ_CHECK(m.size >= 21 && m.size <= 177, "QR size in [21, 177]");
        std::string svg = qr_svg(m);
        PAYWASM_FUZZ_CHECK(svg.find("<script") == std::string::npos && svg.find("href") == std::string::npos,
                           "the SVG has no script and no link");
    });
    return 0;
}
