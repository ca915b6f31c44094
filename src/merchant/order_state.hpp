// An order's state as the console and the app API's list filter it (GET /v1/sessions?state=):
// paid | partial | pending | failed | refunded | expired (and attention, which reads the attempts).
// The database sorts sessions into buckets by one SQL expression over their columns, indexed as is
// (schema version 6: SQLite and PostgreSQL use an index on an expression only when the query
// writes the very same expression); "open" is split into pending and expired by the clock.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>
#include <string_view>

#include "session.hpp"

namespace merchant {

// paid: a verified success, or an underpayment the merchant accepted; partial: partly paid, or an
// amount that is not the order's total; failed: failed, timed out, canceled; refunded; open: no
// status yet (pending until it expires, expired after); pending: every other status (money may
// still move).
inline constexpr const char* kOrderBucketSql =
    "(CASE WHEN success = 1 OR underpayment_accepted_at IS NOT NULL THEN 'paid' "
    "WHEN state IN ('partial', 'partial_closed', 'amount_mismatch') THEN 'partial' "
    "WHEN state IN ('failed', 'timed_out', 'canceled') THEN 'failed' "
    "WHEN state = 'refund' THEN 'refunded' "
    "WHEN state = 'open' THEN 'open' ELSE 'pending' END)";

// The filters GET /v1/sessions takes, in the order the console lists them.
inline constexpr std::string_view kOrderStates[] = {"attention", "partial", "paid", "pending", "failed", "refunded", "expired"};
bool is_order_state(std::string_view state);
// The code points of valid UTF-8 `text` (Boost.Locale's decoder), or nullopt (store_console.cpp).
std::optional<std::vector<std::uint32_t>> utf8_decode(std::string_view text);

// The state of one session at `now`, by the same rules as kOrderBucketSql (never "attention": that
// is a list of its own).
std::string_view order_state(const Session& s, std::int64_t now);

}  // namespace merchant
