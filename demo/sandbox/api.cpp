// The six endpoints of the payment service under /api, with the service's credentials, the core's
// decryption and validation rules, and the faults the control API queued.
#include <chrono>
#include <thread>

#include "decode.hpp"
#include "market.hpp"
#include "paywasm/codec.hpp"
#include "paywasm/crypto.hpp"
#include "paywasm/error.hpp"
#include "paywasm/validate.hpp"
#include "sandbox.hpp"
#include "http.hpp"
#include "paywasm/text.hpp"

namespace sandbox {

namespace {

[[noreturn]] void unauthorized(const std::string& message) { throw HttpError(401, "unauthorized", message); }

void require_shopper(Sandbox& sb, const Request& req) {
    const std::string token = bearer_token(req);
    if (token.empty()) unauthorized("missing Authorization: Bearer <shopper access token>");
    if (paywasm::constant_time_equal(token, sb.identity.merchant_token)) {
        unauthorized("this endpoint takes the shopper access token, not the merchant access token");
    }
    if (!paywasm::constant_time_equal(token, sb.identity.shopper_token)) unauthorized("invalid shopper access token");
}

void require_merchant_token(Sandbox& sb, const Request& req) {
    const std::string token = bearer_token(req);
    if (token.empty()) unauthorized("missing Authorization: Bearer <merchant access token>");
    if (!paywasm::constant_time_equal(token, sb.identity.merchant_token)) unauthorized("invalid merchant access token");
    if (req.get_header_value("x-transaction-source") != "qr-code-api") {
        unauthorized("the x-transaction-source header must be qr-code-api");
    }
}

// merchantId + merchantAuth in the body (decode.hpp); with --strict, the merchant access token as
// well (merchantAuth is made from public data: SECURITY.md).
void require_merchant_auth(Sandbox& sb, const Request& req, JsonValue body) {
    if (sb.config.strict) {
        const std::string token = bearer_token(req);
        if (token.empty()) unauthorized("missing Authorization: Bearer <merchant access token> (the sandbox runs --strict)");
        if (!paywasm::constant_time_equal(token, sb.identity.merchant_token)) unauthorized("invalid merchant access token");
    }
    check_merchant_auth(body, sb.identity.merchant_key, sb.padding(), sb.identity.merchant_id);
}

// A string member of the shopper's profile (JSON text), or "".
std::string profile_string(const std::string& profile, const char* name) {
    const JsonDocument doc = paywasm::parse_json(profile);
    return string_or(doc.root().member(name));
}

std::string customer_name(const paywasm::ShippingAddress& a, const std::string& profile) {
    std::string name = a.firstname.value_or("");
    if (a.lastname && !a.lastname->empty()) name += (name.empty() ? "" : " ") + *a.lastname;
    return name.empty() ? profile_string(profile, "fullname") : name;
}

// {"ok": true, "result": <JSON text>}
std::string ok_result(const std::string& result) {
    return JsonWriter().begin_object().flag("ok", true).raw("result", result).end_object().take();
}

// {"status": 200, "result": <JSON text>}
std::string status_result(const std::string& result) {
    return JsonWriter().begin_object().num("status", 200).raw("result", result).end_object().take();
}

void check_client_id(Sandbox& sb, const std::string& client_id) {
    if (client_id != sb.identity.merchant_id) {
        throw HttpError(400, "validation", "clientId: is not the merchant id of the key the data was encrypted to",
                        "clientId");
    }
}

void send_replay(Response& res, const std::string& body) {
    res.set_header("Idempotent-Replayed", "true");
    send_json(res, 200, body);
}

// Runs an endpoint with the transport faults of `endpoint` around it.
void with_faults(Sandbox& sb, const std::string& endpoint, Response& res,
                 const std::function<void()>& body) {
    std::optional<Fault> fault = sb.faults.take(endpoint, false);
    if (fault && fault->kind == "500") {
        send_error(res, 500, "server_error", "simulated internal server error (sandbox fault)");
        return;
    }
    if (fault && fault->kind == "latency") std::this_thread::sleep_for(std::chrono::milliseconds(fault->ms));
    guard(res, body);
    if (fault && fault->kind == "malformed-json") {
        std::string text = res.body;
        res.set_content(text.substr(0, text.size() / 2), "application/json");
    }
    if (fault && fault->kind == "drop") drop_connection(res);
}

// A queued error-41x fault, or the shopper's sticky exchangeError: answer it and return true.
bool exchange_error(Sandbox& sb, const std::string& endpoint, const std::string& exchange, Response& res) {
    if (auto fault = sb.faults.take(endpoint, true)) {
        send_exchange_error(res, std::stoi(fault->kind.substr(6)), fault->form, exchange);
        return true;
    }
    if (endpoint == "exchange-pay") {
        if (auto code = sb.shopper.exchange_error()) {
            send_exchange_error(res, *code, "body", exchange);
            return true;
        }
    }
    return false;
}

// Decrypts, reads and validates a payment body, and checks its clientId. Under PKCS#1 v1.5 every
// failure from `data` on (decryption, JSON, the model, validation, clientId) is one answer:
// otherwise the differences would be a padding oracle (decode.hpp).
template <class T>
T read_payload(Sandbox& sb, const Request& req, const std::string& body, std::string& plaintext,
               std::string& padding) {
    const std::string setting = sb.padding();
    if (!one_answer(setting)) {
        T payload = decode_payment<T>(req, body, sb.identity.merchant_key, setting, sb.limits, plaintext, padding);
        check_client_id(sb, payload.client_id);
        return payload;
    }
    need_string(parse_object(req, body).root(), "data");  // what comes before `data` keeps its own answers
    try {
        T payload = decode_payment<T>(req, body, sb.identity.merchant_key, setting, sb.limits, plaintext, padding);
        check_client_id(sb, payload.client_id);
        return payload;
    } catch (const std::exception&) {
        throw one_answer_error("data");
    }
}

// The idempotency scope of a shopper payment: the shopper and the exact plaintext.
void set_idempotency(Sandbox& sb, NewPayment& p, const std::string& plaintext) {
    p.payer = "shopper:" + sb.identity.shopper_id;
    p.request_hash = paywasm::sha256_hex(plaintext);
}

}  // namespace

void register_api(Router& server, Sandbox& sb) {
    const std::size_t limit = sb.config.max_body;

    // ---- 1. POST /purchase/qr/generate (merchant token + x-transaction-source) ----
    server.route("POST", "/api/purchase/qr/generate", limit,
          [&sb](const Request& req, Response& res, const std::string& body) {
              with_faults(sb, "qr-generate", res, [&] {
                  require_merchant_token(sb, req);
                  parse_object(req, body);
                  auto request = paywasm::from_json<paywasm::QrGenerateRequest>(body);
                  paywasm::validate(request, sb.limits);
                  const std::string payer = "merchant:" + sb.identity.merchant_id;
                  const std::string request_hash = paywasm::sha256_hex(body);
                  if (auto existing = sb.ledger.find_payment(request.order_id)) {
                      if (existing->qr_result.empty()) {
                          throw HttpError(409, "conflict", "orderId: is already used by a payment that is not a QR payment",
                                          "orderId");
                      }
                      Ledger::replay_or_conflict(*existing, payer, request_hash);
                      return send_replay(res, ok_result(existing->qr_result));
                  }
                  if (exchange_error(sb, "qr-generate", "", res)) return;
                  if (!find_coin(request.crypto_currency)) {
                      throw HttpError(400, "validation",
                                      "cryptoCurrency: " + request.crypto_currency + " is not supported by the sandbox",
                                      "cryptoCurrency");
                  }
                  NewPayment p;
                  p.kind = "qr";
                  p.offer_id = request.order_id;
                  p.native_amount = request.amount;
                  p.native_currency = request.currency;
                  p.asset = request.crypto_currency;
                  p.cart = request.cart;
                  p.customer_email = request.customer_info.email;
                  p.customer_name = request.customer_info.name;
                  p.plaintext = body;
                  p.payer = payer;
                  p.request_hash = request_hash;
                  Payment payment = sb.ledger.create(p);
                  if (payment.replayed) return send_replay(res, ok_result(payment.qr_result));
                  send_json(res, 200, ok_result(payment.qr_result));
              });
          });

    // ---- 2. POST /exchanges/payments/{exchange_name} (shopper token, encrypted data) ----
    server.route("POST", R"(/api/exchanges/payments/([^/]*))", limit,
          [&sb](const Request& req, Response& res, const std::string& body) {
              with_faults(sb, "exchange-pay", res, [&] {
                  require_shopper(sb, req);
                  const std::string exchange = req.matches[1];
                  try {
                      paywasm::validate_exchange_name(exchange, sb.limits);
                  } catch (const paywasm::Error& e) {
                      throw HttpError(404, "unknown_exchange", e.what(), "exchange");
                  }
                  std::string plaintext, padding;
                  auto payload = read_payload<paywasm::ExchangePayment>(sb, req, body, plaintext, padding);
                  NewPayment p;
                  set_idempotency(sb, p, plaintext);
                  if (auto existing = sb.ledger.find_payment(payload.offer_id)) {
                      return send_replay(res, Ledger::replay_or_conflict(*existing, p.payer, p.request_hash).transaction);
                  }
                  if (exchange_error(sb, "exchange-pay", exchange, res)) return;
                  if (!find_coin(payload.assets)) {
                      return send_exchange_error(res, 421, "body", exchange);
                  }
                  const std::string profile = sb.shopper.profile(sb.identity.shopper_id);
                  p.kind = "exchange";
                  p.exchange = exchange;
                  p.offer_id = payload.offer_id;
                  p.native_amount = *payload.native_amount;  // validate() (read_payload) requires it
                  p.native_currency = payload.merchant_store_currency;
                  p.asset = payload.assets;
                  p.cart = payload.cart;
                  p.shipping = payload.shipping_address;
                  p.customer_email = payload.shipping_address.email.value_or(profile_string(profile, "email"));
                  p.customer_name = customer_name(payload.shipping_address, profile);
                  p.user_id = sb.identity.shopper_id;
                  p.plaintext = plaintext;
                  p.padding = padding;
                  Payment payment = sb.ledger.create(p);
                  if (payment.replayed) return send_replay(res, payment.transaction);
                  send_json(res, 200, payment.transaction);
              });
          });

    // ---- 3. POST /purchases (shopper token, encrypted data; DEPRECATED) ----
    server.route("POST", "/api/purchases", limit,
          [&sb](const Request& req, Response& res, const std::string& body) {
              with_faults(sb, "bank-pay", res, [&] {
                  require_shopper(sb, req);
                  std::string plaintext, padding;
                  auto payload = read_payload<paywasm::BankPayment>(sb, req, body, plaintext, padding);
                  NewPayment p;
                  set_idempotency(sb, p, plaintext);
                  if (auto existing = sb.ledger.find_payment(payload.offer_id)) {
                      return send_replay(res, Ledger::replay_or_conflict(*existing, p.payer, p.request_hash).transaction);
                  }
                  if (exchange_error(sb, "bank-pay", "", res)) return;
                  const std::string profile = sb.shopper.profile(sb.identity.shopper_id);
                  p.kind = "bank";
                  p.offer_id = payload.offer_id;
                  p.native_amount = *payload.amount;  // validate() (read_payload) requires it
                  p.native_currency = payload.merchant_store_currency;
                  p.asset = payload.merchant_store_currency;
                  p.cart = payload.cart;
                  p.shipping = payload.shipping_address;
                  p.customer_email = payload.shipping_address.email.value_or(profile_string(profile, "email"));
                  p.customer_name = customer_name(payload.shipping_address, profile);
                  p.user_id = sb.identity.shopper_id;
                  p.stock_id = payload.stock_id;
                  p.account_id = payload.account_id;
                  p.plaintext = plaintext;
                  p.padding = padding;
                  Payment payment = sb.ledger.create(p);
                  if (payment.replayed) return send_replay(res, payment.transaction);
                  send_json(res, 200, payment.transaction);
              });
          });

    // ---- 4. GET /users/me (shopper token) ----
    server.route("GET", "/api/users/me", limit,
          [&sb](const Request& req, Response& res, const std::string&) {
              with_faults(sb, "users-me", res, [&] {
                  require_shopper(sb, req);
                  if (exchange_error(sb, "users-me", "", res)) return;
                  send_json(res, 200, ok_result(sb.shopper.profile(sb.identity.shopper_id)));
              });
          });

    // ---- 5. POST /subscription/debit (merchantAuth + merchantId) ----
    server.route("POST", "/api/subscription/debit", limit,
          [&sb](const Request& req, Response& res, const std::string& body) {
              with_faults(sb, "subscription-debit", res, [&] {
                  const JsonDocument outer = parse_object(req, body);
                  require_merchant_auth(sb, req, outer.root());
                  auto request = paywasm::from_json<paywasm::SubscriptionDebitRequest>(body);
                  paywasm::validate(request, sb.limits);
                  if (exchange_error(sb, "subscription-debit", "", res)) return;
                  send_json(res, 200, status_result(sb.ledger.debit(request)));
              });
          });

    // ---- 6. POST /subscription/cancel (merchantAuth + merchantId) ----
    server.route("POST", "/api/subscription/cancel", limit,
          [&sb](const Request& req, Response& res, const std::string& body) {
              with_faults(sb, "subscription-cancel", res, [&] {
                  const JsonDocument outer = parse_object(req, body);
                  require_merchant_auth(sb, req, outer.root());
                  auto request = paywasm::from_json<paywasm::SubscriptionCancelRequest>(body);
                  paywasm::validate(request, sb.limits);
                  if (exchange_error(sb, "subscription-cancel", "", res)) return;
                  const bool cancelled = sb.ledger.cancel(request.subscription_id);
                  JsonWriter result;
                  result.begin_object().flag("success", cancelled);
                  if (!cancelled) result.str("message", "the subscription is not active (already cancelled, or its order's payment failed)");
                  result.end_object();
                  send_json(res, 200, status_result(result.text()));
              });
          });

    // ---- Anything else under /api, and CORS preflight ----
    for (const char* method : {"GET", "POST", "PUT", "DELETE"}) {
        server.route(method, "/api/.*", limit, [](const Request& req, Response& res, const std::string&) {
            send_error(res, 404, "not_found", "no endpoint " + paywasm::escape_untrusted(req.method, 32) + " " + paywasm::escape_untrusted(req.path, 200));
        });
    }
    server.route("OPTIONS", R"(/api/.*)", limit, [](const Request&, Response& res, const std::string&) {
        res.status = 204;
        res.set_header("Access-Control-Allow-Methods", "GET, POST, OPTIONS");
        res.set_header("Access-Control-Allow-Headers", "Authorization, Content-Type, x-transaction-source");
        res.set_header("Access-Control-Max-Age", "600");
    });
}

}  // namespace sandbox
