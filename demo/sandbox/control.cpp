// The control API under /__sandbox/ (tests and the demo page; docs/sandbox.md), and the demo
// merchant's server side under /__sandbox/demo/: calls that need the merchant's secrets are made
// here, server-side, so the page never holds them.
#include <charconv>
#include <chrono>
#include <climits>
#include <limits>
#include <memory>
#include <thread>

#include "paywasm/codec.hpp"
#include "paywasm/crypto.hpp"
#include "paywasm/error.hpp"
#include "paywasm/protocol.hpp"
#include "sandbox.hpp"
#include "http.hpp"

namespace sandbox {

namespace {

// An optional JSON object body: empty is {}, anything else must be application/json.
JsonDocument optional_object(const httplib::Request& req, const std::string& body) {
    if (body.empty()) return paywasm::parse_json("{}");
    return parse_object(req, body);
}

std::optional<int> opt_int(JsonValue obj, const char* name) {
    auto v = opt_member(obj, name);
    if (!v) return std::nullopt;
    std::optional<long long> n = v->is_number() ? v->integer() : std::nullopt;
    if (!n || *n < INT_MIN || *n > INT_MAX) {
        throw HttpError(400, "validation", std::string(name) + ": must be an integer", name);
    }
    return static_cast<int>(*n);
}

JsonWriter& string_or_null(JsonWriter& w, const std::optional<std::string>& v) { return v ? w.string(*v) : w.null(); }

// A double as the shortest text that reads back the same (what JSON.stringify writes).
std::string double_text(double v) {
    char buf[64];
    auto r = std::to_chars(buf, buf + sizeof buf, v);
    return std::string(buf, r.ptr);
}

std::int64_t query_int(const httplib::Request& req, const char* name, std::int64_t fallback) {
    if (!req.has_param(name)) return fallback;
    try {
        return std::stoll(req.get_param_value(name));
    } catch (const std::exception&) {
        throw HttpError(400, "validation", std::string(name) + ": must be an integer", name);
    }
}

JsonWriter& string_array(JsonWriter& w, const std::vector<std::string>& items) {
    w.begin_array();
    for (const auto& item : items) w.string(item);
    return w.end_array();
}

std::string merchant(Sandbox& sb) {
    JsonWriter w;
    w.begin_object()
        .str("merchantId", sb.identity.merchant_id)
        .str("publicKey", sb.identity.merchant_public_pem)
        .str("merchantAccessToken", sb.identity.merchant_token)
        .str("shopperToken", sb.identity.shopper_token)
        .str("merchantAuth", sb.identity.merchant_auth)
        .str("webhookPublicKey", sb.identity.webhook_public_pem)
        .str("padding", sb.padding());
    w.key("webhookUrl");
    string_or_null(w, sb.webhooks.url());
    w.key("exchanges");
    string_array(w, sb.config.exchanges);
    w.raw("speed", double_text(sb.config.speed)).str("dataDir", sb.data_dir).end_object();
    return w.take();
}

std::string webhook_url(Sandbox& sb) {
    JsonWriter w;
    w.begin_object().key("url");
    string_or_null(w, sb.webhooks.url());
    return w.end_object().take();
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
std::string status_view(JsonValue tx) {
    JsonWriter w;
    w.begin_object();
    w.key("id").value(tx.member("id"));
    w.key("status").value(tx.member("status"));
    w.key("offerId").value(tx.member("meta").member("offerId"));
    for (const char* name : {"amount", "receivedAmount", "currency", "nativeAmount", "nativeCurrency"}) {
        w.key(name).value(tx.member(name));
    }
    return w.end_object().take();
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
        const JsonDocument patch = parse_object(req, body);
        if (auto padding = opt_string(patch.root(), "padding")) sb.set_padding(*padding);
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
        const JsonDocument opts = optional_object(req, body);
        send_json(res, 200,
                  sb.ledger.advance(req.matches[1], opt_int(opts.root(), "status"), opt_int(opts.root(), "outcome")));
    });

