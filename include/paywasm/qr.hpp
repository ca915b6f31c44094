// paywasm/qr.hpp — QR codes for payment URIs (Nayuki's qrcodegen inside) and the URI check.
//
// The core gives the module matrix; drawing is a thin layer (qr_svg, qr_text) on top of it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace paywasm {

enum class Ecc { low, medium, quartile, high };
// "L" | "M" | "Q" | "H" (case-insensitive); throws Error(validation, "ecc") otherwise.
Ecc parse_ecc(std::string_view name);

// A square of dark (1) / light (0) modules, row-major, without the quiet zone.
struct QrMatrix {
    int size = 0;  // in [21, 177]
    std::vector<std::uint8_t> modules;
    bool dark(int x, int y) const { return modules[static_cast<std::size_t>(y) * size + x] != 0; }
};

// Encodes UTF-8 `text` at the given error-correction level (boosted when that fits the same
// version), versions 1-40, mask chosen by qrcodegen. Throws Error(invalid_qr) when the text
// does not fit version 40 at that level; a shorter text or a lower level is the way out.
QrMatrix qr_encode(std::string_view text, Ecc ecc = Ecc::medium);

// SVG markup: viewBox in modules including `border` (0..16) quiet modules each side, a white
// background rect, all dark modules as one <path>, shape-rendering="crispEdges", no scripts,
// no external references. Throws Error(validation, "border") outside 0..16.
std::string qr_svg(const QrMatrix&, int border = 4);
// Terminal rendering with two modules per character row (Unicode half blocks), dark modules as
// blocks (reads right on a light background). Throws Error(validation, "border") outside 0..16.
std::string qr_text(const QrMatrix&, int border = 2);

// A payment URI as the QR flow returns it: "<scheme>:<address>?amount=<decimal>&value=<decimal>..."
struct PaymentUri {
    std::string scheme;   // lower-case, e.g. "bitcoin"
    std::string address;  // [A-Za-z0-9._-]+ (no '/', no ':')
    std::string amount;   // decimal text of the amount parameter
    std::string value;    // decimal text of the value parameter
};

// Checks that `uri` looks like a wallet payment URI and returns its parts. Throws
// Error(invalid_qr, "<what is wrong>"): a scheme not in the allow-list of wallet schemes
// (javascript:, data:, http(s):, ... never pass), a missing or malformed address, a missing
// amount or value parameter or one that is not a non-negative decimal (decimal.hpp's form: at most
// 18 fractional and 30 integer digits; no sign), control characters, more than 2048 bytes.
PaymentUri check_payment_uri(std::string_view uri);
// The allow-list used above (lower-case scheme names).
const std::vector<std::string>& payment_uri_schemes();

}  // namespace paywasm
