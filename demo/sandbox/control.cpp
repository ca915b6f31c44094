// The control API under /__sandbox/ (tests and the demo page; docs/sandbox.md), and the demo
// merchant's server side under /__sandbox/demo/: calls that need the merchant's secrets are made
// here, server-side, so the page never holds them.
#include <chrono>
#include <limits>
#include <memory>
#include <thread>

#include "paywasm/codec.hpp"
#include "paywasm/crypto.hpp"
#include "paywasm/error.hpp"
#include "paywasm/protocol.hpp"
#include "sandbox.hpp"
#include "util.hpp"

namespace sandbox {

namespace {

// An optional JSON object body: empty is {}, anything else must be application/json.
json optional_object(const httplib::Request& req, const std::string& body) {
    if (body.empty()) return json::object();
    return parse_object(req, body);
}

std::optional<int> opt_int(const json& obj, const char* name) {
    auto it = obj.find(name);
    if (it == obj.end() || it->is_null()) return std::nullopt;
    if (!it->is_number_integer()) throw HttpError(400, "validation", std::string(name) + ": must be an integer", name);
    return it->get<int>();
}

std::int64_t query_int(const httplib::Request& req, const char* name, std::int64_t fallback) {
    if (!req.has_param(name)) return fallback;
    try {
        return std::stoll(req.get_param_value(name));
    } catch (const std::exception&) {
        throw HttpError(400, "validation", std::string(name) + ": must be an integer", name);
    }
}

json merchant(Sandbox& sb) {
    auto url = sb.webhooks.url();
    return json{
        {"merchantId", sb.identity.merchant_id},
        {"publicKey", sb.identity.merchant_public_pem},
        {"merchantAccessToken", sb.identity.merchant_token},
        {"shopperToken", sb.identity.shopper_token},
        {"merchantAuth", sb.identity.merchant_auth},
        {"webhookPublicKey", sb.identity.webhook_public_pem},
        {"padding", sb.padding()},
        {"webhookUrl", url ? json(*url) : json(nullptr)},
        {"exchanges", sb.config.exchanges},
        {"speed", sb.config.speed},
        {"dataDir", sb.data_dir},
    };
}

// Relays an /api answer to the page as it came (status and body).
void relay(httplib::Response& res, const httplib::Result& result) {
    if (!result) {
        throw HttpError(502, "bad_gateway", "the sandbox API did not answer: " + httplib::to_string(result.error()));
    }
    res.status = result->status;
    res.set_content(result->body, result->get_header_value("Content-Type").empty()
                                      ? "application/json"
                                      : result->get_header_value("Content-Type"));
}

// What the merchant's status URL tells the page: status fields only. The page already has the
// order; the customer, the shipping address and the cart stay server-side.
json status_view(const json& entry) {
    const json& tx = entry["transaction"];
    return json{{"id", tx["id"]},
                {"status", tx["status"]},
                {"offerId", tx["meta"]["offerId"]},
                {"amount", tx["amount"]},
                {"receivedAmount", tx["receivedAmount"]},
                {"currency", tx["currency"]},
                {"nativeAmount", tx["nativeAmount"]},
                {"nativeCurrency", tx["nativeCurrency"]}};
}

std::string fresh_merchant_auth(Sandbox& sb) {
    std::string padding = sb.padding();
    return paywasm::merchant_auth(sb.identity.merchant_key.public_key(), sb.identity.merchant_id,
                                  paywasm::parse_padding(padding == "any" ? "oaep-sha1" : padding));
}

}  // namespace

void register_control(httplib::Server& server, Sandbox& sb) {
    const std::size_t limit = sb.config.max_body;
    using Req = const httplib::Request&;
    using Res = httplib::Response&;
    using Body = const std::string&;

    // ---- Merchant -------------------------------------------------------------------------------
    route(server, "GET", "/__sandbox/merchant", limit, [&sb](Req, Res res, Body) { send_json(res, 200, merchant(sb)); });
    route(server, "PUT", "/__sandbox/merchant", limit, [&sb](Req req, Res res, Body body) {
        json patch = parse_object(req, body);
        if (auto padding = opt_string(patch, "padding")) sb.set_padding(*padding);
        send_json(res, 200, merchant(sb));
    });

    // ---- Transactions ---------------------------------------------------------------------------
    route(server, "GET", "/__sandbox/transactions", limit, [&sb](Req, Res res, Body) { send_json(res, 200, sb.ledger.list()); });
    route(server, "GET", R"(/__sandbox/transactions/([^/]+))", limit, [&sb](Req req, Res res, Body) {
        auto entry = sb.ledger.get(req.matches[1]);
        if (!entry) throw HttpError(404, "not_found", "no transaction with this id");
        send_json(res, 200, *entry);
    });
    route(server, "POST", R"(/__sandbox/transactions/([^/]+)/advance)", limit, [&sb](Req req, Res res, Body body) {
        json opts = optional_object(req, body);
        send_json(res, 200, sb.ledger.advance(req.matches[1], opt_int(opts, "status"), opt_int(opts, "outcome")));
    });

    // ---- Subscriptions --------------------------------------------------------------------------
    route(server, "GET", "/__sandbox/subscriptions", limit,
          [&sb](Req, Res res, Body) { send_json(res, 200, sb.ledger.subscriptions()); });

    // ---- Shopper --------------------------------------------------------------------------------
    route(server, "GET", "/__sandbox/shopper", limit, [&sb](Req, Res res, Body) {
        auto err = sb.shopper.exchange_error();
        send_json(res, 200, json{{"profile", sb.shopper.profile(sb.identity.shopper_id)},
                                 {"exchangeError", err ? json(*err) : json(nullptr)}});
    });
    route(server, "PUT", "/__sandbox/shopper", limit, [&sb](Req req, Res res, Body body) {
        send_json(res, 200, sb.shopper.update(parse_object(req, body), sb.identity.shopper_id));
    });

    // ---- Faults ---------------------------------------------------------------------------------
    route(server, "POST", "/__sandbox/faults", limit,
          [&sb](Req req, Res res, Body body) { send_json(res, 201, sb.faults.add(parse_object(req, body))); });
    route(server, "GET", "/__sandbox/faults", limit, [&sb](Req, Res res, Body) { send_json(res, 200, sb.faults.list()); });
    route(server, "DELETE", "/__sandbox/faults", limit, [&sb](Req, Res res, Body) {
        sb.faults.clear();
        send_json(res, 200, json::array());
    });

    // ---- Webhooks -------------------------------------------------------------------------------
    route(server, "GET", "/__sandbox/webhook", limit, [&sb](Req, Res res, Body) {
        auto url = sb.webhooks.url();
        send_json(res, 200, json{{"url", url ? json(*url) : json(nullptr)}});
    });
    route(server, "PUT", "/__sandbox/webhook", limit, [&sb](Req req, Res res, Body body) {
        json in = parse_object(req, body);
        if (!in.contains("url")) throw HttpError(400, "validation", "url: is required (a URL, or null to stop)", "url");
        auto url = opt_string(in, "url");
        sb.webhooks.set_url(url && !url->empty() ? url : std::nullopt);
        auto now = sb.webhooks.url();
        send_json(res, 200, json{{"url", now ? json(*now) : json(nullptr)}});
    });
    route(server, "GET", "/__sandbox/webhooks", limit, [&sb](Req req, Res res, Body) {
        send_json(res, 200, sb.webhooks.log(query_int(req, "since", 0), static_cast<int>(query_int(req, "limit", 500))));
    });

    // ---- The demo merchant's server side ----------------------------------------------------------
    // What the page may know: no merchant token, no merchantAuth.
    route(server, "GET", "/__sandbox/demo/session", limit, [&sb](Req, Res res, Body) {
        send_json(res, 200, json{{"merchantId", sb.identity.merchant_id},
                                 {"publicKey", sb.identity.merchant_public_pem},
                                 {"shopperToken", sb.identity.shopper_token},
                                 {"exchanges", sb.config.exchanges},
                                 {"padding", sb.padding()}});
    });
    route(server, "GET", "/__sandbox/demo/merchant-public-key.pem", limit, [&sb](Req, Res res, Body) {
        res.set_content(sb.identity.merchant_public_pem, "application/x-pem-file");
    });
    // The merchant creates QR transactions with its token; the widget POSTs its order here
    // ({offerId, amount, currency, cryptoCurrency, cart, shippingAddress}), which becomes a QR
    // generate request: orderId from offerId, the QR cart form, customerInfo from the address.
    route(server, "POST", "/__sandbox/demo/qr", limit, [&sb](Req req, Res res, Body body) {
        json order = parse_object(req, body);
        json profile = sb.shopper.profile(sb.identity.shopper_id);
        json address = order.value("shippingAddress", json::object());
        if (!address.is_object()) address = json::object();
        std::string name = address.value("firstname", "");
        if (!address.value("lastname", "").empty()) name += (name.empty() ? "" : " ") + address.value("lastname", "");
        json cart = json::array();
        if (order.contains("cart") && order["cart"].is_array()) {
            for (const json& item : order["cart"]) {
                json line = json::object();
                for (const char* key : {"id", "name", "price", "quantity", "isSubscription", "frequency",
                                        "subscriptionPeriod", "merchantSubscriptionId"}) {
                    if (item.is_object() && item.contains(key)) line[key] = item[key];
                }
                cart.push_back(line);
            }
        }
        json request = {
            {"amount", order.value("amount", json("0"))},
            {"currency", order.value("currency", json("USD"))},
            {"cryptoCurrency", order.value("cryptoCurrency", json("BTC"))},
            {"orderId", order.value("orderId", order.value("offerId", json("qr-" + random_hex(6))))},
            {"cart", cart},
            {"customerInfo",
             {{"name", name.empty() ? profile.value("fullname", "Sandbox Shopper") : name},
              {"email", address.value("email", "").empty() ? profile.value("email", "shopper@example.com")
                                                           : address.value("email", "")}}},
        };
        if (request["orderId"] == "") request["orderId"] = "qr-" + random_hex(6);
        relay(res, sb.call_api("POST", "/purchase/qr/generate", request.dump(),
                               {{"Authorization", "Bearer " + sb.identity.merchant_token},
                                {"x-transaction-source", "qr-code-api"}}));
    });
    // The merchant's status URL for the widget: the transaction as the merchant knows it, as JSON,
    // or with Accept: text/event-stream as server-sent events (one per change, until final).
    route(server, "GET", R"(/__sandbox/demo/status/([^/]+))", limit, [&sb](Req req, Res res, Body) {
        const std::string id = req.matches[1];
        auto entry = sb.ledger.get(id);
        if (!entry) throw HttpError(404, "not_found", "no transaction with this id");
        if (req.get_header_value("Accept").find("text/event-stream") == std::string::npos) {
            return send_json(res, 200, status_view(*entry));
        }
        auto last = std::make_shared<int>(std::numeric_limits<int>::min());
        const std::int64_t deadline = now_ms() + 10 * 60 * 1000;
        res.set_header("Cache-Control", "no-store");
        res.set_chunked_content_provider("text/event-stream", [&sb, id, last, deadline](std::size_t, httplib::DataSink& sink) {
            auto current = sb.ledger.get(id);
            if (!current) {
                sink.done();
                return true;
            }
            const int status = (*current)["status"].get<int>();
            if (status != *last) {
                *last = status;
                const std::string event = "data: " + status_view(*current).dump() + "\n\n";
                if (!sink.write(event.data(), event.size())) return false;
            }
            if (paywasm::describe_status(status).final || now_ms() > deadline) {
                sink.done();
                return true;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(250));
            return sink.is_writable();
        });
    });
    route(server, "POST", R"(/__sandbox/demo/subscriptions/([^/]+)/debit)", limit, [&sb](Req req, Res res, Body body) {
        json opts = optional_object(req, body);
        const std::string id = req.matches[1];
        json item = {{"subscriptionId", id}};
        json subs = sb.ledger.subscriptions();
        for (const json& s : subs) {
            if (s["id"] == id) {
                item["amount"] = std::stod(s["amount"].get<std::string>());
                item["currency"] = s["currency"];
            }
        }
        if (opts.contains("amount")) item["amount"] = opts["amount"];
        if (!item.contains("amount")) {  // unknown id: let the service say so
            item["amount"] = 1;
            item["currency"] = "USD";
        }
        json request = {{"merchantAuth", fresh_merchant_auth(sb)},
                        {"merchantId", sb.identity.merchant_id},
                        {"orderId", opts.value("orderId", "debit-" + random_hex(6))},
                        {"items", json::array({item})}};
        // The merchant's token too: what a --strict sandbox (and a careful service) asks for.
        relay(res, sb.call_api("POST", "/subscription/debit", request.dump(),
                               {{"Authorization", "Bearer " + sb.identity.merchant_token}}));
    });
    route(server, "POST", R"(/__sandbox/demo/subscriptions/([^/]+)/cancel)", limit, [&sb](Req req, Res res, Body) {
        json request = {{"merchantId", sb.identity.merchant_id},
                        {"merchantAuth", fresh_merchant_auth(sb)},
                        {"subscriptionId", std::string(req.matches[1])}};
        relay(res, sb.call_api("POST", "/subscription/cancel", request.dump(),
                               {{"Authorization", "Bearer " + sb.identity.merchant_token}}));
    });
    // The demo merchant's webhook receiver: answers GET (the service checks the URL), verifies each
    // POST's signature over data.data with the webhook public key, and keeps what it got.
    route(server, "GET", "/__sandbox/demo/webhook", limit, [](Req, Res res, Body) {
        send_json(res, 200, json{{"ok", true}});
    });
    route(server, "POST", "/__sandbox/demo/webhook", limit, [&sb](Req req, Res res, Body body) {
        json event = parse_object(req, body);
        bool verified = false;
        if (event.contains("data") && event["data"].is_object() && event["data"].contains("data") &&
            event["data"]["data"].is_string() && event.contains("signature") && event["signature"].is_string()) {
            verified = paywasm::verify_sha256(sb.identity.webhook_key.public_key(),
                                              event["data"]["data"].get<std::string>(),
                                              event["signature"].get<std::string>());
        }
        {
            auto lk = sb.db.lock();
            Stmt s(sb.db, "INSERT INTO demo_received (at, verified, body) VALUES (?, ?, ?)");
            s.bind(1, now_ms()).bind(2, verified ? 1 : 0).bind(3, body).run();
        }
        if (!verified) throw HttpError(400, "bad_signature", "the signature does not verify over data.data");
        send_json(res, 200, json{{"ok", true}});
    });
    route(server, "GET", "/__sandbox/demo/received", limit, [&sb](Req req, Res res, Body) {
        auto lk = sb.db.lock();
        Stmt s(sb.db, "SELECT seq, at, verified, body FROM demo_received WHERE seq > ? ORDER BY seq LIMIT 200");
        s.bind(1, query_int(req, "since", 0));
        json out = json::array();
        while (s.step()) {
            json event = read_json_or_null(s.text(3));
            json tx = nullptr;
            // Trust only what the signature covers: the transaction parsed from data.data.
            if (s.integer(2) && event.is_object()) tx = read_json_or_null(event["data"]["data"].get<std::string>());
            out.push_back({{"id", s.integer(0)},
                           {"receivedAt", iso8601(s.integer(1))},
                           {"verified", s.integer(2) != 0},
                           {"transaction", tx.is_discarded() ? json(nullptr) : tx}});
        }
        send_json(res, 200, out);
    });

    // ---- Anything else under /__sandbox ---------------------------------------------------------
    for (const char* method : {"GET", "POST", "PUT", "DELETE"}) {
        route(server, method, "/__sandbox/.*", limit, [](Req req, Res res, Body) {
            send_error(res, 404, "not_found", "no control endpoint " + req.method + " " + req.path.substr(0, 200));
        });
    }
}

}  // namespace sandbox
