// The store's attempts group (store_attempts.hpp; the rules are attempts.hpp's): registration, the browser's reports,
// the merchant's resolutions, the attention pass, and a verified webhook's transaction attached to
// its attempt. Every change runs with the session's row locked (Sql::query_locked: FOR UPDATE on
// PostgreSQL, BEGIN IMMEDIATE's write lock on SQLite), reads the attempts again under it, and
// decides with the pure rules of attempts.hpp; what the browser said is stored as its word only.
#include "rules/events.hpp"
#include "store/store_attempts.hpp"
#include "store/store_core.hpp"

#include "server/http.hpp"
#include "server/util.hpp"

namespace merchant {

using namespace paywasm::server;  // Sql, SqlRow, SqlValue, or_null, now_ms

namespace {

constexpr const char* kAttemptColumns =
    "id, method, created_at, reported_at, transaction_id, reported_status, error_code, error_http, verified, "
    "verified_open_at, resolution, attention_at, conflict_at, reported_transaction_id, window_end";

Verified verified_from(const std::string& v) {
    if (v == "open") return Verified::open;
    if (v == "no_money") return Verified::no_money;
    if (v == "paid") return Verified::paid;
    return Verified::none;
}

std::optional<int> opt_int(const SqlRow& r, std::size_t i) {
    return r.is_null(i) ? std::nullopt : std::optional<int>(static_cast<int>(r.integer(i)));
}
std::optional<std::int64_t> opt_i64(const SqlRow& r, std::size_t i) {
    return r.is_null(i) ? std::nullopt : std::optional<std::int64_t>(r.integer(i));
}

AttemptFacts attempt_from_row(const SqlRow& r) {
    AttemptFacts a;
    a.id = r.text(0);
    const std::string method = r.text(1);
    const auto named = paywasm::pay_method_from(method);  // the gateway writes these three only
    if (!named) throw std::runtime_error("attempts.method holds '" + method + "', not exchange, bank or qr");
    a.method = *named;
    a.created_at = r.integer(2);
    a.reported = !r.is_null(3);
    a.transaction_id = r.optional_text(4);
    a.reported_status = opt_int(r, 5);
    a.error_code = r.optional_text(6);
    a.error_http = opt_int(r, 7);
    a.verified = verified_from(r.text(8));
    a.verified_open_at = opt_i64(r, 9);
    a.resolution = r.optional_text(10);
    a.attention_at = opt_i64(r, 11);
    a.conflict_at = opt_i64(r, 12);
    a.reported_transaction_id = r.optional_text(13);
    a.window_end = opt_i64(r, 14);
    return a;
}

AttemptFacts* find(Session& s, const std::string& attempt_id) {
    for (auto& a : s.attempts) {
        if (a.id == attempt_id) return &a;
    }
    return nullptr;
}

}  // namespace

std::vector<AttemptFacts> StoreCore::attempts(const std::string& session_id) {
    return rows(std::string("SELECT ") + kAttemptColumns + " FROM attempts WHERE session_id = ? ORDER BY created_at, id",
                {session_id}, attempt_from_row);
}

PushedStatus StoreCore::push_change(Session& s, std::int64_t now) {
    sql_->execute("UPDATE sessions SET version = version + 1 WHERE id = ?", {s.id});
    s.status.version += 1;
    s.as_of = now;
    PushedStatus pushed{s.status.version, s.status.final, status_json(s)};
    sql_->notify("paywasm_status", StatusHub::wake_tag(s.id));  // the others read the row (status_hub.hpp)
    return pushed;
}

AttemptStore::Change AttemptStore::register_attempt(const std::string& session_id, paywasm::PayMethod method,
                                                    const std::string& attempt_id, std::int64_t now) {
    Change out;
    sql_->transaction([&] {
        auto s = core_.read_session(session_id, true);
        if (!s) return;
        s->as_of = now;
        out.payable = payable_of(*s);
        if (!out.payable.armed) {
            const std::string& why = out.payable.reason;
            out.result = why == "paid" ? Change::already_paid
                         : why == "expired" ? Change::expired
                         : why == "closed" ? Change::closed
                                           : Change::in_flight;
            return;
        }
        out.refused = core_.link_refusal(*s, now);
        if (!out.refused.empty()) {
            out.result = Change::link_refused;
            return;
        }
        sql_->execute("INSERT INTO attempts (id, session_id, method, created_at) VALUES (?, ?, ?, ?)",
                      {attempt_id, s->id, std::string(paywasm::to_string(method)), now});
        out.attempt = AttemptFacts{};
        out.attempt.id = attempt_id;
        out.attempt.method = method;
        out.attempt.created_at = now;
        s->attempts.push_back(out.attempt);
        out.payable = payable_of(*s);
        out.pushed = core_.push_change(*s, now);
        out.result = Change::done;
    });
    return out;
}

AttemptStore::Change AttemptStore::change_attempt(const std::string& session_id, const std::string& attempt_id,
                                                  const Changer& change) {
    Change out;
    sql_->transaction([&] {
        auto s = core_.read_session(session_id, true);
        if (!s) return;
        AttemptFacts* a = find(*s, attempt_id);
        if (!a) {
            out.result = Change::attempt_not_found;
            return;
        }
        out.attempt = *a;
        change(*s, *a, out);
    });
    return out;
}

bool AttemptStore::transaction_elsewhere(const std::string& transaction_id, const std::string& session_id) {
    return !sql_->query("SELECT 1 FROM transactions WHERE id = ? AND session_id IS NOT NULL AND session_id <> ? "
                        "UNION ALL SELECT 1 FROM sessions WHERE transaction_id = ? AND id <> ? "
                        "UNION ALL SELECT 1 FROM attempts WHERE (transaction_id = ? OR reported_transaction_id = ?) AND session_id <> ?",
                        {transaction_id, session_id, transaction_id, session_id, transaction_id, transaction_id, session_id})
                .empty();
}

AttemptStore::Change AttemptStore::report_attempt(const std::string& session_id, const std::string& attempt_id,
                                                  const AttemptReport& report, std::int64_t now) {
    return change_attempt(session_id, attempt_id, [&](Session& s, AttemptFacts& a, Change& out) {
        if (a.reported || a.method == paywasm::PayMethod::qr) {  // (a QR code's answer is the service's own, not the browser's)
            out.result = Change::already_reported;
            return;
        }
        // The browser's transaction id is kept apart from a verified one (transaction_id); one the
        // gateway holds for another session is refused (a report cannot borrow a paid order's).
        if (report.transaction_id && transaction_elsewhere(*report.transaction_id, s.id)) {
            out.result = Change::transaction_elsewhere;
            return;
        }
        const auto tx = report.transaction_id;
        sql_->execute("UPDATE attempts SET reported_at = ?, reported_transaction_id = ?, reported_status = ?, error_code = ?, "
                      "error_http = ? WHERE id = ? AND session_id = ?",
                      {now, or_null(tx), report.status ? SqlValue(std::int64_t(*report.status)) : SqlValue(),
                       or_null(report.error_code),
                       report.error_http ? SqlValue(std::int64_t(*report.error_http)) : SqlValue(), a.id, s.id});
        a.reported = true;
        a.reported_transaction_id = tx;
        a.reported_status = report.status;
        a.error_code = report.error_code;
        a.error_http = report.error_http;
        out.attempt = a;
        out.pushed = core_.push_change(s, now);
        out.payable = payable_of(s);
        out.result = Change::done;
    });
}

AttemptStore::Change AttemptStore::resolve_attempt(const std::string& session_id, const std::string& attempt_id,
                                                   const std::string& resolution, const std::string& note,
                                                   const std::string& actor, bool forward, std::int64_t now) {
    return change_attempt(session_id, attempt_id, [&](Session& s, AttemptFacts& a, Change& out) {
        // Decided by the service's signed word already (and not contradicted): nothing to resolve.
        if ((a.verified == Verified::paid || a.verified == Verified::no_money) && !a.conflict_at) {
            out.result = Change::settled;
            return;
        }
        if (a.resolution && !a.conflict_at) {
            out.result = Change::already_resolved;
            return;
        }
        const std::string record = random_token("res_");
        sql_->execute("INSERT INTO resolutions (id, session_id, attempt_id, resolution, note, actor, created_at) VALUES "
                      "(?, ?, ?, ?, ?, ?, ?)",
                      {record, s.id, a.id, resolution, note, actor, now});
        sql_->execute("UPDATE attempts SET resolution = ?, conflict_at = NULL WHERE id = ?", {resolution, a.id});
        a.resolution = resolution;
        a.conflict_at.reset();
        // The merchant's word as the session's row keeps it (the order's state reads it there).
        const MerchantWord word = merchant_word(s.attempts);
        if (word.paid_elsewhere != s.paid_elsewhere_at.has_value()) s.paid_elsewhere_at = word.paid_elsewhere ? std::optional(now) : std::nullopt;
        if (word.closed != s.closed_at.has_value()) s.closed_at = word.closed ? std::optional(now) : std::nullopt;
        sql_->execute("UPDATE sessions SET paid_elsewhere_at = ?, closed_at = ? WHERE id = ?",
                      {s.paid_elsewhere_at ? SqlValue(*s.paid_elsewhere_at) : SqlValue(),
                       s.closed_at ? SqlValue(*s.closed_at) : SqlValue(), s.id});
        out.attempt = a;
        out.pushed = core_.push_change(s, now);
        out.payable = payable_of(s);
        if (forward || core_.mail_) {
            const std::string id = "evt_" + record;
            core_.queue_event(forward, id, attempt_event_json(id, resolution_event_type(resolution), now, s, a, note), now);
        }
        out.result = Change::done;
    });
}

std::vector<std::string> AttemptStore::attention_pass(const AttentionThresholds& t, bool forward, std::int64_t now) {
    std::vector<std::string> changed;
    // Candidates (no verified outcome, no resolution, not yet signalled), read without a lock a page
    // at a time, oldest first, paging on by (created_at, id) to the last: a page of attempts not yet
    // due (a bank payment pending for days, exchange attempts younger than their threshold) never
    // hides a due one behind it. Each due one is decided again under its session's lock, in a
    // transaction of its own.
    std::int64_t after_at = -1;
    std::string after_id;
    for (bool more = true; more;) {
        const auto page = sql_->query(std::string("SELECT session_id, ") + kAttemptColumns +
                                          " FROM attempts WHERE attention_at IS NULL AND resolution IS NULL AND "
                                          "verified IN ('none', 'open') AND (created_at > ? OR (created_at = ? AND id > ?)) "
                                          "ORDER BY created_at, id LIMIT ?",
                                      {after_at, after_at, after_id, std::int64_t(kAttentionPage)});
        more = page.size() == static_cast<std::size_t>(kAttentionPage);
        std::vector<std::pair<std::string, std::string>> due;  // session, attempt
        for (const auto& r : page) {
            SqlRow facts;
            facts.columns.assign(r.columns.begin() + 1, r.columns.end());
            const AttemptFacts a = attempt_from_row(facts);
            after_at = a.created_at;
            after_id = a.id;
            if (const auto at = stuck_since(a, t); at && *at <= now) due.emplace_back(r.text(0), a.id);
        }
        for (const auto& [session_id, attempt_id] : due) {
            sql_->transaction([&] {
                auto s = core_.read_session(session_id, true);
                if (!s) return;
                AttemptFacts* a = find(*s, attempt_id);
                const auto at = a ? stuck_since(*a, t) : std::nullopt;
                if (!at || *at > now || a->attention_at || (s->link_id && unconfirmed(*a))) return;
                // The compare-and-set: of two instances' passes, one changes the row, one finds it set.
                if (sql_->execute("UPDATE attempts SET attention_at = ? WHERE id = ? AND attention_at IS NULL",
                                  {now, a->id}) != 1) {
                    return;
                }
                a->attention_at = now;
                if (forward || core_.mail_) {
                    const std::string id = "evt_attention_" + a->id.substr(a->id.find('_') + 1);
                    core_.queue_event(forward, id, attempt_event_json(id, "checkout.attention_needed", now, *s, *a, std::nullopt), now);
                }
                changed.push_back(s->id);
            });
        }
    }
    return changed;
}

bool StoreCore::settle_attempt(Session& s, const Decision& d, const IncomingTx& in, bool forward, std::int64_t now) {
    if (d.outcome != Outcome::applied && d.outcome != Outcome::stale && d.outcome != Outcome::amount_mismatch) return false;
    const auto index = attempt_for_transaction(s.attempts, in.id, d.method);
    if (!index) return false;
    AttemptFacts& a = s.attempts[*index];
    const Verified before = a.verified;
    // What the service signed, kept only when it was stored (a status that superseded the held one).
    const Verified now_verified = d.store_transaction ? verified_of(d) : before;
    const bool attach = !a.transaction_id;
    if (!attach && now_verified == before) return false;
    a.transaction_id = in.id;
    a.verified = now_verified;
    if (now_verified == Verified::open && !a.verified_open_at) a.verified_open_at = now;
    const bool conflict = now_verified != before && contradicts_resolution(a.resolution, now_verified);
    if (conflict) a.conflict_at = now;
    sql_->execute("UPDATE attempts SET transaction_id = ?, verified = ?, verified_open_at = ?, conflict_at = ? WHERE id = ?",
                  {in.id, std::string(to_string(a.verified)),
                   a.verified_open_at ? SqlValue(*a.verified_open_at) : SqlValue(),
                   a.conflict_at ? SqlValue(*a.conflict_at) : SqlValue(), a.id});
    if (conflict && (forward || mail_)) {
        const std::string id = "evt_conflict_" + paywasm::server::random_hex(12);
        queue_event(forward, id, attempt_event_json(id, "checkout.resolution_conflict", now, s, a, std::nullopt), now);
    }
    return true;
}

}  // namespace merchant
