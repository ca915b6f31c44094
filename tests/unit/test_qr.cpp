// Unit tests of paywasm/qr.hpp: matrix sizes, renderers, the too-long error, the payment URI check.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>

#include <qrcodegen/qrcodegen.hpp>

#include "paywasm/error.hpp"
#include "paywasm/qr.hpp"
#include "test_support.hpp"

using namespace paywasm;

namespace {

using test::error_of;

bool contains(const std::string& haystack, std::string_view needle) {
    return haystack.find(needle) != std::string::npos;
}

std::size_t count(const std::string& haystack, std::string_view needle) {
    std::size_t n = 0;
    for (auto pos = haystack.find(needle); pos != std::string::npos; pos = haystack.find(needle, pos + 1)) ++n;
    return n;
}

int dark_modules(const QrMatrix& m) {
    int n = 0;
    for (auto v : m.modules) n += v;
    return n;
}

// Sum of the run widths in the SVG path ("M x,y h W v1 h-W z" per run).
int painted_modules(const std::string& svg) {
    int total = 0;
    for (auto pos = svg.find('h'); pos != std::string::npos; pos = svg.find('h', pos + 1)) {
        if (pos + 1 < svg.size() && svg[pos + 1] >= '0' && svg[pos + 1] <= '9') total += std::stoi(svg.substr(pos + 1));
    }
    return total;
}

// Counts UTF-8 code points.
std::size_t code_points(const std::string& s) {
    std::size_t n = 0;
    for (char c : s) n += (static_cast<unsigned char>(c) & 0xc0) != 0x80;
    return n;
}

const char kUri[] = "bitcoin:bc1qxy2kgdygjrsqtzq2n0yrf2493p83kkfjhx0wlh?amount=0.00123456&value=45.10&label=Shop";

}  // namespace

TEST_CASE("ECC levels parse from one letter, either case") {
    CHECK(parse_ecc("L") == Ecc::low);
    CHECK(parse_ecc("m") == Ecc::medium);
    CHECK(parse_ecc("Q") == Ecc::quartile);
    CHECK(parse_ecc("h") == Ecc::high);
    for (const char* bad : {"", "X", "LL", "medium"}) {
        CAPTURE(bad);
        Error e = error_of([&] { parse_ecc(bad); });
        CHECK(e.code() == ErrorCode::validation);
        CHECK(e.field() == "ecc");
    }
}

TEST_CASE("QR matrices have the version's size for known inputs") {
    // 11 alphanumeric characters fit version 1 (21 modules) at every level.
    QrMatrix hello = qr_encode("HELLO WORLD", Ecc::quartile);
    CHECK(hello.size == 21);
    CHECK(hello.modules.size() == 21u * 21u);
    // Finder pattern in the top-left corner: dark ring, light ring, dark centre.
    CHECK(hello.dark(0, 0));
    CHECK(hello.dark(6, 6));
    CHECK_FALSE(hello.dark(1, 1));
    CHECK(hello.dark(3, 3));
    CHECK_FALSE(hello.dark(7, 7));  // separator

    // 91 bytes in byte mode need 93 data codewords: version 5-L holds 108, 5-M only 86 -> version 6 (41).
    CHECK(std::string(kUri).size() == 91);
    CHECK(qr_encode(kUri, Ecc::medium).size == 41);
    CHECK(qr_encode(kUri, Ecc::low).size == 37);
    // Version 40 (177 modules) holds 2953 bytes at level L.
    CHECK(qr_encode(std::string(2953, 'a'), Ecc::low).size == 177);
    // A NUL is encoded as a byte, not an end of text.
    CHECK(qr_encode(std::string("a\0b", 3)).modules != qr_encode("a").modules);
}

