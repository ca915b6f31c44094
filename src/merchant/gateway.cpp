// The shared object: keys, the service client, the status hub and the forwarding outbox.
#include "gateway.hpp"

#include <chrono>
#include <cstdio>

#include "paywasm/error.hpp"
#include "paywasm/protocol.hpp"
#include "server/transport.hpp"
#include "server/url.hpp"
#include "server/util.hpp"

namespace merchant {

std::string money(const paywasm::Decimal& d) { return d.scale() <= 2 ? d.to_fixed(2) : d.to_string(); }

// ---- Gateway --------------------------------------------------------------------------------------------

Gateway::Gateway(Config config_, std::unique_ptr<Sql> sql)
    : config(std::move(config_)),
      merchant_key(paywasm::PublicKey::parse(config.merchant_public_pem)),
      webhook_key(paywasm::PublicKey::parse(config.webhook_public_pem)),
      merchant_fingerprint(merchant_key.fingerprint()),
      hub(),
      store(std::move(sql)),
      stream_reads(std::make_unique<boost::asio::thread_pool>(2)) {
    // Another instance changed a session (PostgreSQL NOTIFY): wake this instance's streams.
    store.sql().listen("paywasm_status", [this](const std::string& session_id) { hub.notify(session_id); });
}

Gateway::~Gateway() { stop(); }

paywasm::HttpResponse Gateway::call_service(const paywasm::HttpRequest& request) {
    TransportOptions options;
    options.timeout_seconds = config.service_timeout_s;
    return send(request, config.service_url, options);
}

HttpError Gateway::service_error(const paywasm::Error& e) {
    using paywasm::ErrorCode;
    if (e.code() == ErrorCode::timeout) return HttpError(504, "service_timeout", std::string("the payment service did not answer in time: ") + e.what());
    if (e.code() == ErrorCode::network) return HttpError(502, "service_unreachable", std::string("the payment service could not be reached: ") + e.what());
    std::string message = std::string("the payment service refused or garbled the request: ") + e.what();
    if (e.http_status()) message += " (HTTP " + std::to_string(e.http_status()) + ")";
    return HttpError(502, std::string(paywasm::to_string(e.code())), message, e.field());
}

std::string Gateway::status_json(const Session& s) const {
    const StatusView& v = s.status;
    paywasm::JsonWriter w;
    w.begin_object().str("sessionId", s.id).str("offerId", s.offer_id);
    w.key("status");
    v.status ? w.number(*v.status) : w.null();
    w.str("state", v.state).flag("final", v.final).flag("success", v.success);
    if (v.status) w.str("label", paywasm::describe_status(*v.status).label);
    w.key("transactionId");
    v.transaction_id ? w.string(*v.transaction_id) : w.null();
    w.key("receivedAmount");
    v.received_amount ? w.string(*v.received_amount) : w.null();
    w.str("amount", s.amount).str("currency", s.currency);
    w.num("version", v.version);
    w.key("updatedAt");
    v.updated_at ? w.string(iso8601(v.updated_at)) : w.null();
    w.end_object();
    return w.take();
}

// ---- Forwarding ---------------------------------------------------------------------------------------------

void Gateway::start_forwarder() {
    if (config.app_callback.empty()) return;
    for (int i = 0; i < 4; ++i) forwarders_.emplace_back([this] { forward_loop(); });
}

void Gateway::wake_forwarder() {
    {
        std::lock_guard<std::mutex> lock(forward_mutex_);
        forward_wake_ = true;
    }
    forward_cv_.notify_all();
}

void Gateway::stop() {
    stopping_ = true;
    hub.shutdown();
    forward_cv_.notify_all();
    for (auto& t : forwarders_) {
        if (t.joinable()) t.join();
    }
    forwarders_.clear();
}

// One worker: lease a due event, POST it signed, mark it delivered or schedule the next attempt
// (base * 2^(attempt-1), at most 10 minutes). The lease (60 s) keeps other workers and instances
// off it meanwhile; a crash mid-delivery leaves it to be retried when the lease ends.
void Gateway::forward_loop() {
    const auto url = split_url(config.app_callback);  // checked at start-up
    const std::string path = url ? url->path : "/";
    Poster client(url ? url->origin : config.app_callback, {5, 10, 10});

    while (!stopping_) {
        std::optional<Store::OutboxEvent> ev;
        try {
            ev = store.claim_due(now_ms(), 60000);
        } catch (const std::exception& e) {
            std::fprintf(stderr, "paywasm-merchant: outbox: %s\n", e.what());
        }
        if (!ev) {
            std::unique_lock<std::mutex> lock(forward_mutex_);
            forward_cv_.wait_for(lock, std::chrono::milliseconds(500), [&] { return stopping_ || forward_wake_; });
            forward_wake_ = false;
            continue;
        }
        const long long unix_now = now_ms() / 1000;
        const auto res = client.post(path, {{"Paywasm-Signature", paywasm::sign_event(config.app_secret, ev->body, unix_now)},
                                            {"Paywasm-Event-Id", ev->id}},
                                     ev->body, "application/json");
        std::string error;
        if (!res.status) error = "no answer: " + res.error;
        else if (*res.status < 200 || *res.status > 299) error = "HTTP " + std::to_string(*res.status);
        try {
            if (error.empty()) {
                store.delivered(ev->id, now_ms());
            } else {
                const int shift = static_cast<int>(std::min<std::int64_t>(ev->attempts, 20));
                const std::int64_t delay = std::min<std::int64_t>(config.retry_base_ms << shift, 10 * 60 * 1000);
                store.failed(ev->id, now_ms() + delay, error);
                if (config.verbose) std::fprintf(stderr, "paywasm-merchant: forward %s: %s\n", ev->id.c_str(), error.c_str());
            }
        } catch (const std::exception& e) {
            std::fprintf(stderr, "paywasm-merchant: outbox: %s\n", e.what());
        }
    }
}

}  // namespace merchant
