// Payment attempts (issue 32; docs/merchant.md "Attempts"): what the shopper's browser said it did,
// what verified webhooks and the merchant said since, and the rules read from them, as pure
// functions beside decide.hpp. No database, no clock, no I/O, no JSON: the store reads the facts
// under the session's row lock and persists what these say; tests/gateway/test_attempts.cpp checks
// every rule without a database.
//
// A browser's report is the shopper's word, stored as such: it only ever BLOCKS Pay (or, for a
// documented refusal that stores nothing, lets an attempt stop blocking). It never makes a session
// successful and never reaches the shop's app. Money is decided by verified webhooks (decide.hpp)
// and by the merchant's resolution.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rules/decide.hpp"

namespace merchant {

enum class AttemptState { registered, answered, unknown, refused, no_money, paid, released, not_paid, paid_elsewhere };
std::string_view to_string(AttemptState);

// What a verified webhook said of an attempt's transaction, as the rules keep it.
enum class Verified { none, open, no_money, paid };
std::string_view to_string(Verified);  // none | open | no_money | paid (the attempts' column)

// One attempt's facts as stored (read with its session: Session::attempts). A QR code the gateway
// made is an attempt too (method qr, its transaction id known from the service's own answer): live
// until `window_end`, then, with no verified final status and no resolution, it may have been paid
// and nobody knows.
struct AttemptFacts {
    std::string id;
    paywasm::PayMethod method = paywasm::PayMethod::exchange;
    std::int64_t created_at = 0;
    bool reported = false;
    std::optional<std::string> transaction_id;      // attached by a verified webhook only
    std::optional<std::string> reported_transaction_id;  // the browser's report: its word only
    std::optional<int> reported_status;             // the service's immediate status, as the browser said
    std::optional<std::string> error_code;          // the browser's error report: the core's code
    std::optional<int> error_http;                  //   and the HTTP status it saw (null: none)
    Verified verified = Verified::none;
    std::optional<std::int64_t> verified_open_at;   // the first verified status with no final outcome
    std::optional<std::string> resolution;          // release | paid_elsewhere | not_paid
    std::optional<std::int64_t> attention_at, conflict_at;
    std::optional<std::int64_t> window_end;         // a QR code's: when it stops being live (--attention-qr-minutes)
};

// The browser's error report is a documented refusal of an exchange payment (the service's
// 418-422, by HTTP status, or by the core's code for them with a 2xx or no status: the service
// may carry the code in a 200 body), which stores nothing. Anything else
// (network, timeout, any 5xx including a proxy's 502/504, an undocumented answer) may have stored
// the payment: unknown.
bool documented_refusal(paywasm::PayMethod method, const std::optional<std::string>& code, const std::optional<int>& http);

// The attempt's state: a verified final outcome first (paid, no_money), then the merchant's
// resolution, then what the browser reported (refused | unknown | answered), else registered; a QR
// code is answered (the service made it) until a verified outcome or a resolution.
AttemptState attempt_state(const AttemptFacts&);

// Whether an attempt in `state` may have taken money without a verified outcome: Pay stays off.
bool blocks_pay(AttemptState);

// The verified status of an attempt's transaction, as the attempt keeps it: paid (a success),
// no_money (final, nothing taken), else open (pending, partly paid, unknown: money may move).
Verified verified_of(const Decision&);

// Pay: armed iff the session is open (not expired, not paid by a verified success or the merchant's
// word, not closed by not_paid) and no attempt blocks. `reason`: none | paid | expired | closed |
// in_progress (answered) | unknown | registered; attempt_id/transaction_id name the blocking one.
// A session whose verified status is not final and may hold money (no attempt of it known, an older
// widget) is in_progress too. A QR code blocks from the end of its window (unknown: its webhook may
// be lost) until a verified final status or the merchant's resolution; a live one does not (its
// money, when some arrives, blocks as the session's verified status).
struct Payable {
    bool armed = false;
    std::string reason;
    std::optional<std::string> attempt_id, transaction_id;
};
struct PayableSession {
    bool expired = false;
    bool success = false;  // paid: a verified success, or an underpayment the merchant accepted
    std::optional<HeldStatus> held;  // the session's verified status
    std::optional<paywasm::PayMethod> held_method;
    std::int64_t now = 0;  // when the rules are read (a QR code's window)
};
Payable payable(const PayableSession&, const std::vector<AttemptFacts>&);

// When an attempt is stuck (needs the merchant), or nullopt when it never will be as it is: a
// blocking attempt with no resolution, older than its method's threshold; a bank attempt with a
// verified open status counts `bank_pending_ms` from that status; a QR code at the end of its window
// (`qr_ms` after it was made) with no verified final status.
struct AttentionThresholds {
    std::int64_t exchange_ms = 180LL * 60000, bank_ms = 60LL * 60000, bank_pending_ms = 7LL * 86400000;
    std::int64_t qr_ms = 60LL * 60000;
};
std::optional<std::int64_t> stuck_since(const AttemptFacts&, const AttentionThresholds&);
// An attempt no verified webhook reached (whatever the browser reported: its word can be made up).
// On a payment link's session (anyone may open one, give made-up fields and report made-up
// transactions) it is not raised as attention and does not keep the session from retention: a
// late webhook still settles it as any other. The merchant relies on the service's (retried)
// webhooks and its portal for those (docs/merchant.md "Public links and the merchant's work").
bool unconfirmed(const AttemptFacts&);
// Why the attempt is stuck (the event's "reason"): registered | answered | unknown | bank_pending |
// qr_window (a QR code with no verified final status by the end of its window).
std::string_view stuck_reason(const AttemptFacts&);

// Whether an attempt needs the merchant now: stuck (attention_at) with no resolution and no verified
// final outcome since (a late webhook that paid it, or said nothing was taken, settles it), or a
// resolution a verified outcome contradicted. kAttemptAttentionSql is the same rule over the attempts'
// columns (GET /v1/sessions?state=attention, the overview's count; test_order_sql.cpp compares them).
bool needs_attention(const AttemptFacts&);
inline constexpr const char* kAttemptAttentionSql =
    "((attention_at IS NOT NULL AND resolution IS NULL AND verified IN ('none', 'open')) OR conflict_at IS NOT NULL)";

// The merchant's word on a session, from its attempts' resolutions: an attempt resolved paid_elsewhere
// (the session reads as paid: payable's "paid", order_state.hpp's paid), or not_paid (closed).
struct MerchantWord {
    bool paid_elsewhere = false, closed = false;
};
MerchantWord merchant_word(const std::vector<AttemptFacts>&);

// What a verified status the session holds says of the attempt whose transaction it is (a QR code
// whose first webhook came before the service's answer): paid (a success of the order's total),
// no_money (final, nothing taken, the right amount), else open.
Verified verified_of_held(const HeldStatus& held, bool success);

// A verified outcome `now_verified` contradicts the merchant's resolution: a success after
// release or not_paid, a final no-money outcome after paid_elsewhere.
bool contradicts_resolution(const std::optional<std::string>& resolution, Verified now_verified);

// Which attempt a verified webhook's transaction belongs to: the one that reported (or was given)
// that transaction id, else the oldest of the same method with no transaction and no verified
// outcome. Returns an index into `attempts` (ordered oldest first).
std::optional<std::size_t> attempt_for_transaction(const std::vector<AttemptFacts>& attempts, std::string_view tx_id,
                                                   std::optional<paywasm::PayMethod> method);

}  // namespace merchant
