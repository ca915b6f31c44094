// The gateway's tables (schema.hpp): version 1 is 0.2.0's schema, each later version one migration.
#include "store/schema.hpp"

#include <iterator>
#include <stdexcept>

#include "rules/order_state.hpp"
#include "rules/overview.hpp"
#include "server/util.hpp"

namespace merchant {

using paywasm::server::now_ms;

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
  outcome         TEXT NOT NULL,         -- to_string(Outcome) (decide.hpp), duplicate excepted
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

// Schema version 3: the key fingerprints of the last start (Upkeep::check_keys: swapped keys).
constexpr const char* kSchemaV3 = R"sql(
CREATE TABLE IF NOT EXISTS gateway_keys (
  role            TEXT PRIMARY KEY,      -- merchant | webhook
  fingerprint     TEXT NOT NULL,         -- SHA-256 of the key's DER, as the last start had it
  updated_at      BIGINT NOT NULL
);
)sql";

// Schema version 4: the rate limits' buckets, shared by every instance (Upkeep::take_token), and the
// writer guard (Sql::guard_writers, in the Store's constructor).
constexpr const char* kSchemaV4 = R"sql(
CREATE TABLE IF NOT EXISTS rate_buckets (
  key             TEXT PRIMARY KEY,      -- limit:subject (session:app, qr-session:<id>, qr-client:<address>)
  units           BIGINT NOT NULL,       -- what is left, in 1/60000 of a token (a minute's refill is exact)
  updated_at      BIGINT NOT NULL        -- when it was last taken from
);
)sql";

// Schema version 5 (issue 32): payment attempts as the browser reported them, with what verified
// webhooks and the merchant said since (attempts.hpp), the merchant's resolutions as an audit
// record, and the debits' event order (a debit's events leave the outbox one after the other).
constexpr const char* kSchemaV5 = R"sql(
CREATE TABLE IF NOT EXISTS attempts (
  id              TEXT PRIMARY KEY,      -- at_ + 128 random bits, the widget keeps it
  session_id      TEXT NOT NULL,
  method          TEXT NOT NULL,         -- exchange | bank
  created_at      BIGINT NOT NULL,
  reported_at     BIGINT,                -- the browser's one report (NULL: none yet)
  transaction_id  TEXT,                  -- reported by the browser, or attached by a verified webhook
  reported_status BIGINT,                -- the service's immediate status, as the browser said
  error_code      TEXT,                  -- the browser's error report: the core's code
  error_http      BIGINT,                --   and the HTTP status it saw
  verified        TEXT NOT NULL DEFAULT 'none',  -- none | open | no_money | paid (verified webhooks only)
  verified_open_at BIGINT,               -- the first verified status without a final outcome
  resolution      TEXT,                  -- release | paid_elsewhere | not_paid (the merchant's word)
  attention_at    BIGINT,                -- checkout.attention_needed was queued (once: compare-and-set)
  conflict_at     BIGINT                 -- a verified outcome contradicted the resolution
);
CREATE INDEX IF NOT EXISTS attempts_session ON attempts (session_id, created_at);
CREATE TABLE IF NOT EXISTS resolutions (
  id              TEXT PRIMARY KEY,      -- res_ + random
  session_id      TEXT NOT NULL,
  attempt_id      TEXT NOT NULL,
  resolution      TEXT NOT NULL,
  note            TEXT NOT NULL,
  actor           TEXT NOT NULL,         -- who: the app API (the only caller allowed to resolve)
  created_at      BIGINT NOT NULL
);
ALTER TABLE debits ADD COLUMN event_seq BIGINT NOT NULL DEFAULT 0;
ALTER TABLE outbox ADD COLUMN chain TEXT;   -- events of one chain (a debit) are delivered in seq order
ALTER TABLE outbox ADD COLUMN seq BIGINT;
)sql";

