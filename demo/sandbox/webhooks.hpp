// webhooks.hpp — the merchant's webhook: an outbox in SQLite, delivered by the shared outbox worker
// (src/server/outbox.hpp, one thread).
//
// Every status change of a transaction enqueues one event (in the same database transaction as the
// change, so none is lost). The body is the service's documented shape:
//   {"type":"rf:alert","data":{"data":"<transaction JSON text>","offerId":..,"transactionId":..,
//    "amount":..,"currency":..,"status":..,"receivedAmount":..},"signature":"<base64>"}
// signed RSASSA-PKCS1-v1_5 SHA-256 over data.data with the sandbox's webhook key. Delivery is retried
// until a 2xx with back-off min(2^(attempt-1), 600) s / speed; the outbox survives restarts.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "config.hpp"
#include "http.hpp"
#include "server/outbox.hpp"
#include "identity.hpp"
#include "store.hpp"

namespace sandbox {

class Webhooks : private paywasm::server::OutboxStore {
public:
    Webhooks(Db& db, const Config& config, const Identity& identity);
    ~Webhooks();

    // Call inside the ledger's transaction (Db::transaction): records the event for `transaction` (the Transaction object's
    // JSON text, as the sandbox wrote it).
    void enqueue(const std::string& transaction);

    std::optional<std::string> url();
    // http(s) URL, or nullopt to stop delivering (later events are logged as `skipped`). The host
    // must be loopback or named by --allow-webhook-host: HttpError(400, webhook_host_not_allowed).
    void set_url(const std::optional<std::string>& url);
    bool allowed(const std::string& url) const;

    // The delivery log, oldest first, events with seq > `since` (JSON array text).
    std::string log(std::int64_t since, int limit);

    void start();
    void stop();
    void wake();  // deliver what is due now (after a URL change)

private:
    // OutboxStore: the oldest due event, to the URL configured now (a merchant who fixes a wrong URL
    // gets the backlog; with no URL, pending events wait); each attempt is logged.
    std::optional<Item> claim(std::int64_t now) override;
    void delivered(const Item& item, const Attempt& attempt) override;
    void failed(const Item& item, const Attempt& attempt) override;
    void record(const Item& item, const Attempt& attempt);

    Db& db_;
    const Config& config_;
    const Identity& identity_;
    paywasm::server::Outbox outbox_;
};

}  // namespace sandbox
