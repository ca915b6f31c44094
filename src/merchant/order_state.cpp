// The order state rules (order_state.hpp): pure.
#include "order_state.hpp"

#include <algorithm>
#include <iterator>

namespace merchant {

std::string_view order_bucket(const OrderFacts& f) {
    const std::string_view st = f.state;
    if (f.success) return "paid";
    if (st == "refund") return "refunded";
    if (f.accepted || f.paid_elsewhere) return "paid";
    if (st == "partial" || st == "partial_closed" || st == "amount_mismatch") return "partial";
    if (st == "failed" || st == "timed_out" || st == "canceled" || f.closed) return "failed";
    if (st == "open") return f.expired ? "expired" : "pending";
    return "pending";
}

bool is_order_state(std::string_view state) {
    return std::find(std::begin(kOrderStates), std::end(kOrderStates), state) != std::end(kOrderStates);
}

}  // namespace merchant
