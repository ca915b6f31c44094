// The store's sessions group (store.hpp): the sessions, their transactions and QR codes, the
// subscription debits, and one verified webhook applied (store_sessions.cpp, store_webhook.cpp).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "rules/decide.hpp"
#include "rules/session.hpp"
#include "store/status_hub.hpp"
#include "rules/rows.hpp"

namespace paywasm::server {
class Sql;
}

namespace merchant {

struct StoreCore;

class SessionStore {
public:
    SessionStore(StoreCore& core, paywasm::server::Sql& sql) : core_(core), sql_(&sql) {}

    // Inserts the session, or returns the existing one for the same offerId: `created` says which;
    // HttpError(409, offer_conflict) when that one's checkout differs.
    Session create_session(Session s, const std::string& checkout_hash, bool& created);
    std::optional<Session> session(const std::string& id);
    std::optional<Session> session_by_offer(const std::string& offer_id);
    // The session's transactions, oldest change first (events.hpp writes them).
    std::vector<TransactionRow> transactions(const std::string& session_id);

    // QR creation, once per code: claim() is true for the one caller that may call the service,
    // with the orderId current_qr_order() names ("<offerId>~qr<n>": QR codes have their own
    // namespace, and an offerId may not contain '~'). renew_qr() is claim() for a new code in place
    // of the answer `current_response` (transaction `current_tx`), decided under the session's row
    // lock (qr_code_dead): lost when another request renewed it, not_dead when the code can still be
    // paid or shows money by now, expired when the session has (and the code is dead).
    // release() after a failed call lets the next caller try again with the same orderId.
    // false: another request holds the creation, or (`refused` set) the session's link takes no
    // payment now (LinkStore::refusal).
    bool claim_qr(const Session& s, std::int64_t now, std::int64_t stale_before, std::string& refused);
    enum class Renewal { renewed, lost, not_dead, expired, link_refused };  // link_refused: LinkStore::refusal said no
    Renewal renew_qr(const Session& s, const std::string& current_response, const std::string& current_tx,
                     std::int64_t now);
    std::string current_qr_order(const Session& s);
    // The service's answer for a code: stored, and the code's attempt (method qr, live for `window_ms`:
    // --attention-qr-minutes) recorded with what a webhook of it already said.
    void finish_qr(const std::string& session_id, const std::string& response_json, const std::string& order_id,
                   const std::string& transaction_id, std::int64_t window_ms, std::int64_t now);
    void release_qr(const std::string& session_id);

    // A subscription debit the gateway asked the service for: later webhooks with its orderId are
    // forwarded as subscription events.
    void record_debit(const std::string& order_id, const std::string& subscription_id,
                      const std::optional<std::string>& merchant_subscription_id, std::int64_t now);

    // One verified webhook (`in`, read from the signed text `signed_json` by incoming_tx()): what it
    // names read, decided (decide_webhook), persisted, in one transaction with the session's row
    // locked so that instances sharing a PostgreSQL apply one webhook of a session at a time. The
    // event id is "evt_" + SHA-256 of `signed_json` (a repeated delivery: Outcome::duplicate, nothing
    // changed). `forward`: an outbox row for the shop app when the decision forwards. Returns the
    // outcome, why, and the session id whose status changed (empty when none).
    struct Applied {
        Outcome outcome = Outcome::unknown_offer;
        std::string session_id, event_id, reason;
        std::optional<PushedStatus> pushed;  // the session's new status, when it moved
    };
    Applied apply_webhook(const IncomingTx& in, const std::string& signed_json, const std::string& merchant_id,
                          bool forward, std::int64_t now);

    // Every change of a session's status, from this instance or another on the same PostgreSQL:
    // `on_change(wake tag)` from a background thread (StatusHub::notify_tag), "" after a reconnect.
    // SQLite: one process, never called.
    void on_status_change(std::function<void(const std::string&)> on_change);

private:
    StoreCore& core_;
    paywasm::server::Sql* const sql_;  // the Store's
};

}  // namespace merchant
