// src/core/crypto_internal.hpp — what the public-key files (crypto_keys.cpp, crypto_encrypt.cpp,
// crypto_encoding.cpp) and crypto_private.cpp (private keys, decryption, signatures) share:
// PEM/DER unwrapping, the checks every key passes, the RNG adapter and the padding types.
// Internal; not part of the public API.
//
// The private half is apart so that the widget's wasm, which only encrypts, links no Crypto++
// Integer: the public-key files must never name CryptoPP::Integer (see crypto_keys.cpp's header
// comment).
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include <cryptopp/cryptlib.h>

#include "core/crypto_der.hpp"
#include "paywasm/crypto.hpp"

namespace paywasm {

// A public key is just (n, e), as big-endian magnitudes without leading zero bytes: encryption pads
// with crypto_encrypt.cpp's own OAEP and PKCS#1 v1.5 encoders (hashing with core/sha.hpp, over Crypto++'s
// SHA compression functions) and exponentiates with detail::MontgomeryModulus, so the wasm module
// carries none of Crypto++'s Integer, key-object, hash-object, ASN.1 and filter machinery.
struct PublicKey::Impl {
    std::string n, e;
};

namespace detail {
// The core's access to a key's numbers (the crypto_*.cpp files); the public API has none.
struct KeyAccess {
    using PublicImpl = PublicKey::Impl;
    static const PublicKey::Impl& of(const PublicKey& key) { return *key.impl_; }
    static const PrivateKey::Impl& of(const PrivateKey& key) { return *key.impl_; }
};

// The random bytes of encryption's padding (OAEP seeds, PKCS#1 v1.5 padding strings): fills `out`
// with n bytes, or throws Error(crypto) like random_bytes(). The library's definition
// (padding_random.cpp, an object file of its own) is random_bytes(), the platform CSPRNG, and is
// what every program and the widget link. It is a link-time seam for tests only: the unit test
// binaries (native and wasm) link their own definition instead (tests/unit/random_source.cpp),
// which can hand out a known byte stream, so that tests can see each block's seed and padding.
void padding_random(unsigned char* out, std::size_t n);
}  // namespace detail

namespace keyio {

inline constexpr char kDecryptionFailed[] = "decryption failed";

// Crypto++'s view of the platform CSPRNG. No state, no seed: every byte comes from getentropy().
class PlatformRng final : public CryptoPP::RandomNumberGenerator {
public:
    void GenerateBlock(CryptoPP::byte* output, std::size_t size) override { random_bytes(output, size); }
};


// Overwrites then empties a string that held key material or a payload.
void wipe(std::string& s);
[[noreturn]] void invalid_key(const std::string& message);
// A PEM label (untrusted text) as an error message shows it: escape_untrusted(label, 40).
std::string shown_label(std::string_view label);
// Strict base64 (see crypto_encoding.cpp); false with `why` set instead of throwing.
bool base64_decode_into(std::string_view text, bool skip_blanks, std::string& out, std::string& why);

struct Pem {
    std::string label;  // "" for raw DER input
    std::string der;
};
// Splits input into DER bytes with the PEM label ("" for raw DER). Refuses what is neither.
Pem unarmour(std::string_view input, bool want_private);
std::string to_pem_text(std::string_view label, std::string_view der);
bool is_private_label(std::string_view label);
bool is_public_label(std::string_view label);

// A non-negative DER INTEGER as a big-endian magnitude without leading zero bytes ("" for 0).
std::string read_unsigned(detail::DerReader& r, const char* what);
// Size, parity and exponent checks of (n, e), as magnitudes; Error(invalid_key) saying why.
void check_numbers(std::string_view n, std::string_view e);
// AlgorithmIdentifier must be rsaEncryption with NULL (or absent) parameters.
void check_rsa_algorithm(std::string_view algorithm_content);
[[noreturn]] void private_as_public();
[[noreturn]] void public_as_private();

}  // namespace keyio
}  // namespace paywasm
