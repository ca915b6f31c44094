// The gateway's database: every query on its tables, over one Sql (SQLite or PostgreSQL,
// src/server/sql.hpp). The schema and its migrations are schema.cpp's; the money rules decide.cpp's
// (the store reads their inputs and persists what they decided); the wire shapes events.cpp's (the
// store builds no JSON: it stores and returns typed rows, and the texts it is given).
//   store.cpp          sessions, QR codes, debits, key fingerprints
//   store_webhook.cpp  apply_webhook: read -> decide -> persist
//   store_upkeep.cpp   the forwarding outbox, retention, the rate limits' buckets
//   store_console.cpp  the orders list, events and deliveries, notes, accepted underpayments, the
//                      audit log, the console's users and logins
//   store_attempts.cpp payment attempts: registration, reports, the merchant's resolutions, the
//                      attention pass, a verified webhook's transaction attached to its attempt
//   store_mail.cpp     who gets which mail, and the mail outbox (notify.hpp, mailer.cpp)
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "decide.hpp"
#include "overview.hpp"
#include "server/sql.hpp"
#include "session.hpp"
#include "status_hub.hpp"

namespace merchant {

using paywasm::server::Sql;
struct Mail;  // notify.hpp

class Store {
public:
    // Brings the database to the schema of this binary (schema.hpp's migrate()).
    explicit Store(std::unique_ptr<Sql> sql);
    // Beside a running gateway (console-user): migrates nothing, requires this binary's schema
    // (schema.hpp's require_current_schema()).
    struct BesideGateway {};
    Store(std::unique_ptr<Sql> sql, BesideGateway);
    Sql& sql() { return *sql_; }

    // Inserts the session, or returns the existing one for the same offerId: `created` says which;
    // HttpError(409, offer_conflict) when that one's checkout differs.
    Session create_session(Session s, const std::string& checkout_hash, bool& created);
    std::optional<Session> session(const std::string& id);
    std::optional<Session> session_by_offer(const std::string& offer_id);
    // The session's transactions, oldest change first (events.hpp writes them).
    struct TransactionRow {
        std::string id, state;
        std::int64_t status = 0, updated_at = 0;
        std::optional<std::string> native_amount, native_currency, received_amount;
        std::optional<std::string> currency;  // the transaction's own: what receivedAmount counts in
    };
    std::vector<TransactionRow> transactions(const std::string& session_id);

    // QR creation, once per code: claim() is true for the one caller that may call the service,
    // with the orderId current_qr_order() names ("<offerId>~qr<n>": QR codes have their own
    // namespace, and an offerId may not contain '~'). renew_qr() is claim() for a new code in place
    // of the answer `current_response` (transaction `current_tx`), decided under the session's row
    // lock (qr_code_dead): lost when another request renewed it, not_dead when the code can still be
    // paid or shows money by now, expired when the session has (and the code is dead).
    // release() after a failed call lets the next caller try again with the same orderId.
    // false: another request holds the creation, or (`refused` set) the session's link takes no
    // payment now (link_refusal).
    bool claim_qr(const Session& s, std::int64_t now, std::int64_t stale_before, std::string& refused);
    enum class Renewal { renewed, lost, not_dead, expired, link_refused };  // link_refused: link_refusal() said no
    Renewal renew_qr(const Session& s, const std::string& current_response, const std::string& current_tx,
                     std::int64_t now);
    std::string current_qr_order(const Session& s);

    // A subscription debit the gateway asked the service for: later webhooks with its orderId are
    // forwarded as subscription events.
    void record_debit(const std::string& order_id, const std::string& subscription_id,
                      const std::optional<std::string>& merchant_subscription_id, std::int64_t now);
    // The service's answer for a code: stored, and the code's attempt (method qr, live for `window_ms`:
    // --attention-qr-minutes) recorded with what a webhook of it already said.
    void finish_qr(const std::string& session_id, const std::string& response_json, const std::string& order_id,
                   const std::string& transaction_id, std::int64_t window_ms, std::int64_t now);
    void release_qr(const std::string& session_id);

    // One verified webhook (`in`, read from the signed text `signed_json` by incoming_tx()): what it
    // names read, decided (decide_webhook), persisted, in one transaction with the session's row
    // locked so that instances sharing a PostgreSQL apply one webhook of a session at a time. The
    // event id is "evt_" + SHA-256 of `signed_json` (a repeated delivery: Outcome::duplicate, nothing
    // changed). `forward`: an outbox row for the shop app when the decision forwards. Returns the
    // outcome, why, and the session id whose status changed (empty when none).
    struct Applied {
        Outcome outcome = Outcome::unknown_offer;
        std::string session_id, event_id, reason;
        std::optional<PushedStatus> pushed;  // the session's new status, when it moved
    };
    Applied apply_webhook(const IncomingTx& in, const std::string& signed_json, const std::string& merchant_id,
                          bool forward, std::int64_t now);