// Schema version 6 (issue 33): payment links, and on a session the link that opened it, where the
// hosted page sends the shopper back, and when the shopper gave a link's fields.
constexpr const char* kSchemaV6 = R"sql(
CREATE TABLE IF NOT EXISTS links (
  id              TEXT PRIMARY KEY,      -- pl_ + 256 random bits: the link's URL, unguessable
  spec            TEXT NOT NULL,         -- what the app created it with (links.cpp reads it)
  currency        TEXT NOT NULL,
  active          BIGINT NOT NULL DEFAULT 1,
  usage_limit     BIGINT,                -- paid sessions after which it opens no more (NULL: none)
  expires_at      BIGINT,                -- it opens no more after (NULL: never)
  created_at      BIGINT NOT NULL,
  updated_at      BIGINT NOT NULL
);
ALTER TABLE sessions ADD COLUMN link_id TEXT;
ALTER TABLE sessions ADD COLUMN success_url TEXT;
ALTER TABLE sessions ADD COLUMN cancel_url TEXT;
ALTER TABLE sessions ADD COLUMN details_at BIGINT;  -- a link session: the shopper's fields given
CREATE INDEX IF NOT EXISTS sessions_link ON sessions (link_id);
)sql";
// The bucket expression of schema version 7 (its index; version 9 replaced both): kept as it was, so
// that a database migrated from any version builds the very same index at 7.
constexpr const char* kOrderBucketSqlV7 =
    "(CASE WHEN success = 1 OR underpayment_accepted_at IS NOT NULL THEN 'paid' "
    "WHEN state IN ('partial', 'partial_closed', 'amount_mismatch') THEN 'partial' "
    "WHEN state IN ('failed', 'timed_out', 'canceled') THEN 'failed' "
    "WHEN state = 'refund' THEN 'refunded' "
    "WHEN state = 'open' THEN 'open' ELSE 'pending' END)";

// Schema version 7 (issue 34, the merchant's console): the indexes of the orders list (keyset
// pagination newest first, by state bucket: order_state.hpp; searches by transaction id), the
// outbox's session (the order page's events), every delivery attempt of a forwarded event, notes,
// an accepted underpayment, the console's users and login sessions, and the audit log.
std::string schema_v7() {
    return std::string(R"sql(
ALTER TABLE sessions ADD COLUMN underpayment_accepted_at BIGINT;
ALTER TABLE outbox ADD COLUMN session_id TEXT;   -- the event's sessionId, when it has one
CREATE INDEX IF NOT EXISTS sessions_created ON sessions (created_at, id);
CREATE INDEX IF NOT EXISTS sessions_transaction ON sessions (transaction_id);
CREATE INDEX IF NOT EXISTS sessions_expires ON sessions (expires_at);
CREATE INDEX IF NOT EXISTS attempts_transaction ON attempts (transaction_id);
CREATE INDEX IF NOT EXISTS outbox_session ON outbox (session_id, created_at);
CREATE INDEX IF NOT EXISTS outbox_created ON outbox (created_at, id);
CREATE INDEX IF NOT EXISTS webhook_events_session ON webhook_events (session_id, received_at);
CREATE TABLE IF NOT EXISTS deliveries (
  event_id        TEXT NOT NULL,         -- the outbox row's id
  started_at      BIGINT NOT NULL,
  finished_at     BIGINT NOT NULL,
  http_status     BIGINT,                -- the app's answer (NULL: none arrived)
  error           TEXT                   -- NULL when delivered (a 2xx)
);
CREATE INDEX IF NOT EXISTS deliveries_event ON deliveries (event_id, started_at);
CREATE TABLE IF NOT EXISTS session_notes (
  id              TEXT PRIMARY KEY,      -- note_ + random
  session_id      TEXT NOT NULL,
  actor           TEXT NOT NULL,         -- app | console:<user>
  note            TEXT NOT NULL,
  created_at      BIGINT NOT NULL
);
CREATE INDEX IF NOT EXISTS session_notes_session ON session_notes (session_id, created_at);
CREATE TABLE IF NOT EXISTS console_users (
  name            TEXT PRIMARY KEY,
  password_hash   TEXT NOT NULL,         -- scrypt$N$r$p$<salt hex>$<key hex> (console_auth.hpp)
  created_at      BIGINT NOT NULL,
  failed_logins   BIGINT NOT NULL DEFAULT 0,  -- wrong passwords since the last good login
  locked_until    BIGINT NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS console_sessions (
  token_hash      TEXT PRIMARY KEY,      -- SHA-256 of the cookie's token (the token itself is not kept)
  user_name       TEXT NOT NULL,
  csrf            TEXT NOT NULL,         -- the form token of this login
  created_at      BIGINT NOT NULL,
  seen_at         BIGINT NOT NULL,
  expires_at      BIGINT NOT NULL
);
CREATE INDEX IF NOT EXISTS console_sessions_user ON console_sessions (user_name);
CREATE TABLE IF NOT EXISTS audit_log (
  id              TEXT PRIMARY KEY,      -- aud_ + random
  at              BIGINT NOT NULL,
  actor           TEXT NOT NULL,         -- app | console:<user> | the name tried at a login
  action          TEXT NOT NULL,         -- login | login_failed | logout | resend | resend_failed | resolve | accept_underpayment | note
  target          TEXT,                  -- a session or event id
  detail          TEXT,
  address         TEXT                   -- the client's address (console and app API)
);
CREATE INDEX IF NOT EXISTS audit_log_at ON audit_log (at, id);
)sql") + "CREATE INDEX IF NOT EXISTS sessions_bucket ON sessions (" + kOrderBucketSqlV7 + ", created_at, id);\n";
}

// Schema version 8 (issue 40): the console's wrong passwords in a sliding window, per user and per
// client address (console_auth.hpp), what the user is told at the next good login, the address a
// login came from (`console-user sessions`); an attempt's transaction id as the browser reported it
// apart from the one a verified webhook attached (a reported one with no verified outcome moves).
constexpr const char* kSchemaV8 = R"sql(
CREATE TABLE IF NOT EXISTS login_failures (
  subject         TEXT NOT NULL,         -- user:<name> | address:<client_key>
  at              BIGINT NOT NULL
);
CREATE INDEX IF NOT EXISTS login_failures_subject ON login_failures (subject, at);
ALTER TABLE console_users ADD COLUMN locked_at BIGINT NOT NULL DEFAULT 0;  -- a lock began since the last good login (0: none)
ALTER TABLE console_sessions ADD COLUMN address TEXT;
ALTER TABLE attempts ADD COLUMN reported_transaction_id TEXT;  -- the browser's word only (transaction_id: verified)
UPDATE attempts SET reported_transaction_id = transaction_id WHERE reported_at IS NOT NULL;
UPDATE attempts SET transaction_id = NULL WHERE reported_at IS NOT NULL AND verified = 'none';
CREATE INDEX IF NOT EXISTS attempts_reported_transaction ON attempts (reported_transaction_id);
)sql";

