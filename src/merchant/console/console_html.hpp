// The console's small HTML pieces (console.cpp and its other page files): every text goes in
// escaped (the page kit's Html, src/server/html.hpp).
#pragma once

#include <string>
#include <string_view>

#include "server/page_pieces.hpp"
#include "server/static_files.hpp"
#include "rules/ship_to.hpp"

namespace merchant::console_html {

using paywasm::server::Html;
// The page kit's pieces (money, when, link, row, table), as every console page writes them.
using paywasm::server::page::link;
using paywasm::server::page::money;
using paywasm::server::page::row;
using paywasm::server::page::table;
using paywasm::server::page::when;

// An order state (order_state.hpp) as a badge: <span class="state-STATE">STATE</span>.
Html state_badge(std::string_view state);
// What the seller needs to ship an order, as the order page shows it: name, e-mail, address, the
// products and the payment link, each "not given" when the checkout has none.
Html ship_to_section(const ShipTo& t);
// The lists' cell: the name and e-mail, then the products.
Html ship_to_cell(const ShipTo& t);

}  // namespace merchant::console_html
