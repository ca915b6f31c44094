// The browser API: what the widget reads and does with a session id (its capability). CORS headers
// go to --shop-origin only; no answer carries a secret (no merchant token, no merchantAuth, no app
// secret): the checkout view is the cart, the amount and the merchant's public key.
#include <algorithm>
#include <chrono>
#include <regex>

#include "rules/events.hpp"
#include "api/api.hpp"
#include "gateway/gateway.hpp"
#include "gateway/orders.hpp"
#include "paywasm/checkout.hpp"
#include "paywasm/codec.hpp"
#include "paywasm/protocol.hpp"
#include "server/client_address.hpp"
#include "server/event_stream.hpp"
#include "server/server.hpp"
#include "server/util.hpp"

namespace merchant {

namespace {


// The shop's page's origin: only a configured one (a shop without a web site has none).
bool from_shop(const Gateway& gw, Req req) {
    const std::string origin = req.get_header_value("Origin");
    return !origin.empty() && origin == gw.config.shop_origin;
}

void cors(const Gateway& gw, Req req, Res res) {
    const std::string origin = req.get_header_value("Origin");
    res.set_header("Vary", "Origin");
    if (from_shop(gw, req)) {
        // No Access-Control-Allow-Credentials: the gateway reads no cookie (the session id is the
        // credential), so the widget sends none, and a page of the shop's origin cannot make the
        // browser attach cookies of the gateway's domain.
        res.set_header("Access-Control-Allow-Origin", origin);
    }
}

Session load(Gateway& gw, Req req, Res res) {
    cors(gw, req, res);
    res.set_header("Cache-Control", "no-store");
    auto s = gw.store.sessions.session(req.matches[1]);
    if (!s) throw HttpError(404, "not_found", "no checkout session with this id");
    return *s;
}

bool expired(const Session& s) { return now_ms() >= s.expires_at; }

// A POST that may change something must say Content-Type: application/json: a cross-site
// "simple" POST (a form's content type, no preflight) is refused.
void need_json_type(Req req) {
    if (req.get_header_value("Content-Type").rfind("application/json", 0) != 0) {
        throw HttpError(415, "unsupported_media_type", "POST this with Content-Type: application/json");
    }
}

// The answer to a refused registration: the error and what Pay waits for.
void refuse_attempt(Res res, int status, const char* code, const char* message, const Payable& p) {
    JsonWriter w;
    w.begin_object().key("error").begin_object().str("code", code).str("message", message).end_object();
    w.raw("payable", payable_json(p)).end_object();
    send_json(res, status, w.take());
}

// A refused QR code ({"error": code, "message", "payable"}: the codes of POST /qr are plain strings).
void refuse_qr(Res res, int status, const char* code, const char* message, const Payable& p) {
    JsonWriter w;
    w.begin_object().str("error", code).str("message", message).raw("payable", payable_json(p)).end_object();
    send_json(res, status, w.take());
}

// A payment link's refusal (LinkStore::refusal): its HTTP status and message.
HttpError link_refused(const std::string& why) {
    if (why == "details_required") return HttpError(409, why, "give the shopper's details on the hosted page first");
    if (why == "link_inactive") return HttpError(410, why, "the merchant deactivated this payment link");
    if (why == "link_expired") return HttpError(410, why, "this payment link has expired");
    return HttpError(409, why, "this payment link has reached its usage limit");
}

// The browser's report, read strictly: {"transactionId": text, "status": integer} or
// {"error": {"code": text, "httpStatus": integer | null}}. Stored as the browser's word.
AttemptReport read_report(Req req, Body body) {
    const JsonDocument doc = parse_object(req, body);
    AttemptReport r;
    static const std::regex kTx("^[A-Za-z0-9._:-]{1,128}$"), kCode("^[a-z_]{1,40}$");
    if (auto error = opt_member(doc.root(), "error")) {
        if (!error->is_object()) throw HttpError(400, "validation", "error must be an object", "error");
        r.error_code = need_string(*error, "code", "error");
        if (!std::regex_match(*r.error_code, kCode)) throw HttpError(400, "validation", "error.code must be a core error code", "error.code");
        if (auto http = opt_member(*error, "httpStatus")) {
            const long long v = has_kind(*http, paywasm::JsonKind::number) ? std::atoll(std::string(http->text()).c_str()) : 0;
            if (v < 100 || v > 599 || std::to_string(v) != http->text()) {
                throw HttpError(400, "validation", "error.httpStatus must be an HTTP status or null", "error.httpStatus");
            }
            r.error_http = static_cast<int>(v);
        }
        if (opt_member(doc.root(), "transactionId")) throw HttpError(400, "validation", "a report has an error or a transactionId, not both", "transactionId");
        return r;
    }
    r.transaction_id = need_string(doc.root(), "transactionId");
    if (!std::regex_match(*r.transaction_id, kTx)) throw HttpError(400, "validation", "transactionId is not a transaction id", "transactionId");
    JsonValue status = doc.root().member("status");
    const std::string text = has_kind(status, paywasm::JsonKind::number) ? std::string(status.text()) : "";
    const std::string digits = text.rfind('-', 0) == 0 ? text.substr(1) : text;  // the service's codes include -1
    if (digits.empty() || digits.size() > 4 || digits.find_first_not_of("0123456789") != std::string::npos) {
        throw HttpError(400, "validation", "status must be the service's status code", "status");
    }
    r.status = std::stoi(text);
    return r;
}

// One SSE stream, on the server's event loop: the current status first, then one event per change;
// it ends at a final status, at the session's expiry, after --stream-max-seconds (the client
// reconnects after `retry:`), when the client leaves or the gateway stops. Between changes a comment
// line every 15 s keeps proxies from closing it. A change wakes the stream with the new status
// (StatusHub: from a webhook here, or a NOTIFY's payload from another instance), which it sends
// as it is; the session is read only first, after a wake that brought no status (a new QR code, a
// reconnect to PostgreSQL), and after the database was unavailable, on the gateway's own stream
// threads: never on the workers that answer webhooks and the app API, and not for a heartbeat.
// What a stream keeps of one read of its session: the coroutine's frame lives as long as the stream
// (thousands at once), so it holds this, never a Session (its cart, attempts and texts).
struct StreamRead {
    bool unavailable = false;  // the database could not be reached (retried at the next heartbeat)
    bool found = false;
    std::int64_t version = -1, expires_at = 0;
    bool final = false;
    std::string json;  // status_json()
};

// On the stream threads (Gateway::stream_reads).
StreamRead read_for_stream(Gateway& gw, const std::string& id) {
    StreamRead r;
    try {
        const std::optional<Session> s = gw.store.sessions.session(id);
        if (!s) return r;
        r.found = true;
        r.version = s->status.version;
        r.expires_at = s->expires_at;
        r.final = s->status.final;
        r.json = status_json(*s);
    } catch (const StorageUnavailable&) {
        r.unavailable = true;
    }
    return r;
}

boost::asio::awaitable<void> run_stream(Gateway& gw, std::string id, std::shared_ptr<EventStream> out) {
    using namespace std::chrono;
    gw.hub.watch(id, out);  // before the first read: a change from now on wakes this stream
    // Leaves the hub however the stream ends, a read that throws anything included (the server
    // logs that exception; the stream ends with it).
    struct Unwatch {
        Gateway& gw;
        const std::string& id;
        const EventStream* out;
        ~Unwatch() { gw.hub.unwatch(id, out); }
    } unwatch{gw, id, out.get()};
    const auto ends_at = steady_clock::now() + seconds(gw.config.stream_max_seconds);
    std::int64_t sent_version = -1, expires_at = 0;
    std::uint64_t unpushed = gw.hub.latest(id).unpushed;  // taken before the read that covers it
    bool ok = co_await out->write(kSseRetry);
    bool read = true;  // the first pass sends the current status
    const auto send = [&](std::int64_t version, const std::string& json) {
        sent_version = version;
        return out->write(sse_event(version, json));
    };
    bool done = false;
    while (!done && ok && out->open() && !gw.hub.stopping()) {
        if (read) {
            const StreamRead r = co_await on_pool(*gw.stream_reads, [&gw, &id] { return read_for_stream(gw, id); });
            if (r.unavailable) {
                ok = co_await out->write(kSseStorageUnavailable);
            } else if (!r.found) {
                break;
            } else {
                expires_at = r.expires_at;
                if (r.version > sent_version) {
                    ok = co_await send(r.version, r.json);
                    if (r.final) break;
                }
                if (!ok) break;
            }
            read = r.unavailable;  // (retried at the next heartbeat)
        } else {
            ok = co_await out->write(kSsePing);
        }
        if (!ok) break;
        // Waits for a change, the next heartbeat, the expiry or the end; sends what a wake brought.
        for (;;) {
            const auto now = steady_clock::now();
            const std::int64_t to_expiry = expires_at ? expires_at - now_ms() : 15000;
            if (to_expiry <= 0 || now >= ends_at) {
                done = true;
                break;
            }
            const auto wait = std::min({milliseconds(15000), milliseconds(to_expiry),
                                        duration_cast<milliseconds>(ends_at - now) + milliseconds(1)});
            if (!co_await out->wait(wait) || !out->open() || gw.hub.stopping()) break;  // heartbeat, or the end
            const StatusHub::Latest latest = gw.hub.latest(id);
            if (latest.unpushed != unpushed) {  // a change without its status: read the session
                unpushed = latest.unpushed;
                read = true;
                break;
            }
            if (latest.pushed && latest.pushed->version > sent_version) {
                ok = co_await send(latest.pushed->version, latest.pushed->json);
                if (!ok || latest.pushed->final) {
                    done = true;
                    break;
                }
            }
        }
    }
}

// Gives a stream slot back when the answer holding it is gone (also when the stream never started).
struct StreamSlot {
    Gateway& gw;
    std::string session_id, client;
    ~StreamSlot() { gw.hub.release(session_id, client); }
};

const std::regex kAsset("^[A-Za-z0-9]{2,10}$");

}  // namespace

void register_browser_api(Router& server, Gateway& gw) {
    const std::size_t limit = gw.config.max_body;

    // CORS preflight (the widget POSTs JSON): the shop's origin only.
    server.route("OPTIONS", R"(/v1/checkout/.*)", limit, [&gw](Req req, Res res, Body) {
        cors(gw, req, res);
        if (from_shop(gw, req)) {
            res.set_header("Access-Control-Allow-Methods", "GET, POST");
            res.set_header("Access-Control-Allow-Headers", "Content-Type, Accept, Last-Event-ID");
            res.set_header("Access-Control-Max-Age", "600");
        }
        res.status = 204;
    });

    server.route("GET", R"(/v1/checkout/([A-Za-z0-9_-]+))", limit, [&gw](Req req, Res res, Body) {
        const Session s = load(gw, req, res);
        // Expired and nothing happened (no status, no word of the merchant's): order_state.hpp's "expired".
        if (order_state(s, now_ms()) == "expired") {
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
    server.route("POST", R"(/v1/checkout/([A-Za-z0-9_-]+)/qr)", limit, [&gw](Req req, Res res, Body body) {
        const Session s = load(gw, req, res);
        if (!s.offers(paywasm::PayMethod::qr)) throw HttpError(400, "method_not_offered", "this session does not offer the QR method", "methods");
        std::string asset = "BTC";
        std::optional<std::string> replaces;
        // A JSON body or none, but always Content-Type: application/json: a cross-site "simple"
        // POST (a form's content type, no preflight) must not create a service transaction.
        const std::string type = req.get_header_value("Content-Type");
        if (type.rfind("application/json", 0) != 0) {
            throw HttpError(415, "unsupported_media_type", "POST this with Content-Type: application/json (the body may be empty)");
        }
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
        // Each new code is a transaction at the service under the merchant token: a few a minute per
        // session and per client (an address; an IPv6 /64) (answering an existing code costs nothing).
        const auto limit_new_code = [&] {
            gw.rate_limit("qr-session:" + s.id, gw.config.qr_rate_per_session, res, "QR codes for this session a minute");
            gw.rate_limit("qr-client:" + paywasm::server::client_key(req.remote_addr), gw.config.qr_rate_per_client, res,
                          "QR codes from this address a minute");
        };
        // Another request holds the creation: its code once it is there, else "try again".
        const auto answer_other = [&] {
            auto again = gw.store.sessions.session(s.id);
            if (again && again->qr_state && *again->qr_state == "done" && again->qr_response) {
                return send_json(res, 200, *again->qr_response);
            }
            throw HttpError(409, "qr_in_progress", "the QR code of this session is being created; try again in a moment");
        };
        // No code, new or old, while a payment may have taken money (an exchange or bank attempt in
        // flight, a QR code past its window with no verified outcome: attempts.hpp), nor for a paid
        // or closed order.
        const Payable p = payable_of(s);
        const bool has_code = s.qr_state && *s.qr_state == "done" && s.qr_response;
        if (!p.armed && p.attempt_id && (p.reason == "unknown" || p.reason == "registered" || p.reason == "in_progress")) {
            return refuse_qr(res, 409, "attempt_in_flight", "a payment of this session may have taken money; it must be settled first", p);
        }
        if (!has_code && !p.armed && (p.reason == "paid" || p.reason == "closed")) {
            return refuse_qr(res, 409, p.reason == "paid" ? "already_paid" : "closed",
                             p.reason == "paid" ? "this session is paid" : "the shop closed this checkout as not paid", p);
        }
        if (has_code) {
            const auto current = paywasm::from_json<paywasm::QrGenerateResponse>(*s.qr_response);
            // A code the merchant released (nothing was taken) is never shown again: a new one takes its place.
            bool released = false;
            for (const auto& a : s.attempts) released = released || (a.transaction_id == current.result.id && a.resolution == std::optional<std::string>("release"));
            if (!released && (!replaces || *replaces != current.result.id)) return send_json(res, 200, *s.qr_response);
            // Decided under the session's row lock (decide.hpp's qr_code_dead): a code still good, or
            // one a late payment reached meanwhile, is answered as it is.
            limit_new_code();
            const auto renewal = gw.store.sessions.renew_qr(s, *s.qr_response, current.result.id, now);
            if (renewal == SessionStore::Renewal::not_dead) return send_json(res, 200, *s.qr_response);
            if (renewal == SessionStore::Renewal::lost) return answer_other();
            if (renewal == SessionStore::Renewal::expired) throw HttpError(410, "session_expired", "this checkout session has expired; the shop must create a new one");
            if (renewal == SessionStore::Renewal::link_refused) throw link_refused(gw.store.links.refusal(s, now));
            gw.hub.notify(s.id);
        } else {
            if (expired(s)) throw HttpError(410, "session_expired", "this checkout session has expired; the shop must create a new one");
            limit_new_code();
            std::string refused;
            if (!gw.store.sessions.claim_qr(s, now, now - 60000, refused)) {
                if (!refused.empty()) throw link_refused(refused);
                return answer_other();
            }
        }
        try {
            const auto checkout = paywasm::from_json<paywasm::Checkout>(s.checkout_json);
            paywasm::QrGenerateRequest order = paywasm::qr_order(checkout, asset);
            order.order_id = gw.store.sessions.current_qr_order(s);
            const paywasm::HttpRequest request = paywasm::prepare_qr_generate(order, gw.config.merchant_token);
            const auto answer = gw.service(request, paywasm::parse_qr_generate_response);
            const std::string json = paywasm::to_json(answer);
            gw.store.sessions.finish_qr(s.id, json, order.order_id, answer.result.id, gw.config.attention.qr_ms, now);
            send_json(res, 200, json);
        } catch (...) {
            // The service keys QR transactions by orderId, so the next attempt (same orderId) gets the
            // same transaction back if this one was created after all.
            gw.store.sessions.release_qr(s.id);
            throw;
        }
    });

    // POST /v1/checkout/{id}/attempts {"method": "exchange" | "bank"}: registers a payment attempt
    // before the widget sends it to the service (docs/merchant.md "Attempts"), under the session's
    // row lock: of two tabs (or instances) at once, one gets 201; while an attempt may have taken
    // money, 409 attempt_in_flight with `payable`. Rate-limited per session with its reports.
    server.route("POST", R"(/v1/checkout/([A-Za-z0-9_-]+)/attempts)", limit, [&gw](Req req, Res res, Body body) {
        const Session s = load(gw, req, res);
        need_json_type(req);
        const JsonDocument doc = parse_object(req, body);
        const std::string method = need_string(doc.root(), "method");
        const auto named = paywasm::pay_method_from(method);  // a QR payment starts at POST /v1/checkout/{id}/qr
        if (!named || *named == paywasm::PayMethod::qr) throw HttpError(400, "validation", "method must be exchange or bank", "method");
        if (!s.offers(*named)) throw HttpError(400, "method_not_offered", "this session does not offer " + method, "method");
        gw.rate_limit("attempt-session:" + s.id, gw.config.attempt_rate_per_session, res, "payment attempts for this session a minute");
        gw.rate_limit("attempt-client:" + paywasm::server::client_key(req.remote_addr), gw.config.attempt_rate_per_client, res,
                      "payment attempts from this address a minute");
        const std::int64_t now = now_ms();
        const auto change = gw.store.attempts.register_attempt(s.id, *named, "at_" + random_hex(16), now);
        using C = AttemptStore::Change;
        switch (change.result) {
            case C::done: break;
            case C::already_paid: return refuse_attempt(res, 409, "already_paid", "this session is paid", change.payable);
            case C::expired: return refuse_attempt(res, 410, "expired", "this checkout session has expired", change.payable);
            case C::closed: return refuse_attempt(res, 409, "closed", "the shop closed this checkout as not paid", change.payable);
            case C::not_found: throw HttpError(404, "not_found", "no checkout session with this id");
            case C::link_refused: {
                const HttpError e = link_refused(change.refused);
                return refuse_attempt(res, e.status, change.refused.c_str(), e.what(), change.payable);
            }
            default:
                return refuse_attempt(res, 409, "attempt_in_flight",
                                      "an earlier payment attempt of this session may have taken money; it must be "
                                      "settled by the service's verified status or by the shop first",
                                      change.payable);
        }
        gw.hub.notify(s.id, change.pushed);
        JsonWriter w;
        w.begin_object().str("attemptId", change.attempt.id).str("method", method).str("createdAt", iso8601(now));
        w.str("state", "registered").raw("payable", payable_json(change.payable)).end_object();
        send_json(res, 201, w.take());
    });

    // POST /v1/checkout/{id}/attempts/{attemptId}: the browser's one report of what the service
    // answered. Stored as the browser's word: it never makes the session successful and never
    // reaches the shop's app; a documented refusal lets the attempt stop blocking Pay.
    server.route("POST", R"(/v1/checkout/([A-Za-z0-9_-]+)/attempts/([A-Za-z0-9_]+))", limit, [&gw](Req req, Res res, Body body) {
        const Session s = load(gw, req, res);
        need_json_type(req);
        const AttemptReport report = read_report(req, body);
        gw.rate_limit("attempt-session:" + s.id, gw.config.attempt_rate_per_session, res, "payment attempts for this session a minute");
        // The attempt is looked up within this session only: another session's attempt id is unknown here.
        const auto change = gw.store.attempts.report_attempt(s.id, req.matches[2], report, now_ms());
        using C = AttemptStore::Change;
        if (change.result == C::attempt_not_found || change.result == C::not_found) {
            throw HttpError(404, "not_found", "no attempt with this id in this session");
        }
        if (change.result == C::already_reported) throw HttpError(409, "already_reported", "this attempt was reported already");
        if (change.result == C::transaction_elsewhere) {
            throw HttpError(409, "transaction_elsewhere", "this transaction belongs to another checkout session", "transactionId");
        }
        gw.hub.notify(s.id, change.pushed);
        JsonWriter w;
        w.begin_object().str("attemptId", change.attempt.id).str("state", to_string(attempt_state(change.attempt)));
        w.raw("payable", payable_json(change.payable)).end_object();
        send_json(res, 200, w.take());
    });

    // GET /v1/checkout/{id}/status: the latest verified status as JSON, or with
    // Accept: text/event-stream one SSE event per change (data: the same JSON), closed when final.
    server.route("GET", R"(/v1/checkout/([A-Za-z0-9_-]+)/status)", limit, [&gw](Req req, Res res, Body) {
        const Session s = load(gw, req, res);
        if (req.get_header_value("Accept").find("text/event-stream") == std::string::npos) {
            return send_json(res, 200, status_json(s));
        }
        if (req.method == "HEAD") {  // the stream's head only: no slot taken, nothing held open
            res.status = 200;
            res.set_header("Cache-Control", "no-store");
            res.set_content("", "text/event-stream");
            return;
        }
        std::string refused;
        const std::string client = paywasm::server::client_key(req.remote_addr);
        if (!gw.hub.reserve(s.id, client, gw.config, refused)) {
            res.set_header("Retry-After", "5");
            if (refused == "total") {
                throw HttpError(503, "too_many_streams", "too many status streams are open; poll this URL without text/event-stream");
            }
            throw HttpError(429, "too_many_streams",
                            std::string("too many status streams are open for this ") + (refused == "session" ? "session" : "client") +
                                "; poll this URL without text/event-stream");
        }
        std::shared_ptr<StreamSlot> slot(new StreamSlot{gw, s.id, client});  // (no temporary: it would release)
        if (expired(s) && !s.status.final) {
            // Nothing will change any more: 204 tells an EventSource not to reconnect.
            res.status = 204;
            return;
        }
        res.set_header("X-Accel-Buffering", "no");
        res.stream = make_stream([&gw, id = s.id, slot](std::shared_ptr<EventStream> out) { return run_stream(gw, id, std::move(out)); });
    });
}

}  // namespace merchant
