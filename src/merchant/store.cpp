// Every table of the gateway and every query on them. One schema and one set of statements for both
// SQLite and PostgreSQL (sql.hpp's common subset). Times are epoch milliseconds; JSON columns hold
// the exact text that was received or sent.
#include <algorithm>

#include "gateway.hpp"
#include "paywasm/codec.hpp"
#include "paywasm/crypto.hpp"
#include "paywasm/decimal.hpp"
#include "paywasm/json.hpp"
#include "paywasm/protocol.hpp"
#include "server/util.hpp"

namespace merchant {

namespace {

constexpr const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS sessions (
  id              TEXT PRIMARY KEY,      -- the widget's capability: 256 random bits
  offer_id        TEXT NOT NULL UNIQUE,
  checkout        TEXT NOT NULL,         -- the Checkout as the core wrote it (to_json)
  checkout_hash   TEXT NOT NULL,         -- SHA-256 of it: the same offerId with another cart is a conflict
  amount          TEXT NOT NULL,         -- cart_total, fixed here and nowhere else
  currency        TEXT NOT NULL,
  methods         TEXT NOT NULL,         -- comma-separated subset of exchange,bank,qr
  created_at      BIGINT NOT NULL,
  expires_at      BIGINT NOT NULL,
  qr_state        TEXT,                  -- NULL | creating | done
  qr_started_at   BIGINT,
  qr_response     TEXT,                  -- the service's QR answer, as the core wrote it
  status          BIGINT,                -- the latest verified status (NULL: none yet)
  state           TEXT NOT NULL DEFAULT 'open',
  final           BIGINT NOT NULL DEFAULT 0,
  success         BIGINT NOT NULL DEFAULT 0,
  transaction_id  TEXT,
  received_amount TEXT,
  status_at       BIGINT NOT NULL DEFAULT 0,
  version         BIGINT NOT NULL DEFAULT 0  -- +1 on every status change (SSE event id)
);
CREATE TABLE IF NOT EXISTS transactions (
  id              TEXT PRIMARY KEY,
  session_id      TEXT,
  offer_id        TEXT,
  status          BIGINT NOT NULL,
  state           TEXT NOT NULL,
  native_amount   TEXT,
  native_currency TEXT,
  received_amount TEXT,
  body            TEXT NOT NULL,         -- the signed transaction text (data.data)
  updated_at      BIGINT NOT NULL
);
CREATE TABLE IF NOT EXISTS webhook_events (
  id              TEXT PRIMARY KEY,      -- evt_ + SHA-256 of data.data: a repeated delivery is a no-op
  received_at     BIGINT NOT NULL,
  transaction_id  TEXT NOT NULL,
  offer_id        TEXT,
  status          BIGINT NOT NULL,
  session_id      TEXT,
  outcome         TEXT NOT NULL,         -- applied | amount_mismatch | unknown_offer | stale
  body            TEXT NOT NULL          -- data.data as signed
);
CREATE TABLE IF NOT EXISTS outbox (
  id              TEXT PRIMARY KEY,      -- the event id (one forwarded event per webhook event)
  created_at      BIGINT NOT NULL,
  body            TEXT NOT NULL,         -- the exact JSON POSTed to --app-callback
  state           TEXT NOT NULL,         -- pending | delivered
  attempts        BIGINT NOT NULL DEFAULT 0,
  next_attempt_at BIGINT NOT NULL,
  lease_until     BIGINT,                -- an instance is delivering it until then
  last_error      TEXT,
  delivered_at    BIGINT
);
CREATE TABLE IF NOT EXISTS qr_codes (
  order_id        TEXT PRIMARY KEY,      -- the orderId sent to the service (its webhooks' meta.offerId)
  session_id      TEXT NOT NULL,
  transaction_id  TEXT,                  -- the service's id, once it answered
  replaced        BIGINT NOT NULL DEFAULT 0,  -- 1: a new code of the session took its place
  created_at      BIGINT NOT NULL
);
CREATE INDEX IF NOT EXISTS outbox_due ON outbox (state, next_attempt_at);
CREATE INDEX IF NOT EXISTS qr_codes_session ON qr_codes (session_id);
CREATE INDEX IF NOT EXISTS transactions_session ON transactions (session_id);
)sql";

constexpr const char* kSessionColumns =
    "id, offer_id, checkout, amount, currency, methods, created_at, expires_at, qr_state, qr_response, "
    "status, state, final, success, transaction_id, received_amount, status_at, version";

Session session_from_row(const SqlRow& r) {
    Session s;
    s.id = r.text(0);
    s.offer_id = r.text(1);
    s.checkout_json = r.text(2);
    s.amount = r.text(3);
    s.currency = r.text(4);
    s.methods_csv = r.text(5);
    s.created_at = r.integer(6);
    s.expires_at = r.integer(7);
    if (!r.is_null(8)) s.qr_state = r.text(8);
    if (!r.is_null(9)) s.qr_response = r.text(9);
    if (!r.is_null(10)) s.status.status = static_cast<int>(r.integer(10));
    s.status.state = r.text(11);
    s.status.final = r.integer(12) != 0;
    s.status.success = r.integer(13) != 0;
    if (!r.is_null(14)) s.status.transaction_id = r.text(14);
    if (!r.is_null(15)) s.status.received_amount = r.text(15);
    s.status.updated_at = r.integer(16);
    s.status.version = r.integer(17);
    return s;
}

SqlValue opt(const std::optional<std::string>& v) { return v ? SqlValue(*v) : SqlValue(); }

}  // namespace

bool shows_money(paywasm::StatusKind kind, const std::optional<std::string>& received) {
    using K = paywasm::StatusKind;
    if (kind == K::success || kind == K::pending || kind == K::processing || kind == K::partial ||
        kind == K::partial_closed || kind == K::refund) {
        return true;
    }
    paywasm::Decimal amount;
    return received && paywasm::Decimal::try_parse(*received, amount) && !amount.is_zero();
}

bool Session::offers(std::string_view method) const {
    std::size_t pos = 0;
    while (pos <= methods_csv.size()) {
        std::size_t end = methods_csv.find(',', pos);
        if (end == std::string::npos) end = methods_csv.size();
        if (std::string_view(methods_csv).substr(pos, end - pos) == method) return true;
        pos = end + 1;
    }
    return false;
}

void Session::write_methods(paywasm::JsonWriter& w) const {
    w.begin_array();
    for (const char* m : {"exchange", "bank", "qr"}) {
        if (offers(m)) w.string(m);
    }
    w.end_array();
}

Store::Store(std::unique_ptr<Sql> sql) : sql_(std::move(sql)) {
    if (sql_->dialect() == SqlDialect::sqlite) {
        sql_->exec_script(kSchema);
        return;
    }
    // PostgreSQL, shared by several instances. Two starting at once must not both create the tables
    // (the advisory lock), and one starting beside running ones must not run the DDL at all: even
    // CREATE INDEX IF NOT EXISTS takes a SHARE lock on its table, which deadlocks against a running
    // instance's webhook transaction that writes the same tables in another order.
    sql_->transaction([&] {
        sql_->query("SELECT pg_advisory_xact_lock(7426150)");
        const auto present = sql_->query(
            "SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema() AND "
            "table_name IN ('sessions', 'transactions', 'webhook_events', 'outbox', 'qr_codes')");
        // A database of an earlier version lacks qr_codes: the script adds it (CREATE ... IF NOT
        // EXISTS), once, under the lock; upgrade the instances one after another.
        if (present.empty() || present[0].integer(0) != 5) sql_->exec_script(kSchema);
    });
}

Session Store::create_session(Session s, const std::string& checkout_hash, bool& created) {
    created = false;
    sql_->transaction([&] {
        const auto changed = sql_->execute(
            "INSERT INTO sessions (id, offer_id, checkout, checkout_hash, amount, currency, methods, created_at, "
            "expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (offer_id) DO NOTHING",
            {s.id, s.offer_id, s.checkout_json, checkout_hash, s.amount, s.currency, s.methods_csv, s.created_at,
             s.expires_at});
        if (changed == 1) {
            created = true;
            return;
        }
        auto rows = sql_->query("SELECT checkout_hash, methods FROM sessions WHERE offer_id = ?", {s.offer_id});
        if (rows.empty()) throw std::runtime_error("session insert conflicted but no session has the offerId");
        if (rows[0].text(0) != checkout_hash || rows[0].text(1) != s.methods_csv) {
            throw HttpError(409, "offer_conflict",
                            "a session for this offerId exists with another cart, currency, customer or methods; "
                            "use a new offerId for a changed order",
                            "offerId");
        }
    });
    if (created) return s;
    return *session_by_offer(s.offer_id);
}

std::optional<Session> Store::session(const std::string& id) {
    auto rows = sql_->query(std::string("SELECT ") + kSessionColumns + " FROM sessions WHERE id = ?", {id});
    if (rows.empty()) return std::nullopt;
    return session_from_row(rows[0]);
}

std::optional<Session> Store::session_by_offer(const std::string& offer_id) {
    auto rows = sql_->query(std::string("SELECT ") + kSessionColumns + " FROM sessions WHERE offer_id = ?", {offer_id});
    if (rows.empty()) return std::nullopt;
    return session_from_row(rows[0]);
}

std::string Store::transactions_json(const std::string& session_id) {
    auto rows = sql_->query(
        "SELECT id, status, state, native_amount, native_currency, received_amount, updated_at FROM transactions "
        "WHERE session_id = ? ORDER BY updated_at, id",
        {session_id});
    paywasm::JsonWriter w;
    w.begin_array();
    for (const auto& r : rows) {
        w.begin_object().str("id", r.text(0)).num("status", r.integer(1)).str("state", r.text(2));
        w.key("paidAmount");
        r.is_null(3) ? w.null() : w.string(r.text(3));
        w.key("paidCurrency");
        r.is_null(4) ? w.null() : w.string(r.text(4));
        w.key("receivedAmount");
        r.is_null(5) ? w.null() : w.string(r.text(5));
        w.str("updatedAt", iso8601(r.integer(6))).end_object();
    }
    w.end_array();
    return w.text();
}

std::optional<Session> Store::session_by_order(const std::string& order_id) {
    if (auto s = session_by_offer(order_id)) return s;
    auto rows = sql_->query("SELECT session_id FROM qr_codes WHERE order_id = ?", {order_id});
    if (rows.empty()) return std::nullopt;
    return session(rows[0].text(0));
}

std::string Store::current_qr_order(const Session& s) {
    auto rows = sql_->query(
        "SELECT order_id FROM qr_codes WHERE session_id = ? AND replaced = 0 ORDER BY created_at DESC, order_id DESC "
        "LIMIT 1",
        {s.id});
    return rows.empty() ? s.offer_id : rows[0].text(0);
}

// One transaction: claims the session's QR creation from the answer `current_response` (a
// concurrent renewal or creation makes it false), records the current code as replaced, resets the
// session's status (the old code's final status is not the new code's) and picks the new code's
// orderId: the one of an earlier renewal the service may have created without our knowing (its
// call failed), else "<offerId>~qr<n>", unused by any session or code.
bool Store::renew_qr(const Session& s, const std::string& current_response, const std::string& current_tx,
                     std::int64_t now) {
    bool claimed = false;
    sql_->transaction([&] {
        claimed = sql_->execute("UPDATE sessions SET qr_state = 'creating', qr_started_at = ? WHERE id = ? AND "
                                "qr_state = 'done' AND qr_response = ?",
                                {now, s.id, current_response}) == 1;
        if (!claimed) return;
        const std::string current_order = current_qr_order(s);
        sql_->execute(
            "INSERT INTO qr_codes (order_id, session_id, transaction_id, replaced, created_at) VALUES (?, ?, ?, 1, ?) "
            "ON CONFLICT (order_id) DO UPDATE SET replaced = 1, transaction_id = excluded.transaction_id",
            {current_order, s.id, current_tx, s.created_at});
        auto pending = sql_->query(
            "SELECT order_id FROM qr_codes WHERE session_id = ? AND replaced = 0 AND transaction_id IS NULL", {s.id});
        if (pending.empty()) {
            auto count = sql_->query("SELECT count(*) FROM qr_codes WHERE session_id = ?", {s.id});
            for (std::int64_t n = count[0].integer(0) + 1;; ++n) {
                const std::string order = s.offer_id + "~qr" + std::to_string(n);
                if (!sql_->query("SELECT 1 FROM sessions WHERE offer_id = ?", {order}).empty()) continue;
                if (sql_->execute("INSERT INTO qr_codes (order_id, session_id, replaced, created_at) VALUES (?, ?, 0, ?) "
                                  "ON CONFLICT (order_id) DO NOTHING",
                                  {order, s.id, now}) == 1) {
                    break;
                }
            }
        }
        sql_->execute(
            "UPDATE sessions SET status = NULL, state = 'open', final = 0, success = 0, transaction_id = NULL, "
            "received_amount = NULL, status_at = ?, version = version + 1 WHERE id = ?",
            {now, s.id});
        sql_->notify("paywasm_status", s.id);
    });
    return claimed;
}

bool Store::claim_qr(const std::string& session_id, std::int64_t now, std::int64_t stale_before) {
    return sql_->execute(
               "UPDATE sessions SET qr_state = 'creating', qr_started_at = ? WHERE id = ? AND "
               "(qr_state IS NULL OR (qr_state = 'creating' AND qr_started_at < ?))",
               {now, session_id, stale_before}) == 1;
}

void Store::finish_qr(const std::string& session_id, const std::string& response_json, const std::string& order_id,
                      const std::string& transaction_id, std::int64_t now) {
    sql_->transaction([&] {
        sql_->execute("UPDATE sessions SET qr_state = 'done', qr_response = ? WHERE id = ?", {response_json, session_id});
        sql_->execute(
            "INSERT INTO qr_codes (order_id, session_id, transaction_id, replaced, created_at) VALUES (?, ?, ?, 0, ?) "
            "ON CONFLICT (order_id) DO UPDATE SET transaction_id = excluded.transaction_id",
            {order_id, session_id, transaction_id, now});
    });
}

void Store::release_qr(const std::string& session_id) {
    sql_->execute("UPDATE sessions SET qr_state = NULL, qr_started_at = NULL WHERE id = ? AND qr_state = 'creating'",
                  {session_id});
}

// The rules of one verified webhook (all in one transaction, so a crash keeps all or nothing):
//   - its id is SHA-256 of the signed text: the same delivery twice changes nothing the second time;
//   - the session is found by the signed offerId (meta.offerId): a session's offerId or the orderId
//     of one of its QR codes; none: kept as unknown_offer;
//   - nativeAmount/nativeCurrency (the order's fiat total) must equal the session's amount and
//     currency, else the state is amount_mismatch and success is false whatever the status says;
//   - a session's final status is not replaced by a non-final one of the same transaction (late,
//     out-of-order deliveries), and a success is never replaced;
//   - a replaced QR code moves the session only with money on it (pending, paid, partly paid);
//   - an outbox row per event when forwarding is on; NOTIFY so other instances wake their streams.
Store::Applied Store::apply_webhook(const paywasm::VerifiedWebhook& hook, bool forward, std::int64_t now) {
    const paywasm::Transaction& tx = hook.transaction;
    Applied out;
    out.event_id = "evt_" + paywasm::sha256_hex(hook.signed_json).substr(0, 32);
    const std::optional<std::string> offer_id = tx.meta ? tx.meta->offer_id : std::nullopt;
    const paywasm::StatusInfo info = paywasm::describe_status(tx.status);
    std::optional<std::string> native_amount, native_currency, received;
    if (tx.native_amount) native_amount = money(*tx.native_amount);
    if (tx.native_currency) native_currency = *tx.native_currency;
    if (tx.received_amount) received = tx.received_amount->to_string();

    sql_->transaction([&] {
        std::optional<Session> s = offer_id ? session_by_order(*offer_id) : std::nullopt;
        // A code the shopper was given a new one for: only money on it (a late payment) still moves
        // the session; its waiting, failed or timed-out statuses are the old code's, not the new one's.
        const bool replaced_code =
            s && !sql_->query("SELECT 1 FROM qr_codes WHERE session_id = ? AND replaced = 1 AND "
                              "(order_id = ? OR transaction_id = ?)",
                              {s->id, *offer_id, tx.id}).empty();
        std::string state(paywasm::to_string(info.kind));
        if (s) {
            bool amount_ok = false;
            paywasm::Decimal want;
            if (tx.native_amount && tx.native_currency && paywasm::Decimal::try_parse(s->amount, want)) {
                std::string a = *tx.native_currency, b = s->currency;
                std::transform(a.begin(), a.end(), a.begin(), ::toupper);
                std::transform(b.begin(), b.end(), b.begin(), ::toupper);
                amount_ok = *tx.native_amount == want && a == b;
            }
            if (!amount_ok) state = "amount_mismatch";
        }
        out.outcome = !s ? "unknown_offer" : state == "amount_mismatch" ? "amount_mismatch" : "applied";

        // Decide whether the session's status moves, before recording (stale deliveries are kept too).
        bool moves = false;
        if (s) {
            const StatusView& cur = s->status;
            const bool same_tx = cur.transaction_id && *cur.transaction_id == tx.id;
            if (replaced_code && !shows_money(info.kind, received)) moves = false;
            else if (!cur.status) moves = true;
            else if (cur.success) moves = false;                      // a success is never replaced
            else if (same_tx && cur.final && !info.final) moves = false;  // late, out of order
            else moves = !(same_tx && *cur.status == tx.status && cur.state == state &&
                           cur.received_amount == received);
            if (!moves) out.outcome = out.outcome == "applied" ? "stale" : out.outcome;
        }

        const auto inserted = sql_->execute(
            "INSERT INTO webhook_events (id, received_at, transaction_id, offer_id, status, session_id, outcome, body) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING",
            {out.event_id, now, tx.id, opt(offer_id), static_cast<std::int64_t>(tx.status),
             s ? SqlValue(s->id) : SqlValue(), out.outcome, hook.signed_json});
        if (inserted == 0) {
            out.outcome = "duplicate";
            return;
        }
        sql_->execute(
            "INSERT INTO transactions (id, session_id, offer_id, status, state, native_amount, native_currency, "
            "received_amount, body, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET "
            "status = excluded.status, state = excluded.state, native_amount = excluded.native_amount, "
            "native_currency = excluded.native_currency, received_amount = excluded.received_amount, "
            "body = excluded.body, updated_at = excluded.updated_at",
            {tx.id, s ? SqlValue(s->id) : SqlValue(), opt(offer_id), static_cast<std::int64_t>(tx.status), state,
             opt(native_amount), opt(native_currency), opt(received), hook.signed_json, now});
        if (s && moves) {
            const bool success = info.kind == paywasm::StatusKind::success && state != "amount_mismatch";
            sql_->execute(
                "UPDATE sessions SET status = ?, state = ?, final = ?, success = ?, transaction_id = ?, "
                "received_amount = ?, status_at = ?, version = version + 1 WHERE id = ?",
                {static_cast<std::int64_t>(tx.status), state, std::int64_t(info.final ? 1 : 0),
                 std::int64_t(success ? 1 : 0), tx.id, opt(received), now, s->id});
            out.session_id = s->id;
            sql_->notify("paywasm_status", s->id);
        }
        if (forward) {
            paywasm::JsonWriter w;
            w.begin_object().str("id", out.event_id).str("type", "checkout.status").str("createdAt", iso8601(now));
            w.key("sessionId");
            s ? w.string(s->id) : w.null();
            w.key("offerId");
            offer_id ? w.string(*offer_id) : w.null();
            w.str("transactionId", tx.id).num("status", tx.status).str("state", state);
            w.flag("final", info.final).flag("success", info.kind == paywasm::StatusKind::success && state != "amount_mismatch");
            w.str("outcome", out.outcome);
            w.key("amount");
            s ? w.string(s->amount) : w.null();
            w.key("currency");
            s ? w.string(s->currency) : w.null();
            w.key("paidAmount");
            native_amount ? w.string(*native_amount) : w.null();
            w.key("paidCurrency");
            native_currency ? w.string(*native_currency) : w.null();
            w.key("receivedAmount");
            received ? w.string(*received) : w.null();
            w.str("transaction", hook.signed_json);  // the signed text, for an app that re-checks it
            w.end_object();
            sql_->execute(
                "INSERT INTO outbox (id, created_at, body, state, next_attempt_at) VALUES (?, ?, ?, 'pending', ?) "
                "ON CONFLICT (id) DO NOTHING",
                {out.event_id, now, w.text(), now});
        }
    });
    return out;
}

std::optional<Store::OutboxEvent> Store::claim_due(std::int64_t now, std::int64_t lease_ms) {
    for (int tries = 0; tries < 4; ++tries) {
        auto rows = sql_->query(
            "SELECT id FROM outbox WHERE state = 'pending' AND next_attempt_at <= ? AND "
            "(lease_until IS NULL OR lease_until < ?) ORDER BY next_attempt_at, id LIMIT 1",
            {now, now});
        if (rows.empty()) return std::nullopt;
        const std::string id = rows[0].text(0);
        // Another worker (or instance) may have leased it in between: only one UPDATE wins.
        if (sql_->execute("UPDATE outbox SET lease_until = ? WHERE id = ? AND state = 'pending' AND "
                          "(lease_until IS NULL OR lease_until < ?)",
                          {now + lease_ms, id, now}) != 1) {
            continue;
        }
        auto ev = sql_->query("SELECT id, body, attempts FROM outbox WHERE id = ?", {id});
        if (ev.empty()) continue;
        return OutboxEvent{ev[0].text(0), ev[0].text(1), ev[0].integer(2)};
    }
    return std::nullopt;
}

void Store::delivered(const std::string& id, std::int64_t now) {
    sql_->execute("UPDATE outbox SET state = 'delivered', delivered_at = ?, attempts = attempts + 1, "
                  "lease_until = NULL, last_error = NULL WHERE id = ?",
                  {now, id});
}

void Store::failed(const std::string& id, std::int64_t next_attempt_at, const std::string& error) {
    sql_->execute("UPDATE outbox SET attempts = attempts + 1, next_attempt_at = ?, lease_until = NULL, "
                  "last_error = ? WHERE id = ?",
                  {next_attempt_at, error.substr(0, 500), id});
}

std::string Store::outbox_json(int limit) {
    auto rows = sql_->query(
        "SELECT id, state, attempts, next_attempt_at, last_error, created_at, delivered_at FROM outbox "
        "ORDER BY created_at DESC, id LIMIT ?",
        {static_cast<std::int64_t>(limit)});
    paywasm::JsonWriter w;
    w.begin_array();
    for (const auto& r : rows) {
        w.begin_object().str("id", r.text(0)).str("state", r.text(1)).num("attempts", r.integer(2));
        w.str("nextAttemptAt", iso8601(r.integer(3)));
        w.key("lastError");
        r.is_null(4) ? w.null() : w.string(r.text(4));
        w.str("createdAt", iso8601(r.integer(5)));
        w.key("deliveredAt");
        r.is_null(6) ? w.null() : w.string(iso8601(r.integer(6)));
        w.end_object();
    }
    w.end_array();
    return w.text();
}

}  // namespace merchant
