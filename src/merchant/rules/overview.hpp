// The console overview's figures as a pure function (no database, no clock, no HTML): which orders
// count as paid and how much arrived, by the one order state of order_state.hpp. The console's page
// (console_overview.cpp) draws what this returns; tests/gateway/test_order_state.cpp checks it.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "rules/order_state.hpp"
#include "paywasm/decimal.hpp"

namespace merchant {

// One session as the overview reads it (OrderQueries::overview_rows).
struct OverviewOrder {
    std::string currency, amount;  // the order's total
    std::string method;            // qr | exchange | bank; empty when not known
    std::string state;             // the session's state word
    bool success = false, final = false, accepted = false, paid_elsewhere = false, closed = false;
    // What arrived (receivedAmount) and the currency it arrived in (the transaction's own: crypto
    // for a QR code): what an accepted underpayment is worth.
    std::optional<std::string> received, received_currency;
    std::int64_t created_at = 0, expires_at = 0, status_at = 0;
};

// The figures of the orders created since a time. Three kinds of paid, never summed together: the
// order totals a verified success paid (per currency and method); what arrived of the partly paid
// orders the merchant accepted (per currency it arrived in); the order totals of the orders the
// merchant said were paid elsewhere (their word, per currency).
struct OverviewCard {
    std::int64_t created = 0, paid = 0, finished = 0, partial = 0;
    std::int64_t verified = 0, accepted = 0, paid_elsewhere = 0;  // the paid orders of each kind
    std::map<std::pair<std::string, std::string>, paywasm::Decimal> verified_totals;  // currency, method
    std::map<std::string, paywasm::Decimal> accepted_arrived;                           // currency
    std::map<std::string, paywasm::Decimal> paid_elsewhere_totals;                      // currency
    std::optional<std::int64_t> median_to_final_ms;
};
OverviewCard overview_card(const std::vector<OverviewOrder>& rows, std::int64_t since, std::int64_t now);

// The order's state (order_bucket) of one overview row at `now`.
std::string_view overview_state(const OverviewOrder& r, std::int64_t now);

}  // namespace merchant
