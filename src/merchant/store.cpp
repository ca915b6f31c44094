// Every table of the gateway and every query on them. One schema and one set of statements, standard
// SQL that every Sql implementation runs as is; what a database does its own way (the schema lock,
// row locks, the writer guard) is one of Sql's named operations, never a branch here. Times are epoch milliseconds; JSON columns hold
// the exact text that was received or sent. The money rules are decide.cpp's; this file reads their
// inputs under the session's row lock and persists what they decided.
#include <algorithm>
#include <cstdio>

#include "decide.hpp"

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

// Schema version 2: the status's method and the transaction's own amount and currency (what a
// shopper owes is in it, not in the order's fiat total), and the debits the gateway asked for.
constexpr const char* kSchemaV2 = R"sql(
ALTER TABLE sessions ADD COLUMN method TEXT;
ALTER TABLE sessions ADD COLUMN tx_amount TEXT;
ALTER TABLE sessions ADD COLUMN tx_currency TEXT;
ALTER TABLE transactions ADD COLUMN amount TEXT;
ALTER TABLE transactions ADD COLUMN currency TEXT;
ALTER TABLE transactions ADD COLUMN mismatch BIGINT NOT NULL DEFAULT 0;
CREATE TABLE IF NOT EXISTS debits (
  order_id        TEXT PRIMARY KEY,      -- the debit's orderId (its webhooks' meta.offerId)
  subscription_id TEXT NOT NULL,         -- the service's subscription id
  merchant_subscription_id TEXT,         -- the shop's own id, when it gave one
  created_at      BIGINT NOT NULL
);
)sql";

// Schema version 3: the key fingerprints of the last start (Store::check_keys: swapped keys).
constexpr const char* kSchemaV3 = R"sql(
CREATE TABLE IF NOT EXISTS gateway_keys (
  role            TEXT PRIMARY KEY,      -- merchant | webhook
  fingerprint     TEXT NOT NULL,         -- SHA-256 of the key's DER, as the last start had it
  updated_at      BIGINT NOT NULL
);
)sql";

// Schema version 4: the rate limits' buckets, shared by every instance (Store::take_token), and the
// writer guard (Sql::guard_writers, in the Store's constructor).
constexpr const char* kSchemaV4 = R"sql(
CREATE TABLE IF NOT EXISTS rate_buckets (
  key             TEXT PRIMARY KEY,      -- limit:subject (session:app, qr-session:<id>, qr-client:<address>)
  units           BIGINT NOT NULL,       -- what is left, in 1/60000 of a token (a minute's refill is exact)
  updated_at      BIGINT NOT NULL        -- when it was last taken from
);
)sql";

// The schema versions in order; the database records the last one applied (paywasm_schema).
constexpr int kSchemaVersion = 4;

// Every table of the gateway: the writer guard covers each.
constexpr const char* kTables[] = {"sessions", "transactions", "webhook_events", "outbox", "qr_codes",
                                   "debits", "gateway_keys", "rate_buckets", "paywasm_schema"};

// The writer guard's error (Sql::guard_writers): once a database is at a version, a write by a
// connection not marked as a writer of it (an older binary still running, or 0.2.0, which checks no
// version) fails with these words and changes nothing.
std::string writer_refusal(int version) {
    return "paywasm: this database is at schema " + std::to_string(version) +
           "; it refuses writes from an older paywasm-merchant (upgrade that instance)";
}

constexpr const char* kSessionColumns =
    "id, offer_id, checkout, amount, currency, methods, created_at, expires_at, qr_state, qr_response, "
    "status, state, final, success, transaction_id, received_amount, status_at, version, method, tx_amount, "
    "tx_currency";

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
    if (!r.is_null(18)) s.status.method = r.text(18);
    if (!r.is_null(19)) s.status.tx_amount = r.text(19);
    if (!r.is_null(20)) s.status.tx_currency = r.text(20);
    return s;
}

std::optional<HeldStatus> held_of(const Session& s) {
    if (!s.status.status || !s.status.transaction_id) return std::nullopt;
    return HeldStatus{*s.status.status, *s.status.transaction_id, s.status.state == "amount_mismatch",
                      s.status.received_amount};
}

SqlValue opt(const std::optional<std::string>& v) { return v ? SqlValue(*v) : SqlValue(); }

}  // namespace

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

