// src/core/crypto_private.cpp — private keys (parse, generate, PEM), decryption, and RSA
// signatures (sign and verify), with Crypto++'s Integer and RSA key objects. Native code (the CLI,
// the sandbox, the tests) uses it; the widget's wasm module never references anything here, so
// Crypto++'s big-integer code stays out of it (see crypto_keys.cpp's header comment).
#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include <cryptopp/cryptlib.h>
#include <cryptopp/hmac.h>
#include <cryptopp/integer.h>
#include <cryptopp/oaep.h>
#include <cryptopp/pkcspad.h>
#include <cryptopp/rsa.h>
#include <cryptopp/secblock.h>
#include <cryptopp/sha.h>

#include "core/crypto_der.hpp"
#include "core/crypto_internal.hpp"
#include "paywasm/crypto.hpp"
#include "paywasm/error.hpp"

namespace paywasm {

using detail::DerReader;
using detail::Tlv;
namespace der = detail::der;
using namespace keyio;

struct PrivateKey::Impl {
    CryptoPP::RSA::PrivateKey key;
};

namespace {

using OaepSha1 = CryptoPP::OAEP<CryptoPP::SHA1>;
// Crypto++'s OAEP<H> uses MGF1 with the same H: OAEP-SHA-256 with MGF1-SHA-256, as OpenSSL's
// rsa_oaep_md:sha256 + rsa_mgf1_md:sha256 and WebCrypto's RSA-OAEP/SHA-256 (checked by the KAT).
using OaepSha256 = CryptoPP::OAEP<CryptoPP::SHA256>;

// Private keys only (Crypto++ does their arithmetic).
CryptoPP::Integer read_integer(DerReader& r, const char* what) {
    std::string m = read_unsigned(r, what);
    CryptoPP::Integer v(reinterpret_cast<const CryptoPP::byte*>(m.data()), m.size());
    wipe(m);
    return v;
}

CryptoPP::Integer to_integer(const std::string& m) {
    return CryptoPP::Integer(reinterpret_cast<const CryptoPP::byte*>(m.data()), m.size());
}

std::string magnitude(const CryptoPP::Integer& v) {
    std::string out(v.MinEncodedSize(), '\0');
    v.Encode(reinterpret_cast<CryptoPP::byte*>(out.data()), out.size());
    while (!out.empty() && out.front() == '\0') out.erase(0, 1);  // zero is "", as read_unsigned gives it
    return out;
}

// ---- Private key DER ----

CryptoPP::RSA::PrivateKey parse_rsa_private_key(std::string_view der_bytes) {
    DerReader outer(der_bytes);
    Tlv seq = outer.expect(der::kSequence, "RSAPrivateKey");
    if (!outer.empty()) invalid_key("trailing data after RSAPrivateKey");
    DerReader counter(seq.content);
    int fields = 0;
    for (; !counter.empty(); ++fields) counter.read("a field");
    if (fields == 2) public_as_private();  // RSAPublicKey: n, e
    DerReader r(seq.content);
    CryptoPP::Integer version = read_integer(r, "the version");
    if (version == CryptoPP::Integer::One()) invalid_key("multi-prime RSA keys are not supported");
    if (version != CryptoPP::Integer::Zero() || fields != 9) invalid_key("not a key: not an RSAPrivateKey");
    CryptoPP::Integer n = read_integer(r, "the modulus");
    CryptoPP::Integer e = read_integer(r, "the public exponent");
    CryptoPP::Integer d = read_integer(r, "the private exponent");
    CryptoPP::Integer p = read_integer(r, "the first prime");
    CryptoPP::Integer q = read_integer(r, "the second prime");
    CryptoPP::Integer dp = read_integer(r, "the first CRT exponent");
    CryptoPP::Integer dq = read_integer(r, "the second CRT exponent");
    CryptoPP::Integer u = read_integer(r, "the CRT coefficient");
    check_numbers(magnitude(n), magnitude(e));
    CryptoPP::RSA::PrivateKey key;
    key.Initialize(n, e, d, p, q, dp, dq, u);
    PlatformRng rng;
    if (!key.Validate(rng, 1)) invalid_key("private key parts do not fit together (n != p*q or d does not match e)");
    return key;
}

CryptoPP::RSA::PrivateKey parse_private_der(std::string_view bytes) {
    DerReader top(bytes);
    Tlv outer = top.expect(der::kSequence, "the key");
    if (!top.empty()) invalid_key("trailing data: " + std::to_string(top.remaining()) + " bytes after the DER key");
    DerReader r(outer.content);
    if (r.peek_tag() == der::kSequence) {  // SubjectPublicKeyInfo or EncryptedPrivateKeyInfo
        r.read("the algorithm identifier");
        if (r.peek_tag() == der::kOctetString) {
            invalid_key("encrypted private keys are not supported; decrypt it first (openssl pkey -in KEY -out PLAIN.pem)");
        }
        public_as_private();
    }
    if (r.peek_tag() != der::kInteger) invalid_key("not a key: the DER is not an RSA private key");
    r.read("the version");
    if (r.peek_tag() != der::kSequence) return parse_rsa_private_key(bytes);  // PKCS#1
    // PKCS#8 PrivateKeyInfo: version, algorithm, OCTET STRING { RSAPrivateKey }, [attributes]
    Tlv alg = r.expect(der::kSequence, "the algorithm identifier");
    check_rsa_algorithm(alg.content);
    Tlv inner = r.expect(der::kOctetString, "the private key");
    while (!r.empty()) {
        Tlv extra = r.read("the attributes");
        if ((extra.tag & 0xc0) != 0x80) invalid_key("not a key: PrivateKeyInfo has unexpected fields");
    }
    return parse_rsa_private_key(inner.content);
}

template <class Standard>
std::string decrypt_with(const CryptoPP::RSA::PrivateKey& key, const std::string& ciphertext) {
    typename CryptoPP::RSAES<Standard>::Decryptor dec(key);
    const std::size_t k = dec.FixedCiphertextLength();
    if (ciphertext.empty() || k == 0 || ciphertext.size() % k != 0) throw Error(ErrorCode::crypto, kDecryptionFailed);
    std::string out;
    std::vector<CryptoPP::byte> buf(dec.FixedMaxPlaintextLength());
    PlatformRng rng;
    for (std::size_t off = 0; off < ciphertext.size(); off += k) {
        CryptoPP::DecodingResult r =
            dec.Decrypt(rng, reinterpret_cast<const CryptoPP::byte*>(ciphertext.data()) + off, k, buf.data());
        if (!r.isValidCoding) throw Error(ErrorCode::crypto, kDecryptionFailed);
        out.append(reinterpret_cast<const char*>(buf.data()), r.messageLength);
    }
    std::memset(buf.data(), 0, buf.size());
    return out;
}

// ---- RSAES-PKCS1-v1_5 decryption (RFC 8017 section 7.2.2), decoded here ----
//
// Crypto++ 8.7's PKCS_EncryptionPaddingScheme::Unpad accepts 00 02 followed by k - 2 non-zero bytes
// (no zero separator) as an empty message, and finds the separator with a data-dependent loop. The
// EM is therefore decoded here, after Crypto++'s raw (blinded) private operation, with one pass over
// every byte whatever their values and a single branch on the final verdict:
//   EM = 00 || 02 || PS || 00 || M,  PS at least 8 non-zero bytes,  a zero separator required.

// All-ones when a == b, else 0, without a branch.
inline unsigned ct_eq(unsigned a, unsigned b) {
    const unsigned x = a ^ b;
    return 0u - (((x | (0u - x)) >> (sizeof(unsigned) * 8 - 1)) ^ 1u);
}
// All-ones when a >= b (both below 2^31), else 0.
inline unsigned ct_ge(unsigned a, unsigned b) {
    return 0u - (((a - b) >> (sizeof(unsigned) * 8 - 1)) ^ 1u);
}

// Hides a value from the optimizer, so that it cannot turn the masked selects built on it back into
// branches (an empty asm statement that "may change" the register; a no-op at run time).
inline unsigned value_barrier(unsigned v) {
#if defined(__GNUC__) && !defined(__EMSCRIPTEN__)
    __asm__("" : "+r"(v));
#endif
    return v;
}

// Decodes one k-byte EM. Returns all-ones and sets `start` to the first message byte when EM is a
// valid encryption block; 0 otherwise (the same work is done either way; `start` is then
// meaningless, 1 .. k).
unsigned pkcs1v15_decode(const CryptoPP::byte* em, std::size_t k, std::size_t& start) {
    unsigned good = ct_eq(em[0], 0) & ct_eq(em[1], 2);
    unsigned found = 0;     // all-ones once the separator was seen
    unsigned zero_at = 0;   // index of the first zero after 00 02
    for (std::size_t i = 2; i < k; ++i) {
        const unsigned is_zero = ct_eq(em[i], 0);
        const unsigned first = is_zero & ~found;
        zero_at = (first & static_cast<unsigned>(i)) | (~first & zero_at);
        found |= is_zero;
    }
    good &= found;
    good &= ct_ge(zero_at, 2 + 8);  // PS = em[2 .. zero_at) has at least 8 bytes
    start = static_cast<std::size_t>(zero_at) + 1;
    return value_barrier(good);
}

std::string decrypt_pkcs1v15(const CryptoPP::RSA::PrivateKey& key, const std::string& ciphertext) {
    const CryptoPP::Integer& n = key.GetModulus();
    const std::size_t k = n.ByteCount();
    if (ciphertext.empty() || k < 11 || ciphertext.size() % k != 0) throw Error(ErrorCode::crypto, kDecryptionFailed);
    PlatformRng rng;
    std::vector<CryptoPP::byte> em(k);
    std::string out;
    bool all_good = true;  // combined without branching on any one block
    for (std::size_t off = 0; off < ciphertext.size(); off += k) {
        CryptoPP::Integer c(reinterpret_cast<const CryptoPP::byte*>(ciphertext.data()) + off, k);
        if (c >= n) throw Error(ErrorCode::crypto, kDecryptionFailed);  // public: no secret involved
        CryptoPP::Integer m = key.CalculateInverse(rng, c);             // blinded m = c^d mod n
        m.Encode(em.data(), k);
        m = CryptoPP::Integer::Zero();
        std::size_t start = 0;
        // Every block is decoded before the verdict, so a bad first block costs what a good one does.
        const bool good = pkcs1v15_decode(em.data(), k, start) != 0;
        all_good &= good;
        out.append(reinterpret_cast<const char*>(em.data()) + start, k - start);  // kept only if all are good
    }
    std::memset(em.data(), 0, em.size());
    if (!all_good) {
        wipe(out);
        throw Error(ErrorCode::crypto, kDecryptionFailed);
    }
    return out;
}

// ---- RSAES-PKCS1-v1_5 with implicit rejection (draft-irtf-cfrg-rsa-guidance, section 7) ----
//
// What OpenSSL 3.2+ does by default (ossl_rsa_padding_check_PKCS1_type_2), written here from the
// draft: a block whose padding is bad decrypts to a synthetic message instead of failing.
//   D   = I2OSP(d, k)                      the private exponent as k big-endian bytes
//   KDK = HMAC-SHA256(key = SHA256(D), C)  C the k-byte ciphertext block
//   IRPRF(KDK, label, L) = the first L bytes of P(0) || P(1) || P(2) || ...,
//         P(I) = HMAC-SHA256(KDK, I || label || bits), I and bits = 8 * L two bytes big-endian each
//   CL  = IRPRF(KDK, "length", 256): 128 two-byte big-endian candidates, each masked to the bits of
//         max = k - 2 - 8 (the draft's max_sep_offset); the last one below max is the synthetic
//         length L (0 if none is: a chance of at most 2^-128)
//   AM  = IRPRF(KDK, "message", k); the synthetic message is its last L bytes
// The real EM is decoded by pkcs1v15_decode (one pass, no branch on its bytes) and the result is
// picked with masks, so the work and the memory accesses are the same for a good and a bad block.

constexpr std::size_t kSha256Bytes = CryptoPP::SHA256::DIGESTSIZE;
constexpr std::size_t kLengthCandidates = 128;

inline unsigned ct_select(unsigned mask, unsigned a, unsigned b) { return (mask & a) | (~mask & b); }

// IRPRF(KDK, label, out_len) into `out` (out_len bytes; 8 * out_len must fit in two bytes).
void irprf(const CryptoPP::byte* kdk, const char* label, CryptoPP::byte* out, std::size_t out_len) {
    CryptoPP::HMAC<CryptoPP::SHA256> mac(kdk, kSha256Bytes);
    const std::size_t label_len = std::strlen(label);
    const unsigned bits = static_cast<unsigned>(out_len * 8);
    const CryptoPP::byte bits_be[2] = {static_cast<CryptoPP::byte>(bits >> 8), static_cast<CryptoPP::byte>(bits)};
    CryptoPP::FixedSizeSecBlock<CryptoPP::byte, kSha256Bytes> chunk;
    unsigned i = 0;
    for (std::size_t pos = 0; pos < out_len; pos += kSha256Bytes, ++i) {
        const CryptoPP::byte i_be[2] = {static_cast<CryptoPP::byte>(i >> 8), static_cast<CryptoPP::byte>(i)};
        mac.Update(i_be, 2);
        mac.Update(reinterpret_cast<const CryptoPP::byte*>(label), label_len);
        mac.Update(bits_be, 2);
        mac.Final(chunk);  // and restarts with the same key
        std::memcpy(out + pos, chunk, std::min(kSha256Bytes, out_len - pos));
    }
}

// Decrypts one k-byte block `c` (c < n, checked by the caller) and appends its message, real or
// synthetic, to `out`. `dh` is SHA256(I2OSP(d, k)).
void decrypt_block_implicit(const CryptoPP::RSA::PrivateKey& key, CryptoPP::RandomNumberGenerator& rng,
                            const CryptoPP::byte* dh, const CryptoPP::byte* block, std::size_t k, std::string& out) {
    // The alternative message first: it only needs the key and the ciphertext.
    CryptoPP::FixedSizeSecBlock<CryptoPP::byte, kSha256Bytes> kdk;
    CryptoPP::HMAC<CryptoPP::SHA256>(dh, kSha256Bytes).CalculateDigest(kdk, block, k);
    CryptoPP::SecByteBlock lengths(2 * kLengthCandidates), synthetic(k);
    irprf(kdk, "length", lengths, lengths.size());
    irprf(kdk, "message", synthetic, k);

    const unsigned max_sep = static_cast<unsigned>(k - 2 - 8);
    unsigned len_mask = max_sep;  // max_sep with every bit below its top bit set
    len_mask |= len_mask >> 1;
    len_mask |= len_mask >> 2;
    len_mask |= len_mask >> 4;
    len_mask |= len_mask >> 8;
    unsigned synthetic_len = 0;
    for (std::size_t i = 0; i < kLengthCandidates; ++i) {
        const unsigned candidate = ((static_cast<unsigned>(lengths[2 * i]) << 8) | lengths[2 * i + 1]) & len_mask;
        synthetic_len = ct_select(value_barrier(~ct_ge(candidate, max_sep)), candidate, synthetic_len);
    }

    // The real EM: blinded m = c^d mod n by Crypto++, decoded without branching on its bytes.
    CryptoPP::SecByteBlock em(k);
    {
        CryptoPP::Integer m = key.CalculateInverse(rng, CryptoPP::Integer(block, k));
        m.Encode(em, k);
        m = CryptoPP::Integer::Zero();
    }
    std::size_t start = 0;
    const unsigned good = pkcs1v15_decode(em, k, start);  // all-ones or 0

    // Both candidates lie at the tail of a k-byte buffer: the real message from `start`, the
    // synthetic one from k - L. Pick the bytes and the offset with the mask, ...
    const unsigned offset = ct_select(good, static_cast<unsigned>(start), static_cast<unsigned>(k) - synthetic_len);
    CryptoPP::SecByteBlock picked(k);
    for (std::size_t i = 0; i < k; ++i) {
        picked[i] = static_cast<CryptoPP::byte>(ct_select(good, em[i], synthetic[i]));
    }
    // ... then move the message to the front with a shift by `offset` made of one masked pass per
    // bit of it (every pass reads and writes every byte whatever the bit), so that no memory
    // access depends on the offset either. Only the message's length shows, as it must.
    for (unsigned bit = 0; (1u << bit) <= k; ++bit) {
        const std::size_t step = std::size_t{1} << bit;
        const unsigned take = value_barrier(0u - ((offset >> bit) & 1u));
        for (std::size_t i = 0; i < k; ++i) {
            const unsigned moved = i + step < k ? picked[i + step] : 0u;  // i, step and k are public
            picked[i] = static_cast<CryptoPP::byte>(ct_select(take, moved, picked[i]));
        }
    }
    out.append(reinterpret_cast<const char*>(picked.data()), k - offset);
}

std::string decrypt_pkcs1v15_implicit_raw(const CryptoPP::RSA::PrivateKey& key, const std::string& ciphertext) {
    const CryptoPP::Integer& n = key.GetModulus();
    const std::size_t k = n.ByteCount();
    // IRPRF's bit length is two bytes: 8 * k < 65536 (kMaxKeyBits keeps k at 1024 or less).
    if (ciphertext.empty() || k < 11 || k * 8 > 0xffff || ciphertext.size() % k != 0) {
        throw Error(ErrorCode::crypto, kDecryptionFailed);
    }
    const auto* bytes = reinterpret_cast<const CryptoPP::byte*>(ciphertext.data());
    // The public checks, all before any private-key work: every block below n.
    for (std::size_t off = 0; off < ciphertext.size(); off += k) {
        if (CryptoPP::Integer(bytes + off, k) >= n) throw Error(ErrorCode::crypto, kDecryptionFailed);
    }
    CryptoPP::FixedSizeSecBlock<CryptoPP::byte, kSha256Bytes> dh;
    {
        CryptoPP::SecByteBlock d(k);
        key.GetPrivateExponent().Encode(d, k);
        CryptoPP::SHA256().CalculateDigest(dh, d, k);
    }
    PlatformRng rng;
    std::string out;
    out.reserve(ciphertext.size());
    for (std::size_t off = 0; off < ciphertext.size(); off += k) {
        decrypt_block_implicit(key, rng, dh, bytes + off, k, out);  // each block its own rejection
    }
    return out;
}

}  // namespace

// ---- PrivateKey ----

PrivateKey::PrivateKey(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
PrivateKey::PrivateKey(PrivateKey&&) noexcept = default;
PrivateKey& PrivateKey::operator=(PrivateKey&&) noexcept = default;
PrivateKey::~PrivateKey() = default;

PrivateKey PrivateKey::parse(std::string_view pem_or_der) {
    Pem pem = unarmour(pem_or_der, true);
    if (is_public_label(pem.label)) public_as_private();
    if (pem.label == "ENCRYPTED PRIVATE KEY") {
        wipe(pem.der);
        invalid_key("encrypted private keys are not supported; decrypt it first (openssl pkey -in KEY -out PLAIN.pem)");
    }
    if (!pem.label.empty() && !is_private_label(pem.label)) {
        invalid_key("PEM block '" + shown_label(pem.label) + "' is not a private key; expected PRIVATE KEY or RSA PRIVATE KEY");
    }
    auto impl = std::make_unique<Impl>();
    try {
        impl->key = pem.label == "RSA PRIVATE KEY" ? parse_rsa_private_key(pem.der) : parse_private_der(pem.der);
    } catch (...) {
        wipe(pem.der);
        throw;
    }
    wipe(pem.der);
    return PrivateKey(std::move(impl));
}

PrivateKey PrivateKey::generate(int bits) {
    if (bits < kMinKeyBits || bits > kMaxKeyBits || bits % 8 != 0) {
        fail_validation("bits", "must be a multiple of 8 from " + std::to_string(kMinKeyBits) + " to " +
                                    std::to_string(kMaxKeyBits) + ", not " + std::to_string(bits));
    }
    PlatformRng rng;
    auto impl = std::make_unique<Impl>();
    impl->key.Initialize(rng, static_cast<unsigned>(bits), CryptoPP::Integer(65537L));
    return PrivateKey(std::move(impl));
}

PublicKey PrivateKey::public_key() const {
    auto impl = std::make_unique<PublicKey::Impl>();
    impl->n = magnitude(impl_->key.GetModulus());
    impl->e = magnitude(impl_->key.GetPublicExponent());
    return PublicKey(std::move(impl));
}

std::string PrivateKey::to_pem() const {
    const auto& k = impl_->key;
    std::string fields = detail::der_unsigned_integer({});  // version 0
    for (const CryptoPP::Integer* v :
         {&k.GetModulus(), &k.GetPublicExponent(), &k.GetPrivateExponent(), &k.GetPrime1(), &k.GetPrime2(),
          &k.GetModPrime1PrivateExponent(), &k.GetModPrime2PrivateExponent(),
          &k.GetMultiplicativeInverseOfPrime2ModPrime1()}) {
        std::string m = magnitude(*v);
        fields += detail::der_unsigned_integer(m);
        wipe(m);
    }
    std::string rsa_private = detail::der_tlv(der::kSequence, fields);
    std::string octets = detail::der_tlv(der::kOctetString, rsa_private);
    std::string body = detail::der_unsigned_integer({}) + detail::der_rsa_algorithm() + octets;
    std::string info = detail::der_tlv(der::kSequence, body);
    std::string pem = to_pem_text("PRIVATE KEY", info);
    for (std::string* s : {&fields, &rsa_private, &octets, &body, &info}) wipe(*s);
    return pem;
}

// ---- Decryption ----

std::string decrypt(const PrivateKey& key, std::string_view base64, Padding padding) {
    std::string ciphertext, why;
    if (!base64_decode_into(base64, false, ciphertext, why)) throw Error(ErrorCode::crypto, kDecryptionFailed);
    try {
        switch (padding) {
            case Padding::oaep_sha1: return decrypt_with<OaepSha1>(detail::KeyAccess::of(key).key, ciphertext);
            case Padding::oaep_sha256: return decrypt_with<OaepSha256>(detail::KeyAccess::of(key).key, ciphertext);
            case Padding::pkcs1v15: return decrypt_pkcs1v15(detail::KeyAccess::of(key).key, ciphertext);
        }
    } catch (const Error&) {
        throw;
    } catch (...) {  // Crypto++ throws for a block >= n, among others: same answer for every failure
    }
    throw Error(ErrorCode::crypto, kDecryptionFailed);
}

std::string decrypt_pkcs1v15_implicit(const PrivateKey& key, std::string_view base64) {
    std::string ciphertext, why;
    if (!base64_decode_into(base64, false, ciphertext, why)) throw Error(ErrorCode::crypto, kDecryptionFailed);
    try {
        return decrypt_pkcs1v15_implicit_raw(detail::KeyAccess::of(key).key, ciphertext);
    } catch (const Error&) {
        throw;
    } catch (...) {  // Crypto++'s check of its own private operation (a fault, not the padding)
    }
    throw Error(ErrorCode::crypto, kDecryptionFailed);
}

// ---- Signatures ----

using SignatureScheme = CryptoPP::RSASS<CryptoPP::PKCS1v15, CryptoPP::SHA256>;

std::string sign_sha256(const PrivateKey& key, std::string_view message) {
    SignatureScheme::Signer signer(detail::KeyAccess::of(key).key);
    std::string sig(signer.MaxSignatureLength(), '\0');
    PlatformRng rng;
    try {
        std::size_t n = signer.SignMessage(rng, reinterpret_cast<const CryptoPP::byte*>(message.data()), message.size(),
                                           reinterpret_cast<CryptoPP::byte*>(sig.data()));
        sig.resize(n);
    } catch (const CryptoPP::Exception& e) {
        throw Error(ErrorCode::crypto, std::string("signing failed: ") + e.what());
    }
    return base64_encode(sig);
}

namespace {
// The verifier of the key this thread verified with last, kept: a server checks every webhook
// against one key, and building the key's Integers and verifier object again each time cost a
// fifth of a verification (callgrind, issue 42). It is rebuilt whenever the key's (n, e) differ,
// so a verification always uses exactly the key it was given.
const SignatureScheme::Verifier& verifier_of(const PublicKey& key) {
    struct Kept {
        std::string n, e;
        std::unique_ptr<SignatureScheme::Verifier> verifier;
    };
    thread_local Kept kept;
    const auto& k = detail::KeyAccess::of(key);
    if (!kept.verifier || kept.n != k.n || kept.e != k.e) {
        CryptoPP::RSA::PublicKey rsa;
        rsa.Initialize(to_integer(k.n), to_integer(k.e));
        kept.verifier = std::make_unique<SignatureScheme::Verifier>(rsa);
        kept.n = k.n;
        kept.e = k.e;
    }
    return *kept.verifier;
}
}  // namespace

bool verify_sha256(const PublicKey& key, std::string_view message, std::string_view signature_base64) {
    std::string sig, why;
    if (!base64_decode_into(signature_base64, false, sig, why)) return false;
    const SignatureScheme::Verifier& verifier = verifier_of(key);
    if (sig.size() != verifier.SignatureLength()) return false;
    try {
        return verifier.VerifyMessage(reinterpret_cast<const CryptoPP::byte*>(message.data()), message.size(),
                                      reinterpret_cast<const CryptoPP::byte*>(sig.data()), sig.size());
    } catch (const CryptoPP::Exception&) {
        return false;
    }
}

}  // namespace paywasm
