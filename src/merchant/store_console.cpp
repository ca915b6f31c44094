// The store's side of the orders list, an order's record and the console (store.hpp): keyset
// pages over the indexes of schema version 6, events with every delivery attempt, resends, notes,
// accepted underpayments, the audit log, the console's users and logins. Same SQL on SQLite and
// PostgreSQL (sql.hpp's dialect, plus row values in the keyset comparisons: SQLite 3.15+, any
// PostgreSQL this gateway supports).
#include <algorithm>
#include <iterator>

#include <boost/locale/utf.hpp>

#include "events.hpp"
#include "order_state.hpp"
#include "store.hpp"

#include "paywasm/status.hpp"
#include "server/util.hpp"

namespace merchant {

using namespace paywasm::server;  // Sql, SqlRow, SqlValue, or_null, now_ms, random_token

namespace {

constexpr const char* kOutboxColumns =
    "id, state, attempts, next_attempt_at, last_error, created_at, delivered_at, body";

// A deliveries row whose started_at, finished_at, http_status, error are columns `at`.. of `r`.
Store::DeliveryRow delivery_from_row(const SqlRow& r, std::size_t at) {
    Store::DeliveryRow d;
    d.started_at = r.integer(at);
    d.finished_at = r.integer(at + 1);
    if (!r.is_null(at + 2)) d.http_status = static_cast<int>(r.integer(at + 2));
    d.error = r.optional_text(at + 3);
    return d;
}

Store::OutboxRow outbox_from_row(const SqlRow& r) {
    Store::OutboxRow row{r.text(0), r.text(1), r.text(7), r.integer(2), r.integer(3), r.integer(5), r.optional_text(4),
                         std::nullopt};
    if (!r.is_null(6)) row.delivered_at = r.integer(6);
    return row;
}

// A search of at least kMinPrefix characters also finds the offerIds that begin with it, read
// kSearchBatch candidates at a time.
constexpr std::size_t kMinPrefix = 3;
constexpr std::int64_t kSearchBatch = 200;

using Utf8 = boost::locale::utf::utf_traits<char>;

std::int64_t utf8_length(std::string_view text) {
    const auto points = utf8_decode(text);
    return points ? static_cast<std::int64_t>(points->size()) : 0;
}

// The least valid UTF-8 text above every text that begins with `prefix` (in code point order, which
// is UTF-8's byte order): its last code point one up (past the surrogates; a last U+10FFFF is
// dropped and the one before it goes up). nullopt: not valid UTF-8, or no such text.
std::optional<std::string> prefix_upper_bound(std::string_view prefix) {
    auto points = utf8_decode(prefix);
    if (!points) return std::nullopt;
    while (!points->empty() && points->back() == 0x10FFFF) points->pop_back();
    if (points->empty()) return std::nullopt;
    auto& last = points->back();
    last = last == 0xD7FF ? 0xE000 : last + 1;
    std::string out;
    for (const auto c : *points) Utf8::encode(c, std::back_inserter(out));
    return out;
}

// A session that needs the merchant: an attempt stuck and not resolved, or a resolution a verified
// outcome contradicted (GET /v1/sessions?state=attention, the overview's count).
const std::string kAttentionSql = std::string("id IN (SELECT session_id FROM attempts WHERE ") + kAttemptAttentionSql + ")";

std::optional<std::int64_t> opt_i64(const SqlRow& r, std::size_t i) {
    return r.is_null(i) ? std::nullopt : std::optional<std::int64_t>(r.integer(i));
}

}  // namespace

std::optional<std::vector<std::uint32_t>> utf8_decode(std::string_view text) {
    std::vector<std::uint32_t> out;
    for (auto p = text.begin(); p != text.end();) {
        const auto c = Utf8::decode(p, text.end());
        if (c == boost::locale::utf::illegal || c == boost::locale::utf::incomplete) return std::nullopt;
        out.push_back(c);
    }
    return out;
}

std::vector<Session> Store::list_sessions(const SessionQuery& query, std::int64_t now) {
    const std::int64_t limit = std::clamp(query.limit, 1, 1000);
    // The keyset: rows strictly older than the previous page's last one, newest first.
    std::string keyset;
    std::vector<SqlValue> keyset_params;
    if (query.after) {
        keyset = " AND (created_at, id) < (?, ?)";
        keyset_params = {query.after->first, query.after->second};
    }
    const std::string order = " ORDER BY created_at DESC, id DESC LIMIT ?";
    const std::string bucket = kOrderBucketSql;
    // One bucket by its index: the condition, its parameters.
    const auto in_bucket = [&](const std::string& extra, std::vector<SqlValue> params) {
        std::vector<SqlValue> all = std::move(params);
        all.insert(all.end(), keyset_params.begin(), keyset_params.end());
        all.push_back(limit);
        return std::pair<std::string, std::vector<SqlValue>>{std::string("WHERE ") + kIsOrderSql + " AND " + extra + keyset + order, all};
    };
    const bool attention = query.state == "attention";
    if (!query.q.empty()) {
        // An exact id (one order, or the few of one transaction), or an offerId's prefix: a range
        // of the offer_id index, each row in it checked to begin with q (substr: under a linguistic
        // collation the range is not exactly the prefix). Pages of kSearchBatch candidates by the
        // keyset until the page is full; the state is checked on each.
        std::string where =
            "WHERE (offer_id = ? OR id = ? OR transaction_id = ? OR id IN (SELECT session_id FROM transactions WHERE id = ?) "
            "OR id IN (SELECT session_id FROM attempts WHERE transaction_id = ? OR reported_transaction_id = ?)";
        std::vector<SqlValue> params = {query.q, query.q, query.q, query.q, query.q, query.q};
        const auto upper = query.q.size() >= kMinPrefix ? prefix_upper_bound(query.q) : std::nullopt;
        if (upper) {
            where += " OR (offer_id >= ? AND offer_id < ? AND substr(offer_id, 1, ?) = ?)";
            params.insert(params.end(), {query.q, *upper, utf8_length(query.q), query.q});
        }
        where += std::string(") AND ") + kIsOrderSql;
        if (attention) where += " AND " + kAttentionSql;
        const auto matches = [&](const Session& s) {
            return query.state.empty() || attention || order_state(s, now) == query.state;
        };
        std::vector<Session> out;
        auto after = query.after;
        for (;;) {
            std::vector<SqlValue> all = params;
            std::string tail = where;
            if (after) {
                tail += " AND (created_at, id) < (?, ?)";
                all.insert(all.end(), {after->first, after->second});
            }
            all.push_back(kSearchBatch);
            std::vector<Session> found = sessions_where(tail + " ORDER BY created_at DESC, id DESC LIMIT ?", all);
            for (auto& s : found) {
                if (!matches(s)) continue;
                out.push_back(std::move(s));
                if (static_cast<std::int64_t>(out.size()) == limit) break;
            }
            if (static_cast<std::int64_t>(out.size()) == limit || static_cast<std::int64_t>(found.size()) < kSearchBatch) break;
            after = std::pair{found.back().created_at, found.back().id};
        }
        if (attention) {
            for (auto& s : out) s.attempts = attempts(s.id);
        }
        return out;
    }
    std::vector<Session> out;
    if (attention) {
        // The few sessions an attempt keeps in the list (the attempts' scan is attention_count()'s),
        // paged by the sessions' own keyset like every other state, each with its attempts.
        auto [sql, params] = in_bucket(kAttentionSql, {});
        out = sessions_where(sql, params);
        for (auto& s : out) s.attempts = attempts(s.id);
    } else if (query.state.empty()) {
        auto [sql, params] = in_bucket("1 = 1", {});
        out = sessions_where(sql, params);
    } else if (query.state == "pending") {
        // Two index ranges (a status that may still move; open and not yet expired), merged.
        // The open ones not yet expired were created after the oldest of them: that bound keeps the
        // second range to the sessions of one TTL, however many expired ones lie below a deep cursor.
        // (created_at + 0: by the expires_at index, a short range; SQLite would walk created_at's index
        // from the oldest session otherwise.)
        const auto oldest = sql_->query("SELECT min(created_at + 0) FROM sessions WHERE expires_at > ?", {now});
        const std::int64_t since = oldest.empty() || oldest[0].is_null(0) ? now : oldest[0].integer(0);
        auto [a, pa] = in_bucket(bucket + " = 'pending'", {});
        auto [b, pb] = in_bucket(bucket + " = 'open' AND expires_at > ? AND created_at >= ?", {now, since});
        out = sessions_where(a, pa);
        auto more = sessions_where(b, pb);
        out.insert(out.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
        std::sort(out.begin(), out.end(), [](const Session& x, const Session& y) {
            return std::pair(x.created_at, x.id) > std::pair(y.created_at, y.id);
        });
        if (static_cast<std::int64_t>(out.size()) > limit) out.resize(static_cast<std::size_t>(limit));
    } else if (query.state == "expired") {
        auto [sql, params] = in_bucket(bucket + " = 'open' AND expires_at <= ?", {now});
        out = sessions_where(sql, params);
    } else {
        auto [sql, params] = in_bucket(bucket + " = ?", {query.state});
        out = sessions_where(sql, params);
    }
    return out;
}

std::optional<Store::OutboxRow> Store::event(const std::string& id) {
    auto rows = sql_->query(std::string("SELECT ") + kOutboxColumns + " FROM outbox WHERE id = ?", {id});
    if (rows.empty()) return std::nullopt;
    return outbox_from_row(rows[0]);
}

std::vector<Store::OutboxRow> Store::session_events(const std::string& session_id) {
    std::vector<OutboxRow> out;
    for (const auto& r : sql_->query(std::string("SELECT ") + kOutboxColumns +
                                         " FROM outbox WHERE session_id = ? ORDER BY created_at, id LIMIT 500",
                                     {session_id})) {
        out.push_back(outbox_from_row(r));
    }
    return out;
}

std::vector<Store::OutboxRow> Store::events_page(bool failed_first, int limit) {
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

void Store::record_delivery(const std::string& event_id, const DeliveryRow& row) {
    sql_->execute("INSERT INTO deliveries (event_id, started_at, finished_at, http_status, error) VALUES (?, ?, ?, ?, ?)",
                  {event_id, row.started_at, row.finished_at,
                   row.http_status ? SqlValue(std::int64_t(*row.http_status)) : SqlValue(),
                   row.error ? SqlValue(row.error->substr(0, 500)) : SqlValue()});
}

std::vector<Store::DeliveryRow> Store::deliveries(const std::string& event_id) {
    std::vector<DeliveryRow> out;
    for (const auto& r : sql_->query("SELECT started_at, finished_at, http_status, error FROM deliveries WHERE event_id = ? "
                                     "ORDER BY started_at LIMIT 1000",
                                     {event_id})) {
        out.push_back(delivery_from_row(r, 0));
    }
    return out;
}

std::map<std::string, std::vector<Store::DeliveryRow>> Store::session_deliveries(const std::string& session_id) {
    std::map<std::string, std::vector<DeliveryRow>> out;
    for (const auto& r : sql_->query("SELECT d.event_id, d.started_at, d.finished_at, d.http_status, d.error FROM deliveries d "
                                     "JOIN outbox o ON o.id = d.event_id WHERE o.session_id = ? "
                                     "ORDER BY d.event_id, d.started_at LIMIT 20000",
                                     {session_id})) {
        out[r.text(0)].push_back(delivery_from_row(r, 1));
    }
    return out;
}

Store::Resend Store::resend_event(const std::string& id, std::int64_t now) {
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

std::int64_t Store::resend_failed(std::int64_t since, std::int64_t now) {
    return sql_->execute(
        "UPDATE outbox SET next_attempt_at = ? WHERE state = 'pending' AND last_error IS NOT NULL AND created_at >= ? AND "
        "(lease_until IS NULL OR lease_until < ?)",
        {now, since, now});
}

std::vector<Store::WebhookRow> Store::session_webhooks(const std::string& session_id) {
    std::vector<WebhookRow> out;
    for (const auto& r : sql_->query("SELECT id, transaction_id, outcome, received_at, status FROM webhook_events "
                                     "WHERE session_id = ? ORDER BY received_at, id LIMIT 500",
                                     {session_id})) {
        out.push_back(WebhookRow{r.text(0), r.text(1), r.text(2), r.integer(3), r.integer(4)});
    }
    return out;
}

std::vector<Store::QrRow> Store::session_qr_codes(const std::string& session_id) {
    std::vector<QrRow> out;
    for (const auto& r : sql_->query("SELECT order_id, transaction_id, replaced, created_at FROM qr_codes WHERE session_id = ? "
                                     "ORDER BY created_at, order_id",
                                     {session_id})) {
        out.push_back(QrRow{r.text(0), r.optional_text(1), r.integer(2) != 0, r.integer(3)});
    }
    return out;
}

std::vector<Store::ResolutionRow> Store::resolutions(const std::string& session_id) {
    std::vector<ResolutionRow> out;
    for (const auto& r : sql_->query("SELECT attempt_id, resolution, note, actor, created_at FROM resolutions "
                                     "WHERE session_id = ? ORDER BY created_at, id",
                                     {session_id})) {
        out.push_back(ResolutionRow{r.text(0), r.text(1), r.text(2), r.text(3), r.integer(4)});
    }
    return out;
}

std::vector<Store::NoteRow> Store::notes(const std::string& session_id) {
    std::vector<NoteRow> out;
    for (const auto& r : sql_->query("SELECT id, actor, note, created_at FROM session_notes WHERE session_id = ? "
                                     "ORDER BY created_at, id",
                                     {session_id})) {
        out.push_back(NoteRow{r.text(0), r.text(1), r.text(2), r.integer(3)});
    }
    return out;
}

bool Store::add_note(const std::string& session_id, const std::string& actor, const std::string& note, std::int64_t now) {
    bool added = false;
    sql_->transaction([&] {
        if (sql_->query("SELECT id FROM sessions WHERE id = ?", {session_id}).empty()) return;
        sql_->execute("INSERT INTO session_notes (id, session_id, actor, note, created_at) VALUES (?, ?, ?, ?, ?)",
                      {random_token("note_"), session_id, actor, note, now});
        added = true;
    });
    return added;
}

Store::Acceptance Store::accept_underpayment(const std::string& session_id, const std::string& note,
                                             const std::string& actor, bool forward, std::int64_t now) {
    Acceptance out;
    sql_->transaction([&] {
        auto s = read_session(session_id, true);
        if (!s) return;
        if (s->underpayment_accepted_at) {
            out.result = Acceptance::already_accepted;
            return;
        }
        if (s->status.success || !paywasm::is_partly_paid_state(s->status.state)) {
            out.result = Acceptance::not_partial;
            return;
        }
        sql_->execute("UPDATE sessions SET underpayment_accepted_at = ? WHERE id = ?", {now, s->id});
        s->underpayment_accepted_at = now;
        out.pushed = push_change(*s, now);
        out.event_id = "evt_accept_" + random_hex(12);
        if (forward || mail_) queue_event(forward, out.event_id, underpayment_event_json(out.event_id, now, *s, note, actor), now);
        out.result = Acceptance::done;
    });
    return out;
}

void Store::audit(const std::string& actor, const std::string& action, const std::optional<std::string>& target,
                  const std::optional<std::string>& detail, const std::string& address, std::int64_t now) {
    sql_->execute("INSERT INTO audit_log (id, at, actor, action, target, detail, address) VALUES (?, ?, ?, ?, ?, ?, ?)",
                  {random_token("aud_"), now, actor.substr(0, 200), action, or_null(target),
                   detail ? SqlValue(detail->substr(0, 2000)) : SqlValue(), address});
}

std::vector<Store::AuditRow> Store::audit_log(const std::optional<std::pair<std::int64_t, std::string>>& after, int limit) {
    std::vector<AuditRow> out;
    std::vector<SqlValue> params;
    std::string where;
    if (after) {
        where = "WHERE (at, id) < (?, ?) ";
        params = {after->first, after->second};
    }
    params.push_back(std::int64_t(std::clamp(limit, 1, 500)));
    for (const auto& r : sql_->query("SELECT id, actor, action, target, detail, address, at FROM audit_log " + where +
                                         "ORDER BY at DESC, id DESC LIMIT ?",
                                     params)) {
        out.push_back(AuditRow{r.text(0), r.text(1), r.text(2), r.optional_text(3), r.optional_text(4), r.optional_text(5),
                               r.integer(6)});
    }
    return out;
}

std::vector<OverviewOrder> Store::overview_rows(std::int64_t since) {
    std::vector<OverviewOrder> out;
    for (const auto& r : sql_->query("SELECT currency, method, amount, success, final, underpayment_accepted_at, created_at, "
                                     "status_at, state, paid_elsewhere_at, closed_at, received_amount, tx_currency, expires_at "
                                     "FROM sessions WHERE created_at >= ? AND " + std::string(kIsOrderSql) + " ORDER BY created_at, id",
                                     {since})) {
        OverviewOrder row;
        row.currency = r.text(0);
        row.method = r.is_null(1) ? "" : r.text(1);
        row.amount = r.text(2);
        row.success = r.integer(3) != 0;
        row.final = r.integer(4) != 0;
        row.accepted = !r.is_null(5);
        row.created_at = r.integer(6);
        row.status_at = r.integer(7);
        row.state = r.text(8);
        row.paid_elsewhere = !r.is_null(9);
        row.closed = !r.is_null(10);
        row.received = r.optional_text(11);
        row.received_currency = r.optional_text(12);
        row.expires_at = r.integer(13);
        out.push_back(std::move(row));
    }
    return out;
}

std::int64_t Store::count_in_bucket(const std::string& bucket) {
    auto rows = sql_->query(std::string("SELECT count(*) FROM sessions WHERE ") + kOrderBucketSql + " = ? AND " + kIsOrderSql, {bucket});
    return rows.empty() ? 0 : rows[0].integer(0);
}

std::int64_t Store::failing_events(std::int64_t failures) {
    auto rows = sql_->query("SELECT count(*) FROM outbox WHERE state = 'pending' AND last_error IS NOT NULL AND attempts >= ?",
                            {failures});
    return rows.empty() ? 0 : rows[0].integer(0);
}

std::int64_t Store::attention_count() {
    auto rows = sql_->query(std::string("SELECT count(*) FROM sessions WHERE ") + kAttentionSql);
    return rows.empty() ? 0 : rows[0].integer(0);
}

std::vector<Store::DebitRow> Store::debits(int limit) {
    std::vector<DebitRow> out;
    for (const auto& r : sql_->query(
             "SELECT d.order_id, d.subscription_id, d.merchant_subscription_id, d.created_at, t.status, t.state, "
             "t.native_amount, t.native_currency FROM debits AS d LEFT JOIN transactions AS t ON t.offer_id = d.order_id "
             "ORDER BY d.created_at DESC, d.order_id LIMIT ?",
             {std::int64_t(std::clamp(limit, 1, 1000))})) {
        DebitRow d;
        d.order_id = r.text(0);
        d.subscription_id = r.text(1);
        d.merchant_subscription_id = r.optional_text(2);
        d.created_at = r.integer(3);
        d.status = opt_i64(r, 4);
        d.state = r.optional_text(5);
        d.amount = r.optional_text(6);
        d.currency = r.optional_text(7);
        out.push_back(std::move(d));
    }
    return out;
}

bool Store::add_console_user(const std::string& name, const std::string& password_hash, std::int64_t now) {
    return sql_->execute("INSERT INTO console_users (name, password_hash, created_at) VALUES (?, ?, ?) "
                         "ON CONFLICT (name) DO NOTHING",
                         {name, password_hash, now}) == 1;
}

bool Store::remove_console_user(const std::string& name) {
    bool removed = false;
    sql_->transaction([&] {
        sql_->execute("DELETE FROM console_sessions WHERE user_name = ?", {name});
        sql_->execute("DELETE FROM login_failures WHERE subject = ?", {"user:" + name});
        removed = sql_->execute("DELETE FROM console_users WHERE name = ?", {name}) == 1;
    });
    return removed;
}

bool Store::set_console_password(const std::string& name, const std::string& password_hash) {
    bool changed = false;
    sql_->transaction([&] {
        changed = sql_->execute("UPDATE console_users SET password_hash = ? WHERE name = ?", {password_hash, name}) == 1;
        if (changed) sql_->execute("DELETE FROM console_sessions WHERE user_name = ?", {name});
    });
    return changed;
}

std::vector<Store::ConsoleUser> Store::console_users() {
    std::vector<ConsoleUser> out;
    for (const auto& r : sql_->query("SELECT name, password_hash, created_at, failed_logins, locked_at FROM console_users "
                                     "ORDER BY name")) {
        out.push_back(ConsoleUser{r.text(0), r.text(1), r.integer(2), r.integer(3), r.integer(4)});
    }
    return out;
}

std::optional<Store::ConsoleUser> Store::console_user(const std::string& name) {
    auto rows = sql_->query("SELECT name, password_hash, created_at, failed_logins, locked_at FROM console_users "
                            "WHERE name = ?",
                            {name});
    if (rows.empty()) return std::nullopt;
    const auto& r = rows[0];
    return ConsoleUser{r.text(0), r.text(1), r.integer(2), r.integer(3), r.integer(4)};
}

std::int64_t Store::login_locked_until(const std::string& subject, std::int64_t window_ms, int max, std::int64_t now) {
    // The max most recent failures inside the window (by the (subject, at) index): locked while the
    // oldest of them is still in it.
    const auto rows = sql_->query("SELECT at FROM login_failures WHERE subject = ? AND at > ? AND at <= ? ORDER BY at DESC LIMIT ?",
                                  {subject, now - window_ms, now, std::int64_t(max)});
    if (max <= 0 || static_cast<int>(rows.size()) < max) return 0;
    return rows.back().integer(0) + window_ms;
}

void Store::login_failed(const std::string& subject, std::int64_t window_ms, std::int64_t now) {
    sql_->transaction([&] {
        sql_->execute("DELETE FROM login_failures WHERE subject = ? AND at <= ?", {subject, now - window_ms});
        sql_->execute("INSERT INTO login_failures (subject, at) VALUES (?, ?)", {subject, now});
    });
}

bool Store::clear_login_failures(const std::string& subject) {
    return sql_->execute("DELETE FROM login_failures WHERE subject = ?", {subject}) > 0;
}

void Store::console_user_failed(const std::string& name, bool locked, std::int64_t now) {
    sql_->execute("UPDATE console_users SET failed_logins = failed_logins + 1, locked_at = CASE WHEN ? = 1 THEN ? ELSE locked_at END "
                  "WHERE name = ?",
                  {std::int64_t(locked ? 1 : 0), now, name});
}

void Store::console_login_succeeded(const std::string& name) {
    sql_->execute("UPDATE console_users SET failed_logins = 0, locked_at = 0 WHERE name = ?", {name});
}

void Store::create_console_session(const std::string& token_hash, const ConsoleSession& s, std::int64_t now) {
    sql_->transaction([&] {
        // Logins long over go with each new one: the table holds live logins only.
        sql_->execute("DELETE FROM console_sessions WHERE expires_at < ?", {now});
        sql_->execute("INSERT INTO console_sessions (token_hash, user_name, csrf, created_at, seen_at, expires_at, address) "
                      "VALUES (?, ?, ?, ?, ?, ?, ?)",
                      {token_hash, s.user, s.csrf, now, now, s.expires_at, s.address});
    });
}

std::optional<Store::ConsoleSession> Store::console_session(const std::string& token_hash, std::int64_t idle_ms,
                                                            std::int64_t now) {
    auto rows = sql_->query("UPDATE console_sessions SET seen_at = ? WHERE token_hash = ? AND expires_at > ? AND seen_at > ? "
                            "RETURNING user_name, csrf, created_at, expires_at",
                            {now, token_hash, now, now - idle_ms});
    if (rows.empty()) return std::nullopt;
    return ConsoleSession{rows[0].text(0), rows[0].text(1), rows[0].integer(2), rows[0].integer(3), now, ""};
}

std::vector<Store::ConsoleSession> Store::console_sessions_of(const std::string& name, std::int64_t now) {
    std::vector<ConsoleSession> out;
    for (const auto& r : sql_->query("SELECT user_name, created_at, expires_at, seen_at, address FROM console_sessions "
                                     "WHERE user_name = ? AND expires_at > ? ORDER BY created_at DESC",
                                     {name, now})) {
        out.push_back(ConsoleSession{r.text(0), "", r.integer(1), r.integer(2), r.integer(3), r.optional_text(4).value_or("")});
    }
    return out;
}

std::int64_t Store::end_console_sessions_of(const std::string& name) {
    return sql_->execute("DELETE FROM console_sessions WHERE user_name = ?", {name});
}

void Store::end_console_session(const std::string& token_hash) {
    sql_->execute("DELETE FROM console_sessions WHERE token_hash = ?", {token_hash});
}

}  // namespace merchant
