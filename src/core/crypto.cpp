// src/core/crypto.cpp — public keys, chunked RSA encryption, base64, SHA-256 (Crypto++ inside).
// Key parsing is done by hand (crypto_der.hpp) so every refusal can say exactly why. Public keys are
// plain (n, e) byte strings and encryption's m^e mod n is bigint_modexp.cpp's Montgomery loop; the
// paddings are ours (RFC 8017) over sha.hpp's SHA-1 and SHA-256 (Crypto++'s compression functions).
// Everything that needs Crypto++'s Integer (private keys, decryption, signatures) is in
// crypto_private.cpp, a separate object the widget's wasm never links: a reference to Integer from
// this file would pull in Crypto++'s integer.o, whose static initializers keep its ~80 KB of
// multiplication code alive. No iostreams, no Crypto++ filters.
#include "paywasm/crypto.hpp"

#include <unistd.h>  // getentropy (glibc; Emscripten maps it to crypto.getRandomValues / Node crypto)

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include <cryptopp/cryptlib.h>
#include <cryptopp/hmac.h>
#include <cryptopp/misc.h>
#include <cryptopp/sha.h>

#include "core/bigint_modexp.hpp"
#include "core/crypto_der.hpp"
#include "core/crypto_internal.hpp"
#include "core/sha.hpp"
#include "paywasm/codec.hpp"
#include "paywasm/error.hpp"
#include "paywasm/text.hpp"

