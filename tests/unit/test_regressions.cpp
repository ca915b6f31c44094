// Regressions: inputs that once crashed or misled the core, kept so they stay fixed. Each case names
// where the input came from (a fuzz target's reproducer, a review) and what used to happen. The
// fuzz reproducers are also replayed from tests/fuzz/corpus/<target>/regress-*.
#include <doctest/doctest.h>

#include <string>

#include "paywasm/codec.hpp"
#include "paywasm/error.hpp"
#include "paywasm/protocol.hpp"
#include "test_support.hpp"

using namespace paywasm;
using paywasm::test::error_of;

// Review of check_http_status: it looked for an error code and message in every body with
// RapidJSON's recursive DOM parser, without a depth limit, before the codec's depth-limited reader
// ran. 200,000 '[' overflowed the native stack (SIGSEGV in `paywasm call`); in wasm about 7,000
// (a 7 KB body) threw RangeError "Maximum call stack size exceeded" out of the module.
TEST_CASE("An answer nested a million levels deep gives the status's typed error, not a stack overflow") {
    const std::string arrays(1000000, '[');
    const std::string in_object = "{\"message\":" + std::string(999000, '[');
    for (const std::string* body : {&arrays, &in_object}) {
        for (int status : {200, 422, 500}) {
            CAPTURE(status);
            Error e = error_of([&] { parse_payment_response({status, *body}); });
            const ErrorCode expected = status == 200   ? ErrorCode::bad_response
                                       : status == 422 ? ErrorCode::below_minimum
                                                       : ErrorCode::server;
            CHECK(e.code() == expected);
            CHECK(e.http_status() == status);
        }
        CHECK(error_of([&] { parse_users_me_response({200, *body}); }).code() == ErrorCode::bad_response);
        CHECK(error_of([&] { parse_subscription_debit_response({503, *body}); }).code() == ErrorCode::server);
    }
}

// Review of the parsers' message sanitizer: it cut a server's message at byte 200 whatever the
// UTF-8 there (half a character reached the shopper's screen and, in the CLI, the terminal) and
// passed bidi overrides through, so a message could display reversed.
TEST_CASE("A server's message in an error is cut between characters and shows bidi overrides escaped") {
    SUBCASE("a 301-byte message ('a' and 150 two-byte characters) keeps 199 bytes of whole characters") {
        std::string msg = "a";
        for (int i = 0; i < 150; ++i) msg += "\xC3\xA9";  // U+00E9
        Error e = error_of([&] { check_http_status({503, "{\"message\":\"" + msg + "\"}"}); });
        const std::string text = e.what();
        const auto at = text.find("a\xC3\xA9");
        REQUIRE(at != std::string::npos);
        std::size_t i = at + 1;
        while (text.compare(i, 2, "\xC3\xA9") == 0) i += 2;
        CHECK((i - at - 1) / 2 == 99);
        CHECK((i == text.size() || static_cast<unsigned char>(text[i]) < 0x80));  // no half character
    }
    SUBCASE("bidi overrides and isolates are shown as escapes (escape_untrusted)") {
        Error e = error_of([&] {
            check_http_status({503, R"({"message":"gnp.\u202eexe \u2066x\u2069"})"});
        });
        const std::string text = e.what();
        CHECK(text.find(R"(gnp.\u202eexe \u2066x\u2069)") != std::string::npos);
        CHECK(text.find("\xE2\x80\xAE") == std::string::npos);
        CHECK(text.find("\xE2\x81\xA6") == std::string::npos);
    }
}

// make fuzz (45 s per target) stopped in `requests`: a member name with a NUL byte was copied raw
// into the error's field and message, so what() read as empty and a log got the raw bytes.
TEST_CASE("An untrusted member name is escaped in the error that names it") {
    // The JSON escape \u0000 (six characters) in a member name: a NUL byte once decoded.
    const std::string body = R"({"merchantAuth":"bWVyY2hhbnQtYXV0aA==","merchantId":"5f2b7","orderId":"SUB-ORD-0007",)"
                             R"("\u0000items":[{"subscriptionId":"sub_01HV7Q","amount":19.99,"currency":"UsD"}]})";
    Error e = error_of([&] { from_json<SubscriptionDebitRequest>(body); });
    const std::string text = e.what();
    CHECK_FALSE(text.empty());
    CHECK(text.find('\0') == std::string::npos);
    CHECK(text.find(R"(["\u0000items"])") != std::string::npos);
    CHECK(e.field() == R"(["\u0000items"])");
    SUBCASE("plain names stay plain") {
        Error plain = error_of([&] { from_json<SubscriptionDebitRequest>(R"({"merchantAuth":"a","merchantId":"m","extra":1})"); });
        CHECK(plain.field() == "extra");
    }
}
