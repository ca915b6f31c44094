// Fuzz target: PrivateKey::parse on PEM ("PRIVATE KEY", "RSA PRIVATE KEY") and DER input — the
// sandbox's and the CLI's key files.
// Properties: only Error(invalid_key) refuses; an accepted key's PEM parses back to the same key
// (same public fingerprint), its public half passes PublicKey's rules, and what is encrypted to the
// public half decrypts with the key (the parts really fit together).
#include <optional>

#include "fuzz_common.hpp"
#include "paywasm/crypto.hpp"

using namespace paywasm;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string_view input = fuzz::as_text(data, size);
    std::optional<PrivateKey> key;
    if (!fuzz::accepts({ErrorCode::invalid_key}, [&] { key.emplace(PrivateKey::parse(input)); })) return 0;

    fuzz::accepts({}, [&] {
        const std::string fingerprint = key->public_key().fingerprint();
        PAYWASM_FUZZ_CHECK(PrivateKey::parse(key->to_pem()).public_key().fingerprint() == fingerprint,
                           "the private key's PEM re-parses to the same key");
        PAYWASM_FUZZ_CHECK(PublicKey::parse(key->public_key().to_pem()).fingerprint() == fingerprint,
                           "the public half is a valid public key");
        const std::string message = "paywasm fuzz round trip";
        PAYWASM_FUZZ_CHECK(decrypt(*key, encrypt(key->public_key(), message)) == message,
                           "encrypt to the public half, decrypt with the key");
    });
    return 0;
}
