#include <doctest/doctest.h>

#include <string>

#include "paywasm/error.hpp"
#include "paywasm/protocol.hpp"

using namespace paywasm;

namespace {

std::string header(const HttpRequest& r, const std::string& name) {
    for (const auto& [k, v] : r.headers) {
        if (k == name) return v;
    }
    return "<absent>";
}

ErrorCode code_of(const HttpResponse& r) {
    try {
        check_http_status(r);
    } catch (const Error& e) {
        return e.code();
    }
    FAIL("expected an error for HTTP " << r.status << " " << r.body);
    return ErrorCode::usage;
}

int g_warnings = 0;
void count_warning(std::string_view) { ++g_warnings; }

const char* kTransaction = R"({"id":"6f1c2a9e-3b1d-4c7e-9a53-2f6b1f0c7d11","status":0})";

}  // namespace

TEST_CASE("The exchange payment request carries the shopper token and the encrypted data") {
    HttpRequest r = exchange_payment_request("kraken", "QUJD+/==", "shopper-tok");
    CHECK(r.method == "POST");
    CHECK(r.path == "/exchanges/payments/kraken");
    CHECK(header(r, "Authorization") == "Bearer shopper-tok");
    CHECK(header(r, "Content-Type") == "application/json");
    CHECK(r.body == R"({"data":"QUJD+/=="})");
    CHECK(r.url("https://api.example.test/v1/") == "https://api.example.test/v1/exchanges/payments/kraken");
    CHECK(r.url("https://api.example.test/v1") == "https://api.example.test/v1/exchanges/payments/kraken");
}

TEST_CASE("Request builders refuse what would corrupt the request") {
    CHECK_THROWS_AS(exchange_payment_request("nope", "QUJD", "t"), Error);
    CHECK_THROWS_AS(exchange_payment_request("kraken", "not base64!", "t"), Error);
    CHECK_THROWS_AS(exchange_payment_request("kraken", "", "t"), Error);
    CHECK_THROWS_AS(exchange_payment_request("kraken", "QUJD", ""), Error);
    CHECK_THROWS_AS(users_me_request("tok\r\nX-Evil: 1"), Error);
    CHECK_THROWS_AS(users_me_request("tok en"), Error);
}

TEST_CASE("users/me is a GET with the shopper token and no body") {
    HttpRequest r = users_me_request("abc");
    CHECK(r.method == "GET");
    CHECK(r.path == "/users/me");
    CHECK(header(r, "Authorization") == "Bearer abc");
    CHECK(r.body.empty());
}

TEST_CASE("QR generate sends the merchant token and the transaction-source header, and warns once") {
    QrGenerateRequest q;
    q.amount = Decimal::parse("2");
    q.currency = "USD";
    q.crypto_currency = "BTC";
    q.order_id = "o-1";
    CartItem c;
    c.id = "1";
    c.name = "Pen";
    c.price = Decimal::parse("1");
    c.quantity = Decimal::parse("2");
    q.cart = {c};
    q.customer_info = {"Al", "al@example.com", std::nullopt, std::nullopt};

    set_warning_sink(count_warning);
    int before = g_warnings;
    HttpRequest r = qr_generate_request(q, "merchant-tok");
    qr_generate_request(q, "merchant-tok");
    CHECK(g_warnings - before <= 1);  // at most once per process (another case may have warned first)
    set_warning_sink(nullptr);

    CHECK(r.path == "/purchase/qr/generate");
    CHECK(header(r, "Authorization") == "Bearer merchant-tok");
    CHECK(header(r, "x-transaction-source") == "qr-code-api");
    CHECK(r.body.rfind(R"({"amount":"2","currency":"USD","cryptoCurrency":"BTC","orderId":"o-1",)", 0) == 0);
}

TEST_CASE("Deprecated endpoints are marked and merchant-secret endpoints flagged") {
    CHECK(endpoint_by_name("qr-generate").deprecated);
    CHECK(endpoint_by_name("bank-pay").deprecated);
    CHECK_FALSE(endpoint_by_name("exchange-pay").deprecated);
    CHECK(endpoint_by_name("subscription-debit").merchant_secret);
    CHECK(endpoint_by_name("qr-generate").merchant_secret);
    CHECK_FALSE(endpoint_by_name("users-me").merchant_secret);
    CHECK(endpoints().size() == 6);
    CHECK_THROWS_AS(endpoint_by_name("refund"), Error);
}

TEST_CASE("Exchange errors 418-422 map to typed errors as HTTP status or as a body code") {
    struct Case { int code; ErrorCode expected; };
    const Case cases[] = {{418, ErrorCode::authentication_failed}, {419, ErrorCode::insufficient_balance},
                          {420, ErrorCode::whitelist_pending}, {421, ErrorCode::wallet_unsupported},
                          {422, ErrorCode::below_minimum}};
    for (const Case& c : cases) {
        CAPTURE(c.code);
        SUBCASE("as HTTP status") { CHECK(code_of({c.code, ""}) == c.expected); }
        SUBCASE("as numeric body code on a 400") {
            CHECK(code_of({400, "{\"code\":" + std::to_string(c.code) + "}"}) == c.expected);
        }
        SUBCASE("as string body code on a 200") {
            CHECK(code_of({200, "{\"code\":\"" + std::to_string(c.code) + "\",\"message\":\"x\"}"}) == c.expected);
        }
        SUBCASE("as body status in an error object") {
            CHECK(code_of({200, "{\"status\":" + std::to_string(c.code) + "}"}) == c.expected);
        }
    }
}

