// Fuzz target: an HTTP answer (any status, any body) handed to check_http_status and to every
// response parser, as the widget and the CLI do with what the network gives them.
// Input: two bytes of status (big-endian, signed), then the body.
// Properties: only the typed errors of protocol.hpp come out; check_http_status returns only for
// 2xx without an exchange error code; every error carries the HTTP status, and its message is
// printable and bounded (a hostile body cannot flood a log line or inject control characters).
#include <string>

#include "fuzz_common.hpp"
#include "paywasm/protocol.hpp"

using namespace paywasm;

namespace {

const std::initializer_list<ErrorCode> kAnswerErrors = {
    ErrorCode::bad_response,          ErrorCode::unauthorized,          ErrorCode::not_found,
    ErrorCode::server,                ErrorCode::validation,            ErrorCode::authentication_failed,
    ErrorCode::insufficient_balance,  ErrorCode::whitelist_pending,     ErrorCode::wallet_unsupported,
    ErrorCode::below_minimum,
};

// Runs one parser step; checks what it throws.
template <class Body>
bool answer(const HttpResponse& r, Body&& body) {
    try {
        body();
        return true;
    } catch (const Error& e) {
        bool known = false;
        for (ErrorCode c : kAnswerErrors) known = known || c == e.code();
        PAYWASM_FUZZ_CHECK(known, std::string("unexpected error code ") + std::string(to_string(e.code())));
        PAYWASM_FUZZ_CHECK(e.http_status() == r.status, "the error carries the HTTP status: " +
                                                             std::to_string(e.http_status()) + " vs " +
                                                             std::to_string(r.status));
        const std::string_view message = e.what();
        PAYWASM_FUZZ_CHECK(!message.empty(), "an error has a message");
        PAYWASM_FUZZ_CHECK(fuzz::printable(message), std::string("the message is printable: ") + e.what());
        PAYWASM_FUZZ_CHECK(message.size() <= 600, "the message is bounded (" + std::to_string(message.size()) +
                                                      " bytes): " + std::string(message.substr(0, 300)));
        return false;
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 2) return 0;
    HttpResponse r;
    r.status = static_cast<std::int16_t>((data[0] << 8) | data[1]);
    r.body = std::string(fuzz::as_text(data + 2, size - 2));

    bool passed = answer(r, [&] { check_http_status(r); });
    if (passed) PAYWASM_FUZZ_CHECK(r.status >= 200 && r.status < 300, "only 2xx passes the status check");
    answer(r, [&] { parse_payment_response(r); });
    answer(r, [&] { parse_qr_generate_response(r); });
    answer(r, [&] { parse_users_me_response(r); });
    answer(r, [&] { parse_subscription_debit_response(r); });
    answer(r, [&] { parse_subscription_cancel_response(r); });
    return 0;
}
