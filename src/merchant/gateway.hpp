// paywasm-merchant — the merchant's half of a checkout (docs/merchant.md). One object holds what
// every route group shares:
//   app_api.cpp      /v1/sessions, /v1/subscriptions   the shop's server (Bearer $PAYWASM_APP_SECRET)
//   browser_api.cpp  /v1/checkout/{id}[/qr|/status]    the widget (CORS for --shop-origin only)
//   webhooks.cpp     /v1/webhooks                      the service's signed status changes
//   decide.cpp       the money rules, pure: a verified webhook against the session → an outcome
//   forwarder.cpp    the outbox: every event POSTed to --app-callback, signed with the event
//                    secret, retried (the shared outbox worker, src/server/outbox.hpp)
//   health.cpp       /healthz, /readyz, /metrics
//   store.cpp        every table and query (SQLite or PostgreSQL through src/server/sql.hpp)
//   gateway.cpp      keys, the service client, the status JSON
//   status_hub.cpp   which SSE streams a change wakes, and the stream caps
// A payment's status travels: service webhook → verify_webhook (core) → store (one transaction with
// the session's row locked: decide_webhook, then event, transaction, session status, outbox row,
// NOTIFY) → StatusHub → each SSE stream.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "paywasm/checkout.hpp"
#include "paywasm/crypto.hpp"
#include "paywasm/error.hpp"
#include "paywasm/models.hpp"
#include "paywasm/protocol.hpp"
#include "server/event_stream.hpp"
#include "server/http.hpp"
#include "server/sql.hpp"

