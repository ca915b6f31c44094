// An order's state, decided in one place: the core's order_bucket() (paywasm/order.hpp, read from
// the status table) of the facts a session's row holds, and kOrderBucketSql, the same rules over the
// same columns for the database (GET /v1/sessions?state=, the console's lists and the overview).
// Every reader (the app API's orderState, the list filters, the CSV, the console's pages, the
// overview) reads one of the two; tests/gateway/test_order_sql.cpp checks that the two agree for
// every state word the status table gives a checkout and every combination of the merchant's facts,
// on SQLite and PostgreSQL, and test_order_state.cpp checks the rules alone.
//
// The buckets: paid | partial | pending | failed | refunded | expired (and attention, a list of its
// own that reads the attempts: kAttentionSql, needs_attention() in attempts.hpp). The database
// sorts sessions into buckets by one SQL expression over their columns, indexed as is (schema
// version 9, with what makes a session an order since version 12: SQLite and PostgreSQL use an
// index on an expression only when the query writes the very same expression); "open" is split
// into pending and expired by the clock.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>
#include <string_view>

#include "paywasm/order.hpp"

namespace merchant {

// The order's state is the core's (paywasm/order.hpp): OrderFacts, and order_bucket(), the rules
// read from the status table.
using paywasm::OrderFacts;
using paywasm::order_bucket;

// The same rules for the database, over the sessions' columns; "open" stands for pending or expired
// (the caller splits it by expires_at).
inline constexpr const char* kOrderBucketSql =
    "(CASE WHEN success = 1 THEN 'paid' "
    "WHEN state = 'refund' THEN 'refunded' "
    "WHEN underpayment_accepted_at IS NOT NULL OR paid_elsewhere_at IS NOT NULL THEN 'paid' "
    "WHEN state IN ('partial', 'partial_closed', 'amount_mismatch') THEN 'partial' "
    "WHEN state IN ('failed', 'timed_out', 'canceled') OR closed_at IS NOT NULL THEN 'failed' "
    "WHEN state = 'open' THEN 'open' ELSE 'pending' END)";

// Which sessions are orders: a payment link's opening (GET /l/{id} makes a session per visit) is one
// once the shopper gave the link's fields (details_at: the hosted page asks them before any payment
// can start); until then it is a visit, in no list, export or count (the link's own page lists its
// visits), and goes with retention as any unpaid session.
inline constexpr const char* kIsOrderSql = "(link_id IS NULL OR details_at IS NOT NULL)";

// The filters GET /v1/sessions takes, in the order the console lists them.
inline constexpr std::string_view kOrderStates[] = {"attention", "partial", "paid", "pending", "failed", "refunded", "expired"};
bool is_order_state(std::string_view state);
// The code points of valid UTF-8 `text` (Boost.Locale's decoder), or nullopt (store_orders.cpp).
std::optional<std::vector<std::uint32_t>> utf8_decode(std::string_view text);

}  // namespace merchant
