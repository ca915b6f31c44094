// The control API under /__sandbox/ (tests and the demo page; docs/sandbox.md). The merchant's side
// of a checkout (sessions, QR creation, statuses, subscription calls) is paywasm-merchant's, not the
// sandbox's: the demo runs the real gateway (docs/merchant.md).
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
#include "paywasm/text.hpp"

namespace sandbox {

namespace {

// An optional JSON object body: empty is {}, anything else must be application/json.
JsonDocument optional_object(const Request& req, const std::string& body) {
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

std::int64_t query_int(const Request& req, const char* name, std::int64_t fallback) {
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

}  // namespace

void register_control(Router& server, Sandbox& sb) {
    const std::size_t limit = sb.config.max_body;
    using Req = const Request&;
    using Res = Response&;
    using Body = const std::string&;

    // ---- Merchant -------------------------------------------------------------------------------
    server.route("GET", "/__sandbox/merchant", limit, [&sb](Req, Res res, Body) { send_json(res, 200, merchant(sb)); });
    server.route("PUT", "/__sandbox/merchant", limit, [&sb](Req req, Res res, Body body) {
        const JsonDocument patch = parse_object(req, body);
        if (auto padding = opt_string(patch.root(), "padding")) sb.set_padding(*padding);
        send_json(res, 200, merchant(sb));
    });

    // ---- Transactions ---------------------------------------------------------------------------
    server.route("GET", "/__sandbox/transactions", limit, [&sb](Req, Res res, Body) { send_json(res, 200, sb.ledger.list()); });
    server.route("GET", R"(/__sandbox/transactions/([^/]+))", limit, [&sb](Req req, Res res, Body) {
        auto entry = sb.ledger.get(req.matches[1]);
        if (!entry) throw HttpError(404, "not_found", "no transaction with this id");
        send_json(res, 200, *entry);
    });
    server.route("POST", R"(/__sandbox/transactions/([^/]+)/advance)", limit, [&sb](Req req, Res res, Body body) {
        const JsonDocument opts = optional_object(req, body);
        send_json(res, 200,
                  sb.ledger.advance(req.matches[1], opt_int(opts.root(), "status"), opt_int(opts.root(), "outcome")));
    });

    // ---- Subscriptions --------------------------------------------------------------------------
    server.route("GET", "/__sandbox/subscriptions", limit,
          [&sb](Req, Res res, Body) { send_json(res, 200, sb.ledger.subscriptions()); });

    // ---- Shopper --------------------------------------------------------------------------------
    server.route("GET", "/__sandbox/shopper", limit,
          [&sb](Req, Res res, Body) { send_json(res, 200, sb.shopper.state(sb.identity.shopper_id)); });
    server.route("PUT", "/__sandbox/shopper", limit, [&sb](Req req, Res res, Body body) {
        const JsonDocument patch = parse_object(req, body);
        send_json(res, 200, sb.shopper.update(patch.root(), sb.identity.shopper_id));
    });

    // ---- Faults ---------------------------------------------------------------------------------
    server.route("POST", "/__sandbox/faults", limit,
          [&sb](Req req, Res res, Body body) { send_json(res, 201, sb.faults.add(parse_object(req, body).root())); });
    server.route("GET", "/__sandbox/faults", limit, [&sb](Req, Res res, Body) { send_json(res, 200, sb.faults.list()); });
    server.route("DELETE", "/__sandbox/faults", limit, [&sb](Req, Res res, Body) {
        sb.faults.clear();
        send_json(res, 200, "[]");
    });

    // ---- Webhooks -------------------------------------------------------------------------------
    server.route("GET", "/__sandbox/webhook", limit, [&sb](Req, Res res, Body) { send_json(res, 200, webhook_url(sb)); });
    server.route("PUT", "/__sandbox/webhook", limit, [&sb](Req req, Res res, Body body) {
        const JsonDocument in = parse_object(req, body);
        if (!in.root().member("url").valid()) {
            throw HttpError(400, "validation", "url: is required (a URL, or null to stop)", "url");
        }
        auto url = opt_string(in.root(), "url");
        sb.webhooks.set_url(url && !url->empty() ? url : std::nullopt);
        send_json(res, 200, webhook_url(sb));
    });
    server.route("GET", "/__sandbox/webhooks", limit, [&sb](Req req, Res res, Body) {
        send_json(res, 200, sb.webhooks.log(query_int(req, "since", 0), static_cast<int>(query_int(req, "limit", 500))));
    });

    // ---- Anything else under /__sandbox ---------------------------------------------------------
    for (const char* method : {"GET", "POST", "PUT", "DELETE"}) {
        server.route(method, "/__sandbox/.*", limit, [](Req req, Res res, Body) {
            send_error(res, 404, "not_found", "no control endpoint " + paywasm::escape_untrusted(req.method, 32) + " " + paywasm::escape_untrusted(req.path, 200));
        });
    }
}

}  // namespace sandbox
