// The store's upkeep (store.hpp): the forwarding outbox's rows, retention, and the rate limits'
// buckets.
#include <algorithm>

#include "store.hpp"

namespace merchant {

using namespace paywasm::server;  // Sql, SqlRow, SqlValue, or_null, HttpError, now_ms

std::int64_t Store::prune(std::int64_t cutoff, int batch) {
    std::int64_t removed = 0;
    sql_->transaction([&] {
        // Sessions done with: expired before the cutoff, last changed before it, and final or
        // showing no money (taken none: nothing to settle). Pending or partly paid ones are kept,
        // and so are those with an attempt nobody settled (no verified outcome, no resolution: the
        // merchant was told, and may still need it).
        std::vector<std::string> ids;
        for (const auto& r : sql_->query(
                 "SELECT id, status, received_amount FROM sessions WHERE expires_at < ? AND status_at < ? AND NOT "
                 "EXISTS (SELECT 1 FROM attempts WHERE attempts.session_id = sessions.id AND attempts.resolution IS NULL "
                 "AND attempts.verified IN ('none', 'open')) ORDER BY expires_at LIMIT ?",
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
            removed += sql_->execute("DELETE FROM attempts WHERE session_id = ?", {id});
            removed += sql_->execute("DELETE FROM resolutions WHERE session_id = ?", {id});
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
            "(lease_until IS NULL OR lease_until < ?) AND (chain IS NULL OR NOT EXISTS (SELECT 1 FROM outbox AS e "
            "WHERE e.chain = outbox.chain AND e.state = 'pending' AND e.seq < outbox.seq)) "
            "ORDER BY next_attempt_at, id LIMIT 1",
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

std::vector<Store::OutboxRow> Store::outbox(int limit) {
    std::vector<OutboxRow> out;
    for (const auto& r : sql_->query(
             "SELECT id, state, attempts, next_attempt_at, last_error, created_at, delivered_at FROM outbox "
             "ORDER BY created_at DESC, id LIMIT ?",
             {static_cast<std::int64_t>(limit)})) {
        OutboxRow row{r.text(0), r.text(1), r.integer(2), r.integer(3), r.integer(5), r.optional_text(4), std::nullopt};
        if (!r.is_null(6)) row.delivered_at = r.integer(6);
        out.push_back(std::move(row));
    }
    return out;
}

}  // namespace merchant
