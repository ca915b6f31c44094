// src/server/outbox.hpp — the delivery side of an outbox, one for every program (the sandbox's
// webhooks, the gateway's forwarding to the shop app, its mail): worker threads take the next due item from
// the program's store, POST it, and record the outcome; a failure comes back after a back-off.
// What an item is, where it is kept and how it is leased stay the program's (OutboxStore).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "client/transport.hpp"

namespace paywasm::server {

class OutboxStore {
public:
    struct Item {
        std::string id;    // the program's key of the item
        std::string url;   // where it goes now (http or https)
        std::string body;  // POSTed as application/json
        std::vector<std::pair<std::string, std::string>> headers;
        std::int64_t attempts = 0;  // failed attempts before this one
        std::string refuse;  // not sent, failed with this error when set (e.g. a host no longer allowed)
    };
    // The outcome of one attempt, as the store records it.
    struct Attempt {
        std::optional<int> http_status;  // the answer's status; nullopt when none arrived
        std::string error;               // "" when delivered (a 2xx)
        std::int64_t started = 0, finished = 0;  // epoch ms
        std::int64_t next_attempt_at = 0;        // failed only: when it is due again
    };
    virtual ~OutboxStore() = default;
    // The next due item, leased to the calling worker (others and other processes must not get it
    // meanwhile), or nullopt when nothing is due. May throw: the worker logs it and waits.
    virtual std::optional<Item> claim(std::int64_t now) = 0;
    virtual void delivered(const Item& item, const Attempt& attempt) = 0;
    virtual void failed(const Item& item, const Attempt& attempt) = 0;
};

struct OutboxOptions {
    std::string name = "outbox";  // in log lines
    int workers = 1;
    client::Poster::Timeouts timeouts;
    // Milliseconds until the next attempt after `failures` failed ones (1, 2, ...).
    std::function<std::int64_t(std::int64_t failures)> backoff_ms = [](std::int64_t) { return 1000; };
    int idle_ms = 500;   // how long a worker waits for wake() when nothing is due
    bool verbose = false;  // each failure on stderr
    // How long after its claim an outcome the store could not take is tried again (each second):
    // keep it below the store's lease, so that no other worker holds the item meanwhile. 0: once.
    std::int64_t record_retry_ms = 0;
    // How an item goes: unset, an HTTP POST of its body to its url (one kept-alive client per
    // origin). Set (the gateway's mail: SMTP), this is called instead, on the worker's thread; it
    // sets attempt.error ("" when delivered) and may set attempt.http_status. A throw is an error.
    std::function<void(const OutboxStore::Item&, OutboxStore::Attempt&)> deliver;
};

class Outbox {
public:
    Outbox(OutboxStore& store, OutboxOptions options) : store_(store), options_(std::move(options)) {}
    ~Outbox() { stop(); }
    Outbox(const Outbox&) = delete;
    Outbox& operator=(const Outbox&) = delete;

    void start();  // the worker threads
    void wake();   // something is due now (a new item, a changed URL)
    void stop();   // waits for each worker's attempt under way

private:
    void work();
    void record(const OutboxStore::Item& item, const OutboxStore::Attempt& attempt, std::int64_t claimed_at);
    OutboxStore& store_;
    OutboxOptions options_;
    std::vector<std::thread> workers_;
    std::mutex mutex_;
    std::condition_variable cv_;
    bool woken_ = false, stopping_ = false;
};

}  // namespace paywasm::server
