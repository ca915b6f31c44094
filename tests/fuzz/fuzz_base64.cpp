// Fuzz target: base64_decode (ciphertexts, DER keys in transit, merchantAuth).
// Properties: only Error(validation) refuses; decoding is strict, so what it accepts is canonical:
// encoding the result gives the input back without its line breaks; and any bytes survive
// encode -> decode.
#include <string>

#include "fuzz_common.hpp"
#include "paywasm/crypto.hpp"

using namespace paywasm;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string_view input = fuzz::as_text(data, size);
    std::string decoded;
    if (fuzz::accepts({ErrorCode::validation}, [&] { decoded = base64_decode(input); })) {
        std::string without_breaks;
        for (char c : input)
            if (c != '\n' && c != '\r') without_breaks += c;
        PAYWASM_FUZZ_CHECK(base64_encode(decoded) == without_breaks, "accepted base64 is canonical");
    }
    std::string encoded = base64_encode(input);
    PAYWASM_FUZZ_CHECK(encoded.size() == (size + 2) / 3 * 4, "encoded length is 4*ceil(n/3)");
    fuzz::accepts({}, [&] { PAYWASM_FUZZ_CHECK(base64_decode(encoded) == input, "bytes survive encode -> decode"); });
    return 0;
}
