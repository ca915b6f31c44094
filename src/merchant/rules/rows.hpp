// The rows the store's table groups (store.hpp) return and take: plain data, no database. The
// wire shapes (events.hpp) and the merchant's operations (orders.hpp) read these without the store.
// Sessions and attempts are session.hpp's and attempts.hpp's.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>

namespace merchant {

// A session's transaction, as the service last signed it (events.hpp's transactions_json).
struct TransactionRow {
    std::string id, state;
    std::int64_t status = 0, updated_at = 0;
    std::optional<std::string> native_amount, native_currency, received_amount;
    std::optional<std::string> currency;  // the transaction's own: what receivedAmount counts in
};

// An event of the forwarding outbox as the forwarder leases it (EventStore::claim_due).
struct OutboxEvent {
    std::string id, body;
    std::int64_t attempts = 0;
};

// An event of the outbox with its delivery state (GET /v1/events, the console's events).
struct OutboxRow {
    std::string id, state, body;
    std::int64_t attempts = 0, next_attempt_at = 0, created_at = 0;
    std::optional<std::string> last_error;
    std::optional<std::int64_t> delivered_at;
};

// One delivery attempt of an event (the forwarder records each).
struct DeliveryRow {
    std::int64_t started_at = 0, finished_at = 0;
    std::optional<int> http_status;
    std::optional<std::string> error;
};

// A verified webhook recorded for a session, with what the rules decided.
struct WebhookRow {
    std::string id, transaction_id, outcome;
    std::int64_t received_at = 0, status = 0;
};

// A session's QR code: the orderId sent to the service, its transaction once it answered, whether
// a newer code replaced it.
struct QrRow {
    std::string order_id;
    std::optional<std::string> transaction_id;
    bool replaced = false;
    std::int64_t created_at = 0;
};

// The merchant's resolution of an attempt (the audited record).
struct ResolutionRow {
    std::string attempt_id, resolution, note, actor;
    std::int64_t created_at = 0;
};

// A note on a session.
struct NoteRow {
    std::string id, actor, note;
    std::int64_t created_at = 0;
};

// An entry of the audit log: a merchant action (app API, console, CLI) or a console login.
struct AuditRow {
    std::string id, actor, action;
    std::optional<std::string> target, detail, address;
    std::int64_t at = 0;
};

// A subscription debit with the latest verified status of it (none yet: no state).
struct DebitRow {
    std::string order_id, subscription_id;
    std::optional<std::string> merchant_subscription_id, state, amount, currency;
    std::optional<std::int64_t> status;
    std::int64_t created_at = 0;
};

// A console user. failed_logins: wrong passwords since the last good login; locked_at: when a lock
// began since then (0: none). Both are what the user is told at the next good login.
struct ConsoleUser {
    std::string name, password_hash;
    std::int64_t created_at = 0, failed_logins = 0, locked_at = 0;
};

// A console login (its token is kept hashed).
struct ConsoleSession {
    std::string user, csrf;
    std::int64_t created_at = 0, expires_at = 0, seen_at = 0;
    std::string address;
};

// Who gets which mail: a console user's address and kinds.
struct NotifyPref {
    std::string user, email, kinds;  // kinds: comma-separated (notify.hpp's kNotifyKinds)
};

// A mail of the mail outbox as the mailer leases it.
struct MailRow {
    std::string id, recipient, subject, body;
    std::int64_t attempts = 0, created_at = 0;
};

// A page of the orders list (OrderQueries::list_sessions): sessions newest first (created_at, id
// descending), by keyset: `after` is the (created_at, id) of the last row of the previous page.
// `state`: "" for all, else paid | partial | pending | failed | refunded | expired
// (order_state.hpp), or attention: the sessions with a stuck, unresolved attempt or a resolution a
// verified outcome contradicted. `q`: an offerId, a session id or a transaction id (the session's,
// any of its transactions' or attempts'), exactly, or (3 characters or more) the start of offerIds
// (a range of the offer_id index).
struct SessionQuery {
    std::string state, q;
    std::optional<std::pair<std::int64_t, std::string>> after;
    int limit = 50;
};

// The browser's one report of an attempt: `transaction_id` + `status`, or `error_code` + `error_http`.
struct AttemptReport {
    std::optional<std::string> transaction_id, error_code;
    std::optional<int> status, error_http;
};

// A payment link as stored.
struct Link {
    std::string id, spec, currency;  // spec: the link's JSON as the app API accepted it
    bool active = true;
    std::optional<std::int64_t> usage_limit, expires_at;
    std::int64_t created_at = 0, updated_at = 0;
    // A sale of the console's point of sale (sales.hpp): the console user who charged it. Its
    // sessions carry it (Session::sold_by); it is in no list of links.
    std::optional<std::string> sold_by;
};

// A link's session, as the link's detail lists it.
struct LinkSession {
    std::string id, amount, currency, state;
    bool success = false;
    std::int64_t created_at = 0;
};

}  // namespace merchant
