// src/core/crypto_encrypt.cpp — encryption: the OAEP and PKCS#1 v1.5 encoders, chunked RSA,
// merchantAuth.
//
// One of the four files of paywasm/crypto.hpp (see crypto_keys.cpp's header comment); it must
// never name CryptoPP::Integer: the widget's wasm links it.
#include "paywasm/crypto.hpp"

#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include <cryptopp/cryptlib.h>

#include "core/bigint_modexp.hpp"
#include "core/crypto_internal.hpp"
#include "core/sha.hpp"
#include "paywasm/codec.hpp"
#include "paywasm/error.hpp"

namespace paywasm {

using detail::DerReader;
using detail::Tlv;
namespace der = detail::der;

namespace keyio {

constexpr std::size_t kMaxPlaintext = 64 * 1024;

// ---- The encryption paddings (RFC 8017), as the widget links them ----
//
// The two encodings are written here, over SHA-1 and SHA-256 (sha.hpp: Crypto++'s compression
// functions, not its HashTransformation classes, whose vtables and RTTI cost the widget 2.8 KB gzip).
// Crypto++'s own OAEP<H>, P1363_MGF1 and PKCS_EncryptionPaddingScheme pad through its
// RandomNumberGenerator, whose vtable links its BufferedTransformation machinery (some 5 KB of code
// in the widget), and OAEP<H>'s vtable and P1363_MGF1's code sit in objects (dll.o, pubkey.o) that
// pull in its Integer. Decryption (crypto_private.cpp) uses Crypto++'s OAEP<H> and PKCS#1 v1.5
// unchanged, so every round-trip test checks these encodings against Crypto++'s decoders, and the
// KAT suite against OpenSSL's.
//
// Both write the encoded message EM of RFC 8017 into a block of (bits(n) - 1) bits, as Crypto++'s
// TF_EncryptorBase does: em_len = floor((bits(n) - 1) / 8) = k - 1 bytes after a leading zero byte
// when the block has a partial top byte (the leading 0x00 of RFC 8017's k-byte EM).

// Random bytes for one encrypt() call: one read of detail::padding_random made up front (in the
// browser each read is a call out to crypto.getRandomValues), then one read per call once that is
// used up. Every byte is handed out once: each block's seed or padding string is its own.
class PrefetchedRandom {
public:
    explicit PrefetchedRandom(std::size_t bytes) : buffer_(bytes) {
        if (bytes > 0) detail::padding_random(buffer_.data(), bytes);
    }
    ~PrefetchedRandom() {
        volatile CryptoPP::byte* p = buffer_.data();
        for (std::size_t i = 0; i < buffer_.size(); ++i) p[i] = 0;
    }
    PrefetchedRandom(const PrefetchedRandom&) = delete;
    PrefetchedRandom& operator=(const PrefetchedRandom&) = delete;