TEST_CASE("qr_encode chooses qrcodegen's version at every boundary and draws the same modules") {
    // qr_encode picks the version itself (see qr.cpp); qrcodegen's own encoder is the reference.
    using Ref = qrcodegen::QrCode;
    const std::pair<Ecc, Ref::Ecc> levels[] = {{Ecc::low, Ref::Ecc::LOW},
                                               {Ecc::medium, Ref::Ecc::MEDIUM},
                                               {Ecc::quartile, Ref::Ecc::QUARTILE},
                                               {Ecc::high, Ref::Ecc::HIGH}};
    auto same_modules = [](const std::string& text, Ecc ours, Ref::Ecc theirs) {
        Ref ref = Ref::encodeText(text.c_str(), theirs);
        QrMatrix m = qr_encode(text, ours);
        if (m.size != ref.getSize()) return false;
        for (int y = 0; y < m.size; ++y)
            for (int x = 0; x < m.size; ++x)
                if (m.dark(x, y) != ref.getModule(x, y)) return false;
        return true;
    };
    // Version qrcodegen picks for `n` bytes (mask fixed to keep the search cheap; it does not
    // change the version).
    auto ref_version = [](std::size_t n, Ref::Ecc ecl) {
        return Ref::encodeSegments(qrcodegen::QrSegment::makeSegments(std::string(n, 'a').c_str()), ecl, 1, 40, 0)
            .getVersion();
    };
    for (auto [ours, theirs] : levels) {
        // Byte mode ('a' is not alphanumeric): the longest text of each version, found by
        // bisection, must give that version, and one byte more the next one.
        std::size_t low = 1;
        for (int version = 1; version < 40; ++version) {
            std::size_t lo = low, hi = low + 256;  // each version adds well under 256 bytes
            while (lo < hi) {
                std::size_t mid = (lo + hi + 1) / 2;
                if (ref_version(mid, theirs) <= version) lo = mid; else hi = mid - 1;
            }
            CAPTURE(version);
            CAPTURE(lo);
            CHECK(qr_encode(std::string(lo, 'a'), ours).size == 4 * version + 17);
            CHECK(qr_encode(std::string(lo + 1, 'a'), ours).size == 4 * version + 21);
            if (version % 8 == 1) CHECK(same_modules(std::string(lo, 'a'), ours, theirs));
            low = lo + 1;
        }
    }
    for (const char* text : {"0", "31415926535897932384626433832795", "HELLO WORLD $%*+-./:", "Grüße, 東京", kUri}) {
        CAPTURE(text);
        for (auto [ours, theirs] : levels) CHECK(same_modules(text, ours, theirs));
    }
}

TEST_CASE("Text too long for version 40 is an invalid_qr error that says what to do") {
    Error e = error_of([] { qr_encode(std::string(2954, 'a'), Ecc::low); });
    CHECK(e.code() == ErrorCode::invalid_qr);
    CHECK(contains(e.what(), "too long"));
    CHECK(contains(e.what(), "2954 bytes"));
    CHECK(contains(e.what(), "lower level"));
    // Fits at L, not at H.
    CHECK(qr_encode(std::string(1500, 'a'), Ecc::low).size > 0);
    CHECK(error_of([] { qr_encode(std::string(1500, 'a'), Ecc::high); }).code() == ErrorCode::invalid_qr);
}

TEST_CASE("The SVG is one crisp path over a white square, with no script") {
    QrMatrix m = qr_encode("HELLO WORLD", Ecc::quartile);
    std::string svg = qr_svg(m);
    CHECK(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0) == 0);
    CHECK(contains(svg, "viewBox=\"0 0 29 29\""));
    CHECK(contains(svg, "shape-rendering=\"crispEdges\""));
    CHECK(contains(svg, "<rect width=\"29\" height=\"29\" fill=\"#ffffff\"/>"));
    CHECK(count(svg, "<path") == 1);
    CHECK(count(svg, "<") == 4);  // svg, rect, path, /svg
    CHECK_FALSE(contains(svg, "<script"));
    CHECK_FALSE(contains(svg, "href"));
    CHECK(painted_modules(svg) == dark_modules(m));
    // The first run is the top row of the top-left finder: 7 modules at the border offset.
    CHECK(contains(svg, "d=\"M4,4h7v1h-7z"));

    CHECK(contains(qr_svg(m, 0), "viewBox=\"0 0 21 21\""));
    CHECK(contains(qr_svg(m, 16), "viewBox=\"0 0 53 53\""));
    for (int border : {-1, 17}) {
        Error e = error_of([&] { qr_svg(m, border); });
        CHECK(e.code() == ErrorCode::validation);
        CHECK(e.field() == "border");
    }
}

TEST_CASE("The text rendering packs two module rows into one line of half blocks") {
    QrMatrix m = qr_encode("HELLO WORLD", Ecc::quartile);
    std::string text = qr_text(m, 2);
    // 21 + 2*2 = 25 module rows -> 13 lines of 25 characters.
    CHECK(count(text, "\n") == 13);
    std::string first_line = text.substr(0, text.find('\n'));
    CHECK(code_points(first_line) == 25);
    CHECK(first_line == std::string(25, ' '));
    // Line 1 holds module rows 0 and 1: the finder's top edge (dark) above its light ring.
    std::string second_line = text.substr(text.find('\n') + 1);
    second_line = second_line.substr(0, second_line.find('\n'));
    CHECK(second_line.rfind("  \u2588\u2580\u2580\u2580\u2580\u2580\u2588", 0) == 0);
    CHECK(error_of([&] { qr_text(m, -1); }).code() == ErrorCode::validation);
}

