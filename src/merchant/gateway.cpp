// The shared object: keys, the service client, the status hub and the forwarding outbox.
#include "gateway.hpp"

#include <chrono>
#include <cstdio>

#include "paywasm/error.hpp"
#include "paywasm/protocol.hpp"
#include "server/transport.hpp"
#include "server/util.hpp"

namespace merchant {



// ---- StatusHub ----------------------------------------------------------------------------------------

std::uint64_t StatusHub::tick(const std::string& session_id) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = entries_.find(session_id);
    return all_ + (it == entries_.end() ? 0 : it->second->tick);
}

void StatusHub::watch(const std::string& session_id) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto& entry = entries_[session_id];
    if (!entry) entry = std::make_shared<Entry>();
    ++entry->watchers;
}

void StatusHub::unwatch(const std::string& session_id) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = entries_.find(session_id);
    if (it != entries_.end() && --it->second->watchers <= 0) entries_.erase(it);
}

std::uint64_t StatusHub::wait(const std::string& session_id, std::uint64_t seen, int timeout_ms) {
    std::unique_lock<std::mutex> lock(mutex_);
    auto& slot = entries_[session_id];  // watched: present (made here only if the caller did not watch)
    if (!slot) slot = std::make_shared<Entry>();
    const std::shared_ptr<Entry> entry = slot;
    entry->cv.wait_for(lock, std::chrono::milliseconds(timeout_ms),
                       [&] { return stopping_ || all_ + entry->tick != seen; });
    return all_ + entry->tick;
}

void StatusHub::notify(const std::string& session_id) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (session_id.empty()) {
        ++all_;
        for (auto& [id, entry] : entries_) entry->cv.notify_all();
        return;
    }
    auto it = entries_.find(session_id);
    if (it == entries_.end()) return;  // nobody is watching it
    ++it->second->tick;
    it->second->cv.notify_all();
}

void StatusHub::shutdown() {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
    for (auto& [id, entry] : entries_) entry->cv.notify_all();
}

// ---- Gateway --------------------------------------------------------------------------------------------

Gateway::Gateway(Config config_, std::unique_ptr<Sql> sql)
    : config(std::move(config_)),
      merchant_key(paywasm::PublicKey::parse(config.merchant_public_pem)),
      webhook_key(paywasm::PublicKey::parse(config.webhook_public_pem)),
      merchant_fingerprint(merchant_key.fingerprint()),
      hub(),
      store(std::move(sql)) {
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
std::string Gateway::status_json(const Session& s) const {
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
    const std::string url = config.app_callback;
    const auto scheme_end = url.find("://");
    const auto path_start = url.find('/', scheme_end == std::string::npos ? 0 : scheme_end + 3);
    const std::string origin = url.substr(0, path_start);
    const std::string path = path_start == std::string::npos ? "/" : url.substr(path_start);
    httplib::Client client(origin);
    client.set_connection_timeout(5);
    client.set_read_timeout(10);
    client.set_write_timeout(10);
    client.set_keep_alive(true);
    client.set_tcp_nodelay(true);  // else Nagle + delayed ACK cap a kept-alive connection at ~25 events/s

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
        // The id is inside the signed body ("id"); the header repeats it for logs only.
        httplib::Headers headers = {{"Paywasm-Signature", paywasm::sign_event(config.event_secret, ev->body, unix_now)},
                                    {"Paywasm-Event-Id", ev->id}};
        auto res = client.Post(path.c_str(), headers, ev->body, "application/json");
        std::string error;
        if (!res) error = "no answer: " + httplib::to_string(res.error());
        else if (res->status < 200 || res->status > 299) error = "HTTP " + std::to_string(res->status);
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