    // ---- Subscriptions --------------------------------------------------------------------------
    route(server, "GET", "/__sandbox/subscriptions", limit,
          [&sb](Req, Res res, Body) { send_json(res, 200, sb.ledger.subscriptions()); });

    // ---- Shopper --------------------------------------------------------------------------------
    route(server, "GET", "/__sandbox/shopper", limit,
          [&sb](Req, Res res, Body) { send_json(res, 200, sb.shopper.state(sb.identity.shopper_id)); });
    route(server, "PUT", "/__sandbox/shopper", limit, [&sb](Req req, Res res, Body body) {
        const JsonDocument patch = parse_object(req, body);
        send_json(res, 200, sb.shopper.update(patch.root(), sb.identity.shopper_id));
    });

    // ---- Faults ---------------------------------------------------------------------------------
    route(server, "POST", "/__sandbox/faults", limit,
          [&sb](Req req, Res res, Body body) { send_json(res, 201, sb.faults.add(parse_object(req, body).root())); });
    route(server, "GET", "/__sandbox/faults", limit, [&sb](Req, Res res, Body) { send_json(res, 200, sb.faults.list()); });
    route(server, "DELETE", "/__sandbox/faults", limit, [&sb](Req, Res res, Body) {
        sb.faults.clear();
        send_json(res, 200, "[]");
    });

    // ---- Webhooks -------------------------------------------------------------------------------
    route(server, "GET", "/__sandbox/webhook", limit, [&sb](Req, Res res, Body) { send_json(res, 200, webhook_url(sb)); });
    route(server, "PUT", "/__sandbox/webhook", limit, [&sb](Req req, Res res, Body body) {
        const JsonDocument in = parse_object(req, body);
        if (!in.root().member("url").valid()) {
            throw HttpError(400, "validation", "url: is required (a URL, or null to stop)", "url");
        }
        auto url = opt_string(in.root(), "url");
        sb.webhooks.set_url(url && !url->empty() ? url : std::nullopt);
        send_json(res, 200, webhook_url(sb));
    });
    route(server, "GET", "/__sandbox/webhooks", limit, [&sb](Req req, Res res, Body) {
        send_json(res, 200, sb.webhooks.log(query_int(req, "since", 0), static_cast<int>(query_int(req, "limit", 500))));
    });