TEST_CASE("Payment URIs from the allow-listed wallet schemes pass with their parts") {
    PaymentUri u = check_payment_uri(kUri);
    CHECK(u.scheme == "bitcoin");
    CHECK(u.address == "bc1qxy2kgdygjrsqtzq2n0yrf2493p83kkfjhx0wlh");
    CHECK(u.amount == "0.00123456");
    CHECK(u.value == "45.10");

    PaymentUri eth = check_payment_uri("ETHEREUM:0x52908400098527886E0F7030069857D2E4169EE7?value=0&amount=12&memo=a%20b");
    CHECK(eth.scheme == "ethereum");
    CHECK(eth.amount == "12");
    CHECK(eth.value == "0");
    for (const char* scheme : {"litecoin", "tron", "usdt", "binancecoin"}) {
        CHECK(check_payment_uri(std::string(scheme) + ":addr_1.x-y?amount=1&value=2").scheme == scheme);
    }
    const auto& schemes = payment_uri_schemes();
    CHECK(schemes.size() == 17);
    CHECK(std::find(schemes.begin(), schemes.end(), "http") == schemes.end());
}

TEST_CASE("Strings that are not wallet payment URIs are refused with the reason") {
    struct Case { std::string uri; std::string reason; };
    const Case cases[] = {
        {"javascript:alert(1)", "scheme 'javascript' is not a wallet payment scheme"},
        {"JavaScript:alert(1)//?amount=1&value=1", "scheme 'javascript' is not a wallet payment scheme"},
        {"data:text/html;base64,PHNjcmlwdD4=", "scheme 'data' is not a wallet payment scheme"},
        {"https://example.com/pay?amount=1&value=1", "scheme 'https' is not a wallet payment scheme"},
        {"http://example.com/?amount=1&value=1", "scheme 'http' is not a wallet payment scheme"},
        {"bc1qxy2kgdygjrsqtzq2n0yrf2493p83kkfjhx0wlh", "has no scheme"},
        {":abc?amount=1&value=1", "has no scheme"},
        {"bitcoin:?amount=1&value=1", "has no address"},
        {"bitcoin://abc?amount=1&value=1", "without '//'"},
        {"bitcoin:abc/def?amount=1&value=1", "address contains '/' at position 4"},
        {"bitcoin:abc", "missing the amount parameter"},
        {"bitcoin:abc?amount=1", "missing the value parameter"},
        {"bitcoin:abc?value=1", "missing the amount parameter"},
        {"bitcoin:abc?amount=-1&value=1", "'amount' is '-1', not a non-negative decimal"},
        {"bitcoin:abc?amount=1e5&value=1", "'amount' is '1e5', not a non-negative decimal"},
        {"bitcoin:abc?amount=1&value=1.", "'value' is '1.', not a non-negative decimal"},
        {"bitcoin:abc?amount=.5&value=1", "'amount' is '.5'"},
        {"bitcoin:abc?amount=+1&value=1", "'amount' is '+1'"},
        {"bitcoin:abc?amount=&value=1", "'amount' is ''"},
        {"bitcoin:abc?amount=0.1234567890123456789&value=1", "'amount' is '0.1234567890123456789', not a non-negative decimal (digits with an optional '.fraction' of at most 18 digits"},
        {"bitcoin:abc?amount=1&value=1234567890123456789012345678901", "'value' is '1234567890123456789012345678901', not"},
        {"bitcoin:abc?amount=1&value=" + std::string(100, '7'), "'value' is '" + std::string(40, '7') + "...', not"},
        {"bitcoin:abc?amount&value=1", "'amount' has no value"},
        {"bitcoin:abc?amount=1&amount=2&value=1", "'amount' appears twice"},
        {"bitcoin:abc?amount=1&&value=1", "empty query parameter"},
        {"bitcoin:abc?amount=1&value=1&=x", "without a name"},
        {"bitcoin:abc?amount=1&value=1\n", "control character or whitespace at position 29"},
        {"bitcoin:abc?amount=1 &value=1", "control character or whitespace at position 21"},
        {"bitcoin:abc?amount=1&value=1&label=\xc3\xa9", "non-ASCII byte"},
        {"bitcoin:abc?amount=1&value=1&x=<b>", "contains '<'"},
        {"bitcoin:abc?amount=1&value=1&x=%zz", "'%' at position 32"},
        {"bitcoin:abc?amount=1&value=1#frag", "fragment"},
        {"", "is empty"},
        {"bitcoin:a?amount=1&value=1&x=" + std::string(2100, 'y'), "2129 bytes; at most 2048"},
    };
    for (const Case& c : cases) {
        CAPTURE(c.uri);
        Error e = error_of([&] { check_payment_uri(c.uri); });
        CHECK(e.code() == ErrorCode::invalid_qr);
        CHECK_MESSAGE(contains(e.what(), c.reason), "message: ", e.what());
    }
}
