// Fuzz target: PublicKey::parse on PEM ("PUBLIC KEY", "RSA PUBLIC KEY") and DER input — the merchant's
// key as the widget receives it from the host page.
// Properties: only Error(invalid_key) refuses; an accepted key is within the size and exponent
// rules; its SPKI DER and its PEM parse back to the same fingerprint; encrypting to it works (the
// hostile modulus goes through the Montgomery exponentiation) and gives whole k-byte blocks.
#include <optional>

#include "fuzz_common.hpp"
#include "paywasm/crypto.hpp"

using namespace paywasm;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string_view input = fuzz::as_text(data, size);
    std::optional<PublicKey> key;
    if (!fuzz::accepts({ErrorCode::invalid_key}, [&] { key.emplace(PublicKey::parse(input)); })) return 0;

    PAYWASM_FUZZ_CHECK(key->bits() >= kMinKeyBits && key->bits() <= kMaxKeyBits, "key size within limits");
    PAYWASM_FUZZ_CHECK(key->modulus_bytes() == static_cast<std::size_t>((key->bits() + 7) / 8), "k = ceil(bits/8)");
    const std::string fingerprint = key->fingerprint();
    PAYWASM_FUZZ_CHECK(fingerprint.size() == 64, "fingerprint is 64 hex digits");
    fuzz::accepts({}, [&] {
        PAYWASM_FUZZ_CHECK(PublicKey::parse(key->spki_der()).fingerprint() == fingerprint, "SPKI DER re-parses");
        PAYWASM_FUZZ_CHECK(PublicKey::parse(key->to_pem()).fingerprint() == fingerprint, "PEM re-parses");
    });
    PAYWASM_FUZZ_CHECK(max_piece(*key, Padding::oaep_sha256) > 0, "every padding fits an accepted key");
    if (key->bits() <= 4096) {  // larger keys with a huge exponent cost seconds per input
        fuzz::accepts({}, [&] {
            const std::string cipher = base64_decode(encrypt(*key, "paywasm fuzz", Padding::oaep_sha1));
            PAYWASM_FUZZ_CHECK(cipher.size() == key->modulus_bytes(), "one block of k bytes");
        });
    }
    return 0;
}
