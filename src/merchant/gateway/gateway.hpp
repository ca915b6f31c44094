// paywasm-merchant — the merchant's half of a checkout (docs/merchant.md). The Gateway object holds
// what every route group shares. Every file of src/merchant, by part (a part with its own map names
// its files there; x.hpp stands for its x.cpp too):
// The program:
//   main.cpp             the command line: serve, init, console-user; the listeners
//   config.hpp           the settings as read
//   settings.hpp         the long options read from the --config file, the environment and flags
//   init.hpp             `paywasm-merchant init`: a gateway set up in one command
//   gateway.cpp          this object: keys, the service client, rate limits
// The rules and wire shapes (pure: no database, no clock, no I/O):
//   session.hpp          a checkout session and its status, as kept
//   decide.hpp           the money rules: a verified webhook against the session -> a Decision
//   attempts.hpp         the payment attempts' rules
//   order_state.hpp      an order's state (paid, partly paid, ...) and its SQL twin
//   overview.hpp         the console overview's figures
//   ship_to.hpp          what the seller needs to ship an order
//   notify.hpp           which events a console user is mailed about, and each mail's words
//   events.hpp           every wire shape: the status JSON, SSE events, forwarded events
// The database:
//   store.hpp            every query, by table group on one Sql (its own map)
//   schema.hpp           the tables, their migrations, the writer guard
//   status_hub.hpp       which SSE streams a change wakes (NOTIFY carries a wake tag), the stream caps
// The operations, routes and workers:
//   session_factory.hpp  the one way a checkout session is made (the app API, a link's opening)
//   orders.hpp           the merchant's operations on orders, shared by the app API and the console
//   mail_settings.hpp    a console user's mail, shared by `console-user notify` and the console
//   order_record.cpp     orders.hpp's typed reads: an order's record, events, debits, audit, overview
//   app_api.cpp          /v1/sessions, /v1/subscriptions, /v1/events   the shop's server (Bearer $PAYWASM_APP_SECRET)
//   browser_api.cpp      /v1/checkout/{id}[/qr|/status|/attempts]     the widget (CORS for --shop-origin only)
//   webhooks.cpp         /v1/webhooks                                 the service's signed status changes
//   hosted.hpp           hosted checkout pages and payment links (its own map)
//   console.hpp          the merchant's console on its own listener (its own map)
//   forwarder.cpp        the outbox: every event POSTed to --app-callback, signed with the event
//                        secret, retried (the shared outbox worker, src/server/outbox.hpp)
//   mailer.cpp           mail to the merchant (notify.hpp words it) through the SMTP relay (libcurl)
//   retention.cpp        the pruning thread (--retain-days, the rate limits' full buckets, the
//                        attention pass)
//   health.hpp           /healthz, /readyz, /metrics
// A payment's status travels: service webhook -> verify_webhook (core) -> SessionStore::apply_webhook
// (one transaction with the session's row locked: read, decide_webhook, then the event, transaction,
// session status, outbox row, a NOTIFY with the session's wake tag) -> StatusHub::notify -> each
// SSE stream (browser_api.cpp), which reads the session's status itself.
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include <boost/asio/thread_pool.hpp>

#include "rules/config.hpp"
#include "paywasm/crypto.hpp"
#include "paywasm/error.hpp"
#include "paywasm/protocol.hpp"
#include "server/http.hpp"
#include "server/sql.hpp"
#include "store/status_hub.hpp"
#include "store/store.hpp"

namespace merchant {

using namespace paywasm::server;

// A route handler's parameters (Router::route): the request, the response it fills, the body read.
using Req = const Request&;
using Res = Response&;
using Body = const std::string&;

struct Gateway {
    Gateway(Config config, std::unique_ptr<Sql> sql);
    ~Gateway();

    Config config;
    paywasm::PublicKey merchant_key;
    paywasm::PublicKey webhook_key;
    std::string merchant_fingerprint;
    // Declared before the store: the store's PostgreSQL listener thread calls hub.notify(), so the
    // store (and that thread) must be gone before the hub is destroyed.
    StatusHub hub;
    Store store;
    // Takes a token of `key`'s bucket (Upkeep::take_token: shared by every instance on the database),
    // `per_minute` a minute; when there is none, throws 429 rate_limited with Retry-After set on `res`.
    void rate_limit(const std::string& key, int per_minute, Response& res, const char* what);
    // The threads that read sessions for SSE streams (2): apart from the server's workers, so that
    // thousands of streams waking at once cannot delay a webhook or the app API.
    std::unique_ptr<boost::asio::thread_pool> stream_reads;

    // Sends a prepared request to the service once (no retry) and parses the answer with `parse`
    // (a core parse_*_response). Whatever fails on the service's side becomes an HttpError:
    // 504 service_timeout, 502 service_unreachable, or 502 with the core's code (unauthorized,
    // bad_response, server, ...) and message; the caller's own mistakes were refused before.
    template <class Parse>
    auto service(const paywasm::HttpRequest& request, Parse parse) -> decltype(parse(paywasm::HttpResponse{})) {
        try {
            return parse(call_service(request));
        } catch (const paywasm::Error& e) {
            throw service_error(e);
        }
    }
    paywasm::HttpResponse call_service(const paywasm::HttpRequest& request);
    static HttpError service_error(const paywasm::Error& e);
    // The outboxes' back-off (forwarding, mail): --retry-base-ms * 2^(failures-1), at most 10 minutes.
    std::function<std::int64_t(std::int64_t)> retry_backoff() const;
    void start_forwarder();
    void wake_forwarder();
    void start_mailer();  // mailer.cpp: with --smtp-url, the mail outbox's worker
    void stop_mailer();   // waits for a send under way
    void start_pruner();  // retention.cpp; with retain_ms 0 it prunes the rate buckets only
    // The attention pass (AttemptStore::attention_pass), on the pruner thread: stuck attempts -> one
    // checkout.attention_needed event each; their sessions' streams woken, the forwarder too.
    void attention_pass();
    void stop_pruner();
    // Retention's figures for /metrics: passes finished, and the expired sessions older than the
    // cutoff that the last pass kept for the money in them (Upkeep::Pruned::kept).
    std::atomic<std::uint64_t> retention_passes{0};
    std::atomic<std::int64_t> retention_kept{0};
    void stop();

private:
    std::thread pruner_;
    std::mutex prune_mutex_;
    std::condition_variable prune_cv_;
    bool prune_stop_ = false;
    struct Forwarder;  // forwarder.cpp: the store's outbox rows on the shared outbox worker
    std::shared_ptr<Forwarder> forwarder_;
    struct Mailer;  // mailer.cpp: the mail outbox's rows, sent through the SMTP relay
    std::shared_ptr<Mailer> mailer_;
};

}  // namespace merchant
