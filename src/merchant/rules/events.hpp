// Every wire shape the gateway writes from its typed values, in one place (docs/merchant.md):
//   status_json()            a session's status: GET /v1/checkout/{id}/status, the SSE events' data,
//                            the checkout view's and the app API's "status"/"latestStatus"
//   sse_event(), kSse*       the lines of a status stream (text/event-stream)
//   forwarded_event_json()   the event POSTed to --app-callback (one per webhook that moved a
//                            session, and a subscription debit's statuses)
//   transactions_json(), outbox_json()   the app API's lists
//   attempts_json(), payable_json(), attempt_event_json()   payment attempts (attempts.hpp)
// Pure: no database, no clock, no I/O.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "rules/decide.hpp"
#include "paywasm/json.hpp"
#include "paywasm/status.hpp"
#include "rules/session.hpp"
#include "rules/rows.hpp"

namespace merchant {

// {"sessionId", "offerId", "status", "kind", "state", "final", "success", "taken", "tone", "next",
// "label"?, "method", "transactionId", "orderTotal", "expected", "received", "remaining", "version",
// "updatedAt", "payable"}: what the status means is the core's (describe_checkout_status(): the code, the
// payment's method, an amount mismatch), the amounts owed the core's amounts_owed() in the
// transaction's own currency (null when unknown).
std::string status_json(const Session& s);
// The amounts owed of a session's latest status (the core's amounts_owed, in the transaction's own
// currency): expected, received, remaining; nullopt before the service named an amount (or when
// it named a negative one). status_json's "expected", "received", "remaining".
std::optional<paywasm::Owed> owed_of(const Session& s);

// ["exchange", "bank", "qr"]: the methods `s` offers, in that order.
void write_methods(paywasm::JsonWriter& w, const Session& s);

// A status stream's lines: the reconnection delay first, then one event per status (its version
// as the event id, status_json() as data), a comment as heartbeat, and a comment while the
// database is unavailable.
inline constexpr const char* kSseRetry = "retry: 2000\n\n";
inline constexpr const char* kSsePing = ": ping\n\n";
inline constexpr const char* kSseStorageUnavailable = ": storage unavailable, retrying\n\n";
std::string sse_event(std::int64_t version, const std::string& status_json);

// The subscription debit a webhook's order id named (SessionStore::record_debit).
struct DebitRef {
    std::string order_id, subscription_id;
    std::optional<std::string> merchant_subscription_id;
};

// The event forwarded for webhook `in` (signed text `signed_json`, event id `event_id`, received at
// `now`) that `d` decided: for a session's payment, `session` is the session after the change
// (type from event_type(d), the session's ids, its linkId when a payment link opened it, its
// orderState after the change, and its amounts); for a debit, `debit` (type
// subscription.debit.*); with neither, late money (checkout.late_payment, sessionId null, the
// transaction's offerId: the shop looks its order up itself). Then the transaction's id, status, the core's kind, final, success, taken,
// what it paid ("paid"), and the signed text.
std::string forwarded_event_json(const std::string& event_id, std::int64_t now, const Decision& d, const IncomingTx& in,
                                 const std::string& signed_json, const Session* session, const DebitRef* debit);

// The attempts, oldest first: [{"attemptId", "method", "createdAt", "state", "transactionId",
// "error": {"code", "httpStatus"} | null}], and with `detail` (the app API) what the browser
// reported ("reported": {"at"?, "status"}), "verified", "resolution", "attentionAt", "conflictAt".
std::string attempts_json(const std::vector<AttemptFacts>& attempts, bool detail);
// {"armed", "reason", "attemptId", "transactionId"} (attempts.hpp's Payable).
std::string payable_json(const Payable& p);
// An attempt's own event for the shop app: {"id", "type", "createdAt", "sessionId", "offerId",
// "linkId"?, "orderState", "attemptId", "method", "reason", "transactionId", "reportedTransactionId",
// "since", "state", "resolution", "note"?}.
// Never a success: `paid_elsewhere` is the merchant's own word, sent back to it.
std::string attempt_event_json(const std::string& id, std::string_view type, std::int64_t now, const Session& s,
                               const AttemptFacts& a, const std::optional<std::string>& note);
// checkout.released | checkout.paid_elsewhere | checkout.marked_unpaid
std::string_view resolution_event_type(std::string_view resolution);

// The merchant's acceptance of an underpayment (OrderQueries::accept_underpayment), for the shop app:
// {"id", "type": "checkout.underpayment_accepted", "createdAt", "sessionId", "offerId", "linkId"?,
// "orderState", "version",
// "transactionId", "orderTotal", "expected", "received", "remaining", "note", "actor", "accepted":
// true, "success": false}: the service never said the order was paid; the merchant says it is
// enough. The app ships on it as it would on a success.
std::string underpayment_event_json(const std::string& id, std::int64_t now, const Session& s, const std::string& note,
                                    const std::string& actor);
// GET /v1/events/{id}: outbox_json()'s member for the event, with "deliveries": [{"startedAt",
// "finishedAt", "httpStatus", "error"}] oldest first.
std::string event_detail_json(const OutboxRow& row, const std::vector<DeliveryRow>& deliveries);

std::string transactions_json(const std::vector<TransactionRow>& rows);
std::string outbox_json(const std::vector<OutboxRow>& rows);

}  // namespace merchant
