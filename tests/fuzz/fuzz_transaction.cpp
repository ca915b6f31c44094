// Fuzz target: a payment answer's body read as a Transaction (exchange and bank payment endpoints).
// Properties: only Error(bad_response) refuses; what is read writes back to a fixed point; the
// status of an accepted Transaction always has a description.
#include "fuzz_codec.hpp"
#include "paywasm/protocol.hpp"

using namespace paywasm;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    auto tx = fuzz::read_and_round_trip<Transaction>(fuzz::as_text(data, size), ErrorCode::bad_response);
    if (!tx) return 0;
    PAYWASM_FUZZ_CHECK(!tx->extra.empty() && tx->extra.front() == '{', "unknown members are kept as an object");
    // A status word that was accepted maps to a code; a numeric status is described, known or not.
    StatusInfo info = describe_status(*tx);
    PAYWASM_FUZZ_CHECK(!to_string(info.kind).empty(), "every status has a kind");
    if (tx->status_word) PAYWASM_FUZZ_CHECK(info.code == tx->status, "a status word's code is stored in status");
    return 0;
}