    // ---- payment attempts (attempts.hpp; store_attempts.cpp) ----
    // Each runs in one transaction with the session's row locked (two tabs, two instances: one at a
    // time, each seeing what the other committed), and a change pushes the session's status (its
    // version + 1, with `payable`) to its streams: `pushed` for StatusHub::notify.
    struct AttemptChange {
        enum Result { done, not_found, attempt_not_found, in_flight, already_paid, expired, closed, already_reported,
                      already_resolved, settled, link_refused, transaction_elsewhere } result = not_found;
        std::string refused;  // link_refused: link_refusal()'s reason
        AttemptFacts attempt;
        Payable payable;
        std::optional<PushedStatus> pushed;
    };
    // Why the session's payment link takes no payment (an attempt, a QR code) now, or "" (not a
    // link session, or it does): details_required (the shopper's fields not given yet),
    // link_inactive, link_expired, link_used_up (usageLimit: that many of the link's other sessions
    // are paid, hold money in flight by a verified status, or have an attempt or QR code and have
    // not expired). Runs inside the caller's transaction after the session's row lock and locks the
    // link's row (FOR UPDATE on PostgreSQL, SQLite's write lock): two instances deciding for two
    // sessions of one link take turns, so the count and the new attempt are one compare-and-set.
    std::string link_refusal(const Session& s, std::int64_t now);
    // Registers attempt `attempt_id` of `method` when Pay is armed (payable()) and the session's link
    // takes it (link_refusal); else says why not.
    AttemptChange register_attempt(const std::string& session_id, const std::string& method, const std::string& attempt_id,
                                   std::int64_t now);
    // The browser's one report of an attempt: `transaction_id` + `status`, or `error_code` + `error_http`.
    struct Report {
        std::optional<std::string> transaction_id, error_code;
        std::optional<int> status, error_http;
    };
    // Stored as the attempt's reported_transaction_id (never its verified transaction_id);
    // transaction_elsewhere when the gateway holds that transaction for another session
    // (transaction_elsewhere(): a webhook's, a session's, another session's attempt's).
    AttemptChange report_attempt(const std::string& session_id, const std::string& attempt_id, const Report& report,
                                 std::int64_t now);
    bool transaction_elsewhere(const std::string& transaction_id, const std::string& session_id);
    // The merchant's resolution of an attempt (release | paid_elsewhere | not_paid): the audited
    // record (resolutions), the attempt's resolution, its own event in the outbox (`forward`).
    // settled: a verified outcome already decided the attempt. A conflicted attempt may be resolved again.
    AttemptChange resolve_attempt(const std::string& session_id, const std::string& attempt_id,
                                  const std::string& resolution, const std::string& note, const std::string& actor,
                                  bool forward, std::int64_t now);
    // The attention pass (the pruner thread): each attempt stuck by `t` (stuck_since() <= now) and
    // not yet signalled gets attention_at by compare-and-set and, in the same transaction, ONE
    // checkout.attention_needed outbox row. Candidates are read kAttentionPage at a time, paging on
    // to the last. Returns the sessions whose attempts changed.
    static constexpr int kAttentionPage = 500;
    std::vector<std::string> attention_pass(const AttentionThresholds& t, bool forward, std::int64_t now);

    // The outbox (forwarder.cpp). claim_due() leases one due event to this caller for `lease_ms`;
    // an event of a chain (a debit's) only once the chain's earlier events are delivered.
    struct OutboxEvent {
        std::string id, body;
        std::int64_t attempts = 0;
    };
    std::optional<OutboxEvent> claim_due(std::int64_t now, std::int64_t lease_ms);
    void delivered(const std::string& id, std::int64_t now);
    void failed(const std::string& id, std::int64_t next_attempt_at, const std::string& error);
    // The `limit` newest events with their delivery state (GET /v1/events; events.hpp writes them).
    struct OutboxRow {
        std::string id, state, body;
        std::int64_t attempts = 0, next_attempt_at = 0, created_at = 0;
        std::optional<std::string> last_error;
        std::optional<std::int64_t> delivered_at;
    };
    std::vector<OutboxRow> outbox(int limit);

