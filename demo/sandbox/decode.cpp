#include "decode.hpp"

#include "paywasm/codec.hpp"
#include "paywasm/error.hpp"

namespace sandbox {

std::pair<std::string, std::string> decrypt_field(const paywasm::PrivateKey& key, const std::string& setting,
                                                  const std::string& base64, const std::string& field) {
    const char* const all[] = {"oaep-sha1", "oaep-sha256", "pkcs1v15"};
    for (const char* name : all) {
        if (setting != "any" && setting != name) continue;
        try {
            return {paywasm::decrypt(key, base64, paywasm::parse_padding(name)), name};
        } catch (const paywasm::Error&) {
        }
    }
    const std::size_t k = key.public_key().modulus_bytes();
    throw HttpError(400, "decryption_failed",
                    field + ": cannot be decrypted with the merchant's key (the sandbox expects base64 of " +
                        std::to_string(k) + "-byte RSA blocks, padding " + setting +
                        ", long plaintexts cut into pieces with one block each)",
                    field);
}

template <class T>
T decode_payment(const httplib::Request& req, const std::string& body, const paywasm::PrivateKey& key,
                 const std::string& setting, const paywasm::Limits& limits, std::string& plaintext,
                 std::string& padding) {
    json outer = parse_object(req, body);
    const std::string data = need_string(outer, "data");
    std::tie(plaintext, padding) = decrypt_field(key, setting, data, "data");
    T payload = paywasm::from_json<T>(plaintext);
    paywasm::validate(payload, limits);
    return payload;
}

template paywasm::ExchangePayment decode_payment(const httplib::Request&, const std::string&,
                                                 const paywasm::PrivateKey&, const std::string&,
                                                 const paywasm::Limits&, std::string&, std::string&);
template paywasm::BankPayment decode_payment(const httplib::Request&, const std::string&, const paywasm::PrivateKey&,
                                             const std::string&, const paywasm::Limits&, std::string&, std::string&);

void check_merchant_auth(const json& body, const paywasm::PrivateKey& key, const std::string& setting,
                         const std::string& merchant_id) {
    auto unauthorized = [](const std::string& message) { return HttpError(401, "unauthorized", message); };
    auto id = body.find("merchantId");
    auto auth = body.find("merchantAuth");
    if (id == body.end() || auth == body.end() || !id->is_string() || !auth->is_string()) {
        throw unauthorized("merchantId and merchantAuth (strings) are required");
    }
    if (id->get<std::string>() != merchant_id) throw unauthorized("unknown merchantId");
    std::string plaintext;
    try {
        plaintext = decrypt_field(key, setting, auth->get<std::string>(), "merchantAuth").first;
    } catch (const HttpError&) {
        throw unauthorized("merchantAuth cannot be decrypted with the merchant's key");
    }
    json inner = json::parse(plaintext, nullptr, false);
    if (!inner.is_object() || !inner.contains("merchantId") || inner["merchantId"] != merchant_id) {
        throw unauthorized("merchantAuth does not hold {\"merchantId\": \"<this merchant>\"}");
    }
}

}  // namespace sandbox
