// Hostile input at the core's edges: orders as the host page hands them over (JSON text), and
// answers as a broken or hostile server might send them. Each case is a row of
// docs/hostile-input.md; keys and most malformed-JSON rows are proven in test_crypto.cpp and
// test_codec.cpp, which the table names.
#include <doctest/doctest.h>

#include <string>
#include <string_view>

#include "paywasm/codec.hpp"
#include "paywasm/error.hpp"
#include "paywasm/protocol.hpp"
#include "paywasm/qr.hpp"
#include "paywasm/validate.hpp"
#include "samples.hpp"
#include "test_support.hpp"

using namespace paywasm;
using paywasm::test::error_of;

namespace {

// `text` with its one occurrence of `from` replaced by `to`.
std::string replaced(std::string_view text, std::string_view from, std::string_view to) {
    std::string out(text);
    auto at = out.find(from);
    REQUIRE_MESSAGE(at != std::string::npos, "sample lacks ", from);
    REQUIRE_MESSAGE(out.find(from, at + 1) == std::string::npos, "sample has ", from, " twice");
    out.replace(at, from.size(), to);
    return out;
}

// The error an exchange order's JSON text meets on its way in: from_json, then validate.
Error order_error(const std::string& json) {
    return error_of([&] { validate(from_json<ExchangePayment>(json)); });
}

bool contains(std::string_view text, std::string_view part) { return text.find(part) != std::string_view::npos; }

// The sample order's first cart line, for building other carts.
constexpr std::string_view kFirstLine =
    R"({"id":"1001","name":"Wool sweater","price":89.99,"quantity":1,"localAmount":89.99,"localCurrency":"USD"})";

// The sample order with its cart replaced by `count` copies of the first line (and a matching total).
std::string order_with_lines(std::size_t count) {
    const std::string sample(samples::kExchangePayment);
    auto cart_at = sample.find("\"cart\":[") + 8;
    auto cart_end = sample.find("],\"shippingAddress\"");
    std::string cart;
    cart.reserve(count * (kFirstLine.size() + 1));
    for (std::size_t i = 0; i < count; ++i) {
        if (i) cart += ',';
        cart += kFirstLine;
    }
    std::string out = sample.substr(0, cart_at) + cart + sample.substr(cart_end);
    Decimal total = Decimal::parse("89.99") * Decimal::from_int(static_cast<long long>(count));
    return replaced(out, R"("nativeAmount":"175.29")", R"("nativeAmount":")" + total.to_string() + "\"");
}

}  // namespace

// ---- Orders ------------------------------------------------------------------------------------

TEST_CASE("The sample order is accepted, so each hostile variant below fails for its own reason") {
    CHECK_NOTHROW(validate(from_json<ExchangePayment>(samples::kExchangePayment)));
    CHECK_NOTHROW(validate(from_json<ExchangePayment>(order_with_lines(3))));
}