    // ---- the orders list, an order's record, the console (store_console.cpp; order_state.hpp) ----
    // The sessions newest first (created_at, id descending), by keyset: `after` is the (created_at,
    // id) of the last row of the previous page. `state`: "" for all, else paid | partial | pending |
    // failed | refunded | expired (order_state.hpp), or attention: the sessions with a stuck,
    // unresolved attempt or a resolution a verified outcome contradicted. `q`: an offerId, a
    // session id or a transaction id (the session's, any of its transactions' or attempts'),
    // exactly, or (3 characters or more) the start of offerIds (a range of the offer_id index).
    // Attempts are read for attention only (else Session::attempts stays empty).
    struct SessionQuery {
        std::string state, q;
        std::optional<std::pair<std::int64_t, std::string>> after;
        int limit = 50;
    };
    std::vector<Session> list_sessions(const SessionQuery& query, std::int64_t now);
    // One forwarded event (nullopt: none with this id), a session's events oldest first, and the
    // events page: the `limit` newest, or with `failed_first` the undelivered ones that failed at
    // least once first (oldest failure first), then the others newest first.
    std::optional<OutboxRow> event(const std::string& id);
    std::vector<OutboxRow> session_events(const std::string& session_id);
    std::vector<OutboxRow> events_page(bool failed_first, int limit);
    // Every delivery attempt of an event, oldest first (the forwarder records each).
    struct DeliveryRow {
        std::int64_t started_at = 0, finished_at = 0;
        std::optional<int> http_status;
        std::optional<std::string> error;
    };
    void record_delivery(const std::string& event_id, const DeliveryRow& row);
    std::vector<DeliveryRow> deliveries(const std::string& event_id);
    // Every delivery of every event of a session, by event id, each oldest first: one query for an
    // order's timeline.
    std::map<std::string, std::vector<DeliveryRow>> session_deliveries(const std::string& session_id);
    // The same event (same id, same body) delivered again: due now, whatever its state. in_flight:
    // a worker is delivering it right now (its lease holds). resend_failed(): every undelivered
    // event created since `since` whose last delivery failed, due now; returns how many.
    enum class Resend { done, not_found, in_flight };
    Resend resend_event(const std::string& id, std::int64_t now);
    std::int64_t resend_failed(std::int64_t since, std::int64_t now);
    // The verified webhooks recorded for a session, oldest first, with what the rules decided.
    struct WebhookRow {
        std::string id, transaction_id, outcome;
        std::int64_t received_at = 0, status = 0;
    };
    std::vector<WebhookRow> session_webhooks(const std::string& session_id);
    // The session's QR codes, oldest first: the orderId sent to the service, its transaction once it
    // answered, whether a newer code replaced it.
    struct QrRow {
        std::string order_id;
        std::optional<std::string> transaction_id;
        bool replaced = false;
        std::int64_t created_at = 0;
    };
    std::vector<QrRow> session_qr_codes(const std::string& session_id);
    // The merchant's resolutions of a session's attempts (the audited records), oldest first.
    struct ResolutionRow {
        std::string attempt_id, resolution, note, actor;
        std::int64_t created_at = 0;
    };
    std::vector<ResolutionRow> resolutions(const std::string& session_id);
    // Notes on a session, oldest first; add_note() is false when there is no such session.
    struct NoteRow {
        std::string id, actor, note;
        std::int64_t created_at = 0;
    };
    std::vector<NoteRow> notes(const std::string& session_id);
    bool add_note(const std::string& session_id, const std::string& actor, const std::string& note, std::int64_t now);
    // The merchant accepts what arrived for a partly paid session (state partial | partial_closed,
    // not a success): under the session's row lock, underpayment_accepted_at set, the session's
    // version + 1 (`pushed`), and its own event (checkout.underpayment_accepted) in the outbox
    // (`forward`). The verified status is left as the service signed it.
    struct Acceptance {
        enum Result { done, not_found, not_partial, already_accepted } result = not_found;
        std::optional<PushedStatus> pushed;
        std::string event_id;
    };
    Acceptance accept_underpayment(const std::string& session_id, const std::string& note, const std::string& actor,
                                   bool forward, std::int64_t now);
    // The audit log: every merchant action (app API and console) and every console login.
    struct AuditRow {
        std::string id, actor, action;
        std::optional<std::string> target, detail, address;
        std::int64_t at = 0;
    };
    void audit(const std::string& actor, const std::string& action, const std::optional<std::string>& target,
               const std::optional<std::string>& detail, const std::string& address, std::int64_t now);
    std::vector<AuditRow> audit_log(const std::optional<std::pair<std::int64_t, std::string>>& after, int limit);
    // The overview's raw figures: the sessions created since `since` (overview.hpp sums them).
    std::vector<OverviewOrder> overview_rows(std::int64_t since);
    std::int64_t attention_count();
    // The events the app has refused (or not answered) at least `failures` times in a row and not
    // yet taken: still pending, retried with back-off (the overview's "needs attention").
    std::int64_t failing_events(std::int64_t failures);
    // How many sessions kOrderBucketSql puts in `bucket` (paid, partial, failed, refunded; its index).
    std::int64_t count_in_bucket(const std::string& bucket);
    // Subscription debits, newest first, with the latest verified status of each (none yet: no row).
    struct DebitRow {
        std::string order_id, subscription_id;
        std::optional<std::string> merchant_subscription_id, state, amount, currency;
        std::optional<std::int64_t> status;
        std::int64_t created_at = 0;
    };
    std::vector<DebitRow> debits(int limit);

