// A checkout session as the gateway keeps it: the order fixed at creation and its latest status.
// Plain data: the store (store_sessions.hpp) reads and writes it, events.hpp writes it to the wire.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <vector>

#include "rules/attempts.hpp"
#include "rules/decide.hpp"
#include "rules/order_state.hpp"

namespace merchant {

// A session's latest status as stored; what it means is the core's (describe_checkout_status(),
// written by events.hpp's status_json()).
struct StatusView {
    std::optional<int> status;          // the service's code; nullopt before any transaction
    std::string state;                  // open (paywasm::kNoStatusState) | paywasm::checkout_state(): a kind's name | amount_mismatch
    bool final = false, success = false;
    std::optional<std::string> transaction_id, received_amount;
    std::optional<paywasm::PayMethod> method;  // nullopt when unknown (stored as its name: qr | exchange | bank)
    // The transaction's own amount and currency (crypto for a QR code): what the shopper owes in.
    std::optional<std::string> tx_amount, tx_currency;
    std::int64_t version = 0, updated_at = 0;
};

struct Session {
    std::string id, offer_id, checkout_json, amount, currency, methods_csv;
    std::int64_t created_at = 0, expires_at = 0;
    std::optional<std::string> qr_state, qr_response;
    StatusView status;
    // The session's payment attempts, oldest first (read with the session), and the clock when it
    // was read: what `payable` counts the expiry against (payable_of()).
    std::vector<AttemptFacts> attempts;
    std::int64_t as_of = 0;
    // When the merchant accepted what arrived of a partly paid session (OrderQueries::accept_underpayment).
    std::optional<std::int64_t> underpayment_accepted_at;
    // The merchant's resolutions as the session keeps them (AttemptStore::resolve_attempt, merchant_word()):
    // since when an attempt stands resolved paid_elsewhere, or not_paid (order_state.hpp reads both).
    std::optional<std::int64_t> paid_elsewhere_at, closed_at;
    // The methods it offers: methods_csv as the core reads it (a name an older gateway stored twice
    // counts once; none when the column holds anything else); offers(): whether `method` is one of them.
    paywasm::PayMethods methods() const;
    bool offers(paywasm::PayMethod method) const { return methods().has(method); }
    // Hosted checkout (hosted.hpp): the payment link that opened it, and where the hosted page sends
    // the shopper back (each on a --return-origin, checked at creation).
    std::optional<std::string> link_id, success_url, cancel_url;
    // A sale the seller charged at the console's point of sale (sales.hpp): the console user.
    std::optional<std::string> sold_by;
};

// The facts of the order's state (order_state.hpp) at `now`, and its state: order_bucket() of them.
OrderFacts order_facts(const Session& s, std::int64_t now);
std::string_view order_state(const Session& s, std::int64_t now);

// The held status the money rules read (decide.hpp): nullopt before any transaction.
std::optional<HeldStatus> held_of(const Session& s);

// Whether Pay may be pressed for `s` as read (attempts.hpp's payable()).
Payable payable_of(const Session& s);

// The session's status once `d` (which moved it: d.moves_session) applied `in` at `now`: the
// status, its state word and method, the transaction's own amount, version + 1. The store
// persists exactly this; the pushed status JSON is written from it.
StatusView status_after(const StatusView& before, const Decision& d, const IncomingTx& in, std::int64_t now);

}  // namespace merchant
