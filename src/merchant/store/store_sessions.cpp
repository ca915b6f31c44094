// The store's sessions group (store_sessions.hpp): sessions, their transactions and QR codes, subscription
// debits; and the session reads every group shares (store_core.hpp). SQL in the
// dialect sql.hpp names, the same text on every database; what a database does its own way (the
// schema lock, row locks, the writer guard) is one of Sql's named operations, never a branch here.
// Times are epoch milliseconds; JSON columns hold the exact text that was received or sent.
#include "store/store_core.hpp"
#include "store/store_sessions.hpp"

#include "server/http.hpp"
#include "server/util.hpp"

namespace merchant {

using namespace paywasm::server;  // Sql, SqlRow, SqlValue, or_null, HttpError, now_ms

namespace {

constexpr const char* kSessionColumns =
    "id, offer_id, checkout, amount, currency, methods, created_at, expires_at, qr_state, qr_response, "
    "status, state, final, success, transaction_id, received_amount, status_at, version, method, tx_amount, "
    "tx_currency, link_id, success_url, cancel_url, underpayment_accepted_at, paid_elsewhere_at, closed_at, sold_by";

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
    if (!r.is_null(18)) s.status.method = paywasm::pay_method_from(r.text(18));  // the gateway writes these names only
    if (!r.is_null(19)) s.status.tx_amount = r.text(19);
    if (!r.is_null(20)) s.status.tx_currency = r.text(20);
    s.link_id = r.optional_text(21);
    s.success_url = r.optional_text(22);
    s.cancel_url = r.optional_text(23);
    if (!r.is_null(24)) s.underpayment_accepted_at = r.integer(24);
    if (!r.is_null(25)) s.paid_elsewhere_at = r.integer(25);
    if (!r.is_null(26)) s.closed_at = r.integer(26);
    s.sold_by = r.optional_text(27);
    return s;
}

}  // namespace

