// The browser API: what the widget reads and does with a session id (its capability). CORS headers
// go to --shop-origin only; no answer carries a secret (no merchant token, no merchantAuth, no app
// secret): the checkout view is the cart, the amount and the merchant's public key.
#include <regex>

#include "gateway.hpp"
#include "paywasm/codec.hpp"
#include "paywasm/protocol.hpp"
#include "server/util.hpp"

namespace merchant {

namespace {

using Req = const httplib::Request&;
using Res = httplib::Response&;
using Body = const std::string&;

void cors(const Gateway& gw, Req req, Res res) {
    const std::string origin = req.get_header_value("Origin");
    res.set_header("Vary", "Origin");
    if (!origin.empty() && origin == gw.config.shop_origin) {
        res.set_header("Access-Control-Allow-Origin", origin);
        // EventSource({withCredentials: true}) needs it; the gateway itself reads no cookie.
        res.set_header("Access-Control-Allow-Credentials", "true");
    }
}

Session load(Gateway& gw, Req req, Res res) {
    cors(gw, req, res);
    res.set_header("Cache-Control", "no-store");
    auto s = gw.store.session(req.matches[1]);
    if (!s) throw HttpError(404, "not_found", "no checkout session with this id");
    return *s;
}

bool expired(const Session& s) { return now_ms() >= s.expires_at; }

std::string checkout_view(const Gateway& gw, const Session& s) {
    const JsonDocument checkout = paywasm::parse_json(s.checkout_json);
    JsonWriter w;
    w.begin_object().str("id", s.id).str("offerId", s.offer_id).str("amount", s.amount).str("currency", s.currency);
    w.key("cart").value(checkout.root().member("cart"));
    if (JsonValue address = checkout.root().member("shippingAddress"); address.valid()) w.key("shippingAddress").value(address);
    w.key("methods");
    s.write_methods(w);
    w.str("merchantId", gw.config.merchant_id)
        .str("publicKey", gw.config.merchant_public_pem)
        .str("keyFingerprint", gw.merchant_fingerprint)
        .str("padding", paywasm::to_string(gw.config.padding))
        .str("serviceUrl", gw.config.public_service_url.empty() ? gw.config.service_url : gw.config.public_service_url)
        .str("expiresAt", iso8601(s.expires_at));
    w.raw("status", gw.status_json(s));
    w.end_object();
    return w.take();
}

// One SSE stream: the current status first, then one event per change, closed at a final status.
// Between changes a comment line every 15 s keeps proxies from closing it.
struct Stream {
    std::uint64_t tick = 0;
    std::int64_t sent_version = -1;
    bool started = false;
};

bool stream_step(Gateway& gw, const std::string& id, Stream& st, httplib::DataSink& sink) {
    if (!st.started) {
        st.started = true;
        gw.hub.watch(id);  // before the first read: a change from now on wakes this stream
        st.tick = gw.hub.tick(id);
        static const std::string hello = "retry: 2000\n\n";
        if (!sink.write(hello.data(), hello.size())) return false;
    } else {
        st.tick = gw.hub.wait(id, st.tick, 15000);
        if (gw.hub.stopping()) {
            sink.done();
            return true;
        }
    }
    std::optional<Session> s;
    try {
        s = gw.store.session(id);
    } catch (const StorageUnavailable&) {
        static const std::string note = ": storage unavailable, retrying\n\n";
        return sink.write(note.data(), note.size());
    }
    if (!s) {
        sink.done();
        return true;
    }
    if (s->status.version != st.sent_version) {
        st.sent_version = s->status.version;
        const std::string event = "id: " + std::to_string(s->status.version) + "\ndata: " + gw.status_json(*s) + "\n\n";
        if (!sink.write(event.data(), event.size())) return false;
        if (s->status.final) {
            sink.done();
            return true;
        }
    } else {
        static const std::string ping = ": ping\n\n";
        if (!sink.write(ping.data(), ping.size())) return false;
    }
    return true;
}

const std::regex kAsset("^[A-Za-z0-9]{2,10}$");

}  // namespace

void register_browser_api(httplib::Server& server, Gateway& gw) {
    const std::size_t limit = gw.config.max_body;

    // CORS preflight (the widget POSTs JSON): the shop's origin only.
    server.Options(R"(/v1/checkout/.*)", [&gw](Req req, Res res) {
        cors(gw, req, res);
        if (req.get_header_value("Origin") == gw.config.shop_origin) {
            res.set_header("Access-Control-Allow-Methods", "GET, POST");
            res.set_header("Access-Control-Allow-Headers", "Content-Type, Accept, Last-Event-ID");
            res.set_header("Access-Control-Max-Age", "600");
        }
        res.status = 204;
    });

    route(server, "GET", R"(/v1/checkout/([A-Za-z0-9_-]+))", limit, [&gw](Req req, Res res, Body) {
        const Session s = load(gw, req, res);
        if (expired(s) && !s.status.status) {
            throw HttpError(410, "session_expired", "this checkout session has expired; the shop must create a new one");
        }
        send_json(res, 200, checkout_view(gw, s));
    });

    // POST /v1/checkout/{id}/qr {"cryptoCurrency": "BTC", "replaces": "<transaction id>"}? — the
    // session's QR code, created with the merchant token once: a second call answers the same one.
    // A new code only with "replaces" naming the current code when that one can no longer be paid
    // (failed, canceled or timed out, no money seen); any other "replaces" gets the current code (a
    // second click, or a code that is still good). Only the session's own order is used (the page's
    // amount or cart, if sent, are ignored).
    route(server, "POST", R"(/v1/checkout/([A-Za-z0-9_-]+)/qr)", limit, [&gw](Req req, Res res, Body body) {
        const Session s = load(gw, req, res);
        if (!s.offers("qr")) throw HttpError(400, "method_not_offered", "this session does not offer the QR method", "methods");
        std::string asset = "BTC";
        std::optional<std::string> replaces;
        if (!body.empty()) {
            const JsonDocument doc = parse_object(req, body);
            if (auto given = opt_string(doc.root(), "cryptoCurrency")) {
                if (!std::regex_match(*given, kAsset)) throw HttpError(400, "validation", "cryptoCurrency must be 2 to 10 letters or digits", "cryptoCurrency");
                asset = *given;
                for (auto& c : asset) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
            }
            replaces = opt_string(doc.root(), "replaces");
        }
        const std::int64_t now = now_ms();
        // Another request holds the creation: its code once it is there, else "try again".
        const auto answer_other = [&] {
            auto again = gw.store.session(s.id);
            if (again && again->qr_state && *again->qr_state == "done" && again->qr_response) {
                return send_json(res, 200, *again->qr_response);
            }
            throw HttpError(409, "qr_in_progress", "the QR code of this session is being created; try again in a moment");
        };
        if (s.qr_state && *s.qr_state == "done" && s.qr_response) {
            const auto current = paywasm::from_json<paywasm::QrGenerateResponse>(*s.qr_response);
            if (!replaces || *replaces != current.result.id) return send_json(res, 200, *s.qr_response);
            // Decided under the session's row lock (decide.hpp's qr_code_dead): a code still good, or
            // one a late payment reached meanwhile, is answered as it is.
            const auto renewal = gw.store.renew_qr(s, *s.qr_response, current.result.id, now);
            if (renewal == Store::Renewal::not_dead) return send_json(res, 200, *s.qr_response);
            if (renewal == Store::Renewal::lost) return answer_other();
            if (renewal == Store::Renewal::expired) throw HttpError(410, "session_expired", "this checkout session has expired; the shop must create a new one");
            gw.hub.notify(s.id);
        } else {
            if (expired(s)) throw HttpError(410, "session_expired", "this checkout session has expired; the shop must create a new one");
            if (!gw.store.claim_qr(s, now, now - 60000)) return answer_other();
        }
        try {
            const auto checkout = paywasm::from_json<paywasm::Checkout>(s.checkout_json);
            paywasm::QrGenerateRequest order = paywasm::qr_order(checkout, asset);
            order.order_id = gw.store.current_qr_order(s);
            const paywasm::HttpRequest request = paywasm::prepare_qr_generate(order, gw.config.merchant_token);
            const auto answer = gw.service(request, paywasm::parse_qr_generate_response);
            const std::string json = paywasm::to_json(answer);
            gw.store.finish_qr(s.id, json, order.order_id, answer.result.id, now);
            send_json(res, 200, json);
        } catch (...) {
            // The service keys QR transactions by orderId, so the next attempt (same orderId) gets the
            // same transaction back if this one was created after all.
            gw.store.release_qr(s.id);
            throw;
        }
    });

    // GET /v1/checkout/{id}/status: the latest verified status as JSON, or with
    // Accept: text/event-stream one SSE event per change (data: the same JSON), closed when final.
    route(server, "GET", R"(/v1/checkout/([A-Za-z0-9_-]+)/status)", limit, [&gw](Req req, Res res, Body) {
        const Session s = load(gw, req, res);
        if (req.get_header_value("Accept").find("text/event-stream") == std::string::npos) {
            return send_json(res, 200, gw.status_json(s));
        }
        if (gw.streams.fetch_add(1) >= gw.config.max_streams) {
            gw.streams.fetch_sub(1);
            throw HttpError(503, "too_many_streams", "too many status streams are open; poll this URL without text/event-stream");
        }
        auto st = std::make_shared<Stream>();
        const std::string id = s.id;
        res.set_header("X-Accel-Buffering", "no");
        res.set_chunked_content_provider(
            "text/event-stream",
            [&gw, id, st](std::size_t, httplib::DataSink& sink) { return stream_step(gw, id, *st, sink); },
            [&gw, id, st](bool) {
                if (st->started) gw.hub.unwatch(id);
                gw.streams.fetch_sub(1);
            });
    });
}

}  // namespace merchant
