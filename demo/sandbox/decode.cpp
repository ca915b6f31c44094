#include "decode.hpp"

#include <cryptopp/hmac.h>
#include <cryptopp/sha.h>

#include <algorithm>
#include <cstdint>

#include "paywasm/codec.hpp"
#include "paywasm/error.hpp"

namespace sandbox {

namespace {

constexpr char kLabel[] = "paywasm-sandbox implicit rejection v1";

std::string hmac_sha256(const std::string& key, const std::string& message) {
    CryptoPP::HMAC<CryptoPP::SHA256> mac(reinterpret_cast<const CryptoPP::byte*>(key.data()), key.size());
    std::string out(CryptoPP::SHA256::DIGESTSIZE, '\0');
    mac.CalculateDigest(reinterpret_cast<CryptoPP::byte*>(out.data()),
                        reinterpret_cast<const CryptoPP::byte*>(message.data()), message.size());
    return out;
}

// The secret behind the synthetic messages: derived from the private key, so it is stable across
// restarts (the same bad ciphertext always gives the same message) and unknown to clients.
std::string rejection_secret(const paywasm::PrivateKey& key) {
    std::string pem = key.to_pem();
    std::string secret = hmac_sha256(pem, kLabel);
    std::fill(pem.begin(), pem.end(), '\0');
    return secret;
}

// A deterministic pseudo-random message for one bad block: length 0 .. k - 11 and bytes, both from
// HMAC-SHA-256 under the secret over the block (counter mode for the bytes).
std::string synthetic_message(const std::string& secret, const std::string& block, std::size_t k) {
    const std::string length_bytes = hmac_sha256(secret, "length" + block);
    const std::size_t max_len = k - 11;
    const std::size_t len =
        ((static_cast<unsigned char>(length_bytes[0]) << 8) | static_cast<unsigned char>(length_bytes[1])) %
        (max_len + 1);
    std::string out;
    for (std::uint32_t counter = 0; out.size() < len; ++counter) {
        std::string c(4, '\0');
        for (int i = 0; i < 4; ++i) c[i] = static_cast<char>((counter >> (24 - 8 * i)) & 0xff);
        out += hmac_sha256(secret, "message" + c + block);
    }
    out.resize(len);
    return out;
}

HttpError decryption_failed(const paywasm::PrivateKey& key, const std::string& setting, const std::string& field) {
    const std::size_t k = key.public_key().modulus_bytes();
    return HttpError(400, "decryption_failed",
                     field + ": cannot be decrypted with the merchant's key (the sandbox expects base64 of " +
                         std::to_string(k) + "-byte RSA blocks, padding " + setting +
                         ", long plaintexts cut into pieces with one block each)",
                     field);
}

}  // namespace

bool one_answer(const std::string& setting) { return setting == "pkcs1v15" || setting == "any"; }

HttpError one_answer_error(const std::string& field) {
    return HttpError(400, "decryption_failed",
                     field + ": cannot be decrypted with the merchant's key, or its plaintext is not a valid request "
                             "(with PKCS#1 v1.5 padding the sandbox gives every such failure this one answer)",
                     field);
}

std::string decrypt_pkcs1v15_implicit(const paywasm::PrivateKey& key, const std::string& base64) {
    std::string ciphertext;
    try {
        ciphertext = paywasm::base64_decode(base64);
    } catch (const paywasm::Error&) {
        throw paywasm::Error(paywasm::ErrorCode::crypto, "decryption failed");  // public: no key involved
    }
    const std::size_t k = key.public_key().modulus_bytes();
    if (ciphertext.empty() || ciphertext.size() % k != 0) {
        throw paywasm::Error(paywasm::ErrorCode::crypto, "decryption failed");  // public too
    }
    const std::string secret = rejection_secret(key);
    std::string out;
    for (std::size_t off = 0; off < ciphertext.size(); off += k) {
        const std::string block = ciphertext.substr(off, k);
        // Computed for every block, good or bad, so both paths do the same work.
        std::string synthetic = synthetic_message(secret, block, k);
        std::string real;
        bool good = true;
        try {
            real = paywasm::decrypt(key, paywasm::base64_encode(block), paywasm::Padding::pkcs1v15);
        } catch (const paywasm::Error&) {
            good = false;
        }
        out += good ? real : synthetic;
    }
    return out;
}

std::pair<std::string, std::string> decrypt_field(const paywasm::PrivateKey& key, const std::string& setting,
                                                  const std::string& base64, const std::string& field) {
    for (const char* name : {"oaep-sha1", "oaep-sha256"}) {
        if (setting != "any" && setting != name) continue;
        try {
            return {paywasm::decrypt(key, base64, paywasm::parse_padding(name)), name};
        } catch (const paywasm::Error&) {
        }
    }
    if (one_answer(setting)) {
        try {
            return {decrypt_pkcs1v15_implicit(key, base64), "pkcs1v15"};
        } catch (const paywasm::Error&) {
            throw one_answer_error(field);
        }
    }
    throw decryption_failed(key, setting, field);
}

template <class T>
T decode_payment(const Request& req, const std::string& body, const paywasm::PrivateKey& key,
                 const std::string& setting, const paywasm::Limits& limits, std::string& plaintext,
                 std::string& padding) {
    const JsonDocument outer = parse_object(req, body);
    const std::string data = need_string(outer.root(), "data");
    std::tie(plaintext, padding) = decrypt_field(key, setting, data, "data");
    T payload = paywasm::from_json<T>(plaintext);
    paywasm::validate(payload, limits);
    return payload;
}

template paywasm::ExchangePayment decode_payment(const Request&, const std::string&,
                                                 const paywasm::PrivateKey&, const std::string&,
                                                 const paywasm::Limits&, std::string&, std::string&);
template paywasm::BankPayment decode_payment(const Request&, const std::string&, const paywasm::PrivateKey&,
                                             const std::string&, const paywasm::Limits&, std::string&, std::string&);

void check_merchant_auth(JsonValue body, const paywasm::PrivateKey& key, const std::string& setting,
                         const std::string& merchant_id) {
    const JsonValue id = body.member("merchantId");
    const JsonValue auth = body.member("merchantAuth");
    if (!id.valid() || !auth.valid() || !id.is_string() || !auth.is_string()) {
        throw HttpError(401, "unauthorized", "merchantId and merchantAuth (strings) are required");
    }
    // From here on every failure is one answer, and the decryption runs even for a wrong
    // merchantId, so neither the message nor the time tells which part was wrong.
    bool good = id.text() == merchant_id;
    try {
        const std::string plaintext = decrypt_field(key, setting, std::string(auth.text()), "merchantAuth").first;
        const paywasm::JsonDocument inner = paywasm::parse_json(plaintext);  // depth-limited
        const paywasm::JsonValue inner_id = inner.root().member("merchantId");
        good = good && has_kind(inner_id, paywasm::JsonKind::string) && inner_id.text() == merchant_id;
    } catch (const HttpError&) {
        good = false;
    } catch (const paywasm::Error&) {
        good = false;
    }
    if (!good) throw HttpError(401, "unauthorized", "merchantId and merchantAuth do not authenticate this merchant");
}

}  // namespace sandbox
