// paywasm-merchant — the merchant's half of a checkout (docs/merchant.md). src/merchant's parts,
// bottom to top: a part includes only the parts below it (their levels: docs/contributing.md "The
// gateway's parts", which unit.docs checks every #include against); each names its files in its map.
//   rules/     the rules and wire shapes, pure: session, money decisions, attempts, order state,
//              wire shapes, the rows and the settings as plain data (map: rules/decide.hpp)
//   store/     the database: every query by table group on one Sql, the schema, the status hub
//              (map: store/store.hpp)
//   gateway/   this object and the operations every wing shares (map: here, below)
//   api/       the JSON routes: the app API, the widget's browser API, webhooks, health (api/api.hpp)
//   hosted/    hosted checkout pages and the links' routes (hosted/hosted.hpp)
//   console/   the merchant's console on its own listener (console/console.hpp)
//   program/   the command line, the settings, init and console-user (program/commands.hpp)
// The Gateway object holds what every route group shares. This part's files (src/merchant/gateway):
//   gateway.cpp          this object: keys, the service client, rate limits
//   session_factory.hpp  the one way a checkout session is made (the app API, a link's opening)
//   orders.hpp           the merchant's operations on orders, shared by the app API and the console
//   order_record.cpp     orders.hpp's typed reads: an order's record, the checkout view, events, debits, audit, overview
//   links.hpp            the link operations, shared by the links' routes and the console's link pages
//   sales.hpp            the console's point of sale: a sale is a one-payment link
//   mail_settings.hpp    a console user's mail, shared by `console-user notify` and the console
//   console_auth.hpp     the console's accounts and logins: scrypt passwords, the wrong-password windows
//   app_requests.hpp     what the app's requests share: the bearer, the methods, the return URLs
//   forwarder.cpp        the outbox: every event POSTed to --app-callback, signed with the event
//                        secret, retried (the shared outbox worker, src/server/outbox.hpp)
//   mailer.cpp           mail to the merchant (rules/notify.hpp words it) through the SMTP relay (libcurl)
//   retention.cpp        the pruning thread (--retain-days, the rate limits' full buckets, the
//                        attention pass)
// A payment's status travels: service webhook -> verify_webhook (core) -> SessionStore::apply_webhook
// (one transaction with the session's row locked: read, decide_webhook, then the event, transaction,
// session status, outbox row, a NOTIFY with the session's wake tag) -> StatusHub::notify -> each
// SSE stream (api/browser_api.cpp), which reads the session's status itself.
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
