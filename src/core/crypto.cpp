// src/core/crypto.cpp — RSA keys, chunked RSA encryption, signatures, base64 (Crypto++ inside).
// Key parsing is done by hand (crypto_der.hpp) so every refusal can say exactly why; Crypto++ does
// the arithmetic and the paddings. No iostreams, no Crypto++ filters: the wasm build is size-bound.
#include "paywasm/crypto.hpp"

#include <unistd.h>  // getentropy (glibc; Emscripten maps it to crypto.getRandomValues / Node crypto)

#include <cerrno>
#include <cstring>
#include <vector>

#include <cryptopp/cryptlib.h>
#include <cryptopp/integer.h>
#include <cryptopp/modarith.h>
#include <cryptopp/oaep.h>
#include <cryptopp/pkcspad.h>
#include <cryptopp/rsa.h>
#include <cryptopp/sha.h>

#include "core/crypto_der.hpp"
#include "paywasm/error.hpp"

namespace paywasm {

using detail::DerReader;
using detail::Tlv;
namespace der = detail::der;

// A public key is just (n, e): encryption pads with Crypto++'s padding classes and exponentiates
// directly, so the wasm module carries none of Crypto++'s key-object, ASN.1 and filter machinery.
struct PublicKey::Impl {
    CryptoPP::Integer n, e;
};
struct PrivateKey::Impl {
    CryptoPP::RSA::PrivateKey key;
};

namespace {

constexpr std::size_t kMaxPlaintext = 64 * 1024;
constexpr char kDecryptionFailed[] = "decryption failed";

// Crypto++'s view of the platform CSPRNG. No state, no seed: every byte comes from getentropy().
class PlatformRng final : public CryptoPP::RandomNumberGenerator {
public:
    void GenerateBlock(CryptoPP::byte* output, std::size_t size) override { random_bytes(output, size); }
};

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

struct Pem {
    std::string label;
    std::string der;
};

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
    if (end == std::string_view::npos) invalid_key("truncated PEM: no " + end_marker + " line");
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

CryptoPP::Integer read_unsigned(DerReader& r, const char* what) {
    Tlv t = r.expect(der::kInteger, what);
    if (t.content.empty()) DerReader::fail(std::string("not a key: ") + what + " is an empty INTEGER");
    if (static_cast<unsigned char>(t.content[0]) & 0x80) invalid_key(std::string(what) + " is negative");
    return CryptoPP::Integer(reinterpret_cast<const CryptoPP::byte*>(t.content.data()), t.content.size());
}

std::string magnitude(const CryptoPP::Integer& v) {
    std::string out(v.MinEncodedSize(), '\0');
    v.Encode(reinterpret_cast<CryptoPP::byte*>(out.data()), out.size());
    return out;
}

std::string describe(const CryptoPP::Integer& v) {
    if (v.BitCount() <= 63) return std::to_string(static_cast<long long>(v.ConvertToLong()));
    return "a " + std::to_string(v.BitCount()) + "-bit number";
}

void check_numbers(const CryptoPP::Integer& n, const CryptoPP::Integer& e) {
    if (n.IsEven()) invalid_key("modulus is even: not an RSA key");
    int bits = static_cast<int>(n.BitCount());
    if (bits < kMinKeyBits) {
        invalid_key("key has " + std::to_string(bits) + " bits; at least " + std::to_string(kMinKeyBits) +
                    " are required (make a new one: paywasm keygen --bits 2048)");
    }
    if (bits > kMaxKeyBits) {
        invalid_key("key has " + std::to_string(bits) + " bits; at most " + std::to_string(kMaxKeyBits) +
                    " are supported");
    }
    if (e == CryptoPP::Integer::One()) {
        invalid_key("public exponent e = 1 is refused: with e = 1 RSA leaves the message unencrypted");
    }
    if (e.IsEven()) invalid_key("public exponent e = " + describe(e) + " is even: not a valid RSA exponent");
    if (e < CryptoPP::Integer(65537L)) {
        invalid_key("public exponent e = " + describe(e) +
                    " is below 65537: small exponents are a known hazard with weak paddings");
    }
    if (e >= n) invalid_key("public exponent is not smaller than the modulus");
}

std::string rsa_public_key_der(const CryptoPP::Integer& n, const CryptoPP::Integer& e) {
    return detail::der_tlv(der::kSequence,
                           detail::der_unsigned_integer(magnitude(n)) + detail::der_unsigned_integer(magnitude(e)));
}

std::string spki_der_of(const CryptoPP::Integer& n, const CryptoPP::Integer& e) {
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
    CryptoPP::Integer n, e;
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
    CryptoPP::Integer version = read_unsigned(r, "the version");
    if (version == CryptoPP::Integer::One()) invalid_key("multi-prime RSA keys are not supported");
    if (version != CryptoPP::Integer::Zero() || fields != 9) invalid_key("not a key: not an RSAPrivateKey");
    CryptoPP::Integer n = read_unsigned(r, "the modulus");
    CryptoPP::Integer e = read_unsigned(r, "the public exponent");
    CryptoPP::Integer d = read_unsigned(r, "the private exponent");
    CryptoPP::Integer p = read_unsigned(r, "the first prime");
    CryptoPP::Integer q = read_unsigned(r, "the second prime");
    CryptoPP::Integer dp = read_unsigned(r, "the first CRT exponent");
    CryptoPP::Integer dq = read_unsigned(r, "the second CRT exponent");
    CryptoPP::Integer u = read_unsigned(r, "the CRT coefficient");
    check_numbers(n, e);
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

// What Crypto++'s TF_EncryptorBase::Encrypt does, without its key objects: pad each piece to
// (bits(n) - 1) bits, c = m^e mod n, write c as exactly k bytes.
template <class Standard>
std::string encrypt_with(const PublicKey::Impl& key, std::string_view plaintext, std::size_t piece) {
    const typename Standard::EncryptionMessageEncodingMethod encoding;
    const std::size_t padded_bits = key.n.BitCount() - 1;
    const std::size_t k = key.n.ByteCount();
    if (piece == 0 || piece > encoding.MaxUnpaddedLength(padded_bits)) {
        throw Error(ErrorCode::crypto, "key too small for this padding");
    }
    const std::size_t blocks = (plaintext.size() + piece - 1) / piece;
    std::string out(blocks * k, '\0');
    std::vector<CryptoPP::byte> padded((padded_bits + 7) / 8);
    const CryptoPP::ModularArithmetic mod_n(key.n);
    PlatformRng rng;
    for (std::size_t i = 0; i < blocks; ++i) {
        std::string_view part = plaintext.substr(i * piece, piece);
        encoding.Pad(rng, reinterpret_cast<const CryptoPP::byte*>(part.data()), part.size(), padded.data(), padded_bits,
                     CryptoPP::g_nullNameValuePairs);
        CryptoPP::Integer m(padded.data(), padded.size());
        mod_n.Exponentiate(m, key.e).Encode(reinterpret_cast<CryptoPP::byte*>(out.data()) + i * k, k);
    }
    return base64_encode(out);
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

using OaepSha1 = CryptoPP::OAEP<CryptoPP::SHA1>;
// Crypto++'s OAEP<H> uses MGF1 with the same H: OAEP-SHA-256 with MGF1-SHA-256, as OpenSSL's
// rsa_oaep_md:sha256 + rsa_mgf1_md:sha256 and WebCrypto's RSA-OAEP/SHA-256 (checked by the KAT).
using OaepSha256 = CryptoPP::OAEP<CryptoPP::SHA256>;
using Pkcs1v15 = CryptoPP::PKCS1v15;

std::string json_string(std::string_view s) {
    static const char hex[] = "0123456789abcdef";
    std::string out = "\"";
    for (char c : s) {
        auto uc = static_cast<unsigned char>(c);
        switch (c) {
            case '"': out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            case '\b': out += "\\b"; break;
            case '\f': out += "\\f"; break;
            case '\n': out += "\\n"; break;
            case '\r': out += "\\r"; break;
            case '\t': out += "\\t"; break;
            default:
                if (uc < 0x20) {
                    out += "\\u00";
                    out += hex[uc >> 4];
                    out += hex[uc & 0xf];
                } else {
                    out += c;
                }
        }
    }
    out += '"';
    return out;
}

}  // namespace

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
        invalid_key("PEM block '" + pem.label + "' is not a public key; expected PUBLIC KEY or RSA PUBLIC KEY");
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

int PublicKey::bits() const { return static_cast<int>(impl_->n.BitCount()); }
std::size_t PublicKey::modulus_bytes() const { return impl_->n.ByteCount(); }
std::string PublicKey::spki_der() const { return spki_der_of(impl_->n, impl_->e); }
std::string PublicKey::to_pem() const { return to_pem_text("PUBLIC KEY", spki_der()); }
std::string PublicKey::fingerprint() const { return sha256_hex(spki_der()); }

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
        invalid_key("PEM block '" + pem.label + "' is not a private key; expected PRIVATE KEY or RSA PRIVATE KEY");
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
    impl->n = impl_->key.GetModulus();
    impl->e = impl_->key.GetPublicExponent();
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
    try {
        switch (padding) {
            case Padding::oaep_sha1: return encrypt_with<OaepSha1>(key.impl(), plaintext, piece);
            case Padding::oaep_sha256: return encrypt_with<OaepSha256>(key.impl(), plaintext, piece);
            case Padding::pkcs1v15: return encrypt_with<Pkcs1v15>(key.impl(), plaintext, piece);
        }
    } catch (const CryptoPP::Exception& e) {
        throw Error(ErrorCode::crypto, std::string("encryption failed: ") + e.what());
    }
    throw Error(ErrorCode::crypto, "encryption failed: unknown padding");
}

std::string decrypt(const PrivateKey& key, std::string_view base64, Padding padding) {
    std::string ciphertext, why;
    if (!base64_decode_into(base64, false, ciphertext, why)) throw Error(ErrorCode::crypto, kDecryptionFailed);
    try {
        switch (padding) {
            case Padding::oaep_sha1: return decrypt_with<OaepSha1>(key.impl().key, ciphertext);
            case Padding::oaep_sha256: return decrypt_with<OaepSha256>(key.impl().key, ciphertext);
            case Padding::pkcs1v15: return decrypt_with<Pkcs1v15>(key.impl().key, ciphertext);
        }
    } catch (const Error&) {
        throw;
    } catch (...) {  // Crypto++ throws for a block >= n, among others: same answer for every failure
    }
    throw Error(ErrorCode::crypto, kDecryptionFailed);
}

std::string merchant_auth(const PublicKey& key, std::string_view merchant_id, Padding padding) {
    if (merchant_id.empty()) fail_validation("merchantId", "must not be empty");
    return encrypt(key, "{\"merchantId\":" + json_string(merchant_id) + "}", padding);
}

// ---- Signatures ----

using SignatureScheme = CryptoPP::RSASS<CryptoPP::PKCS1v15, CryptoPP::SHA256>;

std::string sign_sha256(const PrivateKey& key, std::string_view message) {
    SignatureScheme::Signer signer(key.impl().key);
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

bool verify_sha256(const PublicKey& key, std::string_view message, std::string_view signature_base64) {
    std::string sig, why;
    if (!base64_decode_into(signature_base64, false, sig, why)) return false;
    CryptoPP::RSA::PublicKey rsa;
    rsa.Initialize(key.impl().n, key.impl().e);
    SignatureScheme::Verifier verifier(rsa);
    if (sig.size() != verifier.SignatureLength()) return false;
    try {
        return verifier.VerifyMessage(reinterpret_cast<const CryptoPP::byte*>(message.data()), message.size(),
                                      reinterpret_cast<const CryptoPP::byte*>(sig.data()), sig.size());
    } catch (const CryptoPP::Exception&) {
        return false;
    }
}

// ---- Hashing, base64, randomness ----

std::string sha256_hex(std::string_view bytes) {
    CryptoPP::byte digest[CryptoPP::SHA256::DIGESTSIZE];
    CryptoPP::SHA256().CalculateDigest(digest, reinterpret_cast<const CryptoPP::byte*>(bytes.data()), bytes.size());
    static const char hex[] = "0123456789abcdef";
    std::string out;
    out.reserve(2 * sizeof digest);
    for (CryptoPP::byte b : digest) {
        out += hex[b >> 4];
        out += hex[b & 0xf];
    }
    return out;
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
            throw Error(ErrorCode::crypto, std::string("no platform random source: getentropy failed: ") +
                                               std::strerror(errno));
        }
        out += chunk;
        n -= chunk;
    }
}

}  // namespace paywasm
