// The rules and wire shapes (src/merchant/rules): pure, no database, no clock, no I/O; every part
// above reads them. Its files, besides this one (the money decisions, below):
//   session.hpp      a checkout session and its status, as kept
//   attempts.hpp     the payment attempts' rules
//   order_state.hpp  an order's state (paid, partly paid, ...) and its SQL twin
//   overview.hpp     the console overview's figures
//   ship_to.hpp      what the seller needs to ship an order
//   notify.hpp       which events a console user is mailed about, and each mail's words
//   events.hpp       every wire shape: the status JSON, SSE events, forwarded events
//   rows.hpp         the rows the store's table groups return and take (plain data)
//   config.hpp       the settings as read (plain data)
// The gateway's money decisions as pure functions: what a verified webhook does to a session, and
// whether a QR code may be replaced. No database, no clock, no I/O: store/store_webhook.cpp reads the inputs under
// the session's row lock, calls these, and persists exactly what they decided; tests/gateway/
// test_decide.cpp checks every rule without a database.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "paywasm/models.hpp"
#include "paywasm/status.hpp"

namespace merchant {

// What the gateway did with one verified webhook.
enum class Outcome {
    applied,              // the session's status moved to this one
    duplicate,            // the same signed text was seen before: nothing changed
    stale,                // ours, but older or weaker than what the session already has
    foreign_merchant,     // signed by the service for another merchant (or with no merchantId)
    unknown_offer,        // no session, QR code or debit of ours has this order id
    unknown_transaction,  // the order is ours, the transaction is not one the gateway made or accepts
    amount_mismatch,      // ours, but the order total paid differs from the session's
};
std::string_view to_string(Outcome);

// The status a session (or a stored transaction) holds.
struct HeldStatus {
    int status = 0;
    std::string transaction_id;
    bool mismatch = false;  // the state was amount_mismatch
    std::optional<std::string> received;  // receivedAmount as text
};

// A QR code the gateway asked the service for: its orderId, and the transaction id the service
// answered (none when the answer was lost: the first webhook with that orderId names it).
struct QrCodeRow {
    std::string order_id;
    std::optional<std::string> transaction_id;
    bool replaced = false;
};

// The session a webhook's order id found (nullopt: none).
struct SessionFacts {
    std::string offer_id, amount, currency;  // the order total, fixed at creation
    bool offers_exchange = false, offers_bank = false;
    std::optional<HeldStatus> current;       // nullopt: no status yet
    // The method of the session's payment attempt whose transaction the shopper's browser reported
    // as this webhook's (exchange | bank; nullopt: none). A label only: read when the session
    // offers both and the signed text does not say (IncomingTx::fiat); it never moves money.
    std::optional<paywasm::PayMethod> reported_method;
};

// The verified transaction, reduced to what the rules read (all from the signed text).
struct IncomingTx {
    std::string id;
    int status = 0;
    std::optional<std::string> merchant_id, order_id;
    std::optional<std::string> native_amount, native_currency;  // the order total it paid
    std::optional<std::string> received;                        // receivedAmount as text
    // The transaction's own amount and currency (upper case): what the shopper pays in (crypto for
    // a QR code). Not read by the rules; kept with the status (the amounts owed).
    std::optional<std::string> amount, currency;
    // currencyInfo.isFiat of the signed text: a fiat payment of a checkout is a bank payment, a
    // crypto one an exchange payment (nullopt: not said).
    std::optional<bool> fiat;
};

// The rules' view of a verified transaction: nativeAmount in the core's amount_text() form (so that
// "82" and "82.00" are one amount), meta.offerId as the order id.
IncomingTx incoming_tx(const paywasm::Transaction& tx);

struct Decision {
    Outcome outcome = Outcome::unknown_offer;
    std::optional<paywasm::PayMethod> method;  // qr for one of our QR codes; exchange/bank when known
    paywasm::StatusInfo info;                  // the core's row for the status and method
    bool store_transaction = false;            // upsert the transaction row with this status
    bool bind_qr_transaction = false;          // the QR code had no transaction id: record this one
    bool moves_session = false;                // the session's status becomes this one
    bool success = false;                      // applied, the amount matches and the core says success
    bool forward = false;                      // the shop app is told (what moved a session; late money)
    std::string reason;                        // one line for the log (no secrets, no bodies)
};

// The rules, in order:
//   1. merchantId must equal ours (missing or other: foreign_merchant, nothing stored);
//   2. the order id names one of our QR codes (method qr; the code's transaction id must match, or
//      be unknown yet), else the session's own offerId (an exchange or bank payment, only for a
//      session that offers one of them), else unknown_offer / unknown_transaction;
//   3. nativeAmount/nativeCurrency must pay the session's total (the core's pays_order_total(); else
//      amount_mismatch: shown to the shopper as "contact the shop", never a success);
//   4. a status never regresses (supersedes() below), a success is replaced only by a refund of the
//      same transaction (forwarded as checkout.refunded), and a replaced
//      QR code moves its session only when its status shows money (a late payment);
//   5. only what moved a session is forwarded, and money (a status that shows it may have been
//      taken) for an order id that names nothing of ours (unknown_offer: a session pruned by
//      --retain-days): checkout.late_payment; `success` only for applied + core success.
// `qr_codes`: the session's codes; `stored`: the transaction row already held for incoming.id.
Decision decide_webhook(std::string_view our_merchant_id, const std::optional<SessionFacts>& session,
                        const std::vector<QrCodeRow>& qr_codes, const std::optional<HeldStatus>& stored,
                        const IncomingTx& incoming);

// A webhook whose order id names a subscription debit the gateway made (the merchant was checked by
// decide_webhook): applied and forwarded when it supersedes the stored transaction, else stale.
Decision decide_debit_webhook(const std::optional<HeldStatus>& stored, const IncomingTx& incoming);

// Whether `next` may replace `held` for the same transaction: after a success only a refund (20-23);
// a refund only by another refund; a final status only by a final one or a refund, or by any
// status that shows money when the held one showed none (a late payment to a timed-out code);
// a waiting status never after another; otherwise when it differs.
bool supersedes(const HeldStatus& held, const HeldStatus& next);

// Whether the QR code with transaction `code_tx` can no longer be paid, so that a new code may take
// its place: the session's status is that code's, final, with no money of the shopper's (failed,
// canceled or timed out, receivedAmount zero or absent) and no amount mismatch.
bool qr_code_dead(const std::optional<HeldStatus>& session_status, std::string_view code_tx);

// The event type forwarded to the shop app for an applied status (docs/merchant.md):
// checkout.succeeded | checkout.failed | checkout.partially_paid | checkout.pending |
// checkout.awaiting_payment | checkout.refunded | checkout.amount_mismatch | checkout.status_unknown;
// checkout.late_payment for money whose order id names no session (unknown_offer).
std::string_view event_type(const Decision&);

}  // namespace merchant
