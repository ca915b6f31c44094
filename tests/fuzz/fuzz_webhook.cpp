// Fuzz target: what the merchant gateway does first with every body that reaches POST /v1/webhooks
// (paywasm::verify_webhook), and the shop app's check of a forwarded event (paywasm::verify_event).
//
// Input: one selector byte, then <rest>.
//   selector & 0x01  <rest> is the signed transaction text: the harness wraps it as the service does,
//                    {"type":"rf:alert","data":{"data":<rest>},"signature":<RSA PKCS#1 v1.5 SHA-256
//                    over rest with the test key>}, so the fuzzer reaches what comes after a good
//                    signature (reading the transaction); otherwise <rest> is the body as received.
//   selector & 0x02  also: <rest> as "<Paywasm-Signature header>\n<event body>" through verify_event.
//   selector & 0x04  also: an event signed by sign_event over <rest> verifies at its own timestamp.
// Properties: verify_webhook returns, or throws paywasm::Error (validation, crypto or bad_response)
// and nothing else; an accepted webhook's signed text is exactly data.data (<rest> when the harness
// signed it) and its transaction has an id. verify_event returns or throws Error(validation|crypto);
// what sign_event signed always verifies.
#include <string>

#include "../unit/test_crypto_keys.hpp"
#include "fuzz_common.hpp"
#include "paywasm/checkout.hpp"
#include "paywasm/crypto.hpp"
#include "paywasm/error.hpp"
#include "paywasm/json.hpp"

using namespace paywasm;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const PrivateKey key = PrivateKey::parse(test_keys::kPrivate2048);
    static const PublicKey public_key = key.public_key();
    if (size < 1) return 0;
    const std::uint8_t selector = data[0];
    const std::string rest(fuzz::as_text(data + 1, size - 1));

    std::string body = rest;
    if (selector & 0x01) {
        body = R"({"type":"rf:alert","data":{"data":)" + json_quote(rest) + R"(},"signature":)" +
               json_quote(sign_sha256(key, rest)) + "}";
    }
    try {
        const VerifiedWebhook hook = verify_webhook(body, public_key);
        PAYWASM_FUZZ_CHECK(!hook.transaction.id.empty(), "an accepted transaction has an id");
        if (selector & 0x01) PAYWASM_FUZZ_CHECK(hook.signed_json == rest, "the signed text is data.data exactly");
    } catch (const Error& e) {
        PAYWASM_FUZZ_CHECK(e.code() == ErrorCode::validation || e.code() == ErrorCode::crypto ||
                               e.code() == ErrorCode::bad_response,
                           "a refused webhook is validation, crypto or bad_response");
    }

    if (selector & 0x02) {
        const auto newline = rest.find('\n');
        const std::string header = rest.substr(0, newline);
        const std::string event = newline == std::string::npos ? std::string() : rest.substr(newline + 1);
        try {
            verify_event("s3cret", event, header, 1700000000);
        } catch (const Error& e) {
            PAYWASM_FUZZ_CHECK(e.code() == ErrorCode::validation || e.code() == ErrorCode::crypto,
                               "a refused event is validation or crypto");
        }
    }
    if (selector & 0x04) {
        const long long t = 1700000000LL + static_cast<long long>(selector);
        try {
            verify_event("s3cret", rest, sign_event("s3cret", rest, t), t);
        } catch (const Error&) {
            PAYWASM_FUZZ_CHECK(false, "what sign_event signed verifies");
        }
    }
    return 0;
}
