// `paywasm call <endpoint>`: read the input, one core operation builds the request, send it once,
// print the parsed answer as JSON. The whole path of one payment, top to bottom:
//   read input -> from_json<model> -> prepare_*_payment (checkout.hpp: defaults, validate,
//   canonical JSON, encrypt, request) -> transport::send -> parse_*_response -> to_json on stdout.
#include <cstdio>
#include <cstdlib>
#include <utility>

#include "cli/cli.hpp"
#include "client/transport.hpp"
#include "paywasm/checkout.hpp"
#include "paywasm/codec.hpp"
#include "paywasm/error.hpp"
#include "paywasm/protocol.hpp"

namespace paywasm::cli {
namespace {

using client::TransportOptions;
using client::send;

constexpr int kExitRefused = 3;

constexpr std::string_view kUsage = R"(usage: paywasm call <endpoint> --base-url URL [options] [FILE|-]

Sends one request to the payment service and prints the parsed answer as JSON on stdout.
Failures print {"error":{...}} on stderr and exit 1; wrong usage exits 2; an answer that refuses
what was asked (subscription-debit that charged nothing: no data entry, whatever errors says;
subscription-cancel with
success false) is printed and exits 3. Requests are sent once,
never retried: after a timeout on a payment, check its status before sending it again.

endpoints and their input (FILE or standard input, JSON in the spec's shapes):
  exchange-pay          ExchangePayment plaintext; needs --exchange, --public-key, shopper token;
                        nativeAmount and each line's localAmount/localCurrency may be left out
                        (defaults: the cart total, the price, merchantStoreCurrency)
  bank-pay              BankPayment plaintext (DEPRECATED endpoint); needs --public-key, shopper token;
                        amount and the local fields default as above
  users-me              no input; shopper token
  qr-generate           QrGenerateRequest (DEPRECATED endpoint); merchant access token
  subscription-debit    SubscriptionDebitRequest; merchantAuth taken from the input, or made from
                        its merchantId with --public-key when the input has none
  subscription-cancel   SubscriptionCancelRequest; merchantAuth as for debit. For both, a token
                        (--token or $PAYWASM_TOKEN: the merchant access token) is sent too

options:
  --base-url URL        the service address, e.g. https://api.example.com/api (http or https)
  --token TOKEN         bearer token (shopper or merchant); default: $PAYWASM_TOKEN, which keeps it
                        out of the process list
  --exchange NAME       coinbase | okcoin | kraken | gemini | binanceus
  --public-key PEM      the merchant's RSA public key (PEM or DER file)
  --key-fingerprint HEX refuse to encrypt unless the key's SHA-256 fingerprint is HEX (any case,
                        ':' separators allowed)
  --padding P           oaep-sha1 (default) | oaep-sha256 | pkcs1v15 (legacy)
  --timeout SECONDS     per connect/read/write, default 30
  --dry-run             print the request that would be sent (token redacted) and send nothing
)";

std::string optional_token(const Args& args) {
    if (args.has("token")) return args.get("token");
    const char* env = std::getenv("PAYWASM_TOKEN");
    return env ? env : "";
}

std::string token_from(const Args& args) {
    std::string token = optional_token(args);
    if (token.empty()) throw Error(ErrorCode::usage, "a bearer token is required: --token or $PAYWASM_TOKEN");
    return token;
}

// Reads the endpoint's input, then one operation of the core (paywasm/checkout.hpp) builds the
// request: defaults, validation, encryption and merchantAuth all happen there.
HttpRequest build(const EndpointInfo& ep, const Args& args) {
    const std::string input_path = args.positional().size() > 1 ? args.positional()[1] : "-";
    const std::string key_text = args.has("public-key") ? read_input(args.get("public-key")) : std::string();
    const std::string pin = args.get("key-fingerprint");
    const MerchantKey key{key_text, pin, parse_padding(args.get("padding", "oaep-sha1"))};
    auto need_key = [&] {
        if (key_text.empty()) throw Error(ErrorCode::usage, "--public-key is required for " + std::string(ep.name));
    };
    switch (ep.endpoint) {
        case Endpoint::exchange_payment:
            need_key();
            return prepare_exchange_payment(from_json<ExchangePayment>(read_input(input_path)),
                                            args.require("exchange"), key, token_from(args));
        case Endpoint::bank_payment:
            need_key();
            return prepare_bank_payment(from_json<BankPayment>(read_input(input_path)), key, token_from(args));
        case Endpoint::users_me:
            return users_me_request(token_from(args));
        case Endpoint::qr_generate:
            return prepare_qr_generate(from_json<QrGenerateRequest>(read_input(input_path)), token_from(args));
        case Endpoint::subscription_debit: {
            auto request = from_json<SubscriptionDebitRequest>(read_input(input_path));
            if (request.merchant_auth.empty()) need_key();
            return prepare_subscription_debit(std::move(request), key, optional_token(args));
        }
        case Endpoint::subscription_cancel: {
            auto request = from_json<SubscriptionCancelRequest>(read_input(input_path));
            if (request.merchant_auth.empty()) need_key();
            return prepare_subscription_cancel(std::move(request), key, optional_token(args));
        }
    }
    throw Error(ErrorCode::usage, "unknown endpoint");
}

// The parsed answer as JSON, and the exit status it earns: 0, or 3 when the service answered but
// did not do what was asked (a debit that charged nothing: no data entry, with or without errors;
// a cancel with success false).
std::pair<std::string, int> parse(Endpoint endpoint, const HttpResponse& response) {
    switch (endpoint) {
        case Endpoint::exchange_payment:
        case Endpoint::bank_payment: return {to_json(parse_payment_response(response)), 0};
        case Endpoint::users_me: return {to_json(parse_users_me_response(response)), 0};
        case Endpoint::qr_generate: return {to_json(parse_qr_generate_response(response)), 0};
        case Endpoint::subscription_debit: {
            const SubscriptionDebitResult r = parse_subscription_debit_response(response);
            if (r.data.empty()) std::fprintf(stderr, "paywasm: subscription-debit charged nothing (the answer has no data entry)\n");
            return {to_json(r), r.data.empty() ? kExitRefused : 0};
        }
        case Endpoint::subscription_cancel: {
            const SubscriptionCancelResult r = parse_subscription_cancel_response(response);
            return {to_json(r), r.success ? 0 : kExitRefused};
        }
    }
    return {};
}

void print_dry_run(const HttpRequest& request, const std::string& base_url) {
    std::printf("%s %s\n", request.method.c_str(), request.url(base_url).c_str());
    for (const auto& [name, value] : request.headers) {
        bool secret = name == "Authorization";
        std::printf("%s: %s\n", name.c_str(), secret ? "Bearer <redacted>" : value.c_str());
    }
    std::printf("\n%s\n", request.body.c_str());
}

int run_call(const Args& args) {
    if (args.positional().empty()) throw Error(ErrorCode::usage, "which endpoint?");
    if (args.positional().size() > 2) throw Error(ErrorCode::usage, "too many arguments");
    const EndpointInfo& ep = endpoint_by_name(args.positional()[0]);
    const std::string base_url = args.require("base-url");
    TransportOptions transport;
    if (args.has("timeout")) {
        transport.timeout_seconds = std::atoi(args.get("timeout").c_str());
        if (transport.timeout_seconds < 1 || transport.timeout_seconds > 600) {
            throw Error(ErrorCode::usage, "--timeout must be 1..600 seconds");
        }
    }
    try {
        HttpRequest request = build(ep, args);
        if (args.has("dry-run")) {
            print_dry_run(request, base_url);
            return 0;
        }
        auto [out, status] = parse(ep.endpoint, send(request, base_url, transport));
        std::printf("%s\n", out.c_str());
        return status;
    } catch (const Error& e) {
        if (e.code() == ErrorCode::usage) throw;
        std::fprintf(stderr, "{\"error\":%s}\n", error_json(e).c_str());
        return 1;
    }
}

PAYWASM_COMMAND(Command{"call", "send one request to the payment service (all six endpoints)", kUsage,
                        {"base-url", "token", "exchange", "public-key", "key-fingerprint", "padding", "timeout"},
                        {"dry-run"},
                        run_call})

}  // namespace
}  // namespace paywasm::cli