namespace merchant {

using namespace paywasm::server;

struct Config {
    std::string host = "127.0.0.1";
    int port = 8090;                    // 0: a free port (printed on the first stdout line)
    std::string service_url;            // the service's {base_url}, e.g. http://127.0.0.1:8080/api
    std::string public_service_url;     // what the shopper's browser calls; default: service_url
    std::string merchant_id;
    std::string merchant_public_pem;    // --merchant-public-key (file contents)
    std::string webhook_public_pem;     // --webhook-public-key (file contents)
    std::string shop_origin;            // the only origin that gets CORS headers
    std::vector<std::string> trusted_proxies;  // --trusted-proxy: peers whose X-Forwarded-For names the client
    std::string db = "sqlite:paywasm-merchant.db";
    std::string app_callback;           // where verified changes are forwarded; empty: not forwarded
    std::vector<std::string> methods = {"exchange", "qr"};
    paywasm::Padding padding = paywasm::Padding::oaep_sha1;
    std::int64_t session_ttl_ms = 60LL * 60 * 1000;
    std::int64_t retry_base_ms = 1000;  // forwarding back-off: base * 2^(attempt-1), at most 10 min
    int max_streams = 10000;            // concurrent SSE streams; more get 503
    int max_streams_per_session = 8;    // per session id; more get 429
    int max_streams_per_client = 1000;  // per client address; more get 429
    int stream_max_seconds = 1800;      // a stream ends after this (the client reconnects after `retry:`)
    int service_timeout_s = 30;
    std::size_t max_body = 64 * 1024;
    bool verbose = false;               // access log on stderr
    // From the environment, never from the command line (ps would show them).
    std::string merchant_token;         // PAYWASM_MERCHANT_TOKEN
    std::string app_secret;             // PAYWASM_APP_SECRET: the app API's bearer
    std::string event_secret;           // PAYWASM_EVENT_SECRET: signs forwarded events (not the bearer)
    std::int64_t retain_ms = 0;         // --retain-days: 0 keeps everything (Store::prune)
    int session_rate = 600;             // --session-rate: sessions a minute per app secret (0: no limit)
    int qr_rate_per_session = 5;        // --qr-rate-per-session: QR creations a minute per session
    int qr_rate_per_client = 30;        // --qr-rate-per-client: QR creations a minute per client address
    std::int64_t prune_interval_ms = 60 * 1000;
};

// A session's latest status as stored; what it means is the core's (status_json()).
struct StatusView {
    std::optional<int> status;          // the service's code; nullopt before any transaction
    std::string state;                  // open | <describe_status kind> | amount_mismatch
    bool final = false, success = false;
    std::optional<std::string> transaction_id, received_amount;
    std::optional<std::string> method;  // qr | exchange | bank; nullopt when unknown
    // The transaction's own amount and currency (crypto for a QR code): what the shopper owes in.
    std::optional<std::string> tx_amount, tx_currency;
    std::int64_t version = 0, updated_at = 0;
};

struct Session {
    std::string id, offer_id, checkout_json, amount, currency, methods_csv;
    std::int64_t created_at = 0, expires_at = 0;
    std::optional<std::string> qr_state, qr_response;
    StatusView status;
    bool offers(std::string_view method) const;
    void write_methods(paywasm::JsonWriter& w) const;  // ["exchange", "bank", "qr"], the offered ones
};

// Wakes the SSE streams of a session when its status changed (here or, through PostgreSQL
// NOTIFY, on another instance), and keeps the stream caps. Thread-safe.
// {"sessionId":..,"status":..,...}: the status JSON of the browser API, SSE data and events.
std::string status_json(const Session& s);

// A session's status as a change pushed it (Store::Applied::pushed, a NOTIFY's payload): what a
// stream sends without reading the session again.
struct PushedStatus {
    std::int64_t version = 0;
    bool final = false;
    std::string json;  // status_json()
};
// "<sessionId>\n<version>\n<final 0|1>\n<status JSON>": the NOTIFY payload of a change.
std::string push_payload(const std::string& session_id, const PushedStatus& pushed);
// Reads push_payload's text into `session_id` and `pushed`; a bare session id (a change whose
// status was not sent) gives no `pushed`.
void read_push_payload(const std::string& payload, std::string& session_id, std::optional<PushedStatus>& pushed);

class StatusHub {
public:
    // A slot for a stream of `session_id` opened by `client`: true and counted, or false with the
    // cap that refused it in `refused` ("total", "session", "client"). release() gives it back.
    bool reserve(const std::string& session_id, const std::string& client, const Config& caps, std::string& refused);
    void release(const std::string& session_id, const std::string& client);
    // A stream calls watch() before its first read of the session and unwatch() when it ends.
    void watch(const std::string& session_id, const std::shared_ptr<EventStream>& stream);
    void unwatch(const std::string& session_id, const EventStream* stream);
    // Wakes the streams of `session_id` ("": every stream, after a reconnect or at shutdown).
    // `pushed`: the session's new status, kept for its streams (the newest version wins); without
    // it a stream reads the session again.
    void notify(const std::string& session_id, const std::optional<PushedStatus>& pushed = std::nullopt);
    // What a stream of `session_id` finds after a wake: the newest pushed status, and a count that
    // moves with every notify() that carried none (the stream must read the session then).
    struct Latest {
        std::optional<PushedStatus> pushed;
        std::uint64_t unpushed = 0;
    };
    Latest latest(const std::string& session_id) const;
    void shutdown();                             // wakes every stream; stopping() turns true
    bool stopping() const { return stopping_; }
    int open() const;                            // streams reserved now

private:
    mutable std::mutex mutex_;
    std::map<std::string, std::vector<std::shared_ptr<EventStream>>> watchers_;
    std::map<std::string, Latest> latest_;  // of watched sessions only
    std::uint64_t unpushed_all_ = 0;        // notify("") calls, added to every session's count
    std::map<std::string, int> per_session_, per_client_;
    int total_ = 0;
    std::atomic<bool> stopping_{false};
};

class Store {
public:
    explicit Store(std::unique_ptr<Sql> sql);
    Sql& sql() { return *sql_; }

    // Inserts the session, or returns the existing one for the same offerId: `created` says which;
    // HttpError(409, offer_conflict) when that one's checkout differs.
    Session create_session(Session s, const std::string& checkout_hash, bool& created);
    std::optional<Session> session(const std::string& id);
    std::optional<Session> session_by_offer(const std::string& offer_id);
    // The session's transactions as a JSON array text.
    std::string transactions_json(const std::string& session_id);

    // QR creation, once per code: claim() is true for the one caller that may call the service,
    // with the orderId current_qr_order() names ("<offerId>~qr<n>": QR codes have their own
    // namespace, and an offerId may not contain '~'). renew_qr() is claim() for a new code in place
    // of the answer `current_response` (transaction `current_tx`), decided under the session's row
    // lock (qr_code_dead): lost when another request renewed it, not_dead when the code can still be
    // paid or shows money by now, expired when the session has (and the code is dead).
    // release() after a failed call lets the next caller try again with the same orderId.
    bool claim_qr(const Session& s, std::int64_t now, std::int64_t stale_before);
    enum class Renewal { renewed, lost, not_dead, expired };
    Renewal renew_qr(const Session& s, const std::string& current_response, const std::string& current_tx,
                     std::int64_t now);
    std::string current_qr_order(const Session& s);

