// paywasm/status.hpp — what a payment status means, and what is still owed: defined here once.
//
// The widget (through the wasm), the gateway, the CLI and the sandbox all read this table; none of
// them decides on its own whether a status is final, whether money was taken or what the shopper
// still owes. tests/gateway/status_table.test.mjs walks every code × method through the core, the
// wasm, the widget's display and the gateway's decision and fails on any disagreement.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "paywasm/decimal.hpp"

namespace paywasm {

struct Transaction;

// How the shopper pays. A status may mean another next step for another method (a QR code's
// partial payment is finished by sending the rest to the same address; an exchange's is not).
enum class PayMethod { exchange, bank, qr };

enum class StatusKind { awaiting_payment, pending, processing, success, failed, partial,
                        partial_closed, timed_out, canceled, refund, unknown };

// Whether the shopper's money moved: none (nothing taken: paying again is safe), maybe (it may have
// been: never offer to pay again), some (part of the amount), all (the whole amount, maybe not yet
// settled).
enum class MoneyTaken { none, maybe, some, all };

// The look a UI gives the status (the words always say the same as the colour).
enum class Tone { info, success, warning, error };

// What the shopper does next: pay (nothing yet: scan or press Pay), wait (money on its way),
// pay_rest (send what is still owed to the same address), pay_again (nothing was taken: a new
// attempt is safe), contact_shop (money moved in a way only the shop can settle), done (paid).
enum class NextStep { pay, wait, pay_rest, pay_again, contact_shop, done };

struct StatusInfo {
    int code = 0;
    StatusKind kind = StatusKind::unknown;
    bool final = false;       // no further change expected
    bool success = false;     // the order is paid: the only status a shop ships on
    MoneyTaken taken = MoneyTaken::maybe;
    Tone tone = Tone::info;
    NextStep next = NextStep::contact_shop;
    std::string_view label;   // short English meaning, e.g. "partial payment"
};

// The code table (the service documents the codes, not every meaning: see docs/service-api.md):
//   10 awaiting_payment, 0 pending, 1-4 success, -1 failed, 101 partial (not final: the rest may
//   still come), 1011 partial_closed, 19 timed_out, 20-23 refund (not final, money maybe back),
//   anything else unknown (not final, money maybe taken). `method` changes only `next`; without
//   one the QR reading is used for 10, 101 and 19 (the codes of the QR operation).
StatusInfo describe_status(int code, std::optional<PayMethod> method = std::nullopt);
// Immediate status words of an exchange payment. Our mapping (the spec does not give the codes):
// pending -> 0, processing -> 0 (kind processing), completed -> 1, canceled -> -1 (kind canceled).
// Throws Error(bad_response, "status") for any other word.
StatusInfo describe_status_word(std::string_view word);
StatusInfo describe_status(const Transaction&, std::optional<PayMethod> method = std::nullopt);

// Every code the table names, in a fixed order (for generated tests and the sandbox's checks).
const std::vector<int>& known_status_codes();

std::string_view to_string(StatusKind);
std::string_view to_string(MoneyTaken);
std::string_view to_string(Tone);
std::string_view to_string(NextStep);
std::string_view to_string(PayMethod);
// "exchange" | "bank" | "qr"; nullopt for anything else.
std::optional<PayMethod> pay_method_from(std::string_view name);

// ---- A checkout's payment ------------------------------------------------------------------------

// Whether a payment paid its order's total: `paid_amount` and `paid_currency` (the transaction's
// nativeAmount and nativeCurrency) present, equal as decimals to `order_amount` (the checkout's
// total, fixed when it was made) and in the same currency (letters compared case-insensitively).
// Anything else (missing, unreadable, another amount or currency) is an amount mismatch.
bool pays_order_total(std::string_view order_amount, std::string_view order_currency,
                      const std::optional<std::string>& paid_amount, const std::optional<std::string>& paid_currency);

// The state word a checkout's status is stored and shown under ("state" of the gateway's status
// JSON): the kind's name (to_string(StatusKind)), or "amount_mismatch" for a payment that did not
// pay its order's total. is_amount_mismatch_state() reads it back.
std::string_view checkout_state(StatusKind kind, bool amount_mismatch);
bool is_amount_mismatch_state(std::string_view state);

// What a checkout payment's status means. `method`: the payment's, when known; none is an exchange
// or bank payment of a checkout that offers both, read as exchange (the two read alike).
// `amount_mismatch`: never a success, tone warning, next contact_shop (the shop settles it).
StatusInfo describe_checkout_status(int code, std::optional<PayMethod> method, bool amount_mismatch);

// ---- Money owed ----------------------------------------------------------------------------------

// An amount with its currency: no amount crosses a boundary without one.
struct Money {
    Decimal amount;
    std::string currency;  // upper case
};

// An amount as every edge writes it (status JSON, events, the widget's events): a fiat currency's
// with at least its ISO 4217 minor unit of fraction digits (fiat_minor_units: "82.00" USD, "0.125"
// USD, "1500" JPY, "1.500" KWD), a crypto currency's in canonical form, every digit kept
// ("0.00064063", "82"). One format, so that "82" and "82.00" never name one amount twice.
std::string amount_text(const Money&);

// What a payment asks for, what arrived, and what is still owed, all in the currency the shopper
// pays in (the transaction's own `amount` and `currency`: crypto for a QR code, never the order's
// fiat total).
struct Owed {
    Money expected;
    Money received;   // zero when the service reported nothing
    Money remaining;  // expected - received, never below zero; zero once the status is a success
};
// `expected`: the transaction's amount and currency; `received`: its receivedAmount (same currency;
// nullopt counts as zero). Throws Error(validation, "amount") for a negative amount and
// Error(validation, "currency") for an empty currency.
Owed amounts_owed(const StatusInfo& status, const Money& expected, const std::optional<Decimal>& received);

}  // namespace paywasm