TEST_CASE("Hostile order amounts are refused, naming the field") {
    const std::string_view sample = samples::kExchangePayment;
    SUBCASE("a negative total") {
        Error e = order_error(replaced(sample, R"("nativeAmount":"175.29")", R"("nativeAmount":"-175.29")"));
        CHECK(e.code() == ErrorCode::validation);
        CHECK(e.field() == "nativeAmount");
        CHECK(std::string(e.what()) == "nativeAmount: must be > 0");
    }
    SUBCASE("a zero total") {
        Error e = order_error(replaced(sample, R"("nativeAmount":"175.29")", R"("nativeAmount":"0")"));
        CHECK(e.field() == "nativeAmount");
        CHECK(std::string(e.what()) == "nativeAmount: must be > 0");
    }
    SUBCASE("a negative price") {
        Error e = order_error(replaced(sample, R"("price":89.99)", R"("price":-89.99)"));
        CHECK(e.field() == "cart[0].price");
        CHECK(std::string(e.what()) == "cart[0].price: must be >= 0");
    }
    SUBCASE("a zero quantity") {
        Error e = order_error(replaced(sample, R"("quantity":2)", R"("quantity":0)"));
        CHECK(e.field() == "cart[1].quantity");
        CHECK(std::string(e.what()) == "cart[1].quantity: must be > 0");
    }
    SUBCASE("1e309 as a price is not a number JSON can hold") {
        Error e = order_error(replaced(sample, R"("price":89.99)", R"("price":1e309)"));
        CHECK(e.code() == ErrorCode::validation);
        CHECK(contains(e.what(), "not valid JSON"));
    }
    SUBCASE("1e309 as the decimal-string total is not a decimal") {
        Error e = order_error(replaced(sample, R"("nativeAmount":"175.29")", R"("nativeAmount":"1e309")"));
        CHECK(e.field() == "nativeAmount");
    }
    SUBCASE("NaN as a price is not JSON") {
        Error e = order_error(replaced(sample, R"("price":89.99)", R"("price":NaN)"));
        CHECK(contains(e.what(), "not valid JSON"));
    }
    SUBCASE("NaN and Infinity as the decimal-string total") {
        for (const char* bad : {"NaN", "Infinity", "-Infinity", "0x10", " 175.29"}) {
            CAPTURE(bad);
            Error e = order_error(replaced(sample, R"("nativeAmount":"175.29")",
                                           std::string(R"("nativeAmount":")") + bad + "\""));
            CHECK(e.code() == ErrorCode::validation);
            CHECK(e.field() == "nativeAmount");
        }
    }
    SUBCASE("a total that does not match the cart") {
        Error e = order_error(replaced(sample, R"("nativeAmount":"175.29")", R"("nativeAmount":"175.30")"));
        CHECK(e.field() == "nativeAmount");
        CHECK(std::string(e.what()) ==
              "nativeAmount: 175.3 does not equal the cart total 175.29 (sum of price * quantity)");
    }
}

TEST_CASE("Oversized orders are refused before anything is encrypted") {
    SUBCASE("10,000 cart lines are read, then refused by the cart limit") {
        Error e = order_error(order_with_lines(10000));
        CHECK(e.field() == "cart");
        CHECK(std::string(e.what()) == "cart: has 10000 items; the limit is 100");
    }
    SUBCASE("10,001 cart lines are refused while reading") {
        Error e = error_of([] { from_json<ExchangePayment>(order_with_lines(10001)); });
        CHECK(e.code() == ErrorCode::validation);
        CHECK(e.field() == "cart");
        CHECK(contains(e.what(), "has more than 10000 elements"));
    }
    SUBCASE("a 1 MB item name") {
        std::string name(1024 * 1024, 'n');
        Error e = order_error(replaced(samples::kExchangePayment, R"("name":"Wool sweater")",
                                       "\"name\":\"" + name + "\""));
        CHECK(e.field() == "cart[0].name");
        CHECK(std::string(e.what()) == "cart[0].name: is 1048576 bytes; the limit is 256");
    }
    SUBCASE("a body over 4 MiB is not parsed at all") {
        std::string huge = replaced(samples::kExchangePayment, R"("name":"Wool sweater")",
                                    "\"name\":\"" + std::string(kMaxJsonBytes, 'n') + "\"");
        Error e = error_of([&] { from_json<ExchangePayment>(huge); });
        CHECK(std::string(e.what()) == "JSON text is larger than 4194304 bytes");
    }
}

TEST_CASE("Control characters and bidirectional overrides in order text are refused") {
    const std::string_view sample = samples::kExchangePayment;
    struct Case { const char* name; const char* json_escape; const char* reason; };
    const Case cases[] = {
        {"a BEL from a JSON escape", "Wool\\u0007sweater", "control character"},
        {"a newline", "Wool\\nsweater", "control character"},
        {"a NUL from a JSON escape", "Wool\\u0000sweater", "control character"},
        {"a DEL", "Wool\x7fsweater", "control character"},
        {"a C1 control (U+009B, CSI)", "Wool\\u009bsweater", "control character"},
        {"RIGHT-TO-LEFT OVERRIDE U+202E", "gnp.\\u202eexe", "bidirectional override"},
        {"LEFT-TO-RIGHT EMBEDDING U+202A", "\\u202aWool", "bidirectional override"},
        {"RIGHT-TO-LEFT ISOLATE U+2067", "\\u2067Wool", "bidirectional override"},
        {"POP DIRECTIONAL ISOLATE U+2069", "Wool\\u2069", "bidirectional override"},
    };
    for (const Case& c : cases) {
        CAPTURE(c.name);
        Error e = order_error(replaced(sample, R"("name":"Wool sweater")",
                                       std::string("\"name\":\"") + c.json_escape + "\""));
        CHECK(e.code() == ErrorCode::validation);
        CHECK(e.field() == "cart[0].name");
        CHECK_MESSAGE(contains(e.what(), c.reason), "message: ", e.what());
    }
    // The same rule holds in the shipping address.
    Error e = order_error(replaced(sample, R"("city":"San Francisco")", R"("city":"San\u202eFrancisco")"));
    CHECK(e.field() == "shippingAddress.city");
}

