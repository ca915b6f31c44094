// The store's order queries (store_orders.hpp): keyset pages over the orders list's indexes (schema
// versions 7, 9 and 12, schema.cpp), what an order's record reads besides its session and events,
// notes, accepted underpayments, the overview's figures, the debits. Same SQL on SQLite and
// PostgreSQL (sql.hpp's dialect, plus row values in the keyset comparisons: SQLite 3.15+, any
// PostgreSQL this gateway supports).
#include <algorithm>
#include <iterator>

#include <boost/locale/utf.hpp>

#include "rules/events.hpp"
#include "rules/order_state.hpp"
#include "store/schema.hpp"
#include "store/store_core.hpp"
#include "store/store_orders.hpp"

#include "paywasm/order.hpp"

#include "paywasm/status.hpp"
#include "server/util.hpp"

namespace merchant {

using namespace paywasm::server;  // Sql, SqlRow, SqlValue, or_null, now_ms, random_token

namespace {

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
std::vector<Session> OrderQueries::list_sessions(const SessionQuery& query, std::int64_t now) {
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
            std::vector<Session> found = core_.sessions_where(tail + " ORDER BY created_at DESC, id DESC LIMIT ?", all);
            for (auto& s : found) {
                if (!matches(s)) continue;
                out.push_back(std::move(s));
                if (static_cast<std::int64_t>(out.size()) == limit) break;
            }
            if (static_cast<std::int64_t>(out.size()) == limit || static_cast<std::int64_t>(found.size()) < kSearchBatch) break;
            after = std::pair{found.back().created_at, found.back().id};
        }
        if (attention) {
            for (auto& s : out) s.attempts = core_.attempts(s.id);
        }
        return out;
    }
    std::vector<Session> out;
    if (attention) {
        // The few sessions an attempt keeps in the list (the attempts' scan is attention_count()'s),
        // paged by the sessions' own keyset like every other state, each with its attempts.
        auto [sql, params] = in_bucket(kAttentionSql, {});
        out = core_.sessions_where(sql, params);
        for (auto& s : out) s.attempts = core_.attempts(s.id);
    } else if (query.state.empty()) {
        auto [sql, params] = in_bucket("1 = 1", {});
        out = core_.sessions_where(sql, params);
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
        out = core_.sessions_where(a, pa);
        auto more = core_.sessions_where(b, pb);
        out.insert(out.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
        std::sort(out.begin(), out.end(), [](const Session& x, const Session& y) {
            return std::pair(x.created_at, x.id) > std::pair(y.created_at, y.id);
        });
        if (static_cast<std::int64_t>(out.size()) > limit) out.resize(static_cast<std::size_t>(limit));
    } else if (query.state == "expired") {
        auto [sql, params] = in_bucket(bucket + " = 'open' AND expires_at <= ?", {now});
        out = core_.sessions_where(sql, params);
    } else {
        auto [sql, params] = in_bucket(bucket + " = ?", {query.state});
        out = core_.sessions_where(sql, params);
    }
    return out;
}

std::vector<WebhookRow> OrderQueries::session_webhooks(const std::string& session_id) {
    return core_.rows("SELECT id, transaction_id, outcome, received_at, status FROM webhook_events "
                      "WHERE session_id = ? ORDER BY received_at, id LIMIT 500",
                      {session_id}, [](const SqlRow& r) { return WebhookRow{r.text(0), r.text(1), r.text(2), r.integer(3), r.integer(4)}; });
}

std::vector<QrRow> OrderQueries::session_qr_codes(const std::string& session_id) {
    return core_.rows("SELECT order_id, transaction_id, replaced, created_at FROM qr_codes WHERE session_id = ? "
                      "ORDER BY created_at, order_id",
                      {session_id}, [](const SqlRow& r) { return QrRow{r.text(0), r.optional_text(1), r.integer(2) != 0, r.integer(3)}; });
}

std::vector<ResolutionRow> OrderQueries::resolutions(const std::string& session_id) {
    return core_.rows("SELECT attempt_id, resolution, note, actor, created_at FROM resolutions "
                      "WHERE session_id = ? ORDER BY created_at, id",
                      {session_id}, [](const SqlRow& r) { return ResolutionRow{r.text(0), r.text(1), r.text(2), r.text(3), r.integer(4)}; });
}

std::vector<NoteRow> OrderQueries::notes(const std::string& session_id) {
    return core_.rows("SELECT id, actor, note, created_at FROM session_notes WHERE session_id = ? "
                      "ORDER BY created_at, id",
                      {session_id}, [](const SqlRow& r) { return NoteRow{r.text(0), r.text(1), r.text(2), r.integer(3)}; });
}

bool OrderQueries::add_note(const std::string& session_id, const std::string& actor, const std::string& note, std::int64_t now) {
    bool added = false;
    sql_->transaction([&] {
        if (sql_->query("SELECT id FROM sessions WHERE id = ?", {session_id}).empty()) return;
        sql_->execute("INSERT INTO session_notes (id, session_id, actor, note, created_at) VALUES (?, ?, ?, ?, ?)",
                      {random_token("note_"), session_id, actor, note, now});
        added = true;
    });
    return added;
}

OrderQueries::Acceptance OrderQueries::accept_underpayment(const std::string& session_id, const std::string& note,
                                                           const std::string& actor, bool forward, std::int64_t now) {
    Acceptance out;
    sql_->transaction([&] {
        auto s = core_.read_session(session_id, true);
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
        out.pushed = core_.push_change(*s, now);
        out.event_id = "evt_accept_" + random_hex(12);
        if (forward || core_.mail_) core_.queue_event(forward, out.event_id, underpayment_event_json(out.event_id, now, *s, note, actor), now);
        out.result = Acceptance::done;
    });
    return out;
}

OverviewTally OrderQueries::overview_tally(std::int64_t since_day) { return read_overview_tally(*sql_, since_day); }

std::int64_t OrderQueries::count_in_bucket(const std::string& bucket) {
    auto rows = sql_->query(std::string("SELECT count(*) FROM sessions WHERE ") + kOrderBucketSql + " = ? AND " + kIsOrderSql, {bucket});
    return rows.empty() ? 0 : rows[0].integer(0);
}

std::int64_t OrderQueries::failing_events(std::int64_t failures) {
    auto rows = sql_->query("SELECT count(*) FROM outbox WHERE state = 'pending' AND last_error IS NOT NULL AND attempts >= ?",
                            {failures});
    return rows.empty() ? 0 : rows[0].integer(0);
}

std::int64_t OrderQueries::attention_count() {
    auto rows = sql_->query(std::string("SELECT count(*) FROM sessions WHERE ") + kAttentionSql);
    return rows.empty() ? 0 : rows[0].integer(0);
}

std::vector<DebitRow> OrderQueries::debits(int limit) {
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

}  // namespace merchant