// Schema version 9 (issue 45, one order state): the merchant's resolutions on the session's row (an
// attempt resolved paid_elsewhere makes the order paid, not_paid closes it: order_state.hpp), filled
// from the attempts resolved before, and the bucket index over the new expression; a QR code's
// attempt and the end of its window (attempts.hpp: codes made from this version on).
std::string schema_v9() {
    return std::string(R"sql(
ALTER TABLE attempts ADD COLUMN window_end BIGINT;  -- a QR code's (method qr): live until then
ALTER TABLE sessions ADD COLUMN paid_elsewhere_at BIGINT;
ALTER TABLE sessions ADD COLUMN closed_at BIGINT;
UPDATE sessions SET paid_elsewhere_at = (SELECT max(r.created_at) FROM resolutions AS r JOIN attempts AS a ON a.id = r.attempt_id
  WHERE a.session_id = sessions.id AND a.resolution = 'paid_elsewhere' AND r.resolution = 'paid_elsewhere');
UPDATE sessions SET closed_at = (SELECT max(r.created_at) FROM resolutions AS r JOIN attempts AS a ON a.id = r.attempt_id
  WHERE a.session_id = sessions.id AND a.resolution = 'not_paid' AND r.resolution = 'not_paid');
DROP INDEX IF EXISTS sessions_bucket;
)sql") + "CREATE INDEX IF NOT EXISTS sessions_bucket9 ON sessions (" + kOrderBucketSql + ", created_at, id);\n";
}

// Schema version 10 (issue 44, word to the merchant): who gets which mail (a console user's address
// and kinds), and the mail outbox: one row per event and recipient (so an event is mailed to an
// address at most once, whatever instance queued it), delivered by the mailer (mailer.cpp) with a
// lease like the event outbox.
constexpr const char* kSchemaV10 = R"sql(
CREATE TABLE IF NOT EXISTS notify_prefs (
  user_name       TEXT PRIMARY KEY,      -- a console user (console_users.name)
  email           TEXT NOT NULL,
  kinds           TEXT NOT NULL          -- comma-separated: paid, partial, attention, refused (notify.hpp)
);
CREATE TABLE IF NOT EXISTS mail_outbox (
  id              TEXT PRIMARY KEY,      -- <event id>/<recipient>
  created_at      BIGINT NOT NULL,
  recipient       TEXT NOT NULL,
  subject         TEXT NOT NULL,
  body            TEXT NOT NULL,         -- plain text
  state           TEXT NOT NULL,         -- pending | sent
  attempts        BIGINT NOT NULL DEFAULT 0,
  next_attempt_at BIGINT NOT NULL,
  lease_until     BIGINT,
  last_error      TEXT,
  sent_at         BIGINT
);
CREATE INDEX IF NOT EXISTS mail_outbox_due ON mail_outbox (state, next_attempt_at);
)sql";

