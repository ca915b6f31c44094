// paywasm/text.hpp: escape_untrusted(), the one way outside text enters a message, a log line or a
// header; and every core error message that quotes outside input, each through it.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "paywasm/checkout.hpp"
#include "paywasm/codec.hpp"
#include "paywasm/crypto.hpp"
#include "paywasm/json.hpp"
#include "paywasm/models.hpp"
#include "paywasm/protocol.hpp"
#include "paywasm/qr.hpp"
#include "paywasm/status.hpp"
#include "paywasm/text.hpp"
#include "paywasm/validate.hpp"
#include "samples.hpp"
#include "test_crypto_keys.hpp"
#include "test_support.hpp"

using namespace paywasm;
namespace keys = paywasm::test_keys;
using paywasm::test::error_of;

namespace {

// `cp` as UTF-8 (any value up to 0x10FFFF, surrogates included: the test needs ill-formed input too).
// Written as the test's own oracle, not as the core's encoder: continuation bytes from the low end,
// then a lead byte of n one-bits and a zero.
std::string utf8(std::uint32_t cp) {
    if (cp < 0x80) return std::string(1, static_cast<char>(cp));
    const int n = cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    std::string out(static_cast<std::size_t>(n), '\0');
    for (int i = n - 1; i > 0; --i, cp >>= 6) out[static_cast<std::size_t>(i)] = static_cast<char>(0x80 | (cp & 0x3F));
    out[0] = static_cast<char>(((0xFF00u >> n) & 0xFFu) | cp);
    return out;
}

// Printable ASCII only (0x20..0x7E).
bool printable_ascii(std::string_view s) {
    for (char c : s)
        if (c < 0x20 || c > 0x7E) return false;
    return true;
}

// The string a JSON string literal holds.
std::string json_string(const std::string& literal) { return std::string(parse_json(literal).root().text()); }

bool contains(std::string_view haystack, std::string_view needle) { return haystack.find(needle) != std::string_view::npos; }

}  // namespace

TEST_CASE("escape_untrusted shows every C0 control, DEL and C1 control as an escape") {
    std::vector<std::uint32_t> controls;
    for (std::uint32_t cp = 0; cp < 0x20; ++cp) controls.push_back(cp);
    for (std::uint32_t cp = 0x7F; cp < 0xA0; ++cp) controls.push_back(cp);
    for (std::uint32_t cp : controls) {
        CAPTURE(cp);
        const std::string in = "a" + utf8(cp) + "b";
        const std::string out = escape_untrusted(in);
        CHECK(printable_ascii(out));
        CHECK_FALSE(is_shown_as_is(in));
        CHECK(json_string('"' + out + '"') == in);  // the escape says which character it was
    }
    CHECK(escape_untrusted(std::string("\0\x1b[2J\r\n\t\b\f\x7f", 11)) == "\\u0000\\u001b[2J\\r\\n\\t\\b\\f\\u007f");
    CHECK(escape_untrusted("subscripti\x7fnId") == "subscripti\\u007fnId");
    CHECK(escape_untrusted("\xC2\x9B" "31m") == "\\u009b31m");  // CSI, the C1 form of ESC [
}

TEST_CASE("escape_untrusted shows each byte that is not well-formed UTF-8 as \\xNN") {
    struct Case {
        const char* name;
        std::string in;
        const char* out;
    };
    const Case cases[] = {
        {"a lone continuation byte", "a\x80z", "a\\x80z"},
        {"a byte never in UTF-8", "\xFF\xFE", "\\xff\\xfe"},
        {"an overlong '/'", "\xC0\xAF", "\\xc0\\xaf"},
        {"a truncated three-byte sequence", "\xE2\x82", "\\xe2\\x82"},
        {"a truncated sequence before ASCII", "\xE2\x82z", "\\xe2\\x82z"},
        {"a surrogate (U+D800)", utf8(0xD800), "\\xed\\xa0\\x80"},
        {"beyond U+10FFFF", utf8(0x110000), "\\xf4\\x90\\x80\\x80"},
    };
    for (const Case& c : cases) {
        CAPTURE(c.name);
        CHECK(escape_untrusted(c.in) == c.out);
        CHECK_FALSE(is_shown_as_is(c.in));
    }
}