TEST_CASE("Unknown currencies in an order are refused, naming the field") {
    const std::string_view sample = samples::kExchangePayment;
    SUBCASE("store currency that is not ISO 4217") {
        Error e = order_error(replaced(sample, R"("merchantStoreCurrency":"USD")", R"("merchantStoreCurrency":"XYZ")"));
        CHECK(e.field() == "merchantStoreCurrency");
        CHECK(contains(e.what(), "'XYZ' is not an ISO 4217 currency code"));
    }
    SUBCASE("a line's currency") {
        Error e = order_error(replaced(sample, R"("price":24.5,"quantity":2,"localAmount":49,"localCurrency":"USD")",
                                       R"("price":24.5,"quantity":2,"localAmount":49,"localCurrency":"BTC")"));
        CHECK(e.field() == "cart[1].localCurrency");
    }
    SUBCASE("a crypto asset with markup in it") {
        Error e = order_error(replaced(sample, R"("assets":"BTC")", R"("assets":"<b>BTC</b>")"));
        CHECK(e.field() == "assets");
    }
    SUBCASE("an unknown member in the order is refused, not ignored") {
        Error e = error_of([&] {
            from_json<ExchangePayment>(replaced(sample, R"("assets":"BTC")", R"("assets":"BTC","fee":"0")"));
        });
        CHECK(e.code() == ErrorCode::validation);
        CHECK(e.field() == "fee");
    }
}

// ---- Server answers ----------------------------------------------------------------------------

TEST_CASE("Answers that are not the documented JSON are bad_response errors carrying the status") {
    struct Case { const char* name; std::string body; };
    const Case cases[] = {
        {"plain text", "OK"},
        {"an HTML error page", "<!DOCTYPE html><html><body><h1>502 Bad Gateway</h1><script>alert(1)</script></body></html>"},
        {"JSON of the wrong shape", "[1,2,3]"},
        {"a wrong type", R"({"id":42,"status":0})"},
        {"a missing field", R"({"status":0})"},
        {"a status word outside the documented ones", R"({"id":"t","status":"exploded"})"},
        {"a status that is not an integer", R"({"id":"t","status":1.5})"},
    };
    for (const Case& c : cases) {
        CAPTURE(c.name);
        Error e = error_of([&] { parse_payment_response({200, c.body}); });
        CHECK(e.code() == ErrorCode::bad_response);
        CHECK(e.http_status() == 200);
        CHECK_FALSE(contains(e.what(), "<script"));
    }
}

TEST_CASE("An HTML error page on a failure status gives a typed error without the page in it") {
    const std::string page = "<html><head><title>Error</title></head><body><h1>Service Unavailable</h1>"
                             "<img src=x onerror=alert(1)></body></html>";
    Error e = error_of([&] { parse_payment_response({503, page}); });
    CHECK(e.code() == ErrorCode::server);
    CHECK(e.http_status() == 503);
    CHECK(std::string(e.what()) == "HTTP 503 (the service failed)");
}

TEST_CASE("A 50 MB answer is refused quickly and whole, on success and failure statuses") {
    std::string body = "{\"id\":\"t\",\"status\":0,\"pad\":\"" + std::string(50u * 1024 * 1024, 'x') + "\"}";
    Error ok_status = error_of([&] { parse_payment_response({200, body}); });
    CHECK(ok_status.code() == ErrorCode::bad_response);
    CHECK(std::string(ok_status.what()) == "JSON text is larger than 4194304 bytes");
    Error failed = error_of([&] { parse_users_me_response({500, body}); });
    CHECK(failed.code() == ErrorCode::server);
    CHECK(std::string(failed.what()) == "HTTP 500 (the service failed)");
}

