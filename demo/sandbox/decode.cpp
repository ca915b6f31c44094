#include "decode.hpp"

#include "paywasm/codec.hpp"
#include "paywasm/error.hpp"

namespace sandbox {

namespace {

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
    // The core's implicit rejection (draft-irtf-cfrg-rsa-guidance): a block with a bad padding
    // becomes its synthetic message, with no exception and no branch on the padding. Only bad
    // base64, a length that is not a multiple of k, or a block not below n (all public) throw.
    return paywasm::decrypt_pkcs1v15_implicit(key, base64);
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