    void fill(CryptoPP::byte* output, std::size_t size) {
        if (size <= buffer_.size() - used_) {
            std::memcpy(output, buffer_.data() + used_, size);
            used_ += size;
        } else {
            detail::padding_random(output, size);
        }
    }

private:
    std::vector<CryptoPP::byte> buffer_;
    std::size_t used_ = 0;
};

// MGF1 (RFC 8017 B.2.1) XORed into `output`: output ^= H(seed || 0) || H(seed || 1) || ..., 32-bit
// big-endian counters, truncated to the output length.
void mgf1_xor(detail::Sha& hash, CryptoPP::byte* output, std::size_t output_length, const CryptoPP::byte* seed,
              std::size_t seed_length) {
    CryptoPP::byte block[detail::Sha::kMaxDigest];
    const std::size_t digest = hash.digest_size();
    for (std::uint32_t counter = 0; output_length > 0; ++counter) {
        const CryptoPP::byte c[4] = {static_cast<CryptoPP::byte>(counter >> 24),
                                     static_cast<CryptoPP::byte>(counter >> 16),
                                     static_cast<CryptoPP::byte>(counter >> 8), static_cast<CryptoPP::byte>(counter)};
        hash.update(seed, seed_length);
        hash.update(c, sizeof c);
        hash.final(block);
        const std::size_t n = output_length < digest ? output_length : digest;
        for (std::size_t j = 0; j < n; ++j) output[j] ^= block[j];
        output += n;
        output_length -= n;
    }
}

// EME-OAEP (RFC 8017 7.1.1 step 2) with hash H, MGF1-H and the empty label: em = maskedSeed ||
// maskedDB, DB = lHash || PS (zeros) || 0x01 || M. Needs m_len <= em_len - 2 hLen - 1.
template <detail::ShaKind H>
void oaep_encode(const CryptoPP::byte* m, std::size_t m_len, CryptoPP::byte* em, std::size_t em_len,
                 PrefetchedRandom& random) {
    detail::Sha hash(H);
    const std::size_t h_len = hash.digest_size();
    CryptoPP::byte* const seed = em;
    CryptoPP::byte* const db = em + h_len;
    const std::size_t db_len = em_len - h_len;
    hash.final(db);  // lHash = H(L), L empty
    std::memset(db + h_len, 0, db_len - h_len - m_len - 1);
    db[db_len - m_len - 1] = 0x01;
    std::memcpy(db + db_len - m_len, m, m_len);
    random.fill(seed, h_len);
    mgf1_xor(hash, db, db_len, seed, h_len);  // maskedDB = DB ^ MGF1(seed)
    mgf1_xor(hash, seed, h_len, db, db_len);  // maskedSeed = seed ^ MGF1(maskedDB)
}

// EME-PKCS1-v1_5 (RFC 8017 7.2.1 step 2) after its leading 0x00: em = 0x02 || PS || 0x00 || M, PS
// em_len - m_len - 2 (>= 8) random non-zero bytes. Needs m_len <= em_len - 10.
void pkcs1v15_encode(const CryptoPP::byte* m, std::size_t m_len, CryptoPP::byte* em, std::size_t em_len,
                     PrefetchedRandom& random) {
    em[0] = 0x02;
    const std::size_t ps_end = em_len - m_len - 1;
    for (std::size_t i = 1; i < ps_end; ++i) {
        do random.fill(em + i, 1);  // a zero byte is drawn again: uniform over 1..255
        while (em[i] == 0);
    }
    em[ps_end] = 0x00;
    std::memcpy(em + ps_end + 1, m, m_len);
}

// The last modulus prepared for Montgomery multiplication. Computing R^2 mod n costs about a
// quarter of a 2048-bit block, and callers encrypt with one key over and over (the widget parses
// the PEM again on every call, so a per-key cache would not survive). Public data only. One per
// thread (no lock; a mutex also cost the wasm 6 KB gzip); valid until this thread's next call.
// An Emscripten build without pthreads has one thread: there a plain static is the same cache, and
// its destructor goes to atexit (a no-op in the widget, which never exits) instead of libc++abi's
// thread-exit list, which the module then does not link (-99 B gzip).
#if defined(__EMSCRIPTEN__) && !defined(__EMSCRIPTEN_PTHREADS__)
#define PAYWASM_PER_THREAD static
#else
#define PAYWASM_PER_THREAD thread_local
#endif
const detail::MontgomeryModulus& prepared_modulus(const std::string& n) {
    PAYWASM_PER_THREAD std::string last_n;
    PAYWASM_PER_THREAD std::unique_ptr<const detail::MontgomeryModulus> last;
    if (!last || last_n != n) {
        last.reset();
        last = std::make_unique<const detail::MontgomeryModulus>(n);
        last_n = n;
    }
    return *last;
}
#undef PAYWASM_PER_THREAD

// What Crypto++'s TF_EncryptorBase::Encrypt does, without its key objects or its Integer: pad each
// piece to (bits(n) - 1) bits, c = m^e mod n (Montgomery, bigint_modexp.cpp; all blocks in one
// power_each call, two at a time), write c as exactly k bytes. `Encode`: oaep_encode<H> or
// pkcs1v15_encode; `overhead`: the bytes it adds to a message (2 hLen + 1, or 10);
// `random_per_block`: the random bytes read up front per block, for all blocks in one read (OAEP:
// its seed; PKCS#1 v1.5: k, more than its padding string, with room for the redraws of zero bytes).
template <void (*Encode)(const CryptoPP::byte*, std::size_t, CryptoPP::byte*, std::size_t, PrefetchedRandom&)>
std::string encrypt_with(const detail::KeyAccess::PublicImpl& key, std::string_view plaintext, std::size_t piece,
                         std::size_t overhead, std::size_t random_per_block) {
    const std::size_t padded_bits = detail::bit_length(key.n) - 1;
    const std::size_t em_len = padded_bits / 8;
    const std::size_t k = key.n.size();
    if (piece == 0 || em_len < overhead || piece > em_len - overhead) {
        throw Error(ErrorCode::crypto, "key too small for this padding");
    }
    const std::size_t blocks = (plaintext.size() + piece - 1) / piece;
    const std::size_t padded_size = (padded_bits + 7) / 8;  // em_len, or em_len + 1 with a leading 0x00
    std::string padded(blocks * padded_size, '\0');
    const detail::MontgomeryModulus& mod_n = prepared_modulus(key.n);
    PrefetchedRandom random(blocks * random_per_block);
    std::vector<std::string_view> bases(blocks);
    for (std::size_t i = 0; i < blocks; ++i) {
        std::string_view part = plaintext.substr(i * piece, piece);
        auto* at = reinterpret_cast<CryptoPP::byte*>(padded.data() + i * padded_size);
        Encode(reinterpret_cast<const CryptoPP::byte*>(part.data()), part.size(), at + (padded_size - em_len),
               em_len, random);
        bases[i] = std::string_view(padded).substr(i * padded_size, padded_size);
    }
    const std::string out = mod_n.power_each(bases.data(), blocks, key.e, k);
    wipe(padded);
    return base64_encode(out);
}

}  // namespace keyio

using namespace keyio;

// ---- Encryption ----

std::size_t max_piece(const PublicKey& key, Padding padding) {
    const std::size_t k = key.modulus_bytes();
    switch (padding) {
        case Padding::oaep_sha1: return k - 2 * 20 - 2;
        case Padding::oaep_sha256: return k - 2 * 32 - 2;
        case Padding::pkcs1v15: return k - 11;
    }
    return 0;
}

std::string encrypt(const PublicKey& key, std::string_view plaintext, Padding padding) {
    if (plaintext.empty()) fail_validation("plaintext", "must not be empty");
    if (plaintext.size() > kMaxPlaintext) {
        fail_validation("plaintext", "is " + std::to_string(plaintext.size()) + " bytes; at most " +
                                         std::to_string(kMaxPlaintext) + " (64 KiB) can be encrypted");
    }
    const std::size_t piece = max_piece(key, padding);
    switch (padding) {
        case Padding::oaep_sha1:
            return encrypt_with<oaep_encode<detail::ShaKind::sha1>>(detail::KeyAccess::of(key), plaintext, piece, 2 * 20 + 1, 20);
        case Padding::oaep_sha256:
            return encrypt_with<oaep_encode<detail::ShaKind::sha256>>(detail::KeyAccess::of(key), plaintext, piece, 2 * 32 + 1, 32);
        case Padding::pkcs1v15:
            return encrypt_with<pkcs1v15_encode>(detail::KeyAccess::of(key), plaintext, piece, 10, key.modulus_bytes());
    }
    throw Error(ErrorCode::crypto, "encryption failed: unknown padding");
}

std::string merchant_auth(const PublicKey& key, std::string_view merchant_id, Padding padding) {
    if (merchant_id.empty()) fail_validation("merchantId", "must not be empty");
    return encrypt(key, "{\"merchantId\":" + json_quote(merchant_id) + "}", padding);
}

}  // namespace paywasm
