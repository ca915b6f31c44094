// The store's upkeep (store_upkeep.hpp): retention, the rate limits' buckets, the key fingerprints of
// the last start, the database's round trip.
#include <algorithm>

#include "store/store_core.hpp"
#include "store/store_upkeep.hpp"

namespace merchant {

using namespace paywasm::server;  // Sql, SqlRow, SqlValue, or_null, HttpError, now_ms

namespace {

// The keep rule of retention as SQL over sessions' columns. done_with(): the session shows no
// status yet, or one the core's table calls final or without money taken (describe_status); every
// other status (pending, partly paid, refunds, a code the table does not know) may still move money.
// A session with an attempt nobody settled (no verified outcome, no resolution: the merchant was
// told, and may still need it) is kept too, but for a payment link's attempt that no verified
// webhook ever reached (attempts.hpp unconfirmed(): the merchant was not told).
const std::string& done_with() {
    static const std::string where = [] {
        std::string codes;
        for (int code : paywasm::known_status_codes()) {
            const auto info = paywasm::describe_status(code);
            if (!info.final && info.taken != paywasm::MoneyTaken::none) continue;
            codes += (codes.empty() ? "" : ", ") + std::to_string(code);
        }
        return "((status IS NULL OR status IN (" + codes + ")) AND NOT EXISTS (SELECT 1 FROM attempts WHERE "
               "attempts.session_id = sessions.id AND attempts.resolution IS NULL AND attempts.verified IN ('none', 'open') AND "
               "NOT (sessions.link_id IS NOT NULL AND attempts.verified = 'none' AND attempts.transaction_id IS NULL)))";
    }();
    return where;
}
// The statements of a pass, each binding the cutoff twice: a batch of prunable sessions (then the
// batch size), one of them again under its row lock (the id first), the expired ones kept.
const std::string& prunable_batch() {
    static const std::string sql =
        "SELECT id FROM sessions WHERE expires_at < ? AND status_at < ? AND " + done_with() + " ORDER BY expires_at LIMIT ?";
    return sql;
}
const std::string& prunable_locked() {
    static const std::string sql = "SELECT id FROM sessions WHERE id = ? AND expires_at < ? AND status_at < ? AND " + done_with();
    return sql;
}
const std::string& kept_count() {
    static const std::string sql = "SELECT count(*) FROM sessions WHERE expires_at < ? AND status_at < ? AND NOT " + done_with();
    return sql;
}

}  // namespace

Upkeep::Pruned Upkeep::prune(std::int64_t cutoff, int batch) {
    Pruned out;
    sql_->transaction([&] {
        // The keep rule is in the query, so a batch is made of prunable sessions only, however
        // many expired ones are kept before them. Each is locked and read again under the rule
        // (PostgreSQL: FOR UPDATE re-checks the row a webhook committed meanwhile), so a session
        // that a webhook has just moved to pending is not deleted.
        const auto rows = sql_->query(prunable_batch(), {cutoff, cutoff, std::int64_t(batch)});
        std::int64_t& removed = out.removed;
        for (const auto& row : rows) {
            const std::string id = row.text(0);
            if (sql_->query_locked(prunable_locked(), {id, cutoff, cutoff}).empty()) continue;
            removed += sql_->execute("DELETE FROM webhook_events WHERE session_id = ?", {id});
            removed += sql_->execute("DELETE FROM transactions WHERE session_id = ?", {id});
            removed += sql_->execute("DELETE FROM qr_codes WHERE session_id = ?", {id});
            removed += sql_->execute("DELETE FROM attempts WHERE session_id = ?", {id});
            removed += sql_->execute("DELETE FROM resolutions WHERE session_id = ?", {id});
            removed += sql_->execute("DELETE FROM session_notes WHERE session_id = ?", {id});
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
            "DELETE FROM deliveries WHERE event_id IN (SELECT event_id FROM deliveries WHERE finished_at < ? AND event_id "
            "NOT IN (SELECT id FROM outbox) LIMIT ?)",
            {cutoff, limit});
        removed += sql_->execute(
            "DELETE FROM debits WHERE order_id IN (SELECT order_id FROM debits WHERE created_at < ? LIMIT ?)", {cutoff, limit});
        // Mail sent (they name orders and amounts); one still pending stays until it goes.
        removed += sql_->execute(
            "DELETE FROM mail_outbox WHERE id IN (SELECT id FROM mail_outbox WHERE state = 'sent' AND created_at < ? LIMIT ?)",
            {cutoff, limit});
        // The console's audit log: its entries name users, addresses and orders (audit_log_at's range).
        removed += sql_->execute("DELETE FROM audit_log WHERE id IN (SELECT id FROM audit_log WHERE at < ? LIMIT ?)",
                                 {cutoff, limit});
    });
    // Expired before the cutoff but kept for the money in them: the figure an operator watches.
    const auto kept = sql_->query(kept_count(), {cutoff, cutoff});
    out.kept = kept.empty() ? 0 : kept[0].integer(0);
    return out;
}

// One statement takes the token or finds none, whichever instance asks: the row's refill since its
// last take (at most a minute's: a full bucket; none should the database's clock have gone back)
// is added, capped at a full bucket, and one token taken only when one is there. A row stamped
// after `now` (the clock stepped back) is first clamped to now: it refills from now on instead of
// staying frozen for the size of the step.
std::int64_t Upkeep::take_token(const std::string& key, int per_minute) {
    if (per_minute <= 0) return 0;
    const std::int64_t now = sql_->clock_ms();
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
    sql_->execute("UPDATE rate_buckets SET updated_at = ? WHERE key = ? AND updated_at > ?", {now, key, now});
    const auto taken = sql_->query(take, {key, full - kToken, now, rate, full, full, rate, rate, full, full, rate});
    if (!taken.empty()) return 0;
    // Empty: how long until a whole token is there again (read after the refused take).
    const auto left = sql_->query("SELECT units, updated_at FROM rate_buckets WHERE key = ?", {key});
    if (left.empty()) return 1000;
    const std::int64_t since = std::clamp<std::int64_t>(now - left[0].integer(1), 0, 60000);
    const std::int64_t have = std::min(full, left[0].integer(0) + rate * since);
    return std::max<std::int64_t>(1, (kToken - have + rate - 1) / rate);
}

// Buckets untouched for a minute are full again: the row says nothing a missing one would not. The
// console's wrong passwords a day old are outside any window (console_auth.hpp's is 15 minutes).
std::int64_t Upkeep::prune_buckets() {
    const std::int64_t now = sql_->clock_ms();
    return sql_->execute("DELETE FROM rate_buckets WHERE updated_at < ?", {now - 60000}) +
           sql_->execute("DELETE FROM login_failures WHERE at < ?", {now - 24LL * 3600 * 1000});
}

void Upkeep::check_keys(const std::string& merchant_fp, const std::string& webhook_fp, std::int64_t now) {
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

void Upkeep::ping() { sql_->query("SELECT 1"); }

}  // namespace merchant