// Brings the database to kSchemaVersion, once, in one transaction: version 1 is the schema of 0.2.0
// (kSchema; a database without paywasm_schema but with sessions is at 1), then each migration in
// order. Several instances starting at once on PostgreSQL: the advisory lock lets one migrate and
// the others find it done; a running instance is never blocked by DDL unless a migration is due.
// A database newer than this binary is refused at start, and the writer guard refuses the writes of
// an older binary that is already running (or checks no version).
Store::Store(std::unique_ptr<Sql> sql) : sql_(std::move(sql)) {
    sql_->mark_writer(kSchemaVersion);
    sql_->transaction([&] {
        sql_->lock_schema();
        int version = 0;
        if (sql_->has_table("paywasm_schema")) {
            auto rows = sql_->query("SELECT max(version) FROM paywasm_schema");
            version = rows.empty() ? 0 : static_cast<int>(rows[0].integer(0));
        } else if (sql_->has_table("sessions")) {
            version = 1;
        }
        if (version > kSchemaVersion) {
            throw std::runtime_error("the database's schema is version " + std::to_string(version) +
                                     ", newer than this paywasm-merchant's (" + std::to_string(kSchemaVersion) +
                                     "): run the newer release");
        }
        if (version == kSchemaVersion) return;
        sql_->exec_script(kSchema);  // version 1; IF NOT EXISTS also completes a 0.2.0 without qr_codes
        if (version < 2) sql_->exec_script(kSchemaV2);
        if (version < 3) sql_->exec_script(kSchemaV3);
        if (version < 4) sql_->exec_script(kSchemaV4);
        sql_->exec_script("CREATE TABLE IF NOT EXISTS paywasm_schema (version BIGINT NOT NULL, applied_at BIGINT NOT NULL)");
        // Every migration: the guard at the new version, on every table.
        sql_->guard_writers(std::vector<std::string>(std::begin(kTables), std::end(kTables)), kSchemaVersion,
                            writer_refusal(kSchemaVersion));
        sql_->execute("INSERT INTO paywasm_schema (version, applied_at) VALUES (?, ?)",
                      {std::int64_t(kSchemaVersion), now_ms()});
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

std::string Store::current_qr_order(const Session& s) {
    auto rows = sql_->query(
        "SELECT order_id FROM qr_codes WHERE session_id = ? AND replaced = 0 ORDER BY created_at DESC, order_id DESC "
        "LIMIT 1",
        {s.id});
    return rows.empty() ? s.offer_id + "~qr1" : rows[0].text(0);
}

namespace {


std::vector<QrCodeRow> qr_codes_of(Sql& sql, const std::string& session_id) {
    std::vector<QrCodeRow> out;
    for (const auto& r : sql.query("SELECT order_id, transaction_id, replaced FROM qr_codes WHERE session_id = ?",
                                   {session_id})) {
        QrCodeRow c{r.text(0), std::nullopt, r.integer(2) != 0};
        if (!r.is_null(1)) c.transaction_id = r.text(1);
        out.push_back(std::move(c));
    }
    return out;
}

}  // namespace

// One transaction with the session's row locked: re-reads the session, and claims the creation of
// a new code only if the current answer is still `current_response` and that code is dead by the
// locked row (a late payment applied meanwhile by another instance keeps the code). Then records
// the current code as replaced, resets the session's status (the old code's final status is not
// the new code's) and picks the new code's orderId: one of an earlier renewal the service may have
// created without our knowing (its call failed), else "<offerId>~qr<n>" unused by any code.
Store::Renewal Store::renew_qr(const Session& given, const std::string& current_response, const std::string& current_tx,
                               std::int64_t now) {
    Renewal result = Renewal::lost;
    sql_->transaction([&] {
        auto rows = sql_->query_locked(std::string("SELECT ") + kSessionColumns + " FROM sessions WHERE id = ?", {given.id});
        if (rows.empty()) return;
        const Session s = session_from_row(rows[0]);
        if (!s.qr_state || *s.qr_state != "done" || s.qr_response != current_response) return;
        if (!qr_code_dead(held_of(s), current_tx)) {
            result = Renewal::not_dead;
            return;
        }
        if (now >= s.expires_at) {
            result = Renewal::expired;
            return;
        }
        sql_->execute("UPDATE sessions SET qr_state = 'creating', qr_started_at = ? WHERE id = ?", {now, s.id});
        result = Renewal::renewed;
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
                if (sql_->execute("INSERT INTO qr_codes (order_id, session_id, replaced, created_at) VALUES (?, ?, 0, ?) "
                                  "ON CONFLICT (order_id) DO NOTHING",
                                  {order, s.id, now}) == 1) {
                    break;
                }
            }
        }
        sql_->execute(
            "UPDATE sessions SET status = NULL, state = 'open', final = 0, success = 0, transaction_id = NULL, "
            "received_amount = NULL, method = NULL, tx_amount = NULL, tx_currency = NULL, status_at = ?, "
            "version = version + 1 WHERE id = ?",
            {now, s.id});
        sql_->notify("paywasm_status", s.id);
    });
    return result;
}

// The claim also records the code's orderId (transaction still unknown): the service's first
// webhook for it may arrive before its answer does, and must find the session.
bool Store::claim_qr(const Session& s, std::int64_t now, std::int64_t stale_before) {
    bool claimed = false;
    sql_->transaction([&] {
        claimed = sql_->execute("UPDATE sessions SET qr_state = 'creating', qr_started_at = ? WHERE id = ? AND "
                                "(qr_state IS NULL OR (qr_state = 'creating' AND qr_started_at < ?))",
                                {now, s.id, stale_before}) == 1;
        if (!claimed) return;
        sql_->execute("INSERT INTO qr_codes (order_id, session_id, replaced, created_at) VALUES (?, ?, 0, ?) "
                      "ON CONFLICT (order_id) DO NOTHING",
                      {current_qr_order(s), s.id, now});
    });
    return claimed;
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

void Store::record_debit(const std::string& order_id, const std::string& subscription_id,
                         const std::optional<std::string>& merchant_subscription_id, std::int64_t now) {
    sql_->execute("INSERT INTO debits (order_id, subscription_id, merchant_subscription_id, created_at) VALUES "
                  "(?, ?, ?, ?) ON CONFLICT (order_id) DO NOTHING",
                  {order_id, subscription_id, opt(merchant_subscription_id), now});
}

namespace {

std::string debit_event_type(const paywasm::StatusInfo& info) {
    using K = paywasm::StatusKind;
    if (info.success) return "subscription.debit.succeeded";
    switch (info.kind) {
        case K::failed: case K::canceled: case K::timed_out: return "subscription.debit.failed";
        case K::pending: case K::processing: case K::awaiting_payment: return "subscription.debit.pending";
        case K::partial: case K::partial_closed: return "subscription.debit.partially_paid";
        case K::refund: return "subscription.debit.refunded";
        default: return "subscription.debit.status_unknown";
    }
}

}  // namespace

// One verified webhook, in one transaction:
//   - the event id is SHA-256 of the signed text: the same delivery twice changes nothing the second
//     time (duplicate);
//   - the order id (meta.offerId) finds one of our QR codes, a session's own offerId, or a debit of
//     ours; the session's row is locked before anything of it is read, so two instances deciding on
//     the same session take turns, each seeing what the other committed;
//   - decide_webhook() says what happens; this function persists exactly that: the event record,
//     the transaction row (never replaced by a status that does not supersede it), the session's
//     status, the outbox row (only what moved a session, and a debit's statuses), NOTIFY.
Store::Applied Store::apply_webhook(const paywasm::VerifiedWebhook& hook, const std::string& merchant_id, bool forward,
                                    std::int64_t now) {
    const paywasm::Transaction& tx = hook.transaction;
    Applied out;
    out.event_id = "evt_" + paywasm::sha256_hex(hook.signed_json).substr(0, 32);
    IncomingTx in;
    in.id = tx.id;
    in.status = tx.status;
    in.merchant_id = tx.merchant_id;
    if (tx.meta) in.order_id = tx.meta->offer_id;
    if (tx.native_amount) {
        in.native_amount = tx.native_currency ? paywasm::amount_text({*tx.native_amount, *tx.native_currency})
                                              : tx.native_amount->to_string();
    }
    in.native_currency = tx.native_currency;
    if (tx.received_amount) in.received = tx.received_amount->to_string();
    std::optional<std::string> tx_amount, tx_currency;
    if (tx.amount && tx.currency) {
        tx_amount = tx.amount->to_string();
        tx_currency = *tx.currency;
        std::transform(tx_currency->begin(), tx_currency->end(), tx_currency->begin(), ::toupper);
    }

    sql_->transaction([&] {
        // Which session (or debit) the order id names; then that session, locked.
        std::optional<std::string> session_id;
        std::optional<SqlRow> debit;
        if (in.order_id) {
            auto code = sql_->query("SELECT session_id FROM qr_codes WHERE order_id = ?", {*in.order_id});
            if (!code.empty()) session_id = code[0].text(0);
            else if (auto by_offer = sql_->query("SELECT id FROM sessions WHERE offer_id = ?", {*in.order_id}); !by_offer.empty())
                session_id = by_offer[0].text(0);
            else if (auto d = sql_->query("SELECT subscription_id, merchant_subscription_id FROM debits WHERE order_id = ?",
                                          {*in.order_id});
                     !d.empty())
                debit = d[0];
        }
        std::optional<Session> s;
        if (session_id) {
            auto rows =
                sql_->query_locked(std::string("SELECT ") + kSessionColumns + " FROM sessions WHERE id = ?", {*session_id});
            if (!rows.empty()) s = session_from_row(rows[0]);
        }
        std::optional<SessionFacts> facts;
        std::vector<QrCodeRow> codes;
        std::optional<HeldStatus> stored;
        if (s) {
            facts = SessionFacts{s->offer_id, s->amount, s->currency, s->offers("exchange"), s->offers("bank"), held_of(*s)};
            codes = qr_codes_of(*sql_, s->id);
        }
        if (s || debit) {
            auto row = sql_->query("SELECT status, mismatch, received_amount FROM transactions WHERE id = ?", {tx.id});
            if (!row.empty()) {
                stored = HeldStatus{static_cast<int>(row[0].integer(0)), tx.id, row[0].integer(1) != 0, std::nullopt};
                if (!row[0].is_null(2)) stored->received = row[0].text(2);
            }
        }
        Decision d = decide_webhook(merchant_id, facts, codes, stored, in);
        // A debit of ours (no session): its statuses go to the app as subscription events.
        if (debit && d.outcome == Outcome::unknown_offer) d = decide_debit_webhook(stored, in);
        out.outcome = std::string(to_string(d.outcome));
        out.reason = d.reason;
        if (d.outcome == Outcome::foreign_merchant) return;  // not ours: nothing of it is kept

        const auto inserted = sql_->execute(
            "INSERT INTO webhook_events (id, received_at, transaction_id, offer_id, status, session_id, outcome, body) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING",
            {out.event_id, now, tx.id, opt(in.order_id), static_cast<std::int64_t>(tx.status),
             s ? SqlValue(s->id) : SqlValue(), out.outcome, hook.signed_json});
        if (inserted == 0) {
            out.outcome = "duplicate";
            out.reason.clear();
            return;
        }
        const bool mismatch = d.outcome == Outcome::amount_mismatch;
        const std::string state = mismatch ? "amount_mismatch" : std::string(paywasm::to_string(d.info.kind));
        const std::optional<std::string> method =
            d.method ? std::optional<std::string>(std::string(paywasm::to_string(*d.method))) : std::nullopt;
        if (d.store_transaction) {
            sql_->execute(
                "INSERT INTO transactions (id, session_id, offer_id, status, state, native_amount, native_currency, "
                "received_amount, body, updated_at, amount, currency, mismatch) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
                "?, ?) ON CONFLICT (id) DO UPDATE SET status = excluded.status, state = excluded.state, "
                "native_amount = excluded.native_amount, native_currency = excluded.native_currency, "
                "received_amount = excluded.received_amount, body = excluded.body, updated_at = excluded.updated_at, "
                "amount = excluded.amount, currency = excluded.currency, mismatch = excluded.mismatch",
                {tx.id, s ? SqlValue(s->id) : SqlValue(), opt(in.order_id), static_cast<std::int64_t>(tx.status), state,
                 opt(in.native_amount), opt(in.native_currency), opt(in.received), hook.signed_json, now, opt(tx_amount),
                 opt(tx_currency), std::int64_t(mismatch ? 1 : 0)});
        }
        if (d.bind_qr_transaction && in.order_id) {
            sql_->execute("UPDATE qr_codes SET transaction_id = ? WHERE order_id = ? AND transaction_id IS NULL",
                          {tx.id, *in.order_id});
        }
        if (s && d.moves_session) {
            sql_->execute(
                "UPDATE sessions SET status = ?, state = ?, final = ?, success = ?, transaction_id = ?, "
                "received_amount = ?, method = ?, tx_amount = ?, tx_currency = ?, status_at = ?, version = version + 1 "
                "WHERE id = ?",
                {static_cast<std::int64_t>(tx.status), state, std::int64_t(d.info.final ? 1 : 0),
                 std::int64_t(d.success ? 1 : 0), tx.id, opt(in.received), opt(method), opt(tx_amount), opt(tx_currency),
                 now, s->id});
            out.session_id = s->id;
            // The row is locked: what was just written is what it holds (the event's amounts read it).
            StatusView& v = s->status;
            v.status = tx.status;
            v.state = state;
            v.final = d.info.final;
            v.success = d.success;
            v.transaction_id = tx.id;
            v.received_amount = in.received;
            v.method = method;
            v.tx_amount = tx_amount;
            v.tx_currency = tx_currency;
            v.updated_at = now;
            ++v.version;
            // Every instance's streams get the new status with the wake-up (at commit), and send it
            // without reading the session; a payload over NOTIFY's 8000 bytes goes as the bare id.
            out.pushed = PushedStatus{v.version, v.final, status_json(*s)};
            std::string payload = push_payload(s->id, *out.pushed);
            if (payload.size() > 7900) payload = s->id;
            sql_->notify("paywasm_status", payload);
        }
        if (!forward || !d.forward) return;
        paywasm::JsonWriter w;
        w.begin_object().str("id", out.event_id);
        if (s) {
            w.str("type", event_type(d)).str("createdAt", iso8601(now));
            w.str("sessionId", s->id).str("offerId", s->offer_id);
            w.key("method");
            method ? w.string(*method) : w.null();
        } else {
            w.str("type", debit_event_type(d.info)).str("createdAt", iso8601(now));
            w.str("subscriptionId", debit->text(0));
            w.key("merchantSubscriptionId");
            debit->is_null(1) ? w.null() : w.string(debit->text(1));
            w.str("debitOrderId", *in.order_id);
        }
        w.str("transactionId", tx.id).num("status", tx.status).str("kind", paywasm::to_string(d.info.kind));
        w.flag("final", d.info.final).flag("success", d.success);
        w.str("taken", paywasm::to_string(d.info.taken));
        if (s) write_amounts(w, *s);
        w.key("paid");
        if (in.native_amount && in.native_currency) {
            w.begin_object().str("amount", *in.native_amount).str("currency", *in.native_currency).end_object();
        } else {
            w.null();
        }
        w.str("transaction", hook.signed_json);  // the signed text, for an app that re-checks it
        w.end_object();
        sql_->execute(
            "INSERT INTO outbox (id, created_at, body, state, next_attempt_at) VALUES (?, ?, ?, 'pending', ?) "
            "ON CONFLICT (id) DO NOTHING",
            {out.event_id, now, w.text(), now});
    });
    return out;
}

void Store::check_keys(const std::string& merchant_fp, const std::string& webhook_fp, std::int64_t now) {
    if (merchant_fp == webhook_fp) {
        throw std::runtime_error("--merchant-public-key and --webhook-public-key are the same key: the first is the "
                                 "merchant's (payloads are encrypted to it), the second the service's webhook signing key");
    }
    sql_->transaction([&] {
        std::optional<std::string> merchant, webhook;
        for (const auto& r : sql_->query("SELECT role, fingerprint FROM gateway_keys")) {
            (r.text(0) == "merchant" ? merchant : webhook) = r.text(1);
        }
        if (merchant && webhook && *merchant == webhook_fp && *webhook == merchant_fp) {
            throw std::runtime_error("--merchant-public-key and --webhook-public-key look swapped: this database was "
                                     "served with each as the other; give the merchant's key as --merchant-public-key");
        }
        for (const auto& [role, fp] : {std::pair<const char*, const std::string*>{"merchant", &merchant_fp}, {"webhook", &webhook_fp}}) {
            sql_->execute("INSERT INTO gateway_keys (role, fingerprint, updated_at) VALUES (?, ?, ?) ON CONFLICT (role) DO "
                          "UPDATE SET fingerprint = excluded.fingerprint, updated_at = excluded.updated_at",
                          {std::string(role), *fp, now});
        }
    });
}

std::int64_t Store::prune(std::int64_t cutoff, int batch) {
    std::int64_t removed = 0;
    sql_->transaction([&] {
        // Sessions done with: expired before the cutoff, last changed before it, and final or
        // showing no money (taken none: nothing to settle). Pending or partly paid ones are kept.
        std::vector<std::string> ids;
        for (const auto& r : sql_->query(
                 "SELECT id, status, received_amount FROM sessions WHERE expires_at < ? AND status_at < ? "
                 "ORDER BY expires_at LIMIT ?",
                 {cutoff, cutoff, std::int64_t(batch)})) {
            if (!r.is_null(1)) {
                const HeldStatus held{static_cast<int>(r.integer(1)), "", false,
                                      r.is_null(2) ? std::nullopt : std::optional<std::string>(r.text(2))};
                const auto info = paywasm::describe_status(held.status);
                if (!info.final && info.taken != paywasm::MoneyTaken::none) continue;
            }
            ids.push_back(r.text(0));
        }
        for (const auto& id : ids) {
            removed += sql_->execute("DELETE FROM webhook_events WHERE session_id = ?", {id});
            removed += sql_->execute("DELETE FROM transactions WHERE session_id = ?", {id});
            removed += sql_->execute("DELETE FROM qr_codes WHERE session_id = ?", {id});
            removed += sql_->execute("DELETE FROM sessions WHERE id = ?", {id});
        }
        const std::int64_t limit = batch;
        removed += sql_->execute(
            "DELETE FROM outbox WHERE id IN (SELECT id FROM outbox WHERE state = 'delivered' AND created_at < ? LIMIT ?)",
            {cutoff, limit});
        removed += sql_->execute(
            "DELETE FROM webhook_events WHERE id IN (SELECT id FROM webhook_events WHERE session_id IS NULL AND "
            "received_at < ? LIMIT ?)",
            {cutoff, limit});
        removed += sql_->execute(
            "DELETE FROM transactions WHERE id IN (SELECT id FROM transactions WHERE session_id IS NULL AND "
            "updated_at < ? LIMIT ?)",
            {cutoff, limit});
        removed += sql_->execute(
            "DELETE FROM debits WHERE order_id IN (SELECT order_id FROM debits WHERE created_at < ? LIMIT ?)", {cutoff, limit});
    });
    return removed;
}

// One statement takes the token or finds none, whichever instance asks: the row's refill since its
// last take (at most a minute's: a full bucket; none when this instance's clock is behind the one
// that took last) is added, capped at a full bucket, and one token taken only when one is there.
std::int64_t Store::take_token(const std::string& key, int per_minute, std::int64_t now) {
    if (per_minute <= 0) return 0;
    constexpr std::int64_t kToken = 60000;  // units a token is worth; the refill is per_minute units a ms
    const std::int64_t rate = per_minute, full = rate * kToken;
    // The statement is the same for every key and rate (they are bound): built once.
    static const std::string take = [] {
        const std::string elapsed =
            "(CASE WHEN excluded.updated_at - rate_buckets.updated_at > 60000 THEN 60000 "
            "WHEN excluded.updated_at < rate_buckets.updated_at THEN 0 "
            "ELSE excluded.updated_at - rate_buckets.updated_at END)";
        const std::string refilled = "(CASE WHEN rate_buckets.units + ? * " + elapsed +
                                     " > ? THEN ? ELSE rate_buckets.units + ? * " + elapsed + " END)";
        return "INSERT INTO rate_buckets (key, units, updated_at) VALUES (?, ?, ?) ON CONFLICT (key) DO UPDATE SET "
               "units = " + refilled + " - 60000, updated_at = CASE WHEN excluded.updated_at > rate_buckets.updated_at "
               "THEN excluded.updated_at ELSE rate_buckets.updated_at END WHERE " + refilled + " >= 60000 RETURNING units";
    }();
    const auto taken = sql_->query(take, {key, full - kToken, now, rate, full, full, rate, rate, full, full, rate});
    if (!taken.empty()) return 0;
    // Empty: how long until a whole token is there again (read after the refused take).
    const auto left = sql_->query("SELECT units, updated_at FROM rate_buckets WHERE key = ?", {key});
    if (left.empty()) return 1000;
    const std::int64_t since = std::clamp<std::int64_t>(now - left[0].integer(1), 0, 60000);
    const std::int64_t have = std::min(full, left[0].integer(0) + rate * since);
    return std::max<std::int64_t>(1, (kToken - have + rate - 1) / rate);
}

// Buckets untouched for a minute are full again: the row says nothing a missing one would not.
std::int64_t Store::prune_buckets(std::int64_t now) {
    return sql_->execute("DELETE FROM rate_buckets WHERE updated_at < ?", {now - 60000});
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
