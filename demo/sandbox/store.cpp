#include "store.hpp"

#include <memory>

namespace sandbox {

namespace {

// Times are epoch milliseconds. JSON columns hold the exact text that was sent or received.
constexpr const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);

CREATE TABLE IF NOT EXISTS transactions (
  seq            INTEGER PRIMARY KEY AUTOINCREMENT,
  id             TEXT NOT NULL UNIQUE,
  merchant_id    TEXT NOT NULL,
  kind           TEXT NOT NULL,          -- qr | exchange | bank | debit
  exchange       TEXT,
  offer_id       TEXT NOT NULL,
  subscription_id TEXT,                  -- debit transactions only
  status         INTEGER NOT NULL,
  outcome        INTEGER NOT NULL,       -- the final status the clock moves it to
  next_change_at INTEGER,                -- NULL once final
  body           TEXT NOT NULL,          -- the Transaction object
  qr_result      TEXT,                   -- qr: the QR transaction result
  plaintext      TEXT NOT NULL,          -- decrypted data (or the QR/debit request)
  padding        TEXT,
  created_at     INTEGER NOT NULL,
  payer          TEXT,                   -- shopper:<id> | merchant:<id> (idempotency scope)
  request_hash   TEXT                    -- SHA-256 hex of the plaintext / request (idempotency)
);
-- Idempotency: one payment per (merchant, offerId), replayed only to the same payer for the same
-- request (payer, request_hash); debits are keyed by subscription as well.
CREATE UNIQUE INDEX IF NOT EXISTS transactions_offer ON transactions (merchant_id, offer_id)
  WHERE kind <> 'debit';
CREATE INDEX IF NOT EXISTS transactions_due ON transactions (next_change_at)
  WHERE next_change_at IS NOT NULL;

CREATE TABLE IF NOT EXISTS subscriptions (
  seq            INTEGER PRIMARY KEY AUTOINCREMENT,
  id             TEXT NOT NULL UNIQUE,
  merchant_id    TEXT NOT NULL,
  user_id        TEXT,
  transaction_id TEXT NOT NULL,
  offer_id       TEXT NOT NULL,
  item           TEXT NOT NULL,          -- the cart item, JSON
  asset          TEXT NOT NULL,          -- what debits are paid in (crypto code, or the fiat code for bank)
  currency       TEXT NOT NULL,          -- fiat currency of the price
  status         TEXT NOT NULL,          -- pending | active | void | cancelled (ledger.hpp)
  created_at     INTEGER NOT NULL,
  cancelled_at   INTEGER
);

CREATE TABLE IF NOT EXISTS outbox (
  seq             INTEGER PRIMARY KEY AUTOINCREMENT,
  merchant_id     TEXT NOT NULL,
  transaction_id  TEXT NOT NULL,
  status          INTEGER NOT NULL,
  url             TEXT,
  body            TEXT NOT NULL,         -- the exact JSON POSTed
  state           TEXT NOT NULL,         -- pending | delivered | skipped
  attempts        INTEGER NOT NULL DEFAULT 0,
  next_attempt_at INTEGER,
  last_http_status INTEGER,
  last_error      TEXT,
  created_at      INTEGER NOT NULL,
  delivered_at    INTEGER
);
CREATE INDEX IF NOT EXISTS outbox_due ON outbox (next_attempt_at) WHERE state = 'pending';

CREATE TABLE IF NOT EXISTS delivery_attempts (
  outbox_seq  INTEGER NOT NULL,
  attempt     INTEGER NOT NULL,
  at          INTEGER NOT NULL,
  http_status INTEGER,
  error       TEXT,
  ms          INTEGER NOT NULL
);
)sql";

}  // namespace

Db::Db(const std::string& path) : sql_(paywasm::server::open_sqlite(path)) {
    sql_->exec_script(kSchema);
    // Databases of an older sandbox lack the idempotency columns: add them (rows keep NULL there,
    // so their offerIds answer 409 rather than a replay).
    bool has_payer = false;
    for (const auto& r : query("SELECT name FROM pragma_table_info('transactions')")) has_payer = has_payer || r.text(0) == "payer";
    if (!has_payer) sql_->exec_script("ALTER TABLE transactions ADD COLUMN payer TEXT; ALTER TABLE transactions ADD COLUMN request_hash TEXT;");
}

std::optional<std::string> Db::setting(std::string_view key) {
    const auto rows = query("SELECT value FROM settings WHERE key = ?", {std::string(key)});
    if (rows.empty()) return std::nullopt;
    return rows[0].text(0);
}

void Db::set_setting(std::string_view key, std::string_view value) {
    execute("INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            {std::string(key), std::string(value)});
}

}  // namespace sandbox
