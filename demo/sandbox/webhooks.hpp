// webhooks.hpp — the merchant's webhook: an outbox in SQLite and one delivery thread.
//
// Every status change of a transaction enqueues one event (in the same database transaction as the
// change, so none is lost). The body is the service's documented shape:
//   {"type":"rf:alert","data":{"data":"<transaction JSON text>","offerId":..,"transactionId":..,
//    "amount":..,"currency":..,"status":..,"receivedAmount":..},"signature":"<base64>"}
// signed RSASSA-PKCS1-v1_5 SHA-256 over data.data with the sandbox's webhook key. Delivery is retried
// until a 2xx with back-off min(2^(attempt-1), 600) s / speed; the outbox survives restarts.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "config.hpp"
#include "http.hpp"
#include "identity.hpp"
#include "store.hpp"

namespace sandbox {

class Webhooks {
public:
    Webhooks(Db& db, const Config& config, const Identity& identity);
    ~Webhooks();

    // Call with a DbTransaction open: records the event for `transaction` (the Transaction object's
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
    void run();
    bool deliver_one();  // false when nothing is due

    Db& db_;
    const Config& config_;
    const Identity& identity_;
    std::thread thread_;
    std::mutex mutex_;
    std::condition_variable cv_;
    bool stopping_ = false;
    bool woken_ = false;
};

}  // namespace sandbox