TEST_CASE("escape_untrusted shows bidi overrides and line separators, escapes '\\' and '\"', keeps the rest") {
    for (std::uint32_t cp : {0x2028u, 0x2029u, 0x202Au, 0x202Bu, 0x202Cu, 0x202Du, 0x202Eu, 0x2066u, 0x2067u, 0x2068u,
                             0x2069u}) {
        CAPTURE(cp);
        const std::string out = escape_untrusted("x" + utf8(cp));
        CHECK(printable_ascii(out));
        CHECK(json_string('"' + out + '"') == "x" + utf8(cp));
    }
    CHECK(escape_untrusted("gnp.\xE2\x80\xAE" "exe") == "gnp.\\u202eexe");
    CHECK(escape_untrusted(R"(C:\new "x")") == R"(C:\\new \"x\")");
    CHECK(escape_untrusted("\\u0000") == "\\\\u0000");  // a backslash in the input cannot pose as an escape
    const std::string kept[] = {"", "Wool sweater", "Café crème", "東京", "\xF0\x9F\x98\x80", "a\xC2\xA0" "b",
                                "<script>&amp;'"};
    for (const std::string& s : kept) {
        CAPTURE(s);
        CHECK(escape_untrusted(s) == s);
        CHECK(is_shown_as_is(s));
        CHECK(json_string('"' + escape_untrusted(s) + '"') == s);
    }
}

TEST_CASE("escape_untrusted cuts to a byte budget between whole characters and escapes, then '...'") {
    CHECK(escape_untrusted("abcdef", 6) == "abcdef");
    CHECK(escape_untrusted("abcdefg", 6) == "abcdef...");
    CHECK(escape_untrusted("ab\x1b", 8) == "ab\\u001b");
    CHECK(escape_untrusted("ab\x1b", 7) == "ab...");  // never half of "\u001b"
    CHECK(escape_untrusted("a\xC3\xA9\xC3\xA9", 4) == "a\xC3\xA9...");  // never half of "é"
    CHECK(escape_untrusted("\xFF\xFF", 5) == "\\xff...");
    CHECK(escape_untrusted("abc", 0) == "...");
    CHECK(escape_untrusted("", 0).empty());
    // The budget bounds what a hostile input can add to a line: 1 MB of NUL bytes shows as 203 bytes.
    CHECK(escape_untrusted(std::string(1 << 20, '\0'), 200).size() == 198 + 3);
}

TEST_CASE("escape_untrusted with ascii keeps header values and logs to printable ASCII") {
    EscapeOptions ascii;
    ascii.ascii = true;
    CHECK(escape_untrusted("Café", ascii) == "Caf\\u00e9");
    CHECK(escape_untrusted("\xF0\x9F\x98\x80", ascii) == "\\ud83d\\ude00");  // as JSON writes it
    CHECK(escape_untrusted("a\r\nSet-Cookie: x", ascii) == "a\\r\\nSet-Cookie: x");
    const std::string in = "東京\x7f\xC2\x85\xE2\x80\xA8!";
    CHECK(printable_ascii(escape_untrusted(in, ascii)));
    CHECK(json_string('"' + escape_untrusted(in, ascii) + '"') == in);
}

// make fuzz (`requests`, 25 s) stopped on "an error message holds no control byte": a member name
// with one DEL byte was copied raw into the error's field and message (escaping stopped at 0x1F).
// Reproducers: tests/fuzz/corpus/requests/regress-member-name-{del,csi}.json.
TEST_CASE("A member name with DEL or a C1 control is escaped in the error that names it") {
    // tests/fuzz/corpus/requests/regress-member-name-del.json with the member name in between.
    const std::string head = R"({"merchantAuth":"bWVyY2hhbnQtYXV0aA==","merchantId":"5f2b7","orderId":"SUB-ORD-0007",)"
                             R"("items":[{"subscriptionId":"sub_01HV7Q",")";
    const std::string tail = R"(":"sub_01HV7Q","amount":19.99,"currency":"USD"}]})";
    SUBCASE("DEL (0x7F)") {
        const Error e = error_of([&] { from_json<SubscriptionDebitRequest>(head + "subscripti\x7fnId" + tail); });
        CHECK(e.field() == R"(items[0]["subscripti\u007fnId"])");
        CHECK(contains(e.what(), R"(items[0]["subscripti\u007fnId"])"));
        CHECK(printable_ascii(e.what()));
    }
    SUBCASE("CSI (U+009B)") {
        const Error e = error_of([&] { from_json<SubscriptionDebitRequest>(head + "subscripti\xC2\x9BnId" + tail); });
        CHECK(e.field() == R"(items[0]["subscripti\u009bnId"])");
        CHECK(printable_ascii(e.what()));
    }
    SUBCASE("a lone surrogate from a JSON escape: bytes that are not UTF-8") {
        const Error e = error_of([&] { from_json<SubscriptionDebitRequest>(head + "\\udc00" + tail); });
        CHECK(e.field() == R"(items[0]["\xed\xb0\x80"])");
        CHECK(printable_ascii(e.what()));
    }
    SUBCASE("a long name is cut to 64 bytes of its escaped form") {
        const Error e = error_of([&] { from_json<SubscriptionDebitRequest>(head + std::string(100, '.') + tail); });
        CHECK(e.field() == "items[0][\"" + std::string(64, '.') + "...\"]");
    }
}

