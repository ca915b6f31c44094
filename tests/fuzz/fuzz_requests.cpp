// Fuzz target: the request models read from JSON (what the sandbox decrypts and decodes, what the
// widget receives from the host page), then validate().
// Properties: reading refuses only with Error(validation); the round trip is a fixed point; validate
// refuses only with Error(validation) naming a field; a request that validates still validates
// after the round trip (the canonical bytes carry everything the rules look at).
#include "fuzz_codec.hpp"
#include "paywasm/validate.hpp"

using namespace paywasm;

namespace {

template <class T>
void check_request(std::string_view input) {
    auto request = fuzz::read_and_round_trip<T>(input, ErrorCode::validation);
    if (!request) return;
    bool valid = fuzz::accepts({ErrorCode::validation}, [&] {
        try {
            validate(*request);
        } catch (const Error& e) {
            PAYWASM_FUZZ_CHECK(!e.field().empty(), std::string("a validation error names its field: ") + e.what());
            throw;
        }
    });
    if (!valid) return;
    T again = from_json<T>(to_json(*request));
    fuzz::accepts({}, [&] { validate(again); });  // any error here is a broken property
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string_view input = fuzz::as_text(data, size);
    check_request<ExchangePayment>(input);
    check_request<BankPayment>(input);
    check_request<QrGenerateRequest>(input);
    check_request<SubscriptionDebitRequest>(input);
    check_request<SubscriptionCancelRequest>(input);
    return 0;
}