    // ---- The demo merchant's server side ----------------------------------------------------------
    // What the page may know: no merchant token, no merchantAuth.
    route(server, "GET", "/__sandbox/demo/session", limit, [&sb](Req, Res res, Body) {
        JsonWriter w;
        w.begin_object()
            .str("merchantId", sb.identity.merchant_id)
            .str("publicKey", sb.identity.merchant_public_pem)
            .str("shopperToken", sb.identity.shopper_token)
            .key("exchanges");
        string_array(w, sb.config.exchanges);
        w.str("padding", sb.padding()).end_object();
        send_json(res, 200, w.text());
    });
    route(server, "GET", "/__sandbox/demo/merchant-public-key.pem", limit, [&sb](Req, Res res, Body) {
        res.set_content(sb.identity.merchant_public_pem, "application/x-pem-file");
    });
    // The merchant creates QR transactions with its token; the widget POSTs its order here
    // ({offerId, amount, currency, cryptoCurrency, cart, shippingAddress}), which becomes a QR
    // generate request: orderId from offerId, the QR cart form, customerInfo from the address.
    route(server, "POST", "/__sandbox/demo/qr", limit, [&sb](Req req, Res res, Body body) {
        const JsonDocument doc = parse_object(req, body);
        const JsonValue order = doc.root();
        const JsonDocument profile = paywasm::parse_json(sb.shopper.profile(sb.identity.shopper_id));
        const JsonValue address = order.member("shippingAddress");  // not an object: no members
        std::string name = string_or(address.member("firstname"));
        const std::string lastname = string_or(address.member("lastname"));
        if (!lastname.empty()) name += (name.empty() ? "" : " ") + lastname;
        if (name.empty()) name = string_or(profile.root().member("fullname"), "Sandbox Shopper");
        std::string email = string_or(address.member("email"));
        if (email.empty()) email = string_or(profile.root().member("email"), "shopper@example.com");

        JsonWriter request;
        request.begin_object();
        auto member_or = [&](const char* key, JsonValue v, const std::string& fallback) {
            request.key(key);
            if (v.valid()) request.value(v);
            else request.string(fallback);
        };
        member_or("amount", order.member("amount"), "0");
        member_or("currency", order.member("currency"), "USD");
        member_or("cryptoCurrency", order.member("cryptoCurrency"), "BTC");
        JsonValue order_id = order.member("orderId");
        if (!order_id.valid()) order_id = order.member("offerId");
        if (order_id.valid() && !(order_id.is_string() && order_id.text().empty())) member_or("orderId", order_id, "");
        else request.str("orderId", "qr-" + random_hex(6));
        request.key("cart").begin_array();
        if (JsonValue cart = order.member("cart"); has_kind(cart, paywasm::JsonKind::array)) {
            for (JsonValue item : cart.children()) {
                request.begin_object();
                for (const char* key : {"id", "name", "price", "quantity", "isSubscription", "frequency",
                                        "subscriptionPeriod", "merchantSubscriptionId"}) {
                    if (JsonValue v = item.member(key); v.valid()) request.key(key).value(v);
                }
                request.end_object();
            }
        }
        request.end_array();
        request.key("customerInfo").begin_object().str("name", name).str("email", email).end_object();
        request.end_object();
        relay(res, sb.call_api("POST", "/purchase/qr/generate", request.text(),
                               {{"Authorization", "Bearer " + sb.identity.merchant_token},
                                {"x-transaction-source", "qr-code-api"}}));
    });
    // The merchant's status URL for the widget: the transaction as the merchant knows it, as JSON,
    // or with Accept: text/event-stream as server-sent events (one per change, until final).
    route(server, "GET", R"(/__sandbox/demo/status/([^/]+))", limit, [&sb](Req req, Res res, Body) {
        const std::string id = req.matches[1];
        auto tx = sb.ledger.transaction(id);
        if (!tx) throw HttpError(404, "not_found", "no transaction with this id");
        if (req.get_header_value("Accept").find("text/event-stream") == std::string::npos) {
            const JsonDocument doc = paywasm::parse_json(*tx);
            return send_json(res, 200, status_view(doc.root()));
        }
        auto last = std::make_shared<int>(std::numeric_limits<int>::min());
        const std::int64_t deadline = now_ms() + 10 * 60 * 1000;
        res.set_header("Cache-Control", "no-store");
        res.set_chunked_content_provider("text/event-stream", [&sb, id, last, deadline](std::size_t, httplib::DataSink& sink) {
            auto current = sb.ledger.transaction(id);
            if (!current) {
                sink.done();
                return true;
            }
            const JsonDocument doc = paywasm::parse_json(*current);
            const int status = static_cast<int>(doc.root().member("status").integer().value_or(0));
            if (status != *last) {
                *last = status;
                const std::string event = "data: " + status_view(doc.root()) + "\n\n";
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
        const JsonDocument opts = optional_object(req, body);
        const std::string id = req.matches[1];
        // The subscription's own price and currency (an unknown id: 1 USD, and the service says so).
        std::string amount = "1", currency = "USD";
        const JsonDocument subs = paywasm::parse_json(sb.ledger.subscriptions());
        for (JsonValue sub : subs.root().children()) {
            if (sub.member("id").text() == id) {
                amount = json_number(sub.member("amount").text());
                currency = std::string(sub.member("currency").text());
            }
        }
        JsonWriter request;
        request.begin_object().str("merchantAuth", fresh_merchant_auth(sb)).str("merchantId", sb.identity.merchant_id);
        if (JsonValue order_id = opts.root().member("orderId"); order_id.valid()) request.key("orderId").value(order_id);
        else request.str("orderId", "debit-" + random_hex(6));
        request.key("items").begin_array().begin_object().str("subscriptionId", id);
        if (JsonValue a = opts.root().member("amount"); a.valid()) request.key("amount").value(a);
        else request.raw("amount", amount);
        request.str("currency", currency).end_object().end_array().end_object();
        // The merchant's token too: what a --strict sandbox (and a careful service) asks for.
        relay(res, sb.call_api("POST", "/subscription/debit", request.text(),
                               {{"Authorization", "Bearer " + sb.identity.merchant_token}}));
    });
    route(server, "POST", R"(/__sandbox/demo/subscriptions/([^/]+)/cancel)", limit, [&sb](Req req, Res res, Body) {
        JsonWriter request;
        request.begin_object()
            .str("merchantId", sb.identity.merchant_id)
            .str("merchantAuth", fresh_merchant_auth(sb))
            .str("subscriptionId", std::string(req.matches[1]))
            .end_object();
        relay(res, sb.call_api("POST", "/subscription/cancel", request.text(),
                               {{"Authorization", "Bearer " + sb.identity.merchant_token}}));
    });
    // The demo merchant's webhook receiver: answers GET (the service checks the URL), verifies each
    // POST's signature over data.data with the webhook public key, and keeps what it got.
    route(server, "GET", "/__sandbox/demo/webhook", limit, [](Req, Res res, Body) {
        send_json(res, 200, R"({"ok":true})");
    });
    route(server, "POST", "/__sandbox/demo/webhook", limit, [&sb](Req req, Res res, Body body) {
        const JsonDocument doc = parse_object(req, body);
        const JsonValue signed_text = doc.root().member("data").member("data");
        const JsonValue signature = doc.root().member("signature");
        bool verified = false;
        if (has_kind(signed_text, paywasm::JsonKind::string) && has_kind(signature, paywasm::JsonKind::string)) {
            verified = paywasm::verify_sha256(sb.identity.webhook_key.public_key(), signed_text.text(), signature.text());
        }
        {
            auto lk = sb.db.lock();
            Stmt s(sb.db, "INSERT INTO demo_received (at, verified, body) VALUES (?, ?, ?)");
            s.bind(1, now_ms()).bind(2, verified ? 1 : 0).bind(3, body).run();
        }
        if (!verified) throw HttpError(400, "bad_signature", "the signature does not verify over data.data");
        send_json(res, 200, R"({"ok":true})");
    });
    route(server, "GET", "/__sandbox/demo/received", limit, [&sb](Req req, Res res, Body) {
        auto lk = sb.db.lock();
        Stmt s(sb.db, "SELECT seq, at, verified, body FROM demo_received WHERE seq > ? ORDER BY seq LIMIT 200");
        s.bind(1, query_int(req, "since", 0));
        JsonWriter out;
        out.begin_array();
        while (s.step()) {
            out.begin_object().num("id", s.integer(0)).str("receivedAt", iso8601(s.integer(1)));
            out.flag("verified", s.integer(2) != 0).key("transaction");
            // Trust only what the signature covers: the transaction parsed from data.data.
            std::optional<JsonDocument> tx;
            if (s.integer(2)) {
                if (auto event = read_json(s.text(3))) {
                    const JsonValue signed_text = event->root().member("data").member("data");
                    if (has_kind(signed_text, paywasm::JsonKind::string)) tx = read_json(signed_text.text());
                }
            }
            if (tx) out.value(tx->root());
            else out.null();
            out.end_object();
        }
        out.end_array();
        send_json(res, 200, out.text());
    });

    // ---- Anything else under /__sandbox ---------------------------------------------------------
    for (const char* method : {"GET", "POST", "PUT", "DELETE"}) {
        route(server, method, "/__sandbox/.*", limit, [](Req req, Res res, Body) {
            send_error(res, 404, "not_found", "no control endpoint " + req.method + " " + req.path.substr(0, 200));
        });
    }
}

}  // namespace sandbox
