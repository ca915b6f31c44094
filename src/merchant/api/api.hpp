// The API wing (src/merchant/api): the routes on the shoppers' listener that answer JSON to a
// program or the widget, each group registered by main.cpp.
//   app_api.cpp      /v1/sessions, /v1/subscriptions, /v1/events   the shop's server (Bearer $PAYWASM_APP_SECRET)
//   browser_api.cpp  /v1/checkout/{id}[/qr|/status|/attempts]     the widget (CORS for --shop-origin only)
//   webhooks.cpp     /v1/webhooks                                 the service's signed status changes
//   health.hpp       /healthz, /readyz, /metrics
// The operations they call are the gateway part's (gateway/orders.hpp, session_factory.hpp,
// app_requests.hpp); the wire shapes rules/events.hpp's.
#pragma once

#include "gateway/gateway.hpp"

namespace merchant {

void register_app_api(Router& server, Gateway& gw);
void register_browser_api(Router& server, Gateway& gw);
void register_webhooks(Router& server, Gateway& gw);

}  // namespace merchant