Session SessionStore::create_session(Session s, const std::string& checkout_hash, bool& created) {
    created = false;
    sql_->transaction([&] {
        const auto changed = sql_->execute(
            "INSERT INTO sessions (id, offer_id, checkout, checkout_hash, amount, currency, methods, created_at, "
            "expires_at, link_id, success_url, cancel_url, sold_by) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
            "ON CONFLICT (offer_id) DO NOTHING",
            {s.id, s.offer_id, s.checkout_json, checkout_hash, s.amount, s.currency, s.methods_csv, s.created_at,
             s.expires_at, or_null(s.link_id), or_null(s.success_url), or_null(s.cancel_url), or_null(s.sold_by)});
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

std::optional<Session> SessionStore::session(const std::string& id) { return core_.read_session(id, false); }

std::optional<Session> StoreCore::read_session(const std::string& id, bool locked) {
    const std::string select = std::string("SELECT ") + kSessionColumns + " FROM sessions WHERE id = ?";
    auto rows = locked ? sql_->query_locked(select, {id}) : sql_->query(select, {id});
    if (rows.empty()) return std::nullopt;
    Session s = session_from_row(rows[0]);
    s.attempts = attempts(s.id);
    s.as_of = now_ms();
    return s;
}

std::vector<Session> StoreCore::sessions_where(const std::string& select_tail, const std::vector<SqlValue>& params) {
    std::vector<Session> out;
    for (const auto& r : sql_->query(std::string("SELECT ") + kSessionColumns + " FROM sessions " + select_tail, params)) {
        out.push_back(session_from_row(r));
    }
    return out;
}

std::optional<Session> SessionStore::session_by_offer(const std::string& offer_id) {
    auto rows = sql_->query("SELECT id FROM sessions WHERE offer_id = ?", {offer_id});
    if (rows.empty()) return std::nullopt;
    return core_.read_session(rows[0].text(0), false);
}

std::vector<TransactionRow> SessionStore::transactions(const std::string& session_id) {
    std::vector<TransactionRow> out;
    for (const auto& r : sql_->query(
             "SELECT id, status, state, native_amount, native_currency, received_amount, updated_at, currency FROM transactions "
             "WHERE session_id = ? ORDER BY updated_at, id",
             {session_id})) {
        out.push_back(TransactionRow{r.text(0), r.text(2), r.integer(1), r.integer(6), r.optional_text(3),
                                     r.optional_text(4), r.optional_text(5), r.optional_text(7)});
    }
    return out;
}

std::vector<QrCodeRow> StoreCore::qr_codes(const std::string& session_id) {
    std::vector<QrCodeRow> out;
    for (const auto& r : sql_->query("SELECT order_id, transaction_id, replaced FROM qr_codes WHERE session_id = ?",
                                     {session_id})) {
        out.push_back(QrCodeRow{r.text(0), r.optional_text(1), r.integer(2) != 0});
    }
    return out;
}

std::string SessionStore::current_qr_order(const Session& s) {
    auto rows = sql_->query(
        "SELECT order_id FROM qr_codes WHERE session_id = ? AND replaced = 0 ORDER BY created_at DESC, order_id DESC "
        "LIMIT 1",
        {s.id});
    return rows.empty() ? s.offer_id + "~qr1" : rows[0].text(0);
}

// One transaction with the session's row locked: re-reads the session, and claims the creation of
// a new code only if the current answer is still `current_response` and that code is dead by the
// locked row (a late payment applied meanwhile by another instance keeps the code). Then records
// the current code as replaced, resets the session's status (the old code's final status is not
// the new code's) and picks the new code's orderId: one of an earlier renewal the service may have
// created without our knowing (its call failed), else "<offerId>~qr<n>" unused by any code.
SessionStore::Renewal SessionStore::renew_qr(const Session& given, const std::string& current_response, const std::string& current_tx,
                                             std::int64_t now) {
    Renewal result = Renewal::lost;
    sql_->transaction([&] {
        const auto locked = core_.read_session(given.id, true);
        if (!locked) return;
        const Session& s = *locked;
        if (!s.qr_state || *s.qr_state != "done" || s.qr_response != current_response) return;
        // Dead by its verified status, or released by the merchant (the portal showed nothing taken).
        bool released = false;
        for (const auto& a : s.attempts) released = released || (a.transaction_id == current_tx && a.resolution == std::optional<std::string>("release"));
        if (!released && !qr_code_dead(held_of(s), current_tx)) {
            result = Renewal::not_dead;
            return;
        }
        if (now >= s.expires_at) {
            result = Renewal::expired;
            return;
        }
        if (!core_.link_refusal(s, now).empty()) {
            result = Renewal::link_refused;
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
        sql_->notify("paywasm_status", StatusHub::wake_tag(s.id));
    });
    return result;
}

// The claim also records the code's orderId (transaction still unknown): the service's first
// webhook for it may arrive before its answer does, and must find the session.
bool SessionStore::claim_qr(const Session& s, std::int64_t now, std::int64_t stale_before, std::string& refused) {
    bool claimed = false;
    sql_->transaction([&] {
        const auto locked = core_.read_session(s.id, true);
        if (!locked) return;
        refused = core_.link_refusal(*locked, now);
        if (!refused.empty()) return;
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

void SessionStore::finish_qr(const std::string& session_id, const std::string& response_json, const std::string& order_id,
                             const std::string& transaction_id, std::int64_t window_ms, std::int64_t now) {
    sql_->transaction([&] {
        const auto s = core_.read_session(session_id, true);
        sql_->execute("UPDATE sessions SET qr_state = 'done', qr_response = ? WHERE id = ?", {response_json, session_id});
        sql_->execute(
            "INSERT INTO qr_codes (order_id, session_id, transaction_id, replaced, created_at) VALUES (?, ?, ?, 0, ?) "
            "ON CONFLICT (order_id) DO UPDATE SET transaction_id = excluded.transaction_id",
            {order_id, session_id, transaction_id, now});
        // The code is shown to the shopper from now on: its attempt (attempts.hpp), once per transaction.
        // A webhook of it that came before this answer is what the attempt starts from.
        if (!s || !sql_->query("SELECT 1 FROM attempts WHERE session_id = ? AND transaction_id = ?", {session_id, transaction_id}).empty()) {
            return;
        }
        Verified verified = Verified::none;
        if (const auto held = held_of(*s); held && held->transaction_id == transaction_id) verified = verified_of_held(*held, s->status.success);
        sql_->execute("INSERT INTO attempts (id, session_id, method, created_at, transaction_id, verified, verified_open_at, window_end) "
                      "VALUES (?, ?, 'qr', ?, ?, ?, ?, ?)",
                      {"at_" + random_hex(16), session_id, now, transaction_id, std::string(to_string(verified)),
                       verified == Verified::open ? SqlValue(now) : SqlValue(), now + window_ms});
    });
}

void SessionStore::release_qr(const std::string& session_id) {
    sql_->execute("UPDATE sessions SET qr_state = NULL, qr_started_at = NULL WHERE id = ? AND qr_state = 'creating'",
                  {session_id});
}

void SessionStore::record_debit(const std::string& order_id, const std::string& subscription_id,
                                const std::optional<std::string>& merchant_subscription_id, std::int64_t now) {
    sql_->execute("INSERT INTO debits (order_id, subscription_id, merchant_subscription_id, created_at) VALUES "
                  "(?, ?, ?, ?) ON CONFLICT (order_id) DO NOTHING",
                  {order_id, subscription_id, or_null(merchant_subscription_id), now});
}

void SessionStore::on_status_change(std::function<void(const std::string&)> on_change) {
    sql_->listen("paywasm_status", std::move(on_change));
}

}  // namespace merchant