    // ---- the console's accounts and logins (console_auth.hpp; store_console.cpp) ----
    // failed_logins: wrong passwords since the last good login; locked_at: when a lock began since
    // then (0: none). Both are what the user is told at the next good login.
    struct ConsoleUser {
        std::string name, password_hash;
        std::int64_t created_at = 0, failed_logins = 0, locked_at = 0;
    };
    bool add_console_user(const std::string& name, const std::string& password_hash, std::int64_t now);  // false: exists
    bool remove_console_user(const std::string& name);  // and every login session of it; false: no such user
    // A new password hash, every login of the user ended; false: no such user.
    bool set_console_password(const std::string& name, const std::string& password_hash);
    std::vector<ConsoleUser> console_users();
    std::optional<ConsoleUser> console_user(const std::string& name);
    // The sliding window of wrong passwords (console_auth.hpp): `subject` is user:<name> or
    // address:<client_key>. login_locked_until: while `subject` has `max` failures or more within
    // the last `window_ms`, when the max-th most recent of them leaves the window (else 0).
    std::int64_t login_locked_until(const std::string& subject, std::int64_t window_ms, int max, std::int64_t now);
    // One wrong password of `subject` at `now` (its failures older than `window_ms` go).
    void login_failed(const std::string& subject, std::int64_t window_ms, std::int64_t now);
    // Forgets `subject`'s failures (`console-user unlock`); false: there were none.
    bool clear_login_failures(const std::string& subject);
    // A counted wrong password of user `name`: failed_logins + 1, and locked_at = now when it locked.
    void console_user_failed(const std::string& name, bool locked, std::int64_t now);
    // A good login: failed_logins and locked_at back to 0 (the caller read them first, to tell).
    void console_login_succeeded(const std::string& name);
    struct ConsoleSession {
        std::string user, csrf;
        std::int64_t created_at = 0, expires_at = 0, seen_at = 0;
        std::string address;
    };
    void create_console_session(const std::string& token_hash, const ConsoleSession& s, std::int64_t now);
    // The live logins of `name` (console-user sessions), newest first.
    std::vector<ConsoleSession> console_sessions_of(const std::string& name, std::int64_t now);
    // Ends every login of `name`; how many.
    std::int64_t end_console_sessions_of(const std::string& name);
    // The login whose token hashes to `token_hash`, if it has not expired and was seen within
    // `idle_ms`; its seen_at moves to `now`.
    std::optional<ConsoleSession> console_session(const std::string& token_hash, std::int64_t idle_ms, std::int64_t now);
    void end_console_session(const std::string& token_hash);

    // Retention (--retain-days): deletes, in one transaction, at most `batch` sessions last changed
    // before `cutoff` that are done with (expired, and final or with no money of the shopper's in
    // them) with everything about them (webhook events, transactions, QR codes: the shopper's
    // name, e-mail and address are in those), and as many delivered outbox rows, unmatched webhook
    // events, debits and audit log entries older than `cutoff`. An undelivered event and a session still holding money
    // in flight, or an attempt with no verified outcome and no resolution, are never deleted, and
    // never stop the others from going (the rule is in the query). `removed`: how many rows went
    // (0: nothing left to prune); `kept`: expired sessions older than `cutoff` kept.
    struct Pruned {
        std::int64_t removed = 0, kept = 0;
    };
    Pruned prune(std::int64_t cutoff, int batch);

    // The rate limits, shared by every instance on the database: a token bucket per `key` holding
    // `per_minute` tokens, refilled at `per_minute` a minute. Takes one at `now`: 0 when there was
    // one, else the milliseconds until there will be (Retry-After). per_minute 0: no limit, no query.
    // Every instance counts on the database's clock (Sql::clock_ms): one instance whose clock runs
    // ahead cannot stamp a bucket in the future and leave the others without a refill.
    std::int64_t take_token(const std::string& key, int per_minute);
    // Deletes the buckets full again (untouched for a minute); returns how many.
    std::int64_t prune_buckets();