TEST_CASE("Extra members in an answer are kept aside, not interpreted") {
    Transaction t = parse_payment_response(
        {200, R"json({"id":"t","status":1,"redirect":"javascript:alert(1)","__proto__":{"admin":true}})json"});
    CHECK(t.status == 1);
    CHECK(t.extra == R"json({"redirect":"javascript:alert(1)","__proto__":{"admin":true}})json");
}

TEST_CASE("Statuses outside the documented codes are neither success nor final") {
    SUBCASE("HTTP statuses") {
        CHECK_NOTHROW(check_http_status({299, "{}"}));  // any 2xx, as the spec leaves it open
        for (int status : {0, 100, 199, 304, 600, 999, -1}) {
            CAPTURE(status);
            Error e = error_of([&] { check_http_status({status, "{}"}); });
            CHECK(e.code() == ErrorCode::server);
            CHECK(e.http_status() == status);
        }
        CHECK(error_of([] { check_http_status({451, "{}"}); }).code() == ErrorCode::validation);
    }
    SUBCASE("transaction status codes") {
        for (int code : {5, 11, 77, 102, 1012, -2, 2147483647}) {
            CAPTURE(code);
            Transaction t = parse_payment_response({200, R"({"id":"t","status":)" + std::to_string(code) + "}"});
            StatusInfo info = describe_status(t);
            CHECK(info.kind == StatusKind::unknown);
            CHECK_FALSE(info.final);
        }
        Error e = error_of([] { parse_payment_response({200, R"({"id":"t","status":2147483648})"}); });
        CHECK(e.code() == ErrorCode::bad_response);
        CHECK(e.field() == "status");
    }
    SUBCASE("an exchange error code in the body wins over a success status") {
        Error e = error_of([] { parse_payment_response({200, R"({"code":"419"})"}); });
        CHECK(e.code() == ErrorCode::insufficient_balance);
    }
}

TEST_CASE("A failure message taken from the body is escaped and cut to 200 bytes") {
    const std::string long_message = "line one\nline two\x07\x1b[31m" + std::string(400, 'x');
    Error e = error_of([&] { check_http_status({500, "{\"message\":" + json_quote(long_message) + "}"}); });
    const std::string what = e.what();
    const std::string prefix = "HTTP 500 (the service failed): ";
    REQUIRE(what.rfind(prefix, 0) == 0);
    CHECK(what.size() == prefix.size() + 200 + 3);  // 200 bytes of escaped text, then "..."
    CHECK(what.substr(prefix.size(), 34) == "line one\\nline two\\u0007\\u001b[31m");
    CHECK(what.substr(what.size() - 4) == "x...");
}

TEST_CASE("A qrString with a script or web scheme is kept by the parser and refused by the URI check") {
    for (const char* uri : {"javascript:alert(document.cookie)//?amount=1&value=1",
                            "JAVASCRIPT:alert(1)", "data:text/html,<script>alert(1)</script>",
                            "https://evil.example/pay?amount=1&value=1", "vbscript:msgbox(1)",
                            "bitcoin:abc?amount=1&value=1&label=<script>"}) {
        CAPTURE(uri);
        const std::string body = replaced(samples::kQrGenerateResponse,
                                          R"("qrString": "ethereum:0x52908400098527886E0F7030069857D2E4169EE7?amount=0.0183&value=18300000000000000")",
                                          "\"qrString\": " + json_quote(uri));
        QrGenerateResponse r = parse_qr_generate_response({200, body});
        CHECK(r.result.meta.qr_string == uri);  // verbatim: the parser never rewrites it
        Error e = error_of([&] { check_payment_uri(r.result.meta.qr_string); });
        CHECK(e.code() == ErrorCode::invalid_qr);
    }
}

TEST_CASE("A shopper name with markup is kept verbatim as text, and written back as JSON text") {
    const std::string name = "<script>alert(1)</script><img src=x onerror=alert(2)>";
    const std::string body = replaced(samples::kUsersMeResponse, R"("fullname": "Ada Lovelace")",
                                      "\"fullname\": " + json_quote(name));
    UsersMeResponse me = parse_users_me_response({200, body});
    REQUIRE(me.result.fullname);
    CHECK(*me.result.fullname == name);
    // JSON.stringify's escaping: markup is not JSON-special, so it is not altered (HTML escaping is
    // the renderer's job: the widget sets textContent).
    CHECK(json_quote(name) == "\"" + name + "\"");
    CHECK(contains(to_json(me), "\"fullname\":\"" + name + "\""));
}