TEST_CASE("Exchange error messages are the documented ones; 422 keeps the exchange's minimum") {
    try {
        parse_payment_response({419, "{}"});
        FAIL("expected an error");
    } catch (const Error& e) {
        CHECK(std::string(e.what()) == "Insufficient Balance");
        CHECK(e.http_status() == 419);
    }
    try {
        parse_payment_response({422, R"j({"message":"Amount is less than minimum transaction amount supported by kraken (10 USD)"})j"});
        FAIL("expected an error");
    } catch (const Error& e) {
        CHECK(std::string(e.what()) == "Amount is less than minimum transaction amount supported by kraken (10 USD)");
    }
    try {
        parse_payment_response({422, R"({"message":"<script>alert(1)</script>"})"});
        FAIL("expected an error");
    } catch (const Error& e) {
        CHECK(std::string(e.what()) == "Amount is less than minimum transaction amount supported by");
    }
}

TEST_CASE("Other HTTP failures map by class, with the body's message") {
    CHECK(code_of({401, ""}) == ErrorCode::unauthorized);
    CHECK(code_of({403, "{}"}) == ErrorCode::unauthorized);
    CHECK(code_of({404, R"({"error":"unknown exchange"})"}) == ErrorCode::not_found);
    CHECK(code_of({400, "bad"}) == ErrorCode::validation);
    CHECK(code_of({500, "<html>oops</html>"}) == ErrorCode::server);
    CHECK(code_of({302, ""}) == ErrorCode::server);
    try {
        check_http_status({503, R"({"error":{"message":"maintenance\nwindow"}})"});
    } catch (const Error& e) {
        CHECK(std::string(e.what()) == "HTTP 503 (the service failed): maintenance\\nwindow");
    }
    CHECK_NOTHROW(check_http_status({200, kTransaction}));
    CHECK_NOTHROW(check_http_status({201, "{}"}));
}

TEST_CASE("A transaction whose status field is a normal code is not mistaken for an exchange error") {
    CHECK_NOTHROW(check_http_status({200, R"({"id":"x","status":419})"}));
}

TEST_CASE("Payment responses parse into a Transaction or a bad_response error") {
    Transaction t = parse_payment_response({200, kTransaction});
    CHECK(t.id == "6f1c2a9e-3b1d-4c7e-9a53-2f6b1f0c7d11");
    CHECK(describe_status(t).kind == StatusKind::pending);

    for (const char* bad : {"", "not json", "[]", R"({"status":0})", R"({"id":1,"status":0})", "<html></html>"}) {
        CAPTURE(bad);
        try {
            parse_payment_response({200, bad});
            FAIL("expected bad_response");
        } catch (const Error& e) {
            CHECK(e.code() == ErrorCode::bad_response);
        }
    }
}

TEST_CASE("users/me and QR answers must say ok: true") {
    CHECK_THROWS_AS(parse_users_me_response({200, R"({"ok":false,"result":{}})"}), Error);
    UsersMeResponse me = parse_users_me_response({200, R"({"ok":true,"result":{"profile":{"firstName":"Ana"}}})"});
    REQUIRE(me.result.profile);
    CHECK(me.result.profile->first_name == std::optional<std::string>("Ana"));
}

TEST_CASE("Subscription answers must carry status 200") {
    auto ok = parse_subscription_cancel_response({200, R"({"status":200,"result":{"success":true}})"});
    CHECK(ok.success);
    CHECK_THROWS_AS(parse_subscription_cancel_response({200, R"({"status":500,"result":{"success":false}})"}), Error);
    auto debit = parse_subscription_debit_response({200, R"({"status":200,"result":{"data":[],"errors":[{"reason":"cancelled"}]}})"});
    CHECK(debit.data.empty());
    REQUIRE(debit.errors.size() == 1);
}

TEST_CASE("Status codes have a meaning and a final flag") {
    CHECK(describe_status(10).kind == StatusKind::awaiting_payment);
    CHECK_FALSE(describe_status(10).final);
    CHECK(describe_status(0).kind == StatusKind::pending);
    for (int c : {1, 2, 3, 4}) {
        CHECK(describe_status(c).kind == StatusKind::success);
        CHECK(describe_status(c).final);
    }
    CHECK(describe_status(-1).kind == StatusKind::failed);
    CHECK(describe_status(-1).final);
    CHECK(describe_status(101).kind == StatusKind::partial);
    CHECK_FALSE(describe_status(101).final);
    CHECK(describe_status(1011).kind == StatusKind::partial_closed);
    CHECK(describe_status(19).kind == StatusKind::timed_out);
    CHECK(describe_status(19).final);
    CHECK(describe_status(22).kind == StatusKind::refund);
    CHECK(describe_status(7).kind == StatusKind::unknown);
    CHECK_FALSE(describe_status(7).final);
}

TEST_CASE("Immediate status words map to codes") {
    CHECK(describe_status_word("pending").code == 0);
    CHECK(describe_status_word("processing").kind == StatusKind::processing);
    CHECK(describe_status_word("completed").final);
    CHECK(describe_status_word("Canceled").kind == StatusKind::canceled);
    CHECK_THROWS_AS(describe_status_word("refunded"), Error);
}