    // At start: refuses (std::runtime_error saying which) the same key given twice, and the two keys
    // exactly swapped against what this database was last served with; then records both
    // fingerprints. A key that changed to a new one (a rotation) is accepted. On a first start
    // there is nothing to compare a swap with: docs/merchant.md says which file is which.
    void check_keys(const std::string& merchant_fp, const std::string& webhook_fp, std::int64_t now);

    // ---- word to the merchant by e-mail (store_mail.cpp; notify.hpp) ----
    // With mail on (the gateway has an SMTP relay), every event queued (queue_event) and every event
    // the app refused kFailingEventAttempts times (failed) queues, in the same transaction, one mail
    // row per console user who chose its kind: id "<event id>/<address>", so never twice. Off: none.
    void enable_mail(std::string shop_name);
    struct NotifyPref {
        std::string user, email, kinds;  // kinds: comma-separated (notify.hpp's kNotifyKinds)
    };
    void set_notify(const NotifyPref& pref);  // the user's address and kinds (replaces theirs)
    bool remove_notify(const std::string& user);
    std::vector<NotifyPref> notify_prefs();
    // The mailer (mailer.cpp): one due mail leased for `lease_ms` as claim_due() does; sent/failed
    // only change a pending, leased row (a retried record changes nothing twice).
    struct MailRow {
        std::string id, recipient, subject, body;
        std::int64_t attempts = 0, created_at = 0;
    };
    std::optional<MailRow> claim_mail(std::int64_t now, std::int64_t lease_ms);
    void mail_sent(const std::string& id, std::int64_t now);
    void mail_failed(const std::string& id, std::int64_t next_attempt_at, const std::string& error);

private:
    // One due pending row of the outbox table `table` (outbox, mail_outbox) leased for `lease_ms`:
    // the first by next_attempt_at whose lease ended and that `admits` (" AND <condition>") lets
    // through; another worker or instance may lease it between the read and the UPDATE: only one
    // UPDATE wins, the loser reads the next (4 tries). store_upkeep.cpp.
    std::optional<std::string> lease_due(const std::string& table, const std::string& admits, std::int64_t now, std::int64_t lease_ms);
    // The mail rows an event makes (store_mail.cpp), inside the caller's transaction.
    void queue_mail(const std::string& event_id, const std::string& body, std::int64_t now);
    void queue_refused_mail(const std::string& event_id, std::int64_t now);
    void insert_mail(const std::string& id_prefix, const Mail& mail, std::int64_t now);
    bool mail_ = false;
    std::string mail_shop_;
    // `select_tail` after "SELECT <the session's columns> FROM sessions " (WHERE ... ORDER BY ...),
    // each row a Session without its attempts (store.cpp).
    std::vector<Session> sessions_where(const std::string& select_tail, const std::vector<paywasm::server::SqlValue>& params);
    // Shared by the store's files: a session read by id (`locked`: its row held until the
    // transaction ends, Sql::query_locked), and the session's QR codes as the rules read them.
    std::optional<Session> read_session(const std::string& id, bool locked);
    std::vector<QrCodeRow> qr_codes(const std::string& session_id);
    std::vector<AttemptFacts> attempts(const std::string& session_id);
    // Inside apply_webhook: attaches the verified transaction to its attempt (attempt_for_transaction)
    // and records what it said (verified_of); a contradicted resolution queues
    // checkout.resolution_conflict. True when an attempt changed.
    bool settle_attempt(Session& s, const Decision& d, const IncomingTx& in, bool forward, std::int64_t now);
    // The one path of a change to an existing attempt (report, resolution): in one transaction, the
    // session read with its row locked and the attempt found (else attempt_not_found; no session:
    // not_found), then `change` decides with out.attempt set to the attempt as read.
    using AttemptChanger = std::function<void(Session&, AttemptFacts&, AttemptChange&)>;
    AttemptChange change_attempt(const std::string& session_id, const std::string& attempt_id, const AttemptChanger& change);
    // The session's version + 1 and its status pushed (NOTIFY at commit): a change of its attempts.
    PushedStatus push_change(Session& s, std::int64_t now);
    // An event: its mail rows (queue_mail: with mail on), and with `forward` (an app callback) one
    // outbox row (ON CONFLICT DO NOTHING); `chain`/`seq`: delivered after the chain's earlier rows.
    void queue_event(bool forward, const std::string& id, const std::string& body, std::int64_t now,
                     const std::optional<std::string>& chain = std::nullopt, std::optional<std::int64_t> seq = std::nullopt);
    std::unique_ptr<Sql> sql_;
};

}  // namespace merchant
