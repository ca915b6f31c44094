// Fuzz target: the sandbox's request decoding (demo/sandbox/decode.cpp and src/server/http.cpp), the code every
// payment and subscription route runs on what a client sent before it touches any state.
//
// Input: one selector byte, then "<Authorization header value>\n<rest>".
//   selector & 0x03  Content-Type: application/json, "Application/JSON ; charset=utf-8", text/plain, none
//   selector & 0x0c  what is decoded: an exchange payment, a bank payment, a subscription body's
//                    merchantId + merchantAuth (twice: with a padding setting of "any")
//   selector & 0x80  <rest> is a plaintext the harness encrypts to the sandbox's test key (OAEP-SHA-1)
//                    and wraps as a client would ({"data": ...} or {"merchantId", "merchantAuth"}), so
//                    the fuzzer reaches the decrypted payload's reading and validation; otherwise
//                    <rest> is the request body as sent.
// Properties: decoding returns or throws HttpError (400, 401 or 415, with a slug and a message) or
// paywasm::Error(validation) with a message; nothing else escapes (anything else would be a 500 in
// the server). The bearer token read from the header has no leading space and is a
// suffix of the header.
#include <string>

#include "../unit/test_crypto_keys.hpp"
#include "decode.hpp"
#include "fuzz_common.hpp"
#include "http.hpp"
#include "paywasm/codec.hpp"
#include "paywasm/crypto.hpp"

using namespace paywasm;

namespace {

const char* const kContentTypes[] = {"application/json", "Application/JSON ; charset=utf-8", "text/plain", nullptr};
constexpr char kMerchantId[] = "merchant-fuzz";

template <class Body>
void decodes_or_refuses(Body&& body) {
    try {
        body();
    } catch (const sandbox::HttpError& e) {
        PAYWASM_FUZZ_CHECK(e.status == 400 || e.status == 401 || e.status == 415,
                           "HTTP status " + std::to_string(e.status) + ": " + e.what());
        PAYWASM_FUZZ_CHECK(!e.slug.empty() && e.what()[0] != '\0', "an error has a slug and a message");
    } catch (const Error& e) {
        PAYWASM_FUZZ_CHECK(e.code() == ErrorCode::validation && e.what()[0] != '\0',
                           std::string(to_string(e.code())) + ": " + e.what());
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const PrivateKey key = PrivateKey::parse(test_keys::kPrivate2048);
    static const PublicKey public_key = PublicKey::parse(test_keys::kPublic2048);
    if (size < 1) return 0;
    const std::uint8_t selector = data[0];
    std::string_view rest = fuzz::as_text(data + 1, size - 1);
    const auto newline = rest.find('\n');
    std::string authorization(newline == std::string_view::npos ? std::string_view() : rest.substr(0, newline));
    authorization = authorization.substr(0, authorization.find('\0'));  // a header value holds no NUL
    if (newline != std::string_view::npos) rest.remove_prefix(newline + 1);

    sandbox::Request req;
    if (const char* type = kContentTypes[selector & 0x03]) req.headers.emplace_back("Content-Type", type);
    req.headers.emplace_back("Authorization", authorization);

    const std::string token = sandbox::bearer_token(req);
    PAYWASM_FUZZ_CHECK(token.empty() || (token[0] != ' ' && authorization.size() >= token.size() &&
                                         authorization.compare(authorization.size() - token.size(), token.size(),
                                                               token) == 0),
                       "the bearer token is the header's suffix: " + token);

    const int what = (selector >> 2) & 0x03;
    const bool encrypt_rest = (selector & 0x80) != 0;
    std::string body(rest);
    if (encrypt_rest && !rest.empty() && rest.size() <= 4096) {  // encrypt() refuses an empty plaintext
        const std::string cipher = encrypt(public_key, rest, Padding::oaep_sha1);
        body = what < 2 ? "{\"data\":" + json_quote(cipher) + "}"
                        : "{\"merchantId\":\"" + std::string(kMerchantId) + "\",\"merchantAuth\":" + json_quote(cipher) + "}";
    }

    std::string plaintext, padding;
    switch (what) {
        case 0:
            decodes_or_refuses([&] {
                sandbox::decode_payment<ExchangePayment>(req, body, key, "oaep-sha1", Limits{}, plaintext, padding);
            });
            break;
        case 1:
            decodes_or_refuses([&] {
                sandbox::decode_payment<BankPayment>(req, body, key, "any", Limits{}, plaintext, padding);
            });
            break;
        default:
            decodes_or_refuses([&] {
                const paywasm::JsonDocument outer = sandbox::parse_object(req, body);
                sandbox::check_merchant_auth(outer.root(), key, what == 2 ? "oaep-sha1" : "any", kMerchantId);
            });
            break;
    }
    if (!plaintext.empty() || !padding.empty()) {
        PAYWASM_FUZZ_CHECK(padding == "oaep-sha1" || padding == "oaep-sha256" || padding == "pkcs1v15",
                           "a decrypted body names its padding: " + padding);
    }
    return 0;
}
