// src/core/crypto_keys.cpp — public keys: PEM and DER, the checks every key passes, PublicKey.
//
// paywasm/crypto.hpp's public half is four files of one job each: crypto_keys.cpp (PEM and DER
// public keys, the checks every key passes, PublicKey), crypto_encrypt.cpp (the OAEP and PKCS#1
// v1.5 encoders, chunked encryption, merchantAuth), crypto_encoding.cpp (base64, hex, SHA-256,
// HMAC, the platform's randomness) and crypto_private.cpp (private keys, decryption, signatures:
// Crypto++'s Integer). Key parsing is done by hand (crypto_der.hpp) so every refusal can say
// exactly why; public keys are plain (n, e) byte strings and encryption's m^e mod n is
// bigint_modexp.cpp's Montgomery loop; the paddings are ours (RFC 8017) over sha.hpp's SHA-1 and
// SHA-256 (Crypto++'s compression functions). None of the first three may name CryptoPP::Integer:
// the widget's wasm links them, and a reference to Integer would pull in Crypto++'s integer.o,
// whose static initializers keep its ~80 KB of multiplication code alive. No iostreams, no
// Crypto++ filters.
#include "paywasm/crypto.hpp"

#include <memory>
#include <string>

#include "core/bigint_modexp.hpp"
#include "core/crypto_der.hpp"
#include "core/crypto_internal.hpp"
#include "paywasm/error.hpp"
#include "paywasm/text.hpp"

namespace paywasm {

using detail::DerReader;
using detail::Tlv;
namespace der = detail::der;

// Shared with the other crypto files (declared in crypto_internal.hpp).
namespace keyio {

void wipe(std::string& s) {
    volatile char* p = s.data();
    for (std::size_t i = 0; i < s.size(); ++i) p[i] = 0;
    s.clear();
}

[[noreturn]] void invalid_key(const std::string& message) { throw Error(ErrorCode::invalid_key, message); }

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

}  // namespace paywasm
