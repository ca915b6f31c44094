// ledger.hpp — transactions and subscriptions: how a payment becomes a Transaction object, how its
// status moves over time (ledger.cpp), and subscription debit/cancel (subscriptions.cpp). All
// state is in the database.
//
// Status clock (durations at --speed 1; each is divided by the speed, bank days use --bank-day):
//   qr        10 --60 s--> 0 --300 s--> outcome     (outcome 19: 10 --900 s--> 19)
//   exchange   0 --120 s--> outcome
//   bank       0 --3.5 working days--> outcome
//   debit      0 --120 s--> outcome
// The outcome is 1 (success) unless the control API sets another (advance with {"outcome": N}).
// Every change, creation included, enqueues a webhook.
//
// Subscriptions of an order start `pending` and become `active` (debitable) only when the order's
// payment succeeds (status 1-4); a failed, timed-out or closed-partial order makes them `void`.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "config.hpp"
#include "http.hpp"
#include "identity.hpp"
#include "paywasm/models.hpp"
#include "store.hpp"
#include "webhooks.hpp"

namespace sandbox {

struct NewPayment {
    std::string kind;      // qr | exchange | bank | debit
    std::string exchange;  // exchange payments
    std::string offer_id;
    paywasm::Decimal native_amount;  // fiat
    std::string native_currency;
    std::string asset;     // coin code; the fiat code for bank payments
    std::vector<paywasm::CartItem> cart;
    std::optional<paywasm::ShippingAddress> shipping;
    std::string customer_email, customer_name;
    std::optional<std::string> user_id;  // the shopper, when a shopper token paid
    std::optional<std::string> stock_id, account_id;  // bank
    std::string plaintext;  // decrypted data (or the request body) as received
    std::optional<std::string> padding;
    std::optional<std::string> subscription_id;  // debit
    // Idempotency key parts besides (merchant, offerId): who paid ("shopper:<id>", or
    // "merchant:<id>" for QR and debits) and the SHA-256 of the request as received.
    std::string payer;
    std::string request_hash;
    // debit: subscription ids, written into `meta` after its fixed members (name, string value)
    std::vector<std::pair<std::string, std::string>> extra_meta;
};

struct Payment {
    std::string transaction;  // the Transaction object, JSON text
    std::string qr_result;    // qr payments: the QR transaction result (JSON text); empty otherwise
    bool replayed = false;
    std::string payer, request_hash;  // as stored (empty for rows of an older sandbox)
};

class Ledger {
public:
    Ledger(Db& db, const Config& config, const Identity& identity, Webhooks& webhooks);

    // The payment already made for `offer_id` by this merchant, if any.
    std::optional<Payment> find_payment(const std::string& offer_id);
    // Idempotency: an offerId is one request of one payer. Returns `existing` when `payer` and
    // `request_hash` are the stored ones (a replay); throws HttpError(409, idempotency_conflict)
    // otherwise, saying nothing of the stored payment.
    static const Payment& replay_or_conflict(const Payment& existing, const std::string& payer,
                                             const std::string& request_hash);
    // Creates the payment, its subscriptions (pending until the payment succeeds) and its first
    // webhook; when another payment with the same offerId won a race, returns that one with
    // replayed = true (or throws 409 as replay_or_conflict).
    Payment create(const NewPayment& p);

    // Moves a transaction on now: to `status` when given, else to its next planned status; `outcome`
    // changes the planned final status first. Throws HttpError 404/409.
    // Returns the Transaction object (JSON text) after the change.
    std::string advance(const std::string& id, std::optional<int> status, std::optional<int> outcome);
    // Applies every change that is due; returns how many happened.
    int tick();

    // JSON texts of the control API (docs/sandbox.md): one entry {id, kind, ..., transaction,
    // plaintext, plaintextText}, every entry newest first, every subscription.
    std::optional<std::string> get(const std::string& id);
    std::string list();
    std::string subscriptions();
    // The Transaction object (JSON text) of `id`, if any.
    std::optional<std::string> transaction(const std::string& id);

    // POST /subscription/debit after authentication: {"data": [...], "errors": [...]} (JSON text).
    std::string debit(const paywasm::SubscriptionDebitRequest& request);
    // POST /subscription/cancel after authentication. Throws HttpError 404 for an unknown id.
    bool cancel(const std::string& subscription_id);

private:
    std::string build_transaction(const NewPayment& p, const std::string& id, std::int64_t now, int status,
                                  const std::vector<std::string>& subscription_ids, std::string& qr_result);
    // The transaction text with `status` set and everything that follows from it.
    std::string apply(const std::string& tx, const std::string& kind, int status, std::int64_t now);
    void write_entry(JsonWriter& w, const SqlRow& s);

    Db& db_;
    const Config& config_;
    const Identity& identity_;
    Webhooks& webhooks_;
};

// True for the codes the sandbox can move a transaction to: 10, 0, 1-4, -1, 101, 19, 1011, 20-23.
bool is_known_status(int code);

}  // namespace sandbox
