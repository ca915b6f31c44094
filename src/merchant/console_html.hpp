// The console's small HTML pieces (console.cpp and its other page files): every text goes in
// escaped (static_files.hpp's Html).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>

#include "server/static_files.hpp"
#include "ship_to.hpp"

namespace merchant::console_html {

using paywasm::server::Html;

// An amount and its currency, as every console page writes them.
std::string money(const std::string& amount, const std::string& currency);
// A time, in one format on every page: <time datetime="ISO">YYYY-MM-DD HH:MM:SS UTC</time>.
Html when(std::int64_t t);
Html link(const std::string& href, std::string_view text);
Html state_badge(std::string_view state);
// A table row of `cells`; a table with its caption and column names (a paragraph "none" when empty).
Html row(std::initializer_list<Html> cells);
Html table(const char* caption, std::initializer_list<const char*> names, const Html& body);
// What the seller needs to ship an order, as the order page shows it: name, e-mail, address, the
// products and the payment link, each "not given" when the checkout has none.
Html ship_to_section(const ShipTo& t);
// The lists' cell: the name and e-mail, then the products.
Html ship_to_cell(const ShipTo& t);

}  // namespace merchant::console_html