// Schema version 11 (issue 44, the point of sale): a sale the seller charged at the console's point
// of sale is a one-payment link whose order is like any other, each tagged with the console user who
// charged it.
constexpr const char* kSchemaV11 = R"sql(
ALTER TABLE links ADD COLUMN sold_by TEXT;     -- a point-of-sale sale: the console user (NULL: a payment link)
ALTER TABLE sessions ADD COLUMN sold_by TEXT;  -- the sale's order: the same user (NULL: not a sale)
)sql";

// Schema version 12 (issue 42, the overview at a million orders): the overview's tally
// (rules/overview.hpp), kept by the database as it writes the sessions, so that the overview reads
// a row per kind of order and day instead of every session of 30 days. overview_kinds: the orders
// alike in all the figures read (OverviewKind; no NULL in the key: '' stands for none, as the
// store reads it back); overview_times: the final ones by whole seconds to final (OverviewTimes).
// Filled from the sessions once, then row triggers on sessions add each order's row under its kind
// and take it away from its old kind, in the writer's transaction. The overview's other counts by
// an index each: the events refused again and again (outbox_failing, a few rows, where SQLite's
// statistics on outbox_due say "every row has the same state" and it scanned them all), the partly
// paid orders (the bucket index now also holds what makes a session an order and the columns its
// expression reads, so counting them, and checking a list's rows, reads the index alone: SQLite
// 0.42 s -> 8.5 ms at 100,000 partly paid; PostgreSQL 290 -> 40 ms, an index-only scan, which it
// does only when every column the query reads, the expression's too, is in the index, and only
// over pages its visibility map marks all-visible: autovacuum keeps it).
constexpr const char* kSchemaV12 = R"sql(
CREATE TABLE IF NOT EXISTS overview_kinds (
  day               BIGINT NOT NULL,     -- created_at / 86400000 (UTC)
  state             TEXT NOT NULL,
  success           BIGINT NOT NULL,
  final             BIGINT NOT NULL,
  accepted          BIGINT NOT NULL,     -- underpayment_accepted_at set
  paid_elsewhere    BIGINT NOT NULL,     -- paid_elsewhere_at set
  closed            BIGINT NOT NULL,     -- closed_at set
  currency          TEXT NOT NULL,
  amount            TEXT NOT NULL,
  method            TEXT NOT NULL,       -- '': none known
  received          TEXT NOT NULL,       -- received_amount; '': none
  received_currency TEXT NOT NULL,       -- tx_currency; '': none
  n                 BIGINT NOT NULL      -- how many orders
);
CREATE UNIQUE INDEX IF NOT EXISTS overview_kinds_key ON overview_kinds (day, state, success, final, accepted, paid_elsewhere,
  closed, currency, amount, method, received, received_currency);
CREATE TABLE IF NOT EXISTS overview_times (
  day               BIGINT NOT NULL,
  seconds           BIGINT NOT NULL,     -- (status_at - created_at) / 1000 of a final order, status_at >= created_at
  n                 BIGINT NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS overview_times_key ON overview_times (day, seconds);
CREATE INDEX IF NOT EXISTS outbox_failing ON outbox (attempts) WHERE state = 'pending' AND last_error IS NOT NULL;
DROP INDEX IF EXISTS sessions_bucket9;
)sql";

// The tally's columns of an order's row `s` (a session's columns, unqualified), key first.
constexpr const char* kKindKey = "day, state, success, final, accepted, paid_elsewhere, closed, currency, amount, method, received, "
                                 "received_currency";
constexpr const char* kKindOf =
    "created_at / 86400000, state, CASE WHEN success = 0 THEN 0 ELSE 1 END, CASE WHEN final = 0 THEN 0 ELSE 1 END, "
    "CASE WHEN underpayment_accepted_at IS NULL THEN 0 ELSE 1 END, CASE WHEN paid_elsewhere_at IS NULL THEN 0 ELSE 1 END, "
    "CASE WHEN closed_at IS NULL THEN 0 ELSE 1 END, currency, amount, coalesce(method, ''), coalesce(received_amount, ''), "
    "coalesce(tx_currency, '')";
