// decode.hpp — how the sandbox reads what a client sends it, apart from the server and its state,
// so the fuzz target tests/fuzz/fuzz_sandbox_request.cpp runs exactly this code.
//
// Every function throws HttpError (http.hpp) or paywasm::Error(validation) for bad input and
// nothing else; the routes turn both into JSON error answers.
#pragma once


#include <string>
#include <utility>

#include "http.hpp"
#include "paywasm/crypto.hpp"
#include "paywasm/models.hpp"
#include "paywasm/validate.hpp"

namespace sandbox {

// Decrypts `base64` (RSA blocks of the key's size, concatenated) with `key` under the padding
// `setting` names (oaep-sha1 | oaep-sha256 | pkcs1v15), or each of the three for "any" (OAEP
// first). Returns the plaintext and the padding that worked; throws HttpError(400,
// decryption_failed, field).
//
// PKCS#1 v1.5 (Bleichenbacher): a block that does not decode is not an error but is replaced by a
// deterministic pseudo-random message (implicit rejection as draft-irtf-cfrg-rsa-guidance and
// OpenSSL 3.2+ do it: decrypt_pkcs1v15_implicit, the core's), so the failure shows only later, as
// an unreadable payload; and every failure from the ciphertext on gets one answer
// (one_answer_error). Only input that is not base64, not a whole number of blocks or has a block
// not below the modulus, which a client can see for itself, fails here.
std::pair<std::string, std::string> decrypt_field(const paywasm::PrivateKey& key, const std::string& setting,
                                                  const std::string& base64, const std::string& field);

// True when `setting` decrypts PKCS#1 v1.5 (pkcs1v15, any): then every failure after `data`
// arrives must be one_answer_error(field).
bool one_answer(const std::string& setting);
HttpError one_answer_error(const std::string& field);
// PKCS#1 v1.5 with implicit rejection (above): paywasm::decrypt_pkcs1v15_implicit. Throws
// paywasm::Error(crypto) only for bad base64, a length that is not a multiple of k, or a block that
// is not below n; never for a bad padding.
std::string decrypt_pkcs1v15_implicit(const paywasm::PrivateKey& key, const std::string& base64);

// An exchange or bank payment body, {"data": "<base64>"}: parse_object's rules, then decrypt_field,
// then the core's from_json<T> and validate(limits). `plaintext` and `padding` are set as soon as
// decryption succeeds (the ledger records them), even when reading or validation then fails.
template <class T>
T decode_payment(const Request& req, const std::string& body, const paywasm::PrivateKey& key,
                 const std::string& setting, const paywasm::Limits& limits, std::string& plaintext,
                 std::string& padding);
extern template paywasm::ExchangePayment decode_payment(const Request&, const std::string&,
                                                        const paywasm::PrivateKey&, const std::string&,
                                                        const paywasm::Limits&, std::string&, std::string&);
extern template paywasm::BankPayment decode_payment(const Request&, const std::string&,
                                                    const paywasm::PrivateKey&, const std::string&,
                                                    const paywasm::Limits&, std::string&, std::string&);

// A subscription body's merchantId and merchantAuth: merchantId must be `merchant_id` and
// merchantAuth must decrypt (as decrypt_field) to a JSON object whose merchantId is the same.
// Throws HttpError(401, unauthorized): one message when either is missing, one other message for
// every other failure (no padding or content oracle).
void check_merchant_auth(JsonValue body, const paywasm::PrivateKey& key, const std::string& setting,
                         const std::string& merchant_id);

}  // namespace sandbox