// Each place of the core that quotes outside text in an error message, with a control character
// (ESC, which starts a terminal escape sequence) or a C1 control in that text.
TEST_CASE("Every core error message that quotes outside input escapes it") {
    SUBCASE("a currency code (validate)") {
        std::string order(samples::kExchangePayment);
        const std::string from = R"("merchantStoreCurrency":"USD")";
        order.replace(order.find(from), from.size(), R"("merchantStoreCurrency":"\u001b[2J")");
        const Error e = error_of([&] { validate(from_json<ExchangePayment>(order)); });
        CHECK(e.field() == "merchantStoreCurrency");
        CHECK(contains(e.what(), "'\\u001b[2J' is not an ISO 4217 currency code"));
    }
    SUBCASE("a PEM label (public and private keys)") {
        const std::string pem = "-----BEGIN X\xC2\x9B\x1b\xFF-----\nAAAA\n-----END X\xC2\x9B\x1b\xFF-----\n";
        const Error pub = error_of([&] { PublicKey::parse(pem); });
        CHECK(contains(pub.what(), "'X\\u009b\\u001b\\xff' is not a public key"));
        const Error priv = error_of([&] { PrivateKey::parse(pem); });
        CHECK(contains(priv.what(), "'X\\u009b\\u001b\\xff' is not a private key"));
        const Error truncated = error_of([&] { PublicKey::parse("-----BEGIN \x1b[2J-----\nAAAA\n"); });
        CHECK(contains(truncated.what(), "no -----END \\u001b[2J----- line"));
    }
    SUBCASE("a key pin") {
        const Error e = error_of([] { load_merchant_key({keys::kPublic2048, "ab\x1b[2Jcd"}); });
        CHECK(e.code() == ErrorCode::key_mismatch);
        CHECK(contains(e.what(), "differs from the pinned ab\\u001b[2Jcd;"));
    }
    SUBCASE("a webhook's copy of a signed field") {
        const PrivateKey service = PrivateKey::parse(keys::kPrivate3072);
        const std::string tx = R"({"id":"tx-1","status":1,"meta":{"offerId":"order-1"}})";
        const std::string body = R"({"type":"rf:alert","data":{"data":)" + json_quote(tx) +
                                 R"(,"offerId":"order-1\u001b[2J\u0085","status":1},"signature":)" +
                                 json_quote(sign_sha256(service, tx)) + "}";
        const Error e = error_of([&] { verify_webhook(body, service.public_key()); });
        CHECK(e.code() == ErrorCode::crypto);
        CHECK(contains(e.what(), "data.offerId (order-1\\u001b[2J\\u0085) differs"));
    }
    SUBCASE("an endpoint name") {
        const Error e = error_of([] { endpoint_by_name("qr\x1b[2J\xC2\x9B"); });
        CHECK(e.code() == ErrorCode::usage);
        CHECK(contains(e.what(), "unknown endpoint 'qr\\u001b[2J\\u009b'"));
    }
    SUBCASE("a status word from the service") {
        const Error e = error_of([] { describe_status_word("pend\x1bing\xC2\x85"); });
        CHECK(contains(e.what(), "status: 'pend\\u001bing\\u0085' is not"));
    }
    SUBCASE("a server's error message") {
        const Error e = error_of([] { check_http_status({503, "{\"message\":\"down\\u001b[2J\\u007f\\u009b\"}"}); });
        CHECK(contains(e.what(), "down\\u001b[2J\\u007f\\u009b"));
    }
    SUBCASE("a payment URI's parameter") {
        const Error e = error_of([] { check_payment_uri("bitcoin:abc?amount=\"1\"&value=1"); });
        CHECK(contains(e.what(), "contains '\\\"' at position 20"));
    }
}
