// verify-webhook: checks a webhook the service (or the sandbox) sent, the way a merchant's back end
// must: the RSA PKCS#1 v1.5 SHA-256 signature over the exact `data.data` string, then trust only the
// transaction parsed from that string.
#include <rapidjson/document.h>
#include <rapidjson/error/en.h>

#include <cstdio>
#include <string>

#include "cli/cli.hpp"
#include "paywasm/codec.hpp"
#include "paywasm/crypto.hpp"
#include "paywasm/error.hpp"
#include "paywasm/protocol.hpp"

namespace paywasm::cli {
namespace {

constexpr std::string_view kUsage = R"(usage: paywasm verify-webhook --public-key PUB.pem [FILE|-]

Verifies one webhook body (FILE, or standard input), shaped as the service sends it:
  {"type":"rf:alert","data":{"data":"<transaction JSON>","offerId":..,"transactionId":..,
   "status":..,...},"signature":"<base64>"}
The signature must be RSASSA-PKCS1-v1_5 with SHA-256 over the exact data.data string, made with the
key whose public half is PUB.pem (the sandbox's is `webhookPublicKey` in GET /__sandbox/merchant).
The unsigned copies beside data.data (offerId, transactionId, status, ...) must agree with it.

On success prints the signed transaction JSON (data.data) on standard output and a one-line summary
on standard error, exit 0. A bad signature or a malformed body: error on standard error, exit 1.

options:
  --public-key FILE   the service's webhook public key: PEM (PUBLIC KEY or RSA PUBLIC KEY) or DER
)";

[[noreturn]] void malformed(const std::string& what) {
    throw Error(ErrorCode::validation, "webhook body: " + what);
}

const rapidjson::Value& member(const rapidjson::Value& obj, const char* name, const std::string& path) {
    auto it = obj.FindMember(name);
    if (it == obj.MemberEnd()) malformed(path + " is missing");
    return it->value;
}

// A copy beside data.data that disagrees with the signed transaction means someone edited it.
void check_copy(const rapidjson::Value& data, const char* name, const std::string& signed_value) {
    auto it = data.FindMember(name);
    if (it == data.MemberEnd() || it->value.IsNull()) return;
    std::string copy;
    if (it->value.IsString()) copy = it->value.GetString();
    else if (it->value.IsInt64()) copy = std::to_string(it->value.GetInt64());
    else malformed(std::string("data.") + name + " has the wrong type");
    if (copy != signed_value) {
        throw Error(ErrorCode::crypto, std::string("data.") + name + " (" + copy.substr(0, 64) +
                                           ") differs from the signed transaction (" + signed_value.substr(0, 64) + ")");
    }
}

int run_verify_webhook(const Args& args) {
    const auto& pos = args.positional();
    if (pos.size() > 1) throw Error(ErrorCode::usage, "expected at most one input file, got " + std::to_string(pos.size()));
    PublicKey key = PublicKey::parse(read_input(args.require("public-key")));
    const std::string body = read_input(pos.empty() ? std::string() : pos[0]);
    if (body.size() > kMaxJsonBytes) malformed("larger than " + std::to_string(kMaxJsonBytes) + " bytes");

    rapidjson::Document doc;
    doc.Parse<rapidjson::kParseIterativeFlag>(body.data(), body.size());  // iterative: no recursion on hostile nesting
    if (doc.HasParseError()) {
        malformed(std::string("not JSON (") + rapidjson::GetParseError_En(doc.GetParseError()) + " at byte " +
                  std::to_string(doc.GetErrorOffset()) + ")");
    }
    if (!doc.IsObject()) malformed("not a JSON object");
    const rapidjson::Value& data = member(doc, "data", "data");
    if (!data.IsObject()) malformed("data is not an object");
    const rapidjson::Value& inner = member(data, "data", "data.data");
    if (!inner.IsString()) malformed("data.data is not a string");
    const rapidjson::Value& signature = member(doc, "signature", "signature");
    if (!signature.IsString()) malformed("signature is not a string");

    const std::string signed_text(inner.GetString(), inner.GetStringLength());
    if (!verify_sha256(key, signed_text, std::string(signature.GetString(), signature.GetStringLength()))) {
        throw Error(ErrorCode::crypto, "the signature does not verify over data.data with this public key");
    }

    Transaction tx = from_json<Transaction>(signed_text);
    check_copy(data, "transactionId", tx.id);
    check_copy(data, "status", std::to_string(tx.status));
    if (tx.meta && tx.meta->offer_id) check_copy(data, "offerId", *tx.meta->offer_id);

    std::fwrite(signed_text.data(), 1, signed_text.size(), stdout);
    std::fputc('\n', stdout);
    const StatusInfo status = describe_status(tx);
    const std::string offer = tx.meta && tx.meta->offer_id ? *tx.meta->offer_id : std::string("-");
    std::fprintf(stderr, "verified: transaction %s, status %d (%.*s), offer %s\n", tx.id.c_str(), tx.status,
                 static_cast<int>(status.label.size()), status.label.data(), offer.c_str());
    return 0;
}

PAYWASM_COMMAND(Command{"verify-webhook", "verify a webhook's signature and print the signed transaction", kUsage,
                        {"public-key"}, {}, run_verify_webhook})

}  // namespace
}  // namespace paywasm::cli
