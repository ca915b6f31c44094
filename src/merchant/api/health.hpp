// paywasm-merchant's health and figures, on the app side (docs/merchant.md, "Health and metrics"):
//   GET /healthz   200 while the process serves
//   GET /readyz    200 when the database answers and the outbox is not stuck, else 503
//   GET /metrics   Prometheus text (Bearer $PAYWASM_METRICS_TOKEN, its own bearer; unset: 404):
//                  requests by route and status, webhook outcomes, open streams and connections,
//                  outbox depth and oldest age, database latency
#pragma once

#include <atomic>

#include "gateway/gateway.hpp"
#include "server/server.hpp"

namespace merchant {

// Registers the three routes, and a post-routing hook on `server` that counts webhook outcomes.
// `http` is the running server (connections, streams), set once it exists; null before.
void register_health(Router& server, Gateway& gw, std::atomic<const paywasm::server::Server*>& http);

}  // namespace merchant
