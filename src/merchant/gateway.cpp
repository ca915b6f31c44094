// The shared object: keys, the service client, the status hub and the forwarding outbox.
#include "gateway.hpp"

#include <chrono>
#include <cstdio>

#include "paywasm/error.hpp"
#include "paywasm/protocol.hpp"
#include "server/transport.hpp"
#include "server/util.hpp"

namespace merchant {



// ---- Gateway --------------------------------------------------------------------------------------------

Gateway::Gateway(Config config_, std::unique_ptr<Sql> sql)
    : config(std::move(config_)),
      merchant_key(paywasm::PublicKey::parse(config.merchant_public_pem)),
      webhook_key(paywasm::PublicKey::parse(config.webhook_public_pem)),
      merchant_fingerprint(merchant_key.fingerprint()),
      hub(),
      store(std::move(sql)),
      stream_reads(std::make_unique<boost::asio::thread_pool>(2)) {
    store.check_keys(merchant_fingerprint, webhook_key.fingerprint(), now_ms());
    // Another instance changed a session (PostgreSQL NOTIFY): wake this instance's streams.
    // The payload carries the new status (push_payload): the streams send it without a read.
    store.sql().listen("paywasm_status", [this](const std::string& payload) {
        std::string session_id;
        std::optional<PushedStatus> pushed;
        read_push_payload(payload, session_id, pushed);
        hub.notify(session_id, pushed);
    });
}

Gateway::~Gateway() { stop(); }

void Gateway::rate_limit(const std::string& key, int per_minute, Response& res, const char* what) {
    const std::int64_t wait_ms = store.take_token(key, per_minute, now_ms());
    if (wait_ms == 0) return;
    res.set_header("Retry-After", std::to_string((wait_ms + 999) / 1000));
    throw HttpError(429, "rate_limited", std::string("too many ") + what + "; try again after Retry-After seconds");
}

paywasm::HttpResponse Gateway::call_service(const paywasm::HttpRequest& request) {
    TransportOptions options;
    options.timeout_seconds = config.service_timeout_s;
    return send(request, config.service_url, options);
}

// The answer names what happened, never how: the service's internal URL, a TLS or resolver error
// and the service's own message go to stderr (escaped), not to a browser or an app.
HttpError Gateway::service_error(const paywasm::Error& e) {
    using paywasm::ErrorCode;
    // The transport's own words (URL, TLS, resolver) for a timeout or an unreachable service; for
    // an answer, its HTTP status only: the service's message may name ids that stay off logs.
    std::string detail;
    if (e.code() == ErrorCode::timeout || e.code() == ErrorCode::network) {
        for (char c : std::string(e.what()).substr(0, 300)) detail += (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) ? '?' : c;
    } else {
        detail = "HTTP " + std::to_string(e.http_status());
    }
    std::fprintf(stderr, "paywasm-merchant: payment service: %s: %s\n", std::string(paywasm::to_string(e.code())).c_str(),
                 detail.c_str());
    if (e.code() == ErrorCode::timeout) return HttpError(504, "service_timeout", "the payment service did not answer in time");
    if (e.code() == ErrorCode::network) return HttpError(502, "service_unreachable", "the payment service could not be reached");
    std::string message = "the payment service refused or could not read the request";
    if (e.http_status()) message += " (HTTP " + std::to_string(e.http_status()) + ")";
    return HttpError(502, std::string(paywasm::to_string(e.code())), message, e.field());
}

void write_amounts(paywasm::JsonWriter& w, const Session& s) {
    const StatusView& v = s.status;
    w.key("orderTotal").begin_object().str("amount", s.amount).str("currency", s.currency).end_object();
    std::optional<paywasm::Owed> owed;
    paywasm::Decimal amount;
    if (v.status && v.tx_amount && v.tx_currency && paywasm::Decimal::try_parse(*v.tx_amount, amount)) {
        std::optional<paywasm::Decimal> received;
        paywasm::Decimal r;
        if (v.received_amount && paywasm::Decimal::try_parse(*v.received_amount, r)) received = r;
        const auto method = v.method ? paywasm::pay_method_from(*v.method) : std::nullopt;
        try {
            owed = paywasm::amounts_owed(paywasm::describe_status(*v.status, method), {amount, *v.tx_currency}, received);
        } catch (const paywasm::Error&) {
            // A negative amount from the service: no amounts rather than wrong ones.
        }
    }
    for (auto [name, m] : {std::pair<const char*, const paywasm::Money*>{"expected", owed ? &owed->expected : nullptr},
                           {"received", owed ? &owed->received : nullptr},
                           {"remaining", owed ? &owed->remaining : nullptr}}) {
        w.key(name);
        if (m) w.begin_object().str("amount", paywasm::amount_text(*m)).str("currency", m->currency).end_object();
        else w.null();
    }
}

// What the status means is the core's row for the code and the payment's method; the gateway adds
// only amount_mismatch (never a success, the shopper contacts the shop).
std::string status_json(const Session& s) {
    const StatusView& v = s.status;
    paywasm::JsonWriter w;
    w.begin_object().str("sessionId", s.id).str("offerId", s.offer_id);
    w.key("status");
    v.status ? w.number(*v.status) : w.null();
    std::optional<paywasm::StatusInfo> info;
    if (v.status) {
        const auto method = v.method ? paywasm::pay_method_from(*v.method) : std::nullopt;
        // No method: an exchange or bank payment of a session that offers both (they read alike).
        info = paywasm::describe_status(*v.status, method.value_or(paywasm::PayMethod::exchange));
        if (v.state == "amount_mismatch") {
            info->success = false;
            info->tone = paywasm::Tone::warning;
            info->next = paywasm::NextStep::contact_shop;
        }
    }
    w.key("kind");
    info ? w.string(paywasm::to_string(info->kind)) : w.null();
    w.str("state", v.state).flag("final", v.final).flag("success", v.success);
    w.key("taken");
    info ? w.string(paywasm::to_string(info->taken)) : w.string("none");
    w.key("tone");
    info ? w.string(paywasm::to_string(info->tone)) : w.null();
    w.key("next");
    info ? w.string(paywasm::to_string(info->next)) : w.string("pay");
    if (info) w.str("label", info->label);
    w.key("method");
    v.method ? w.string(*v.method) : w.null();
    w.key("transactionId");
    v.transaction_id ? w.string(*v.transaction_id) : w.null();
    write_amounts(w, s);
    w.num("version", v.version);
    w.key("updatedAt");
    v.updated_at ? w.string(iso8601(v.updated_at)) : w.null();
    w.end_object();
    return w.take();
}

}  // namespace merchant
