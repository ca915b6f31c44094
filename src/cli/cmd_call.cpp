// `paywasm call <endpoint>`: validate the input JSON, encrypt where the endpoint needs it, send once,
// print the parsed answer as JSON. The whole path of one payment, top to bottom:
//   read input -> from_json<model> -> validate -> to_json (canonical) -> encrypt -> build request
//   -> transport::send -> parse_*_response -> to_json(result) on stdout.
#include <rapidjson/document.h>

#include <cstdio>
#include <cstdlib>
#include <optional>

#include "cli/cli.hpp"
#include "cli/transport.hpp"
#include "paywasm/codec.hpp"
#include "paywasm/crypto.hpp"
#include "paywasm/error.hpp"
#include "paywasm/protocol.hpp"
#include "paywasm/validate.hpp"

namespace paywasm::cli {
namespace {

constexpr std::string_view kUsage = R"(usage: paywasm call <endpoint> --base-url URL [options] [FILE|-]

Sends one request to the payment service and prints the parsed answer as JSON on stdout.
Failures print {"error":{...}} on stderr and exit 1; wrong usage exits 2. Requests are sent once,
never retried: after a timeout on a payment, check its status before sending it again.

endpoints and their input (FILE or standard input, JSON in the spec's shapes):
  exchange-pay          ExchangePayment plaintext; needs --exchange, --public-key, shopper token
  bank-pay              BankPayment plaintext (DEPRECATED endpoint); needs --public-key, shopper token
  users-me              no input; shopper token
  qr-generate           QrGenerateRequest (DEPRECATED endpoint); merchant access token
  subscription-debit    SubscriptionDebitRequest; merchantAuth taken from the input, or made from
                        its merchantId with --public-key when the input has none
  subscription-cancel   SubscriptionCancelRequest; merchantAuth as for debit

options:
  --base-url URL        the service address, e.g. https://api.example.com/api (http or https)
  --token TOKEN         bearer token (shopper or merchant); default: $PAYWASM_TOKEN, which keeps it
                        out of the process list
  --exchange NAME       coinbase | okcoin | kraken | gemini | binanceus
  --public-key PEM      the merchant's RSA public key (PEM or DER file)
  --key-fingerprint HEX refuse to encrypt unless the key's SHA-256 fingerprint is HEX
  --padding P           oaep-sha1 (default) | oaep-sha256 | pkcs1v15 (legacy)
  --timeout SECONDS     per connect/read/write, default 30
  --dry-run             print the request that would be sent (token redacted) and send nothing
)";

std::string token_from(const Args& args) {
    if (args.has("token")) return args.get("token");
    const char* env = std::getenv("PAYWASM_TOKEN");
    if (env && *env) return env;
    throw Error(ErrorCode::usage, "a bearer token is required: --token or $PAYWASM_TOKEN");
}

PublicKey key_from(const Args& args) {
    PublicKey key = PublicKey::parse(read_input(args.require("public-key")));
    if (args.has("key-fingerprint") && key.fingerprint() != args.get("key-fingerprint")) {
        throw Error(ErrorCode::key_mismatch, "the public key's fingerprint " + key.fingerprint() +
                                                 " is not the pinned " + args.get("key-fingerprint"));
    }
    return key;
}

// Subscription inputs may leave merchantAuth out; it is then made from their merchantId.
std::string with_merchant_auth(const std::string& input, const Args& args) {
    rapidjson::Document doc;
    doc.Parse<rapidjson::kParseIterativeFlag>(input.data(), input.size());  // iterative: no recursion on hostile nesting
    if (doc.HasParseError() || !doc.IsObject() || doc.HasMember("merchantAuth") || !args.has("public-key")) {
        return input;  // from_json reports whatever is wrong
    }
    auto id = doc.FindMember("merchantId");
    if (id == doc.MemberEnd() || !id->value.IsString()) fail_validation("merchantId", "is required");
    Padding padding = parse_padding(args.get("padding", "oaep-sha1"));
    std::string auth = merchant_auth(key_from(args), id->value.GetString(), padding);
    std::size_t open = input.find('{');
    std::size_t next = input.find_first_not_of(" \t\r\n", open + 1);
    std::string member = "\"merchantAuth\":" + json_quote(auth) + (input[next] == '}' ? "" : ",");
    return input.substr(0, open + 1) + member + input.substr(open + 1);
}

HttpRequest build(const EndpointInfo& ep, const Args& args) {
    const std::string input_path = args.positional().size() > 1 ? args.positional()[1] : "-";
    switch (ep.endpoint) {
        case Endpoint::exchange_payment: {
            std::string exchange = args.require("exchange");
            validate_exchange_name(exchange);
            auto payment = from_json<ExchangePayment>(read_input(input_path));
            validate(payment);
            std::string data = encrypt(key_from(args), to_json(payment), parse_padding(args.get("padding", "oaep-sha1")));
            return exchange_payment_request(exchange, data, token_from(args));
        }
        case Endpoint::bank_payment: {
            auto payment = from_json<BankPayment>(read_input(input_path));
            validate(payment);
            std::string data = encrypt(key_from(args), to_json(payment), parse_padding(args.get("padding", "oaep-sha1")));
            return bank_payment_request(data, token_from(args));
        }
        case Endpoint::users_me:
            return users_me_request(token_from(args));
        case Endpoint::qr_generate:
            return qr_generate_request(from_json<QrGenerateRequest>(read_input(input_path)), token_from(args));
        case Endpoint::subscription_debit:
            return subscription_debit_request(
                from_json<SubscriptionDebitRequest>(with_merchant_auth(read_input(input_path), args)));
        case Endpoint::subscription_cancel:
            return subscription_cancel_request(
                from_json<SubscriptionCancelRequest>(with_merchant_auth(read_input(input_path), args)));
    }
    throw Error(ErrorCode::usage, "unknown endpoint");
}

std::string parse(Endpoint endpoint, const HttpResponse& response) {
    switch (endpoint) {
        case Endpoint::exchange_payment:
        case Endpoint::bank_payment: return to_json(parse_payment_response(response));
        case Endpoint::users_me: return to_json(parse_users_me_response(response));
        case Endpoint::qr_generate: return to_json(parse_qr_generate_response(response));
        case Endpoint::subscription_debit: return to_json(parse_subscription_debit_response(response));
        case Endpoint::subscription_cancel: return to_json(parse_subscription_cancel_response(response));
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
        std::string out = parse(ep.endpoint, send(request, base_url, transport));
        std::printf("%s\n", out.c_str());
        return 0;
    } catch (const Error& e) {
        if (e.code() == ErrorCode::usage) throw;
        std::string json = "{\"error\":{\"code\":" + json_quote(to_string(e.code())) +
                           ",\"message\":" + json_quote(e.what());
        if (!e.field().empty()) json += ",\"field\":" + json_quote(e.field());
        if (e.http_status()) json += ",\"httpStatus\":" + std::to_string(e.http_status());
        std::fprintf(stderr, "%s}}\n", json.c_str());
        return 1;
    }
}

PAYWASM_COMMAND(Command{"call", "send one request to the payment service (all six endpoints)", kUsage,
                        {"base-url", "token", "exchange", "public-key", "key-fingerprint", "padding", "timeout"},
                        {"dry-run"},
                        run_call})

}  // namespace
}  // namespace paywasm::cli
