// Fuzz target: the subscription debit and cancel answers, read from the same bytes.
// Properties: only Error(bad_response) refuses; each round trip is a fixed point.
#include "fuzz_codec.hpp"

using namespace paywasm;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string_view input = fuzz::as_text(data, size);
    fuzz::read_and_round_trip<SubscriptionDebitResult>(input, ErrorCode::bad_response);
    fuzz::read_and_round_trip<SubscriptionCancelResult>(input, ErrorCode::bad_response);
    return 0;
}