    // A subscription debit the gateway asked the service for: later webhooks with its orderId are
    // forwarded as subscription events.
    void record_debit(const std::string& order_id, const std::string& subscription_id,
                      const std::optional<std::string>& merchant_subscription_id, std::int64_t now);
    void finish_qr(const std::string& session_id, const std::string& response_json, const std::string& order_id,
                   const std::string& transaction_id, std::int64_t now);
    void release_qr(const std::string& session_id);

    // One verified webhook, decided (decide_webhook) and persisted in one transaction, with the
    // session's row locked so that instances sharing a PostgreSQL apply one webhook of a session at a
    // time. Returns the outcome (decide.hpp, or duplicate), why, and the session id whose status
    // changed (empty when none).
    struct Applied {
        std::string outcome, session_id, event_id, reason;
        std::optional<PushedStatus> pushed;  // the session's new status, when it moved
    };
    Applied apply_webhook(const paywasm::VerifiedWebhook& hook, const std::string& merchant_id, bool forward,
                          std::int64_t now);

    // The outbox (forwarder.cpp). claim_due() leases one due event to this caller for `lease_ms`.
    struct OutboxEvent {
        std::string id, body;
        std::int64_t attempts = 0;
    };
    std::optional<OutboxEvent> claim_due(std::int64_t now, std::int64_t lease_ms);
    void delivered(const std::string& id, std::int64_t now);
    void failed(const std::string& id, std::int64_t next_attempt_at, const std::string& error);
    std::string outbox_json(int limit);  // recent events with their delivery state (for tests/ops)

    // Retention (--retain-days): deletes, in one transaction, at most `batch` sessions last changed
    // before `cutoff` that are done with (expired, and final or with no money of the shopper's in
    // them) with everything about them (webhook events, transactions, QR codes: the shopper's
    // name, e-mail and address are in those), and as many delivered outbox rows, unmatched webhook
    // events and debits older than `cutoff`. An undelivered event and a session still holding money
    // in flight are never deleted. Returns how many rows went (0: nothing left to prune).
    std::int64_t prune(std::int64_t cutoff, int batch);

    // The rate limits, shared by every instance on the database: a token bucket per `key` holding
    // `per_minute` tokens, refilled at `per_minute` a minute. Takes one at `now`: 0 when there was
    // one, else the milliseconds until there will be (Retry-After). per_minute 0: no limit, no query.
    std::int64_t take_token(const std::string& key, int per_minute, std::int64_t now);
    // Deletes the buckets full again (untouched for a minute); returns how many.
    std::int64_t prune_buckets(std::int64_t now);

    // At start: refuses (std::runtime_error saying which) the same key given twice, and the two keys
    // exactly swapped against what this database was last served with; then records both
    // fingerprints. A key that changed to a new one (a rotation) is accepted. On a first start
    // there is nothing to compare a swap with: docs/merchant.md says which file is which.
    void check_keys(const std::string& merchant_fp, const std::string& webhook_fp, std::int64_t now);

private:
    std::unique_ptr<Sql> sql_;
};

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
    // Takes a token of `key`'s bucket (Store::take_token: shared by every instance on the database),
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
    void start_forwarder();
    void wake_forwarder();
    void start_pruner();  // retention.cpp; with retain_ms 0 it prunes the rate buckets only
    void stop_pruner();
    void stop();

private:
    std::thread pruner_;
    std::mutex prune_mutex_;
    std::condition_variable prune_cv_;
    bool prune_stop_ = false;
    struct Forwarder;  // forwarder.cpp: the store's outbox rows on the shared outbox worker
    std::shared_ptr<Forwarder> forwarder_;
};

void register_app_api(Router& server, Gateway& gw);
void register_browser_api(Router& server, Gateway& gw);
void register_webhooks(Router& server, Gateway& gw);

// The status JSON's money members for a session's status (status_json, forwarded events):
// "orderTotal" (the session's fiat total) and "expected", "received", "remaining" (the core's
// amounts_owed in the transaction's own currency, or null), each {amount, currency}.
void write_amounts(paywasm::JsonWriter& w, const Session& s);

}  // namespace merchant
