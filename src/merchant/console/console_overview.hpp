// The console's overview page (console.hpp's "/"): today, the last 7 and 30 days, what needs the
// merchant, and a chart of paid orders a day. The figures are overview.hpp's (pure); this draws them.
#pragma once

#include <cstdint>

#include "server/static_files.hpp"
#include "gateway/gateway.hpp"

namespace merchant {

// The page at `now`, from orders.hpp's overview_figures (no store query of its own).
paywasm::server::Html overview_html(Gateway& gw, std::int64_t now);

}  // namespace merchant
