// The console overview's figures as a pure function (no database, no clock, no HTML): which orders
// count as paid and how much arrived, by the one order state of order_state.hpp. The console's page
// (console_overview.cpp) draws what this returns; tests/gateway/test_order_state.cpp checks it.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "rules/order_state.hpp"
#include "paywasm/decimal.hpp"

namespace merchant {

// One session as the overview reads it (OrderQueries::overview_rows: the differential test's side).
struct OverviewOrder {
    std::string currency, amount;  // the order's total
    std::string method;            // qr | exchange | bank; empty when not known
    std::string state;             // the session's state word
    bool success = false, final = false, accepted = false, paid_elsewhere = false, closed = false;
    // What arrived (receivedAmount) and the currency it arrived in (the transaction's own: crypto
    // for a QR code): what an accepted underpayment is worth.
    std::optional<std::string> received, received_currency;
    std::int64_t created_at = 0, status_at = 0;
};

// The overview's tally: every order counted once under what the overview reads of it, so that the
// figures of any run of whole days come from the tally alone (the database keeps the same tally as
// it writes the sessions: schema version 12, store/schema.cpp; tests/gateway/test_order_sql.cpp
// checks that it equals overview_tally() of the sessions' rows, on SQLite and PostgreSQL). Nothing
// in it depends on the clock: the figures never tell pending from expired, so no expiry is kept.
inline constexpr std::int64_t kDayMs = 86400000;
// The orders alike in everything the figures read, created on one day (UTC, created_at / kDayMs),
// and how many they are. An empty method is none known; no received amount or currency is none.
struct OverviewKind {
    std::int64_t day = 0;
    std::string state;
    bool success = false, final = false, accepted = false, paid_elsewhere = false, closed = false;
    std::string currency, amount, method;
    std::optional<std::string> received, received_currency;
    std::int64_t count = 0;
    auto key() const {
        return std::tie(day, state, success, final, accepted, paid_elsewhere, closed, currency, amount, method, received,
                        received_currency);
    }
};
// The final orders created on one day whose status came `seconds` whole seconds after they were
// created ((status_at - created_at) / 1000, status_at >= created_at), and how many.
struct OverviewTimes {
    std::int64_t day = 0, seconds = 0, count = 0;
    auto key() const { return std::tie(day, seconds); }
};
struct OverviewTally {
    std::vector<OverviewKind> kinds;  // sorted by key(), no count of 0
    std::vector<OverviewTimes> to_final;  // the same
};
// The tally of `rows`: the definition the database's tally must equal.
OverviewTally overview_tally(const std::vector<OverviewOrder>& rows);
// `t` sorted by key, kinds and times alike merged, counts of 0 dropped (the database's rows, as read).
OverviewTally normalized(OverviewTally t);

// The figures of the orders created on day `since_day` or later. Three kinds of paid, never summed
// together: the order totals a verified success paid (per currency and method); what arrived of the
// partly paid orders the merchant accepted (per currency it arrived in); the order totals of the
// orders the merchant said were paid elsewhere (their word, per currency). The median time to final
// is in whole seconds: the median of the whole seconds, which is the median's whole seconds.
struct OverviewCard {
    std::int64_t created = 0, paid = 0, finished = 0, partial = 0;
    std::int64_t verified = 0, accepted = 0, paid_elsewhere = 0;  // the paid orders of each kind
    std::map<std::pair<std::string, std::string>, paywasm::Decimal> verified_totals;  // currency, method
    std::map<std::string, paywasm::Decimal> accepted_arrived;                           // currency
    std::map<std::string, paywasm::Decimal> paid_elsewhere_totals;                      // currency
    std::optional<std::int64_t> median_to_final_s;
};
OverviewCard overview_card(const OverviewTally& t, std::int64_t since_day);
// The paid orders of each of the `days` days from `first_day` on (the chart).
std::vector<std::int64_t> paid_per_day(const OverviewTally& t, std::int64_t first_day, std::size_t days);

// The order's state (order_bucket) of one kind: paid, partial, failed, refunded or pending (an
// open order reads pending whether or not it expired: no figure tells them apart).
std::string_view overview_state(const OverviewKind& k);

}  // namespace merchant