namespace paywasm {

using detail::DerReader;
using detail::Tlv;
namespace der = detail::der;

// Shared with crypto_private.cpp (declared in crypto_internal.hpp).
namespace keyio {

constexpr std::size_t kMaxPlaintext = 64 * 1024;

void wipe(std::string& s) {
    volatile char* p = s.data();
    for (std::size_t i = 0; i < s.size(); ++i) p[i] = 0;
    s.clear();
}

[[noreturn]] void invalid_key(const std::string& message) { throw Error(ErrorCode::invalid_key, message); }

// ---- Base64 ----

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

int base64_value(char c) {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
}

// Strict decoding; `skip_blanks` also ignores spaces and tabs (PEM bodies), not only line breaks.
// Returns false with `why` set instead of throwing so callers choose the error.
bool base64_decode_into(std::string_view text, bool skip_blanks, std::string& out, std::string& why) {
    out.clear();
    out.reserve(text.size() / 4 * 3);
    unsigned acc = 0;
    int quad = 0, pads = 0;
    std::size_t pos = 0;
    for (char c : text) {
        ++pos;
        if (c == '\n' || c == '\r' || (skip_blanks && (c == ' ' || c == '\t'))) continue;
        if (c == '=') {
            if (quad < 2) { why = "'=' at position " + std::to_string(pos) + " is not where padding can be"; return false; }
            ++pads;
            ++quad;
            if (quad == 4) quad = 0;
            continue;
        }
        int v = base64_value(c);
        if (v < 0) {
            unsigned char uc = static_cast<unsigned char>(c);
            why = (uc >= 0x21 && uc < 0x7f ? std::string("character '") + c + "'" : "byte " + std::to_string(uc)) +
                  " at position " + std::to_string(pos) + " is not in the standard base64 alphabet";
            return false;
        }
        if (pads > 0) { why = "data after '=' padding at position " + std::to_string(pos); return false; }
        acc = (acc << 6) | static_cast<unsigned>(v);
        if (++quad == 4) {
            out += static_cast<char>((acc >> 16) & 0xff);
            out += static_cast<char>((acc >> 8) & 0xff);
            out += static_cast<char>(acc & 0xff);
            acc = 0;
            quad = 0;
        }
    }
    if (quad != 0) { why = "length is not a multiple of 4 ('=' padding is required)"; return false; }
    if (pads == 1) {
        if (acc & 0x3u) { why = "non-zero bits in the last character before '='"; return false; }
        out += static_cast<char>((acc >> 10) & 0xff);
        out += static_cast<char>((acc >> 2) & 0xff);
    } else if (pads == 2) {
        if (acc & 0xfu) { why = "non-zero bits in the last character before '=='"; return false; }
        out += static_cast<char>((acc >> 4) & 0xff);
    } else if (pads > 2) {
        why = "too much '=' padding";
        return false;
    }
    return true;
}

// ---- PEM ----

std::string_view trim(std::string_view s) {
    auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
    while (!s.empty() && blank(s.front())) s.remove_prefix(1);
    while (!s.empty() && blank(s.back())) s.remove_suffix(1);
    return s;
}

constexpr std::string_view kBegin = "-----BEGIN ";

// `text` is already trimmed and starts with kBegin.
Pem parse_pem(std::string_view text) {
    std::string_view rest = text.substr(kBegin.size());
    auto close = rest.find("-----");
    auto eol = rest.find('\n');
    if (close == std::string_view::npos || (eol != std::string_view::npos && eol < close)) {
        invalid_key("not a key: the -----BEGIN line is malformed");
    }
    Pem pem;
    pem.label = std::string(rest.substr(0, close));
    rest.remove_prefix(close + 5);
    std::string end_marker = "-----END " + pem.label + "-----";
    auto end = rest.find(end_marker);
    if (end == std::string_view::npos) invalid_key("truncated PEM: no -----END " + shown_label(pem.label) + "----- line");
    std::string_view body = rest.substr(0, end);
    if (body.find(':') != std::string_view::npos) {
        invalid_key("PEM headers (Proc-Type, DEK-Info: an encrypted key?) are not supported");
    }
    if (!trim(rest.substr(end + end_marker.size())).empty()) {
        invalid_key("trailing data after the PEM block (one key per input)");
    }
    std::string why;
    if (!base64_decode_into(body, true, pem.der, why)) invalid_key("PEM body is not valid base64: " + why);
    if (pem.der.empty()) invalid_key("PEM block is empty");
    return pem;
}

std::string shown_label(std::string_view label) { return escape_untrusted(label, 40); }

std::string to_pem_text(std::string_view label, std::string_view der) {
    std::string b64 = base64_encode(der);
    std::string out = "-----BEGIN " + std::string(label) + "-----\n";
    for (std::size_t i = 0; i < b64.size(); i += 64) {
        out.append(b64, i, 64);
        out += '\n';
    }
    out += "-----END " + std::string(label) + "-----\n";
    wipe(b64);
    return out;
}

bool is_private_label(std::string_view label) {
    return label == "PRIVATE KEY" || label == "RSA PRIVATE KEY" || label == "ENCRYPTED PRIVATE KEY";
}
bool is_public_label(std::string_view label) { return label == "PUBLIC KEY" || label == "RSA PUBLIC KEY"; }

// ---- Integers and the checks every key passes ----

// A non-negative DER INTEGER as a big-endian magnitude without leading zero bytes ("" for 0).
std::string read_unsigned(DerReader& r, const char* what) {
    Tlv t = r.expect(der::kInteger, what);
    if (t.content.empty()) DerReader::fail(std::string("not a key: ") + what + " is an empty INTEGER");
    if (static_cast<unsigned char>(t.content[0]) & 0x80) invalid_key(std::string(what) + " is negative");
    std::string_view m = t.content;
    while (!m.empty() && m.front() == '\0') m.remove_prefix(1);
    return std::string(m);
}

bool is_even(std::string_view m) { return m.empty() || (static_cast<unsigned char>(m.back()) & 1) == 0; }

std::string describe(std::string_view m) {
    const std::size_t bits = detail::bit_length(m);
    if (bits <= 63) {
        unsigned long long v = 0;
        for (char c : m) v = (v << 8) | static_cast<unsigned char>(c);
        return std::to_string(v);
    }
    return "a " + std::to_string(bits) + "-bit number";
}

void check_numbers(std::string_view n, std::string_view e) {
    if (is_even(n)) invalid_key("modulus is even: not an RSA key");
    int bits = static_cast<int>(detail::bit_length(n));
    if (bits < kMinKeyBits) {
        invalid_key("key has " + std::to_string(bits) + " bits; at least " + std::to_string(kMinKeyBits) +
                    " are required (make a new one: paywasm keygen --bits 2048)");
    }
    if (bits > kMaxKeyBits) {
        invalid_key("key has " + std::to_string(bits) + " bits; at most " + std::to_string(kMaxKeyBits) +
                    " are supported");
    }
    if (detail::compare_magnitudes(e, std::string_view("\x01", 1)) == 0) {
        invalid_key("public exponent e = 1 is refused: with e = 1 RSA leaves the message unencrypted");
    }
    if (is_even(e)) invalid_key("public exponent e = " + describe(e) + " is even: not a valid RSA exponent");
    if (detail::compare_magnitudes(e, std::string_view("\x01\x00\x01", 3)) < 0) {
        invalid_key("public exponent e = " + describe(e) +
                    " is below 65537: small exponents are a known hazard with weak paddings");
    }
    // e above 2^32 (an odd e, so 2^32 itself is refused as even): the widget's public operation costs
    // one squaring per exponent bit, and a hostile key with a modulus-sized e would hold the page
    // for seconds. Real keys use 65537.
    if (detail::compare_magnitudes(e, std::string_view("\x01\x00\x00\x00\x00", 5)) > 0) {
        invalid_key("public exponent e = " + describe(e) +
                    " is above 2^32: such exponents only slow encryption down (use e = 65537)");
    }
    if (detail::compare_magnitudes(e, n) >= 0) invalid_key("public exponent is not smaller than the modulus");
}

std::string rsa_public_key_der(std::string_view n, std::string_view e) {
    return detail::der_tlv(der::kSequence, detail::der_unsigned_integer(n) + detail::der_unsigned_integer(e));
}

std::string spki_der_of(std::string_view n, std::string_view e) {
    std::string bits(1, '\0');  // no unused bits
    bits += rsa_public_key_der(n, e);
    return detail::der_tlv(der::kSequence, detail::der_rsa_algorithm() + detail::der_tlv(der::kBitString, bits));
}

// AlgorithmIdentifier must be rsaEncryption with NULL (or absent) parameters.
void check_rsa_algorithm(std::string_view algorithm_content) {
    DerReader alg(algorithm_content);
    Tlv oid = alg.expect(der::kOid, "the algorithm identifier");
    if (oid.content != der::kRsaEncryptionOid) {
        if (oid.content == std::string_view("\x2a\x86\x48\xce\x3d\x02\x01", 7)) invalid_key("this is an EC key; an RSA key is required");
        if (oid.content == std::string_view("\x2b\x65\x70", 3)) invalid_key("this is an Ed25519 key; an RSA key is required");
        if (oid.content == std::string_view("\x2a\x86\x48\x86\xf7\x0d\x01\x01\x0a", 9)) {
            invalid_key("this is an RSA-PSS (signature-only) key; an rsaEncryption key is required");
        }
        invalid_key("not an RSA key: the algorithm is not rsaEncryption");
    }
    if (!alg.empty()) {
        Tlv params = alg.read("the algorithm parameters");
        if (params.tag != der::kNull || !params.content.empty() || !alg.empty()) {
            invalid_key("not a key: rsaEncryption parameters must be NULL");
        }
    }
}

struct PublicNumbers {
    std::string n, e;
};

PublicNumbers parse_rsa_public_key(std::string_view der_bytes) {
    DerReader outer(der_bytes);
    Tlv seq = outer.expect(der::kSequence, "RSAPublicKey");
    if (!outer.empty()) invalid_key("trailing data after RSAPublicKey");
    DerReader r(seq.content);
    PublicNumbers out;
    out.n = read_unsigned(r, "the modulus");
    out.e = read_unsigned(r, "the public exponent");
    if (!r.empty()) invalid_key("not a key: RSAPublicKey has extra fields");
    return out;
}

[[noreturn]] void private_as_public() { invalid_key("this is a private key; pass the public key"); }
[[noreturn]] void public_as_private() { invalid_key("this is a public key; pass the private key"); }

// DER of either public form; refuses the private forms by shape.
PublicNumbers parse_public_der(std::string_view bytes, bool& spki) {
    DerReader top(bytes);
    Tlv outer = top.expect(der::kSequence, "the key");
    if (!top.empty()) invalid_key("trailing data: " + std::to_string(top.remaining()) + " bytes after the DER key");
    DerReader r(outer.content);
    if (r.peek_tag() == der::kSequence) {  // SubjectPublicKeyInfo (or an encrypted PKCS#8 key)
        Tlv alg = r.read("the algorithm identifier");
        Tlv body = r.read("the key bits");
        if (body.tag == der::kOctetString) private_as_public();
        if (body.tag != der::kBitString) invalid_key("not a key: SubjectPublicKeyInfo has no BIT STRING");
        if (!r.empty()) invalid_key("not a key: SubjectPublicKeyInfo has extra fields");
        check_rsa_algorithm(alg.content);
        if (body.content.empty() || body.content[0] != '\0') invalid_key("not a key: malformed BIT STRING");
        spki = true;
        return parse_rsa_public_key(body.content.substr(1));
    }
    if (r.peek_tag() == der::kInteger) {  // RSAPublicKey, or a private key's version field
        DerReader probe(outer.content);
        probe.read("the first field");
        if (probe.peek_tag() == der::kSequence) private_as_public();  // PKCS#8: version, algorithm, ...
        probe.read("the second field");
        if (!probe.empty()) private_as_public();  // PKCS#1 RSAPrivateKey: version, n, e, d, ...
        return parse_rsa_public_key(bytes);
    }
    invalid_key("not a key: the DER is not an RSA public key");
}

[[noreturn]] void not_a_key(std::string_view text, bool want_private) {
    std::string hint = text.substr(0, 3) == "MII" ? " (base64 without the PEM armour? add the -----BEGIN line)" : "";
    invalid_key(std::string("not a key: expected a PEM block (-----BEGIN ") +
                (want_private ? "PRIVATE KEY" : "PUBLIC KEY") + "-----) or DER bytes" + hint);
}

// Splits input into DER bytes with the PEM label ("" for raw DER). Refuses what is neither.
Pem unarmour(std::string_view input, bool want_private) {
    if (input.empty()) invalid_key("empty key");
    if (static_cast<unsigned char>(input[0]) == der::kSequence) return Pem{"", std::string(input)};
    std::string_view text = trim(input);
    if (text.substr(0, kBegin.size()) == kBegin) return parse_pem(text);
    if (text.find(kBegin) != std::string_view::npos) invalid_key("unexpected text before the -----BEGIN line");
    not_a_key(text, want_private);
}

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
std::string encrypt_with(const PublicKey::Impl& key, std::string_view plaintext, std::size_t piece,
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

// ---- Padding names ----

Padding parse_padding(std::string_view name) {
    if (name == "oaep-sha1") return Padding::oaep_sha1;
    if (name == "oaep-sha256") return Padding::oaep_sha256;
    if (name == "pkcs1v15") return Padding::pkcs1v15;
    fail_validation("padding", "must be oaep-sha1, oaep-sha256 or pkcs1v15 (legacy), not '" + std::string(name) + "'");
}

std::string_view to_string(Padding p) {
    switch (p) {
        case Padding::oaep_sha1: return "oaep-sha1";
        case Padding::oaep_sha256: return "oaep-sha256";
        case Padding::pkcs1v15: return "pkcs1v15";
    }
    return "oaep-sha1";
}

// ---- PublicKey ----

PublicKey::PublicKey(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
PublicKey::PublicKey(PublicKey&&) noexcept = default;
PublicKey& PublicKey::operator=(PublicKey&&) noexcept = default;
PublicKey::~PublicKey() = default;

PublicKey PublicKey::parse(std::string_view pem_or_der) {
    Pem pem = unarmour(pem_or_der, false);
    if (is_private_label(pem.label)) private_as_public();
    if (!pem.label.empty() && !is_public_label(pem.label)) {
        invalid_key("PEM block '" + shown_label(pem.label) + "' is not a public key; expected PUBLIC KEY or RSA PUBLIC KEY");
    }
    PublicNumbers nums;
    if (pem.label == "RSA PUBLIC KEY") {
        nums = parse_rsa_public_key(pem.der);
    } else {
        bool spki = false;
        nums = parse_public_der(pem.der, spki);
        if (pem.label == "PUBLIC KEY" && !spki) invalid_key("PEM 'PUBLIC KEY' holds a PKCS#1 key; label it RSA PUBLIC KEY");
    }
    check_numbers(nums.n, nums.e);
    auto impl = std::make_unique<Impl>();
    impl->n = nums.n;
    impl->e = nums.e;
    return PublicKey(std::move(impl));
}

int PublicKey::bits() const { return static_cast<int>(detail::bit_length(impl_->n)); }
std::size_t PublicKey::modulus_bytes() const { return impl_->n.size(); }
std::string PublicKey::spki_der() const { return spki_der_of(impl_->n, impl_->e); }
std::string PublicKey::to_pem() const { return to_pem_text("PUBLIC KEY", spki_der()); }
std::string PublicKey::fingerprint() const { return sha256_hex(spki_der()); }

bool PublicKey::matches_fingerprint(std::string_view pin) const {
    std::string want;
    want.reserve(pin.size());
    for (char c : pin) {
        if (c == ':') continue;
        want += (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
    }
    return want == fingerprint();
}

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
            return encrypt_with<oaep_encode<detail::ShaKind::sha1>>(key.impl(), plaintext, piece, 2 * 20 + 1, 20);
        case Padding::oaep_sha256:
            return encrypt_with<oaep_encode<detail::ShaKind::sha256>>(key.impl(), plaintext, piece, 2 * 32 + 1, 32);
        case Padding::pkcs1v15:
            return encrypt_with<pkcs1v15_encode>(key.impl(), plaintext, piece, 10, key.modulus_bytes());
    }
    throw Error(ErrorCode::crypto, "encryption failed: unknown padding");
}

std::string merchant_auth(const PublicKey& key, std::string_view merchant_id, Padding padding) {
    if (merchant_id.empty()) fail_validation("merchantId", "must not be empty");
    return encrypt(key, "{\"merchantId\":" + json_quote(merchant_id) + "}", padding);
}

// ---- Hashing, base64, randomness ----

namespace {
std::string to_hex(const CryptoPP::byte* bytes, std::size_t n) {
    static const char hex[] = "0123456789abcdef";
    std::string out;
    out.reserve(2 * n);
    for (std::size_t i = 0; i < n; ++i) {
        out += hex[bytes[i] >> 4];
        out += hex[bytes[i] & 0xf];
    }
    return out;
}
}  // namespace

bool constant_time_equal(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    if (a.empty()) return true;
    return CryptoPP::VerifyBufsEqual(reinterpret_cast<const CryptoPP::byte*>(a.data()),
                                     reinterpret_cast<const CryptoPP::byte*>(b.data()), a.size());
}

std::string hmac_sha256_hex(std::string_view key, std::string_view message) {
    CryptoPP::HMAC<CryptoPP::SHA256> mac(reinterpret_cast<const CryptoPP::byte*>(key.data()), key.size());
    CryptoPP::byte digest[CryptoPP::SHA256::DIGESTSIZE];
    mac.CalculateDigest(digest, reinterpret_cast<const CryptoPP::byte*>(message.data()), message.size());
    return to_hex(digest, sizeof digest);
}

std::string sha256_hex(std::string_view bytes) {
    detail::Sha hash(detail::ShaKind::sha256);
    CryptoPP::byte digest[32];
    hash.update(reinterpret_cast<const CryptoPP::byte*>(bytes.data()), bytes.size());
    hash.final(digest);
    return to_hex(digest, sizeof digest);
}

std::string base64_encode(std::string_view bytes) {
    std::string out;
    out.reserve((bytes.size() + 2) / 3 * 4);
    std::size_t i = 0;
    auto at = [&](std::size_t j) { return static_cast<unsigned>(static_cast<unsigned char>(bytes[j])); };
    for (; i + 3 <= bytes.size(); i += 3) {
        unsigned v = (at(i) << 16) | (at(i + 1) << 8) | at(i + 2);
        out += kAlphabet[(v >> 18) & 63];
        out += kAlphabet[(v >> 12) & 63];
        out += kAlphabet[(v >> 6) & 63];
        out += kAlphabet[v & 63];
    }
    if (bytes.size() - i == 1) {
        unsigned v = at(i) << 16;
        out += kAlphabet[(v >> 18) & 63];
        out += kAlphabet[(v >> 12) & 63];
        out += "==";
    } else if (bytes.size() - i == 2) {
        unsigned v = (at(i) << 16) | (at(i + 1) << 8);
        out += kAlphabet[(v >> 18) & 63];
        out += kAlphabet[(v >> 12) & 63];
        out += kAlphabet[(v >> 6) & 63];
        out += '=';
    }
    return out;
}

std::string base64_decode(std::string_view text) {
    std::string out, why;
    if (!base64_decode_into(text, false, out, why)) fail_validation("base64", why);
    return out;
}

void random_bytes(unsigned char* out, std::size_t n) {
    while (n > 0) {
        std::size_t chunk = n < 256 ? n : 256;  // getentropy's per-call limit
        if (::getentropy(out, chunk) != 0) {
            // The errno number, not strerror's text: libc's message table would cost the widget's
            // module 1.2 KB gzip for an error its loader never causes.
            throw Error(ErrorCode::crypto, "no platform random source: getentropy failed with errno " +
                                               std::to_string(errno));
        }
        out += chunk;
        n -= chunk;
    }
}

}  // namespace paywasm
