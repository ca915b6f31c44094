// The app API: the shop's own server creates checkout sessions and runs subscription debit and
// cancel. Every route needs `Authorization: Bearer $PAYWASM_APP_SECRET` (401 otherwise).
#include "rules/events.hpp"
#include "api/api.hpp"
#include "gateway/gateway.hpp"
#include "gateway/app_requests.hpp"
#include "gateway/orders.hpp"
#include "paywasm/checkout.hpp"
#include "paywasm/codec.hpp"
#include "paywasm/error.hpp"
#include "paywasm/protocol.hpp"
#include "paywasm/order.hpp"
#include "paywasm/validate.hpp"
#include "server/iso8601.hpp"
#include "server/util.hpp"
#include "gateway/session_factory.hpp"

namespace merchant {

void register_app_api(Router& server, Gateway& gw) {
    const std::size_t limit = gw.config.max_body;

    // POST /v1/sessions {offerId, currency, cart, shippingAddress?, customerInfo?, methods?}
    server.route("POST", "/v1/sessions", limit, [&gw](Req req, Res res, Body body) {
        require_app(gw, req);
        const JsonDocument doc = parse_object(req, body);
        // The checkout is the body without `methods`, read strictly by the core.
        JsonWriter checkout_text;
        checkout_text.begin_object();
        for (JsonValue m : doc.root().children()) {
            if (m.key() != "methods" && m.key() != "successUrl" && m.key() != "cancelUrl") checkout_text.key(m.key()).value(m);
        }
        checkout_text.end_object();
        const auto checkout = paywasm::from_json<paywasm::Checkout>(checkout_text.text());
        paywasm::validate(checkout);
        paywasm::require_chargeable_total(checkout);
        // '~' starts the gateway's own order ids (a QR code's "<offerId>~qr<n>"): an offerId with it
        // could claim another session's code.
        if (checkout.offer_id.find('~') != std::string::npos) {
            throw HttpError(400, "validation", "offerId must not contain '~' (the gateway's QR codes use it)", "offerId");
        }

        Session s;
        s.methods_csv = paywasm::to_string(methods_of(doc.root().member("methods"), gw.config.methods));
        const ReturnUrls back = read_return_urls(doc.root(), gw.config);  // --return-origin only (app_requests.hpp)
        s.success_url = back.success;
        s.cancel_url = back.cancel;
        // QR needs the customer's name and e-mail (from customerInfo or the address): refuse now,
        // with the core's message, rather than when the shopper presses Pay.
        if (s.offers(paywasm::PayMethod::qr)) (void)paywasm::qr_order(checkout);
        // A token is spent by a request that would create a session: a refused one (400) costs none.
        gw.rate_limit("session:app", gw.config.session_rate, res, "sessions a minute (--session-rate)");
        bool created = false;
        const Session stored = open_session(gw, checkout, std::move(s), gw.config.session_ttl_ms, created);
        // The offerId's session expired without a payment: a checkout under it can no longer be
        // paid, and answering that session (as "open") would send the shopper to a dead page.
        if (!created && !stored.status.status && now_ms() >= stored.expires_at) {
            throw HttpError(409, "offer_expired",
                            "the session for this offerId (" + stored.id.substr(0, 6) + "...) expired at " +
                                iso8601(stored.expires_at) + " without a payment; create the checkout under a new offerId",
                            "offerId");
        }
        send_json(res, created ? 201 : 200, session_json(gw, stored));
    });

    // GET /v1/sessions?state=&q=&cursor=&limit=: the orders newest first, one keyset page at a
    // time (orders.hpp); state=attention: the sessions that need the merchant (a stuck attempt not
    // yet resolved, or a resolution a verified outcome contradicted), with detail.
    server.route("GET", "/v1/sessions", limit, [&gw](Req req, Res res, Body) {
        require_app(gw, req);
        send_json(res, 200, sessions_page_json(gw, session_query(req)));
    });

    // GET /v1/sessions.csv?state=&q=: every order the filter selects, streamed as CSV.
    server.route("GET", "/v1/sessions.csv", limit, [&gw](Req req, Res res, Body) {
        require_app(gw, req);
        send_sessions_csv(gw, res, session_query(req));
    });

    // A merchant's action on a session (orders.hpp), answered with the session as GET
    // /v1/sessions/{id} writes it: `act(req, body object, actor)`.
    const auto session_action = [&server, &gw, limit](const std::string& pattern, int status, auto act) {
        server.route("POST", pattern, limit, [&gw, status, act](Req req, Res res, Body body) {
            require_app(gw, req);
            const JsonDocument doc = parse_object(req, body);
            act(req, doc.root(), Actor{"app", req.remote_addr});
            send_json(res, status, order_json(gw, *order_record(gw, req.matches[1])));
        });
    };

    // POST /v1/sessions/{id}/resolve {"attemptId", "resolution": "release" | "paid_elsewhere" |
    // "not_paid", "note"}: the merchant's word on an attempt (after checking the service's portal),
    // recorded with who and when, and sent back as its own event. A verified webhook arriving later
    // still applies by the money rules; one that contradicts this is flagged (resolution_conflict).
    session_action(R"(/v1/sessions/([^/]+)/resolve)", 200, [&gw](Req req, JsonValue o, const Actor& who) {
        const std::string attempt_id = need_string(o, "attemptId");  // read in this order: the first missing is named
        const std::string resolution = need_string(o, "resolution");
        resolve_attempt(gw, req.matches[1], attempt_id, resolution, need_string(o, "note"), who);
    });
    // POST /v1/sessions/resolve-stuck {"before": ISO time, "resolution": "release" | "not_paid",
    // "note"}: every attempt raised as attention before `before` and not resolved, at once
    // (resolve_stuck). Answers {"resolved": n}.
    server.route("POST", "/v1/sessions/resolve-stuck", limit, [&gw](Req req, Res res, Body body) {
        require_app(gw, req);
        const JsonDocument doc = parse_object(req, body);
        const auto before = parse_iso8601(need_string(doc.root(), "before"));
        if (!before) throw HttpError(400, "validation", "before is a UTC time like 2026-05-01T10:00:00Z", "before");
        const std::string resolution = need_string(doc.root(), "resolution");
        const auto n = resolve_stuck(gw, *before, resolution, need_string(doc.root(), "note"), Actor{"app", req.remote_addr});
        JsonWriter w;
        w.begin_object().num("resolved", n).end_object();
        send_json(res, 200, w.take());
    });
    // POST /v1/sessions/{id}/accept-underpayment {"note"}: the merchant takes what arrived of a
    // partly paid session as enough; the app receives checkout.underpayment_accepted.
    session_action(R"(/v1/sessions/([^/]+)/accept-underpayment)", 200, [&gw](Req req, JsonValue o, const Actor& who) {
        accept_underpayment(gw, req.matches[1], need_string(o, "note"), who);
    });
    // POST /v1/sessions/{id}/notes {"note"}: a note on the order's record (the console shows it).
    session_action(R"(/v1/sessions/([^/]+)/notes)", 201, [&gw](Req req, JsonValue o, const Actor& who) {
        add_note(gw, req.matches[1], need_string(o, "note"), who);
    });

    server.route("GET", R"(/v1/sessions/([^/]+))", limit, [&gw](Req req, Res res, Body) {
        require_app(gw, req);
        const auto record = order_record(gw, req.matches[1]);
        if (!record) throw HttpError(404, "not_found", "no session with this id");
        send_json(res, 200, order_json(gw, *record));
    });

    // POST /v1/subscriptions/{id}/debit {items: [{amount, currency}], orderId?, merchantSubscriptionId?}
    // Charges the subscription `id` (the service's subscription id) the amount given, once per
    // orderId: the shop's id of this charge (say "sub-42-2026-12": a retry with the same orderId is
    // the same debit at the service), else a fresh "debit-<random>". items are required: a debit
    // without them would ask the service for nothing. 200 only when the service's answer charged
    // something (data not empty); 422 debit_not_charged, with the service's errors, otherwise.
    server.route("POST", R"(/v1/subscriptions/([^/]+)/debit)", limit, [&gw](Req req, Res res, Body body) {
        require_app(gw, req);
        const std::string id = req.matches[1];
        paywasm::SubscriptionDebitRequest debit;
        debit.merchant_id = gw.config.merchant_id;
        if (body.empty()) {
            throw HttpError(400, "validation",
                            "items is required: the amount and currency to charge, e.g. "
                            "{\"items\":[{\"amount\":19.99,\"currency\":\"USD\"}]}",
                            "items");
        }
        const JsonDocument doc = parse_object(req, body);
        std::optional<std::string> merchant_subscription_id = opt_string(doc.root(), "merchantSubscriptionId");
        if (auto order_id = opt_string(doc.root(), "orderId")) {
            if (order_id->empty() || order_id->find('~') != std::string::npos) {
                throw HttpError(400, "validation", "orderId must be non-empty and must not contain '~'", "orderId");
            }
            debit.order_id = *order_id;
        }
        JsonValue items = doc.root().member("items");
        if (!items.valid() || !items.is_array() || items.size() == 0) {
            throw HttpError(400, "validation",
                            "items is required: the amount and currency to charge, e.g. "
                            "{\"items\":[{\"amount\":19.99,\"currency\":\"USD\"}]}",
                            "items");
        }
        std::vector<paywasm::DebitItem> list;
        std::size_t i = 0;
        for (JsonValue item : items.children()) {
            const std::string path = "items[" + std::to_string(i++) + "]";
            paywasm::DebitItem d;
            d.subscription_id = id;
            JsonValue amount = item.member("amount");
            if (!has_kind(amount, paywasm::JsonKind::number)) throw HttpError(400, "validation", "amount must be a number", path + ".amount");
            d.amount = paywasm::Decimal::parse(amount.text(), path + ".amount");
            if (d.amount.is_negative() || d.amount.is_zero()) throw HttpError(400, "validation", "amount must be above zero", path + ".amount");
            d.currency = need_string(item, "currency", path);
            list.push_back(std::move(d));
        }
        debit.items = std::move(list);
        if (!debit.order_id) debit.order_id = "debit-" + random_hex(8);
        const paywasm::HttpRequest request = paywasm::prepare_subscription_debit(
            debit, paywasm::MerchantKey{gw.config.merchant_public_pem, {}, gw.config.padding}, gw.config.merchant_token);
        // Recorded before the call: its webhooks may arrive before the answer does.
        gw.store.sessions.record_debit(*debit.order_id, id, merchant_subscription_id, now_ms());
        const auto result = gw.service(request, paywasm::parse_subscription_debit_response);
        if (result.data.empty()) {
            JsonWriter w;
            w.begin_object().key("error").begin_object().str("code", "debit_not_charged");
            w.str("message", "the service charged nothing for this debit (its answer has no data entry; see errors)");
            w.str("orderId", *debit.order_id).end_object();
            w.raw("service", paywasm::to_json(result)).end_object();
            return send_json(res, 422, w.take());
        }
        send_json(res, 200, paywasm::to_json(result));
    });

    server.route("POST", R"(/v1/subscriptions/([^/]+)/cancel)", limit, [&gw](Req req, Res res, Body) {
        require_app(gw, req);
        paywasm::SubscriptionCancelRequest cancel;
        cancel.merchant_id = gw.config.merchant_id;
        cancel.subscription_id = req.matches[1];
        const paywasm::HttpRequest request = paywasm::prepare_subscription_cancel(
            cancel, paywasm::MerchantKey{gw.config.merchant_public_pem, {}, gw.config.padding}, gw.config.merchant_token);
        const auto result = gw.service(request, paywasm::parse_subscription_cancel_response);
        send_json(res, 200, paywasm::to_json(result));
    });

    // The forwarding outbox, newest first: what was delivered to --app-callback and what waits;
    // ?failed=first lists the undelivered events that failed at least once first.
    server.route("GET", "/v1/events", limit, [&gw](Req req, Res res, Body) {
        require_app(gw, req);
        send_json(res, 200, outbox_json(event_list(gw, req.get_param_value("failed") == "first")));
    });

    // POST /v1/events/resend-failed {"since": ISO 8601 time}: every undelivered event created since
    // then whose last delivery failed, due now. {"resent": n}.
    server.route("POST", "/v1/events/resend-failed", limit, [&gw](Req req, Res res, Body body) {
        require_app(gw, req);
        const JsonDocument doc = parse_object(req, body);
        const auto since = parse_iso8601(need_string(doc.root(), "since"));
        if (!since) throw HttpError(400, "validation", "since must be a time like 2026-05-01T00:00:00Z", "since");
        const std::int64_t n = resend_failed(gw, *since, Actor{"app", req.remote_addr});
        JsonWriter w;
        w.begin_object().num("resent", n).end_object();
        send_json(res, 200, w.take());
    });

    // GET /v1/events/{id}: the event as the app receives it, and every delivery attempt.
    server.route("GET", R"(/v1/events/([^/]+))", limit, [&gw](Req req, Res res, Body) {
        require_app(gw, req);
        send_json(res, 200, event_json(gw, req.matches[1]));
    });

    // POST /v1/events/{id}/resend: the same event (same id, same body) delivered again.
    server.route("POST", R"(/v1/events/([^/]+)/resend)", limit, [&gw](Req req, Res res, Body) {
        require_app(gw, req);
        resend_event(gw, req.matches[1], Actor{"app", req.remote_addr});
        send_json(res, 202, event_json(gw, req.matches[1]));
    });
}

}  // namespace merchant
