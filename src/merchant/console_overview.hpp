// The console's overview page (console.hpp's "/"): today, the last 7 and 30 days, what needs the
// merchant, and a chart of paid orders a day. The figures are overview.hpp's (pure); this draws them.
#pragma once

#include <cstdint>

#include "server/static_files.hpp"
#include "store.hpp"

namespace merchant {

// Failed deliveries in a row after which a pending event counts as refused by the app (the overview's
// "needs attention"; the forwarder keeps retrying it).
inline constexpr std::int64_t kFailingEventAttempts = 3;

paywasm::server::Html overview_html(Store& store, std::int64_t now);

}  // namespace merchant
