// src/core/qr.cpp — QR module matrices (qrcodegen inside), two thin renderers, and the payment URI
// check that stands between the service's QR string and a shopper's wallet.
#include "paywasm/qr.hpp"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <iterator>
#include <vector>

#include <qrcodegen/qrcodegen.hpp>

#include "paywasm/decimal.hpp"
#include "paywasm/error.hpp"
#include "paywasm/text.hpp"

namespace paywasm {

namespace {

constexpr std::size_t kMaxUriBytes = 2048;
constexpr int kMaxBorder = 16;

char lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_hex(char c) { return is_digit(c) || (lower(c) >= 'a' && lower(c) <= 'f'); }

const char* ecc_name(Ecc ecc) {
    switch (ecc) {
        case Ecc::low: return "L";
        case Ecc::medium: return "M";
        case Ecc::quartile: return "Q";
        case Ecc::high: return "H";
    }
    return "M";
}

qrcodegen::QrCode::Ecc to_qrcodegen(Ecc ecc) {
    switch (ecc) {
        case Ecc::low: return qrcodegen::QrCode::Ecc::LOW;
        case Ecc::medium: return qrcodegen::QrCode::Ecc::MEDIUM;
        case Ecc::quartile: return qrcodegen::QrCode::Ecc::QUARTILE;
        case Ecc::high: return qrcodegen::QrCode::Ecc::HIGH;
    }
    return qrcodegen::QrCode::Ecc::MEDIUM;
}

// Data codewords per version (1-40) and level (L, M, Q, H): ISO/IEC 18004 capacities.
//
// qr_encode chooses the version itself and calls qrcodegen's low-level constructor instead of
// encodeText/encodeSegments, which build their data_too_long message with std::ostringstream: that
// alone drags ~55 KB (gzipped) of iostream and locale code into the wasm module. It also writes the
// data segment itself rather than through QrSegment and BitBuffer (vector<bool> inserts): 2.5 KB
// gzip less in the module. The unit tests check that the matrices are identical to encodeText's at
// every version boundary.
constexpr short kDataCodewords[4][40] = {
    {19,   34,   55,   80,   108,  136,  156,  194,  232,  274,  324,  370,  428,  461,
     523,  589,  647,  721,  795,  861,  932,  1006, 1094, 1174, 1276, 1370, 1468, 1531,
     1631, 1735, 1843, 1955, 2071, 2191, 2306, 2434, 2566, 2702, 2812, 2956},
    {16,  28,  44,  64,   86,   108,  124,  154,  182,  216,  254,  290,  334,  365,
     415, 453, 507, 563,  627,  669,  714,  782,  860,  914,  1000, 1062, 1128, 1193,
     1267, 1373, 1455, 1541, 1631, 1725, 1812, 1914, 1992, 2102, 2216, 2334},
    {13,  22,  34,  48,  62,  76,  88,  110, 132, 154, 180, 206, 244,  261,
     295, 325, 367, 397, 445, 485, 512, 568, 614, 664, 718, 754, 808,  871,
     911, 985, 1033, 1115, 1171, 1231, 1286, 1354, 1426, 1502, 1582, 1666},
    {9,   16,  26,  36,  46,  60,  66,  86,  100, 122, 140, 158, 180, 197,
     223, 253, 283, 313, 341, 385, 406, 442, 464, 514, 538, 596, 628, 661,
     701, 745, 793, 845, 901, 961, 986, 1054, 1096, 1142, 1222, 1276},
};

int data_codewords(int version, Ecc ecc) { return kDataCodewords[static_cast<int>(ecc)][version - 1]; }

void check_border(int border) {
    if (border < 0 || border > kMaxBorder) {
        fail_validation("border", "must be 0.." + std::to_string(kMaxBorder) + " modules, not " + std::to_string(border));
    }
}

[[noreturn]] void bad_uri(const std::string& reason) { throw Error(ErrorCode::invalid_qr, "payment URI: " + reason); }

// RFC 3986 characters that may appear in a URI outside percent-escapes.
bool uri_char(char c) {
    if (is_alpha(c) || is_digit(c)) return true;
    switch (c) {
        case '-': case '.': case '_': case '~':                                  // unreserved
        case ':': case '/': case '?': case '#': case '[': case ']': case '@':    // gen-delims
        case '!': case '$': case '&': case '\'': case '(': case ')': case '*':   // sub-delims
        case '+': case ',': case ';': case '=': case '%':
            return true;
        default:
            return false;
    }
}

// A non-negative amount as money is written everywhere else (decimal.hpp): digits with an optional
// '.fraction' of 1..18 digits, at most 30 integer digits, no sign, no exponent.
bool is_decimal(std::string_view s) {
    Decimal d;
    return !s.empty() && s[0] != '-' && Decimal::try_parse(s, d);
}

}  // namespace

Ecc parse_ecc(std::string_view name) {
    if (name.size() == 1) {
        switch (lower(name[0])) {
            case 'l': return Ecc::low;
            case 'm': return Ecc::medium;
            case 'q': return Ecc::quartile;
            case 'h': return Ecc::high;
            default: break;
        }
    }
    fail_validation("ecc", "must be L, M, Q or H, not '" + std::string(name) + "'");
}

QrMatrix qr_encode(std::string_view text, Ecc ecc) {
    // One segment in the mode qrcodegen's makeSegments picks (numeric, alphanumeric, else bytes; a
    // NUL anywhere makes it bytes: encodeText would stop there), written straight into codewords.
    static const char kAlphanumeric[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ $%*+-./:";
    auto alnum_value = [](char c) -> int {
        for (int i = 0; i < 45; ++i) {
            if (kAlphanumeric[i] == c) return i;
        }
        return -1;
    };
    bool numeric = true, alphanumeric = true;
    for (char c : text) {
        numeric = numeric && is_digit(c);
        alphanumeric = alphanumeric && c != '\0' && alnum_value(c) >= 0;
    }
    const std::size_t n = text.size();
    // Mode indicator, character count bits for versions 1-9, 10-26, 27-40, and data bits.
    struct Mode {
        std::uint32_t indicator;
        int count_bits[3];
    };
    static const Mode kNumeric{0x1, {10, 12, 14}}, kAlnum{0x2, {9, 11, 13}}, kBytes{0x4, {8, 16, 16}};
    const Mode& mode = numeric ? kNumeric : alphanumeric ? kAlnum : kBytes;
    const std::size_t data_bits = numeric        ? n / 3 * 10 + (n % 3 == 0 ? 0 : n % 3 * 3 + 1)
                                  : alphanumeric ? n / 2 * 11 + n % 2 * 6
                                                 : 8 * n;
    auto count_bits = [&](int version) { return mode.count_bits[version <= 9 ? 0 : version <= 26 ? 1 : 2]; };

    // Smallest version that holds the data at `ecc`, then the highest level that fits it too.
    // (Empty text is no segment at all, as in makeSegments.)
    int version = 1;
    std::size_t used_bits = 0;
    for (;; ++version) {
        const int cc = count_bits(version);
        const bool fits_count = n < (std::size_t{1} << cc);
        used_bits = n == 0 ? 0 : 4 + static_cast<std::size_t>(cc) + data_bits;
        if (fits_count && used_bits <= 8 * static_cast<std::size_t>(data_codewords(version, ecc))) break;
        if (version == 40) {
            throw Error(ErrorCode::invalid_qr,
                        "text is too long for a QR code: " + std::to_string(text.size()) +
                            " bytes do not fit the largest QR code (version 40) at error-correction level " +
                            ecc_name(ecc) + "; shorten the text or use a lower level (L holds the most)");
        }
    }
    for (Ecc higher : {Ecc::medium, Ecc::quartile, Ecc::high}) {
        if (higher > ecc && used_bits <= 8 * static_cast<std::size_t>(data_codewords(version, higher))) ecc = higher;
    }

    // Data bits: the segment, terminator, bit padding to a byte, then the alternating pad bytes.
    const std::size_t capacity_bits = 8 * static_cast<std::size_t>(data_codewords(version, ecc));
    std::vector<std::uint8_t> codewords(capacity_bits / 8);
    std::size_t bit = 0;
    auto put = [&](std::uint32_t value, int len) {
        for (int i = len - 1; i >= 0; --i, ++bit) {
            if ((value >> i) & 1) codewords[bit >> 3] = static_cast<std::uint8_t>(codewords[bit >> 3] | (0x80 >> (bit & 7)));
        }
    };
    if (n > 0) {
        put(mode.indicator, 4);
        put(static_cast<std::uint32_t>(n), count_bits(version));
        std::uint32_t group = 0;
        int grouped = 0;
        for (char c : text) {
            if (numeric) {
                group = group * 10 + static_cast<std::uint32_t>(c - '0');
                if (++grouped == 3) {
                    put(group, 10);
                    group = 0;
                    grouped = 0;
                }
            } else if (alphanumeric) {
                group = group * 45 + static_cast<std::uint32_t>(alnum_value(c));
                if (++grouped == 2) {
                    put(group, 11);
                    group = 0;
                    grouped = 0;
                }
            } else {
                put(static_cast<unsigned char>(c), 8);
            }
        }
        if (grouped > 0) put(group, numeric ? grouped * 3 + 1 : 6);
    }
    bit += std::min<std::size_t>(4, capacity_bits - bit);  // terminator (zeros)
    bit = (bit + 7) / 8 * 8;
    std::uint32_t pad = 0xEC;
    while (bit < capacity_bits) {
        put(pad, 8);
        pad ^= 0xEC ^ 0x11;
    }

    qrcodegen::QrCode code(version, to_qrcodegen(ecc), codewords, -1);  // -1: qrcodegen picks the mask
    QrMatrix m;
    m.size = code.getSize();
    m.modules.resize(static_cast<std::size_t>(m.size) * static_cast<std::size_t>(m.size));
    for (int y = 0; y < m.size; ++y) {
        for (int x = 0; x < m.size; ++x) {
            m.modules[static_cast<std::size_t>(y) * static_cast<std::size_t>(m.size) + static_cast<std::size_t>(x)] =
                code.getModule(x, y) ? 1 : 0;
        }
    }
    return m;
}

namespace {

void append_int(std::string& out, int n) {
    char digits[12];
    out.append(digits, std::to_chars(digits, digits + sizeof digits, n).ptr);
}

}  // namespace

std::string qr_svg(const QrMatrix& m, int border) {
    check_border(border);
    std::string n;
    append_int(n, m.size + 2 * border);
    std::string out = "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" viewBox=\"0 0 ";
    out += n;
    out += ' ';
    out += n;
    out += "\" shape-rendering=\"crispEdges\"><rect width=\"";
    out += n;
    out += "\" height=\"";
    out += n;
    out += "\" fill=\"#ffffff\"/><path fill=\"#000000\" d=\"";
    bool first = true;
    for (int y = 0; y < m.size; ++y) {
        for (int x = 0; x < m.size;) {
            if (!m.dark(x, y)) { ++x; continue; }
            int run = 1;
            while (x + run < m.size && m.dark(x + run, y)) ++run;
            if (!first) out += ' ';
            first = false;
            // One rectangle per horizontal run: move, across, down one, back, close.
            out += 'M';
            append_int(out, x + border);
            out += ',';
            append_int(out, y + border);
            out += 'h';
            append_int(out, run);
            out += "v1h-";
            append_int(out, run);
            out += 'z';
            x += run;
        }
    }
    out += "\"/></svg>\n";
    return out;
}

std::string qr_text(const QrMatrix& m, int border) {
    check_border(border);
    // Dark modules are ink: correct on a light terminal background (and on paper).
    const int total = m.size + 2 * border;
    auto dark = [&](int x, int y) {
        x -= border;
        y -= border;
        return x >= 0 && y >= 0 && x < m.size && y < m.size && m.dark(x, y);
    };
    std::string out;
    for (int y = 0; y < total; y += 2) {
        for (int x = 0; x < total; ++x) {
            bool top = dark(x, y), bottom = dark(x, y + 1);
            out += top && bottom ? "\u2588" : top ? "\u2580" : bottom ? "\u2584" : " ";
        }
        out += '\n';
    }
    return out;
}

namespace {

// Wallet URI schemes accepted by check_payment_uri. Configurable by code: add a scheme here when the
// service starts returning it (lower-case; RFC 3986 scheme characters). Plain literals: the check
// needs no std::string of them (payment_uri_schemes() builds its list only when asked).
constexpr const char* kPaymentUriSchemes[] = {
    "bitcoin", "bitcoincash", "ethereum", "litecoin", "dogecoin", "dash",  "tron",  "ripple",      "stellar",
    "solana",  "monero",      "zcash",    "cardano",  "polygon",  "usdt",  "usdc",  "binancecoin",
};

}  // namespace

const std::vector<std::string>& payment_uri_schemes() {
    static const std::vector<std::string> schemes(std::begin(kPaymentUriSchemes), std::end(kPaymentUriSchemes));
    return schemes;
}

PaymentUri check_payment_uri(std::string_view uri) {
    if (uri.empty()) bad_uri("is empty");
    if (uri.size() > kMaxUriBytes) {
        bad_uri("is " + std::to_string(uri.size()) + " bytes; at most " + std::to_string(kMaxUriBytes) + " are accepted");
    }
    for (std::size_t i = 0; i < uri.size(); ++i) {
        auto c = static_cast<unsigned char>(uri[i]);
        if (c < 0x20 || c == 0x7f || c == ' ') {
            bad_uri("contains a control character or whitespace at position " + std::to_string(i + 1));
        }
        if (c >= 0x80) bad_uri("contains a non-ASCII byte at position " + std::to_string(i + 1) + " (percent-encode it)");
    }

    PaymentUri out;
    auto colon = uri.find(':');
    if (colon == std::string_view::npos || colon == 0) {
        bad_uri("has no scheme; expected <scheme>:<address>?amount=<decimal>&value=<decimal>");
    }
    for (char c : uri.substr(0, colon)) out.scheme += lower(c);
    bool known = false;
    for (const char* s : kPaymentUriSchemes) known = known || out.scheme == s;
    if (!known) {
        std::string list;
        for (const char* s : kPaymentUriSchemes) {
            if (!list.empty()) list += ", ";
            list += s;
        }
        bad_uri("scheme '" + escape_untrusted(out.scheme, 40) + "' is not a wallet payment scheme (allowed: " + list + ")");
    }

    for (std::size_t i = 0; i < uri.size(); ++i) {
        if (!uri_char(uri[i])) {
            bad_uri("contains '" + escape_untrusted(uri.substr(i, 1)) + "' at position " + std::to_string(i + 1) +
                    ", which a URI cannot hold unescaped");
        }
        if (uri[i] == '%' && (i + 2 >= uri.size() || !is_hex(uri[i + 1]) || !is_hex(uri[i + 2]))) {
            bad_uri("has a '%' at position " + std::to_string(i + 1) + " that is not followed by two hex digits");
        }
    }
    if (uri.find('#') != std::string_view::npos) bad_uri("has a fragment ('#'), which a payment URI does not use");

    std::string_view rest = uri.substr(colon + 1);
    auto qmark = rest.find('?');
    std::string_view address = rest.substr(0, qmark);
    if (address.substr(0, 2) == "//") bad_uri("the address must follow '" + out.scheme + ":' directly, without '//'");
    if (address.empty()) bad_uri("has no address after '" + out.scheme + ":'");
    for (std::size_t i = 0; i < address.size(); ++i) {
        char c = address[i];
        if (!(is_alpha(c) || is_digit(c) || c == '.' || c == '_' || c == '-')) {
            bad_uri("address contains '" + escape_untrusted(address.substr(i, 1)) + "' at position " + std::to_string(i + 1) +
                    "; allowed are letters, digits, '.', '_' and '-'");
        }
    }
    out.address = std::string(address);

    bool has_amount = false, has_value = false;
    if (qmark != std::string_view::npos) {
        std::string_view query = rest.substr(qmark + 1);
        while (true) {
            auto amp = query.find('&');
            std::string_view param = query.substr(0, amp);
            if (param.empty()) bad_uri("has an empty query parameter (a stray '&' or '?')");
            auto eq = param.find('=');
            std::string_view key = param.substr(0, eq);
            if (key.empty()) bad_uri("has a query parameter without a name");
            if (key == "amount" || key == "value") {
                bool& seen = key == "amount" ? has_amount : has_value;
                std::string& target = key == "amount" ? out.amount : out.value;
                std::string name(key);
                if (seen) bad_uri("parameter '" + name + "' appears twice");
                seen = true;
                if (eq == std::string_view::npos) bad_uri("parameter '" + name + "' has no value");
                std::string_view v = param.substr(eq + 1);
                if (!is_decimal(v)) {
                    bad_uri("parameter '" + name + "' is '" + escape_untrusted(v, 40) + "'" +
                            ", not a non-negative decimal (digits with an optional '.fraction' of at most 18 digits, "
                            "at most 30 integer digits, no sign, no exponent)");
                }
                target = std::string(v);
            }
            if (amp == std::string_view::npos) break;
            query.remove_prefix(amp + 1);
        }
    }
    if (!has_amount) bad_uri("is missing the amount parameter (expected ?amount=<decimal>&value=<decimal>)");
    if (!has_value) bad_uri("is missing the value parameter (expected ?amount=<decimal>&value=<decimal>)");
    return out;
}

}  // namespace paywasm
