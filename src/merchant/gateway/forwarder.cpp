// Forwarding: every event POSTed to --app-callback, signed with the event secret (Paywasm-Signature,
// over the time of sending; the id is inside the signed body, the header repeats it for logs), by
// the shared outbox worker (src/server/outbox.hpp) on the store's outbox rows.
// 4 workers; a row is leased for 60 s while one delivers it (other workers and instances keep off),
// so a crash mid-delivery leaves it to be retried when the lease ends; a delivery the database could
// not record (it was away) is recorded again for 50 s of the lease, so it is not sent twice. Back-off after n failures:
// --retry-base-ms * 2^(n-1), at most 10 minutes.
#include <algorithm>

#include "gateway/gateway.hpp"
#include "paywasm/checkout.hpp"
#include "paywasm/crypto.hpp"
#include "server/outbox.hpp"
#include "server/util.hpp"

namespace merchant {

constexpr std::int64_t kLeaseMs = 60000;  // an event's lease while one worker delivers it

struct Gateway::Forwarder final : paywasm::server::OutboxStore {
    Forwarder(Gateway& gw_, paywasm::server::OutboxOptions options) : gw(gw_), outbox(*this, std::move(options)) {}
    ~Forwarder() override { outbox.stop(); }

    std::optional<Item> claim(std::int64_t now) override {
        auto ev = gw.store.events.claim_due(now, kLeaseMs);
        if (!ev) return std::nullopt;
        Item item;
        item.id = ev->id;
        item.url = gw.config.app_callback;
        item.attempts = ev->attempts;
        item.headers = {{"Paywasm-Signature", paywasm::sign_event(gw.config.event_secret, ev->body, now_ms() / 1000)},
                        {"Paywasm-Event-Id", ev->id}};
        item.body = std::move(ev->body);
        return item;
    }
    void delivered(const Item& item, const Attempt& attempt) override {
        gw.store.events.delivered(item.id, attempt.finished);
        record(item, attempt);
    }
    void failed(const Item& item, const Attempt& attempt) override {
        gw.store.events.failed(item.id, attempt.next_attempt_at, attempt.error);
        record(item, attempt);
    }
    // Every attempt on the event's record (GET /v1/events/{id}, the console's timeline).
    void record(const Item& item, const Attempt& attempt) {
        DeliveryRow row{attempt.started, attempt.finished, attempt.http_status, std::nullopt};
        if (!attempt.error.empty()) row.error = attempt.error;
        gw.store.events.record_delivery(item.id, row);
    }

    Gateway& gw;
    paywasm::server::Outbox outbox;
};

std::function<std::int64_t(std::int64_t)> Gateway::retry_backoff() const {
    return [base = config.retry_base_ms](std::int64_t failures) {
        const int shift = static_cast<int>(std::min<std::int64_t>(failures - 1, 20));
        return std::min<std::int64_t>(base << shift, 10 * 60 * 1000);
    };
}

void Gateway::start_forwarder() {
    if (config.app_callback.empty()) return;
    paywasm::server::OutboxOptions o;
    o.name = "paywasm-merchant: outbox";
    o.workers = 4;
    o.timeouts = {5, 10, 10};
    o.verbose = config.verbose;
    o.record_retry_ms = kLeaseMs - 10000;  // the database back within 50 s: a delivered event is not sent again
    o.backoff_ms = retry_backoff();
    forwarder_ = std::make_shared<Forwarder>(*this, std::move(o));
    forwarder_->outbox.start();
}

void Gateway::wake_forwarder() {
    if (forwarder_) forwarder_->outbox.wake();
}

void Gateway::stop() {
    stop_pruner();
    hub.shutdown();
    if (forwarder_) forwarder_->outbox.stop();
    stop_mailer();
}

}  // namespace merchant
