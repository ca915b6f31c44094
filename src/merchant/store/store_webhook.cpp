// SessionStore::apply_webhook (store_sessions.hpp): one verified webhook as read -> decide -> persist, in one
// transaction.
#include "rules/events.hpp"
#include "paywasm/crypto.hpp"
#include "store/store_core.hpp"
#include "store/store_sessions.hpp"

namespace merchant {

using namespace paywasm::server;  // Sql, SqlRow, SqlValue, or_null, HttpError, now_ms

namespace {

// What a webhook's order id names, read under the session's row lock: one of our QR codes' or a
// session's own offerId (the session, its codes, the transaction row already held), or a debit.
struct WebhookFacts {
    std::optional<Session> session;
    std::optional<DebitRef> debit;
    std::vector<QrCodeRow> codes;
    std::optional<HeldStatus> stored;
    std::int64_t debit_seq = 0;  // the debit's events queued so far
};

}  // namespace

// One verified webhook, in one transaction:
//   - read: the order id (meta.offerId) finds one of our QR codes, a session's own offerId, or a
//     debit of ours; the session's row is locked before anything of it is read, so two instances
//     deciding on the same session take turns, each seeing what the other committed;
//   - decide: decide_webhook() (decide_debit_webhook() for a debit) says what happens;
//   - persist exactly that: the event record (its id is SHA-256 of the signed text: the same
//     delivery twice changes nothing the second time, duplicate), the transaction row (never
//     replaced by a status that does not supersede it), the session's status (status_after()) with
//     a NOTIFY carrying the session's wake tag (StatusHub::wake_tag: no id, no status), the outbox
//     row (only what moved a session, and a debit's statuses).
SessionStore::Applied SessionStore::apply_webhook(const IncomingTx& in, const std::string& signed_json, const std::string& merchant_id,
                                                  bool forward, std::int64_t now) {
    Applied out;
    out.event_id = "evt_" + paywasm::sha256_hex(signed_json).substr(0, 32);
    sql_->transaction([&] {
        // ---- read ----
        WebhookFacts f;
        if (in.order_id) {
            std::optional<std::string> session_id;
            if (auto code = sql_->query("SELECT session_id FROM qr_codes WHERE order_id = ?", {*in.order_id}); !code.empty())
                session_id = code[0].text(0);
            else if (auto by_offer = sql_->query("SELECT id FROM sessions WHERE offer_id = ?", {*in.order_id}); !by_offer.empty())
                session_id = by_offer[0].text(0);
            // A debit's row is locked like a session's before anything of it is read: two
            // instances deciding on one debit take turns (a late "pending" never overwrites the
            // success another committed), and its events get their order (event_seq) under the lock.
            else if (auto d = sql_->query_locked(
                         "SELECT subscription_id, merchant_subscription_id, event_seq FROM debits WHERE order_id = ?",
                         {*in.order_id});
                     !d.empty()) {
                f.debit = DebitRef{*in.order_id, d[0].text(0), d[0].optional_text(1)};
                f.debit_seq = d[0].integer(2);
            }
            if (session_id) f.session = core_.read_session(*session_id, true);
        }
        if (f.session) f.codes = core_.qr_codes(f.session->id);
        if (f.session || f.debit) {
            auto row = sql_->query("SELECT status, mismatch, received_amount FROM transactions WHERE id = ?", {in.id});
            if (!row.empty()) {
                f.stored = HeldStatus{static_cast<int>(row[0].integer(0)), in.id, row[0].integer(1) != 0,
                                      row[0].optional_text(2)};
            }
        }

        // ---- decide ----
        std::optional<SessionFacts> facts;
        if (const Session* s = f.session ? &*f.session : nullptr) {
            facts = SessionFacts{s->offer_id, s->amount, s->currency, s->offers(paywasm::PayMethod::exchange), s->offers(paywasm::PayMethod::bank), held_of(*s), {}};
            for (const auto& a : s->attempts) {
                if (a.reported && a.reported_transaction_id == in.id) facts->reported_method = a.method;
            }
        }
        Decision d = decide_webhook(merchant_id, facts, f.codes, f.stored, in);
        // A debit of ours (no session): its statuses go to the app as subscription events.
        if (f.debit && d.outcome == Outcome::unknown_offer) d = decide_debit_webhook(f.stored, in);
        out.outcome = d.outcome;
        out.reason = d.reason;
        if (d.outcome == Outcome::foreign_merchant) return;  // not ours: nothing of it is kept

        // ---- persist ----
        const SqlValue session_id = f.session ? SqlValue(f.session->id) : SqlValue();
        if (sql_->execute(
                "INSERT INTO webhook_events (id, received_at, transaction_id, offer_id, status, session_id, outcome, body) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING",
                {out.event_id, now, in.id, or_null(in.order_id), static_cast<std::int64_t>(in.status), session_id,
                 std::string(to_string(d.outcome)), signed_json}) == 0) {
            out.outcome = Outcome::duplicate;
            out.reason.clear();
            return;
        }
        const bool mismatch = d.outcome == Outcome::amount_mismatch;
        if (d.store_transaction) {
            sql_->execute(
                "INSERT INTO transactions (id, session_id, offer_id, status, state, native_amount, native_currency, "
                "received_amount, body, updated_at, amount, currency, mismatch) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
                "?, ?) ON CONFLICT (id) DO UPDATE SET status = excluded.status, state = excluded.state, "
                "native_amount = excluded.native_amount, native_currency = excluded.native_currency, "
                "received_amount = excluded.received_amount, body = excluded.body, updated_at = excluded.updated_at, "
                "amount = excluded.amount, currency = excluded.currency, mismatch = excluded.mismatch",
                {in.id, session_id, or_null(in.order_id), static_cast<std::int64_t>(in.status),
                 std::string(paywasm::checkout_state(d.info.kind, mismatch)), or_null(in.native_amount),
                 or_null(in.native_currency), or_null(in.received), signed_json, now, or_null(in.amount),
                 or_null(in.currency), std::int64_t(mismatch ? 1 : 0)});
        }
        if (d.bind_qr_transaction && in.order_id) {
            sql_->execute("UPDATE qr_codes SET transaction_id = ? WHERE order_id = ? AND transaction_id IS NULL",
                          {in.id, *in.order_id});
        }
        // The attempt this transaction belongs to learns what the service signed (attempts.hpp).
        const bool attempt_changed = f.session && core_.settle_attempt(*f.session, d, in, forward, now);
        if (f.session && d.moves_session) {
            Session& s = *f.session;
            // The row is locked: what is written here is what it holds (the event's amounts read it).
            s.status = status_after(s.status, d, in, now);
            const StatusView& v = s.status;
            sql_->execute(
                "UPDATE sessions SET status = ?, state = ?, final = ?, success = ?, transaction_id = ?, "
                "received_amount = ?, method = ?, tx_amount = ?, tx_currency = ?, status_at = ?, version = version + 1 "
                "WHERE id = ?",
                {static_cast<std::int64_t>(*v.status), v.state, std::int64_t(v.final ? 1 : 0), std::int64_t(v.success ? 1 : 0),
                 or_null(v.transaction_id), or_null(v.received_amount), v.method ? SqlValue(std::string(paywasm::to_string(*v.method))) : SqlValue(), or_null(v.tx_amount),
                 or_null(v.tx_currency), now, s.id});
            out.session_id = s.id;
            // This instance's streams get the new status (webhooks.cpp passes it to the hub) and
            // send it without reading the session; the other instances' are woken (at commit) by
            // a tag carrying neither the id nor the status, and read the row.
            out.pushed = PushedStatus{v.version, v.final, status_json(s)};
            sql_->notify("paywasm_status", StatusHub::wake_tag(s.id));
        } else if (attempt_changed) {
            // Only an attempt changed (its status did not move the session): Pay may be armed again.
            out.session_id = f.session->id;
            out.pushed = core_.push_change(*f.session, now);
        }
        if (!(forward || core_.mail_) || !d.forward) return;
        std::optional<std::string> chain;
        std::optional<std::int64_t> seq;
        if (forward && f.debit) {
            chain = "debit:" + f.debit->order_id;
            seq = f.debit_seq + 1;
            sql_->execute("UPDATE debits SET event_seq = ? WHERE order_id = ?", {*seq, f.debit->order_id});
        }
        core_.queue_event(forward, out.event_id,
                          forwarded_event_json(out.event_id, now, d, in, signed_json, f.session ? &*f.session : nullptr,
                                               f.debit ? &*f.debit : nullptr),
                          now, chain, seq);
    });
    return out;
}

}  // namespace merchant