constexpr const char* kTimesOf = "created_at / 86400000, (status_at - created_at) / 1000";
constexpr const char* kIsFinalTimed = "final <> 0 AND status_at >= created_at";
// Every column the tally reads: an update of another one (the QR code's state, the version) leaves it.
constexpr const char* kTallyColumns[] = {"created_at", "state", "success", "final", "underpayment_accepted_at", "paid_elsewhere_at",
                                         "closed_at", "currency", "amount", "method", "received_amount", "tx_currency", "status_at",
                                         "link_id", "details_at"};

// Adds `n` (an SQL expression) orders to the tally from `source` (rows with the sessions' columns),
// grouped by kind when `grouped`: ON CONFLICT adds to a kind already there.
std::string tally_statements(const std::string& source, const std::string& n, bool grouped) {
    const std::string group = grouped ? " GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12" : "";
    const std::string times_group = grouped ? " GROUP BY 1, 2" : "";
    return std::string("INSERT INTO overview_kinds (") + kKindKey + ", n) SELECT " + kKindOf + ", " + n + " FROM " + source +
           " WHERE " + kIsOrderSql + group + " ON CONFLICT (" + kKindKey + ") DO UPDATE SET n = overview_kinds.n + excluded.n;\n" +
           "INSERT INTO overview_times (day, seconds, n) SELECT " + kTimesOf + ", " + n + " FROM " + source + " WHERE " + kIsOrderSql +
           " AND " + kIsFinalTimed + times_group + " ON CONFLICT (day, seconds) DO UPDATE SET n = overview_times.n + excluded.n;\n";
}

// The row `row` (NEW or OLD) of a trigger on sessions as a source of tally_statements().
std::string trigger_row(const char* row) {
    std::string cols;
    for (const char* c : kTallyColumns) cols += std::string(cols.empty() ? "" : ", ") + row + "." + c + " AS " + c;
    return "(SELECT " + cols + ") AS s";
}

void install_overview_tally(paywasm::server::Sql& sql) {
    sql.exec_script(kSchemaV12);
    sql.exec_script(std::string("CREATE INDEX IF NOT EXISTS sessions_bucket12 ON sessions (") + kOrderBucketSql +
                    ", created_at, id, link_id, details_at, success, state, underpayment_accepted_at, paid_elsewhere_at, closed_at);\n");
    sql.exec_script(tally_statements("sessions", "count(*)", true));
    std::string columns;
    for (const char* c : kTallyColumns) columns += std::string(columns.empty() ? "" : ", ") + c;
    sql.row_trigger("overview_tally_insert", "sessions", "INSERT", tally_statements(trigger_row("NEW"), "1", false));
    sql.row_trigger("overview_tally_delete", "sessions", "DELETE", tally_statements(trigger_row("OLD"), "-1", false));
    sql.row_trigger("overview_tally_update", "sessions", "UPDATE OF " + columns,
                    tally_statements(trigger_row("OLD"), "-1", false) + tally_statements(trigger_row("NEW"), "1", false));
}

// The schema versions in order; the database records the last one applied (paywasm_schema).
constexpr int kSchemaVersion = 12;

// Every table of the gateway the gateway writes: the writer guard covers each. Not the overview's
// tally (schema 12): only the triggers on sessions write it, in a transaction whose write of
// sessions the guard has let through; a guard of its own would run four more times a session
// update (PostgreSQL: a PL/pgSQL call each).
constexpr const char* kTables[] = {"sessions", "transactions", "webhook_events", "outbox", "qr_codes",
                                   "debits", "gateway_keys", "rate_buckets", "attempts", "resolutions",
                                   "links", "deliveries", "session_notes", "console_users", "console_sessions", "audit_log", "login_failures",
                                   "notify_prefs", "mail_outbox", "paywasm_schema"};

// The writer guard's error (Sql::guard_writers): once a database is at a version, a write by a
// connection not marked as a writer of it (an older binary still running, or 0.2.0, which checks no
// version) fails with these words and changes nothing.
std::string writer_refusal(int version) {
    return "paywasm: this database is at schema " + std::to_string(version) +
           "; it refuses writes from an older paywasm-merchant (upgrade that instance)";
}

}  // namespace

