// verify-webhook: checks a webhook the service (or the sandbox) sent, the way a merchant's back end
// must: the RSA PKCS#1 v1.5 SHA-256 signature over the exact `data.data` string, then trust only the
// transaction parsed from that string.
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>

#include "cli/cli.hpp"
#include "paywasm/text.hpp"
#include "paywasm/checkout.hpp"
#include "paywasm/crypto.hpp"
#include "paywasm/error.hpp"
#include "paywasm/protocol.hpp"

namespace paywasm::cli {
namespace {

constexpr std::string_view kUsage = R"(usage: paywasm verify-webhook --public-key PUB.pem (--merchant-id ID | --any-merchant) [FILE|-]

Verifies one webhook body (FILE, or standard input), shaped as the service sends it:
  {"type":"rf:alert","data":{"data":"<transaction JSON>","offerId":..,"transactionId":..,
   "status":..,...},"signature":"<base64>"}
The signature must be RSASSA-PKCS1-v1_5 with SHA-256 over the exact data.data string, made with the
key whose public half is PUB.pem (the sandbox's is `webhookPublicKey` in GET /__sandbox/merchant).
The unsigned copies beside data.data (offerId, transactionId, status, ...) must agree with it.

The service signs every merchant's webhooks with the same key: a valid signature does not say the
transaction is yours. So the signed merchantId must be --merchant-id's ID (another merchant's
transaction, or one without merchantId, is refused, exit 1); --any-merchant checks the signature
only, as told. One of the two is required (neither: a usage error, exit 2).

On success prints the signed transaction JSON (data.data) on standard output and a one-line summary
(transaction, status, offer, merchant) on standard error, exit 0. A bad signature, a malformed body
or another merchant's transaction: error on standard error, exit 1.

options:
  --public-key FILE   the service's webhook public key: PEM (PUBLIC KEY or RSA PUBLIC KEY) or DER
  --merchant-id ID    your merchant id: a transaction of any other merchant is refused
  --any-merchant      accept a transaction of any merchant (the signature is still checked)
)";

int run_verify_webhook(const Args& args) {
    const auto& pos = args.positional();
    if (pos.size() > 1) throw Error(ErrorCode::usage, "expected at most one input file, got " + std::to_string(pos.size()));
    if (args.has("merchant-id") == args.has("any-merchant")) {
        throw Error(ErrorCode::usage, "pass --merchant-id ID (yours: another merchant's transaction is refused) or --any-merchant");
    }
    const PublicKey key = PublicKey::parse(read_input(args.require("public-key")));
    const VerifiedWebhook hook = verify_webhook(read_input(pos.empty() ? std::string() : pos[0]), key);
    const Transaction& tx = hook.transaction;
    const std::string merchant = tx.merchant_id.value_or("");
    if (args.has("merchant-id") && merchant != args.get("merchant-id")) {
        throw Error(ErrorCode::validation,
                    "merchantId: the transaction is " + (merchant.empty() ? std::string("without a merchantId") : "merchant " + merchant + "'s") +
                        ", not " + args.get("merchant-id") + "'s (signed by the service for another merchant)",
                    "merchantId");
    }

    std::fwrite(hook.signed_json.data(), 1, hook.signed_json.size(), stdout);
    std::fputc('\n', stdout);
    const StatusInfo status = describe_status(tx);
    const std::string offer = tx.meta && tx.meta->offer_id ? *tx.meta->offer_id : std::string("-");
    // The signed fields are the service's, but still outside input on a terminal: escaped.
    std::fprintf(stderr, "verified: transaction %s, status %d (%.*s), offer %s, merchant %s%s\n",
                 paywasm::escape_untrusted(tx.id, 100).c_str(), tx.status, static_cast<int>(status.label.size()),
                 status.label.data(), paywasm::escape_untrusted(offer, 200).c_str(),
                 merchant.empty() ? "-" : paywasm::escape_untrusted(merchant, 100).c_str(), args.has("merchant-id") ? "" : " (any merchant: --any-merchant)");
    return 0;
}

PAYWASM_COMMAND(Command{"verify-webhook", "verify a webhook's signature and print the signed transaction", kUsage,
                        {"public-key", "merchant-id"}, {"any-merchant"}, run_verify_webhook})

}  // namespace
}  // namespace paywasm::cli

// ---- verify-event ---------------------------------------------------------------------------------
namespace paywasm::cli {
namespace {

constexpr std::string_view kEventUsage = R"(usage: paywasm verify-event --signature HEADER [--tolerance SECONDS] [FILE|-]

Verifies one event that paywasm-merchant forwarded to the shop app (--app-callback): the exact body
(FILE, or standard input) and the value of its Paywasm-Signature header,
  t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>
The key is read from the environment variable PAYWASM_EVENT_SECRET (never from the command line):
the gateway's event secret, not the app API's bearer.

On success prints the body on standard output, exit 0. A wrong signature, a timestamp further than
the tolerance from now (a replay), or a malformed header: error on standard error, exit 1.

options:
  --signature HEADER   the Paywasm-Signature header value
  --tolerance SECONDS  how far the timestamp may be from now (default 300)
)";

int run_verify_event(const Args& args) {
    const auto& pos = args.positional();
    if (pos.size() > 1) throw Error(ErrorCode::usage, "expected at most one input file, got " + std::to_string(pos.size()));
    const char* secret = std::getenv("PAYWASM_EVENT_SECRET");
    if (!secret || !*secret) throw Error(ErrorCode::usage, "set PAYWASM_EVENT_SECRET to the gateway's event secret");
    long long tolerance = 300;
    if (args.has("tolerance")) {
        const std::string t = args.get("tolerance");
        if (t.empty() || t.size() > 9 || t.find_first_not_of("0123456789") != std::string::npos) {
            throw Error(ErrorCode::usage, "--tolerance takes a whole number of seconds");
        }
        tolerance = std::stoll(t);
    }
    const std::string body = read_input(pos.empty() ? std::string() : pos[0]);
    verify_event(secret, body, args.require("signature"), static_cast<long long>(std::time(nullptr)), tolerance);
    std::fwrite(body.data(), 1, body.size(), stdout);
    if (body.empty() || body.back() != '\n') std::fputc('\n', stdout);
    return 0;
}

PAYWASM_COMMAND(Command{"verify-event", "verify an event forwarded by paywasm-merchant (Paywasm-Signature)", kEventUsage,
                        {"signature", "tolerance"}, {}, run_verify_event})

}  // namespace
}  // namespace paywasm::cli
