// The order states' filter list (order_state.hpp); the rules are the core's (paywasm/order.hpp).
#include "rules/order_state.hpp"

#include <algorithm>
#include <iterator>

namespace merchant {

bool is_order_state(std::string_view state) {
    return std::find(std::begin(kOrderStates), std::end(kOrderStates), state) != std::end(kOrderStates);
}

}  // namespace merchant