// Brings the database to kSchemaVersion, once, in one transaction: version 1 is the schema of 0.2.0
// (kSchema; a database without paywasm_schema but with sessions is at 1), then each migration in
// order. Several instances starting at once on PostgreSQL: the advisory lock lets one migrate and
// the others find it done; a running instance is never blocked by DDL unless a migration is due.
// A database newer than this binary is refused at start, and the writer guard refuses the writes of
// an older binary that is already running (or checks no version).
void migrate(paywasm::server::Sql& sql) {
    sql.mark_writer(kSchemaVersion);
    sql.transaction([&] {
        sql.lock_schema();
        int version = 0;
        if (sql.has_table("paywasm_schema")) {
            auto rows = sql.query("SELECT max(version) FROM paywasm_schema");
            version = rows.empty() ? 0 : static_cast<int>(rows[0].integer(0));
        } else if (sql.has_table("sessions")) {
            version = 1;
        }
        if (version > kSchemaVersion) {
            throw std::runtime_error("the database's schema is version " + std::to_string(version) +
                                     ", newer than this paywasm-merchant's (" + std::to_string(kSchemaVersion) +
                                     "): run the newer release");
        }
        if (version == kSchemaVersion) return;
        sql.exec_script(kSchema);  // version 1; IF NOT EXISTS also completes a 0.2.0 without qr_codes
        if (version < 2) sql.exec_script(kSchemaV2);
        if (version < 3) sql.exec_script(kSchemaV3);
        if (version < 4) sql.exec_script(kSchemaV4);
        if (version < 5) sql.exec_script(kSchemaV5);
        if (version < 6) sql.exec_script(kSchemaV6);
        if (version < 7) sql.exec_script(schema_v7());
        if (version < 8) sql.exec_script(kSchemaV8);
        if (version < 9) sql.exec_script(schema_v9());
        if (version < 10) sql.exec_script(kSchemaV10);
        if (version < 11) sql.exec_script(kSchemaV11);
        if (version < 12) install_overview_tally(sql);
        sql.exec_script("CREATE TABLE IF NOT EXISTS paywasm_schema (version BIGINT NOT NULL, applied_at BIGINT NOT NULL)");
        // Every migration: the guard at the new version, on every table.
        sql.guard_writers(std::vector<std::string>(std::begin(kTables), std::end(kTables)), kSchemaVersion,
                           writer_refusal(kSchemaVersion));
        sql.execute("INSERT INTO paywasm_schema (version, applied_at) VALUES (?, ?)",
                    {std::int64_t(kSchemaVersion), now_ms()});
    });
}

OverviewTally read_overview_tally(paywasm::server::Sql& sql, std::int64_t since_day) {
    OverviewTally t;
    const auto none_if_empty = [](const paywasm::server::SqlRow& r, std::size_t i) {
        return r.text(i).empty() ? std::nullopt : std::optional<std::string>(r.text(i));
    };
    for (const auto& r : sql.query(std::string("SELECT ") + kKindKey + ", n FROM overview_kinds WHERE day >= ? AND n <> 0", {since_day})) {
        OverviewKind k;
        k.day = r.integer(0);
        k.state = r.text(1);
        k.success = r.integer(2) != 0;
        k.final = r.integer(3) != 0;
        k.accepted = r.integer(4) != 0;
        k.paid_elsewhere = r.integer(5) != 0;
        k.closed = r.integer(6) != 0;
        k.currency = r.text(7);
        k.amount = r.text(8);
        k.method = r.text(9);
        k.received = none_if_empty(r, 10);
        k.received_currency = none_if_empty(r, 11);
        k.count = r.integer(12);
        t.kinds.push_back(std::move(k));
    }
    for (const auto& r : sql.query("SELECT day, seconds, n FROM overview_times WHERE day >= ? AND n <> 0", {since_day})) {
        t.to_final.push_back(OverviewTimes{r.integer(0), r.integer(1), r.integer(2)});
    }
    return normalized(std::move(t));
}

void require_current_schema(paywasm::server::Sql& sql) {
    sql.mark_writer(kSchemaVersion);
    int version = 0;
    if (sql.has_table("paywasm_schema")) {
        auto rows = sql.query("SELECT max(version) FROM paywasm_schema");
        version = rows.empty() ? 0 : static_cast<int>(rows[0].integer(0));
    }
    if (version != kSchemaVersion) {
        throw std::runtime_error("the database's schema is version " + std::to_string(version) + ", this paywasm-merchant's is " +
                                 std::to_string(kSchemaVersion) + ": run `paywasm-merchant init` or start this release's gateway once (it migrates)");
    }
}

}  // namespace merchant
