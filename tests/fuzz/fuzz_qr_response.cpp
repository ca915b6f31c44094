// Fuzz target: the QR generate answer (QrGenerateResponse) and the payment URI it carries.
// Properties: only Error(bad_response) refuses the body; the round trip is a fixed point; the
// qrString either passes check_payment_uri or is refused with Error(invalid_qr) — never anything
// else, so a javascript: or http: string cannot reach the QR renderer.
#include "fuzz_codec.hpp"
#include "paywasm/qr.hpp"

using namespace paywasm;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    auto answer = fuzz::read_and_round_trip<QrGenerateResponse>(fuzz::as_text(data, size), ErrorCode::bad_response);
    if (!answer) return 0;
    const std::string& qr = answer->result.meta.qr_string;
    PaymentUri uri;
    if (fuzz::accepts({ErrorCode::invalid_qr}, [&] { uri = check_payment_uri(qr); })) {
        PAYWASM_FUZZ_CHECK(fuzz::printable(qr), "an accepted payment URI has no control characters");
        PAYWASM_FUZZ_CHECK(uri.scheme != "javascript" && uri.scheme != "data" && uri.scheme != "http" &&
                               uri.scheme != "https",
                           "scheme " + uri.scheme + " passed the payment URI check");
    }
    return 0;
}
