// Regressions: inputs that once crashed or misled the core, kept so they stay fixed. Each case names
// where the input came from (a fuzz target's reproducer, a review) and what used to happen. The
// fuzz reproducers are also replayed from tests/fuzz/corpus/<target>/regress-*.
#include <doctest/doctest.h>

#include <string>

#include "paywasm/error.hpp"
#include "paywasm/protocol.hpp"

using namespace paywasm;

namespace {

template <class F>
Error error_of(F&& f) {
    try {
        f();
    } catch (const Error& e) {
        return e;
    }
    FAIL("expected a paywasm::Error");
    return Error(ErrorCode::usage, "unreachable");
}

}  // namespace

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
