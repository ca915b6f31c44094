// The store's events group (store_events.hpp): the forwarding outbox's rows, leased by the
// forwarder, every delivery attempt of them, resends; and the event rows every group queues with
// its change (store_core.hpp's queue_event). Same SQL on SQLite and PostgreSQL (sql.hpp's dialect).
#include "store/store_core.hpp"
#include "store/store_events.hpp"

#include "server/http.hpp"
#include "server/util.hpp"

namespace merchant {

using namespace paywasm::server;  // Sql, SqlRow, SqlValue, or_null, read_json, has_kind

namespace {

constexpr const char* kOutboxColumns =
    "id, state, attempts, next_attempt_at, last_error, created_at, delivered_at, body";

// A deliveries row whose started_at, finished_at, http_status, error are columns `at`.. of `r`.
DeliveryRow delivery_from_row(const SqlRow& r, std::size_t at) {
    DeliveryRow d;
    d.started_at = r.integer(at);
    d.finished_at = r.integer(at + 1);
    if (!r.is_null(at + 2)) d.http_status = static_cast<int>(r.integer(at + 2));
    d.error = r.optional_text(at + 3);
    return d;
}

OutboxRow outbox_from_row(const SqlRow& r) {
    OutboxRow row{r.text(0), r.text(1), r.text(7), r.integer(2), r.integer(3), r.integer(5), r.optional_text(4),
                         std::nullopt};
    if (!r.is_null(6)) row.delivered_at = r.integer(6);
    return row;
}

}  // namespace

void StoreCore::queue_event(bool forward, const std::string& id, const std::string& body, std::int64_t now,
                            const std::optional<std::string>& chain, std::optional<std::int64_t> seq) {
    queue_mail(id, body, now);
    if (!forward) return;
    // The event's session (the order page lists its events): the body's sessionId, when it has one.
    std::optional<std::string> session_id;
    if (const auto doc = read_json(body); doc && doc->root().is_object()) {
        if (auto v = doc->root().member("sessionId"); has_kind(v, paywasm::JsonKind::string)) session_id = std::string(v.text());
    }
    sql_->execute("INSERT INTO outbox (id, created_at, body, state, next_attempt_at, chain, seq, session_id) VALUES (?, ?, ?, "
                  "'pending', ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING",
                  {id, now, body, now, or_null(chain), seq ? SqlValue(*seq) : SqlValue(), or_null(session_id)});
}

std::optional<std::string> StoreCore::lease_due(const std::string& table, const std::string& admits, std::int64_t now,
                                                std::int64_t lease_ms) {
    for (int tries = 0; tries < 4; ++tries) {
        auto rows = sql_->query("SELECT id FROM " + table + " WHERE state = 'pending' AND next_attempt_at <= ? AND "
                                "(lease_until IS NULL OR lease_until < ?)" + admits + " ORDER BY next_attempt_at, id LIMIT 1",
                                {now, now});
        if (rows.empty()) return std::nullopt;
        const std::string id = rows[0].text(0);
        // Another worker (or instance) may have leased it in between: only one UPDATE wins.
        if (sql_->execute("UPDATE " + table + " SET lease_until = ? WHERE id = ? AND state = 'pending' AND "
                          "(lease_until IS NULL OR lease_until < ?)",
                          {now + lease_ms, id, now}) == 1) {
            return id;
        }
    }
    return std::nullopt;
}

std::optional<OutboxEvent> EventStore::claim_due(std::int64_t now, std::int64_t lease_ms) {
    const auto id = core_.lease_due("outbox",
                                    " AND (chain IS NULL OR NOT EXISTS (SELECT 1 FROM outbox AS e WHERE e.chain = outbox.chain AND "
                                    "e.state = 'pending' AND e.seq < outbox.seq))",
                                    now, lease_ms);
    if (!id) return std::nullopt;
    auto ev = sql_->query("SELECT id, body, attempts FROM outbox WHERE id = ?", {*id});
    if (ev.empty()) return std::nullopt;
    return OutboxEvent{ev[0].text(0), ev[0].text(1), ev[0].integer(2)};
}

void EventStore::delivered(const std::string& id, std::int64_t now) {
    sql_->execute("UPDATE outbox SET state = 'delivered', delivered_at = ?, attempts = attempts + 1, "
                  "lease_until = NULL, last_error = NULL WHERE id = ? AND state = 'pending'",
                  {now, id});
}

void EventStore::failed(const std::string& id, std::int64_t next_attempt_at, const std::string& error) {
    sql_->transaction([&] {
        const auto changed = sql_->execute("UPDATE outbox SET attempts = attempts + 1, next_attempt_at = ?, lease_until = NULL, "
                                           "last_error = ? WHERE id = ? AND state = 'pending' AND lease_until IS NOT NULL",
                                           {next_attempt_at, error.substr(0, 500), id});
        if (changed == 1) core_.queue_refused_mail(id, sql_->clock_ms());
    });
}

void EventStore::record_delivery(const std::string& event_id, const DeliveryRow& row) {
    sql_->execute("INSERT INTO deliveries (event_id, started_at, finished_at, http_status, error) VALUES (?, ?, ?, ?, ?)",
                  {event_id, row.started_at, row.finished_at,
                   row.http_status ? SqlValue(std::int64_t(*row.http_status)) : SqlValue(),
                   row.error ? SqlValue(row.error->substr(0, 500)) : SqlValue()});
}

std::vector<OutboxRow> EventStore::outbox(int limit) {
    return core_.rows(std::string("SELECT ") + kOutboxColumns + " FROM outbox ORDER BY created_at DESC, id LIMIT ?",
                      {static_cast<std::int64_t>(limit)}, outbox_from_row);
}

std::optional<OutboxRow> EventStore::event(const std::string& id) {
    auto rows = sql_->query(std::string("SELECT ") + kOutboxColumns + " FROM outbox WHERE id = ?", {id});
    if (rows.empty()) return std::nullopt;
    return outbox_from_row(rows[0]);
}

std::vector<OutboxRow> EventStore::session_events(const std::string& session_id) {
    return core_.rows(std::string("SELECT ") + kOutboxColumns + " FROM outbox WHERE session_id = ? ORDER BY created_at, id LIMIT 500",
                      {session_id}, outbox_from_row);
}

std::vector<OutboxRow> EventStore::events_page(bool failed_first, int limit) {
    std::vector<OutboxRow> out;
    const std::int64_t n = std::clamp(limit, 1, 500);
    if (failed_first) {
        for (const auto& r : sql_->query(std::string("SELECT ") + kOutboxColumns +
                                             " FROM outbox WHERE state = 'pending' AND last_error IS NOT NULL "
                                             "ORDER BY created_at, id LIMIT ?",
                                         {n})) {
            out.push_back(outbox_from_row(r));
        }
    }
    const std::int64_t rest = n - static_cast<std::int64_t>(out.size());
    if (rest <= 0) return out;
    for (const auto& r : sql_->query(std::string("SELECT ") + kOutboxColumns +
                                         " FROM outbox ORDER BY created_at DESC, id DESC LIMIT ?",
                                     {rest + static_cast<std::int64_t>(out.size())})) {
        OutboxRow row = outbox_from_row(r);
        if (failed_first && row.state == "pending" && row.last_error) continue;  // listed above
        if (static_cast<std::int64_t>(out.size()) < n) out.push_back(std::move(row));
    }
    return out;
}

std::vector<DeliveryRow> EventStore::deliveries(const std::string& event_id) {
    return core_.rows("SELECT started_at, finished_at, http_status, error FROM deliveries WHERE event_id = ? "
                      "ORDER BY started_at LIMIT 1000",
                      {event_id}, [](const SqlRow& r) { return delivery_from_row(r, 0); });
}

std::map<std::string, std::vector<DeliveryRow>> EventStore::session_deliveries(const std::string& session_id) {
    std::map<std::string, std::vector<DeliveryRow>> out;
    for (const auto& r : sql_->query("SELECT d.event_id, d.started_at, d.finished_at, d.http_status, d.error FROM deliveries d "
                                     "JOIN outbox o ON o.id = d.event_id WHERE o.session_id = ? "
                                     "ORDER BY d.event_id, d.started_at LIMIT 20000",
                                     {session_id})) {
        out[r.text(0)].push_back(delivery_from_row(r, 1));
    }
    return out;
}

EventStore::Resend EventStore::resend_event(const std::string& id, std::int64_t now) {
    Resend result = Resend::not_found;
    sql_->transaction([&] {
        auto rows = sql_->query_locked("SELECT lease_until FROM outbox WHERE id = ?", {id});
        if (rows.empty()) return;
        if (!rows[0].is_null(0) && rows[0].integer(0) >= now) {
            result = Resend::in_flight;
            return;
        }
        // The same row, due again: the same id and body reach the app (it deduplicates by id).
        sql_->execute("UPDATE outbox SET state = 'pending', next_attempt_at = ?, lease_until = NULL WHERE id = ?", {now, id});
        result = Resend::done;
    });
    return result;
}

std::int64_t EventStore::resend_failed(std::int64_t since, std::int64_t now) {
    return sql_->execute(
        "UPDATE outbox SET next_attempt_at = ? WHERE state = 'pending' AND last_error IS NOT NULL AND created_at >= ? AND "
        "(lease_until IS NULL OR lease_until < ?)",
        {now, since, now});
}

EventStore::Backlog EventStore::backlog(std::int64_t stuck_ms, std::int64_t now) {
    Backlog b;
    const auto rows = sql_->query("SELECT count(*), min(created_at) FROM outbox WHERE state = 'pending'");
    if (!rows.empty()) {
        b.pending = rows[0].integer(0);
        if (!rows[0].is_null(1)) b.oldest_age_ms = now - rows[0].integer(1);
    }
    const auto stuck = sql_->query(
        "SELECT count(*) FROM outbox WHERE state = 'pending' AND next_attempt_at < ? AND "
        "(lease_until IS NULL OR lease_until < ?)",
        {now - stuck_ms, now});
    if (!stuck.empty()) b.stuck = stuck[0].integer(0);
    return b;
}

}  // namespace merchant
