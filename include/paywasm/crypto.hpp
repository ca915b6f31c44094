// paywasm/crypto.hpp — RSA encryption of payloads to the merchant's public key (Crypto++ inside).
//
// Framing (as the service's public clients do it; docs/service-api.md): the plaintext is cut into pieces of max_piece() bytes, each piece is
// encrypted as one RSA block of k bytes (k = modulus size), the blocks are concatenated and the
// whole is base64-encoded (standard alphabet, '=' padding). A payload that fits one piece is
// exactly what Node's crypto.publicEncrypt gives.
//
// Randomness comes from the platform CSPRNG only: getentropy() natively, crypto.getRandomValues in
// the browser (Emscripten's getentropy). There is no seed parameter.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

namespace paywasm {

namespace detail {
struct KeyAccess;  // the core's own access to a key's numbers (src/core/crypto_internal.hpp)
}  // namespace detail

enum class Padding {
    oaep_sha1,    // default: RSA-OAEP, SHA-1, MGF1-SHA-1 (what the service's clients use)
    oaep_sha256,  // RSA-OAEP, SHA-256, MGF1-SHA-256
    pkcs1v15,     // LEGACY: RSAES-PKCS1-v1_5; only for services that need it
};
// "oaep-sha1" | "oaep-sha256" | "pkcs1v15"; throws Error(validation, "padding") otherwise.
Padding parse_padding(std::string_view name);
std::string_view to_string(Padding);

constexpr int kMinKeyBits = 2048;
// A hostile page or merchant could hand the widget a huge key: public-key work grows with the
// square of the modulus size (and linearly with the exponent's bits), so the limits below keep the
// slowest accepted encryption short. 8192 bits covers every RSA key size in real use.
constexpr int kMaxKeyBits = 8192;
// Public exponents above this (2^32) are refused.
constexpr unsigned long long kMaxPublicExponent = 1ULL << 32;

// An RSA public key. Accepts PEM "PUBLIC KEY" (SubjectPublicKeyInfo), PEM "RSA PUBLIC KEY"
// (PKCS#1), or the DER of either. Refuses (Error invalid_key, saying why): anything else, trailing
// data after the key, fewer than kMinKeyBits or more than kMaxKeyBits, an even exponent, one
// below 65537 (e = 3 is refused: small exponents are a known hazard with weak paddings) or one
// above kMaxPublicExponent.
class PublicKey {
public:
    static PublicKey parse(std::string_view pem_or_der);
    PublicKey(PublicKey&&) noexcept;
    PublicKey& operator=(PublicKey&&) noexcept;
    ~PublicKey();

    int bits() const;
    std::size_t modulus_bytes() const;  // k
    std::string spki_der() const;       // DER SubjectPublicKeyInfo
    std::string to_pem() const;         // PEM "PUBLIC KEY"
    // Lower-case hex SHA-256 of spki_der(): what `key-fingerprint` pins and `openssl pkey -pubin
    // -outform DER | sha256sum` prints.
    std::string fingerprint() const;
    // Whether `pin` names this key: fingerprint() in hex, compared ignoring case and ':' separators
    // ("AB:CD:..." as openssl's -c output prints it). The one normalisation of a pin.
    bool matches_fingerprint(std::string_view pin) const;

private:
    struct Impl;  // src/core/crypto_internal.hpp
    explicit PublicKey(std::unique_ptr<Impl>);
    std::unique_ptr<Impl> impl_;
    friend class PrivateKey;
    friend struct detail::KeyAccess;
};

// An RSA private key: PEM "PRIVATE KEY" (PKCS#8) or "RSA PRIVATE KEY" (PKCS#1), or their DER.
// Native use (sandbox, CLI, tests); the widget never holds one.
class PrivateKey {
public:
    static PrivateKey parse(std::string_view pem_or_der);
    // bits in [kMinKeyBits, kMaxKeyBits], multiple of 8; e = 65537.
    static PrivateKey generate(int bits = 2048);
    PrivateKey(PrivateKey&&) noexcept;
    PrivateKey& operator=(PrivateKey&&) noexcept;
    ~PrivateKey();

    PublicKey public_key() const;
    std::string to_pem() const;  // PEM "PRIVATE KEY" (PKCS#8)

private:
    struct Impl;  // src/core/crypto_private.cpp
    explicit PrivateKey(std::unique_ptr<Impl>);
    std::unique_ptr<Impl> impl_;
    friend struct detail::KeyAccess;
};

// Largest plaintext piece per block: k - 2*hLen - 2 for OAEP (214 for 2048-bit SHA-1, 190 for
// SHA-256), k - 11 for PKCS#1 v1.5.
std::size_t max_piece(const PublicKey&, Padding);

// Encrypts `plaintext` (1 .. 64 KiB bytes) with the framing above; returns base64.
// Throws Error(validation) for an empty or oversized plaintext.
std::string encrypt(const PublicKey&, std::string_view plaintext, Padding = Padding::oaep_sha1);

// Reverses encrypt(). Any failure (bad base64, length not a multiple of k, a bad block) throws
// Error(crypto, "decryption failed") with that one constant message. With pkcs1v15 that exception
// is itself a padding oracle to whoever can time it or see it: a server answering untrusted
// clients uses decrypt_pkcs1v15_implicit() below instead.
std::string decrypt(const PrivateKey&, std::string_view base64, Padding = Padding::oaep_sha1);

// RSAES-PKCS1-v1_5 decryption with implicit rejection, the algorithm of draft-irtf-cfrg-rsa-guidance
// (section 7) that OpenSSL 3.2+ uses by default; for a server that must accept v1.5 from clients it
// does not trust. Each k-byte block decrypts to its message when its padding is valid, else to a
// synthetic message that depends only on the private exponent and the block (HMAC-SHA-256; the same
// every time, 0 .. k - 11 bytes, indistinguishable from a decryption without the key). A bad padding
// is no error: nothing is thrown, no branch depends on it, and the choice between the real and the
// synthetic message (bytes and length) is made with masks. The caller learns of it only when the
// plaintext makes no sense, and must treat that failure like any other. Throws Error(crypto,
// "decryption failed") only for what anyone can check without the key: bad base64, a length that
// is not a positive multiple of k, a block that is not below the modulus.
std::string decrypt_pkcs1v15_implicit(const PrivateKey&, std::string_view base64);

// merchantAuth for subscription debit/cancel: encrypt(key, {"merchantId":"<id>"}, padding).
std::string merchant_auth(const PublicKey&, std::string_view merchant_id,
                          Padding = Padding::oaep_sha1);

// RSASSA-PKCS1-v1_5 with SHA-256 (webhook signatures); signature is base64.
std::string sign_sha256(const PrivateKey&, std::string_view message);
bool verify_sha256(const PublicKey&, std::string_view message, std::string_view signature_base64);

std::string sha256_hex(std::string_view bytes);
// HMAC-SHA256 (RFC 2104) of `message` under `key`, lower-case hex.
std::string hmac_sha256_hex(std::string_view key, std::string_view message);
// Whether a and b hold the same bytes, in time that depends only on their lengths (secrets, MACs):
// Crypto++'s VerifyBufsEqual. Different lengths: false at once.
bool constant_time_equal(std::string_view a, std::string_view b);
std::string base64_encode(std::string_view bytes);
// Standard alphabet, padding required, no whitespace except '\n'/'\r' (ignored);
// throws Error(validation, "base64") otherwise.
std::string base64_decode(std::string_view text);
// Fills `out` from the platform CSPRNG; throws Error(crypto) if the platform has none.
void random_bytes(unsigned char* out, std::size_t n);

}  // namespace paywasm
