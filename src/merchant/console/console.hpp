// The merchant's console (docs/merchant.md "The console"): pages served by paywasm-merchant on its
// own listener (--console-listen), never on the shoppers' one. Server-rendered HTML, no script at
// all: every value from a shop, a shopper or the service is inserted as escaped text
// (the page kit's Html, src/server/html.hpp), the page's CSP allows no script at all (script-src 'none'),
// nothing inline and no other origin.
// Each page reads and acts through the app API's own operations (orders.hpp), as the logged-in
// user, never through the store; only the login glue of console.cpp uses the store itself (its
// console group: logins, the audit log; the login rate limit). Every state-changing request is a
// POST carrying the login's CSRF token (403 without).
//   /login, /logout            the login form (a login token cookie against login CSRF), the end
//   /                          overview: today / 7 / 30 days, per currency and method, a chart
//   /orders, /orders/{id}      the list (filters, search, keyset pages) and an order's record
//   /orders.csv                the export (orders.hpp)
//   /events, /subscriptions, /audit
//   /api/sessions[/{id}], /api/events/{id}   the app API's JSON, for the logged-in user
// Its files (src/merchant/console):
//   console.cpp            the routes and the login glue
//   console_pages.hpp      one renderer per page (its own map)
//   console_html.hpp       the console's small HTML pieces
//   console_overview.hpp   the overview page's drawing of overview.hpp's figures
//   console_http.hpp       the hosts it answers, the origins its forms come from, its JSON's headers
//   console_assets.hpp     its page template and stylesheet (web/console), embedded at build time
// Its accounts and logins (scrypt passwords, the wrong-password windows) are gateway/console_auth.hpp's,
// shared with init, /metrics and the `console-user` command (program/console_users_cli.cpp).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "gateway/gateway.hpp"

namespace merchant {

// `public_origin`: the console's origin as its users' browsers see it (--console-origin), or empty:
// http:// and the Host a request names. https: the cookies are Secure. A form whose Origin is
// another, or "null", is refused (403). `hosts`: the Host values it answers (console_http.hpp
// console_hosts()); any other gets 421. Its JSON answers are no-store and nosniff.
// The routes refer to the returned object: keep it as long as `router` serves.
std::shared_ptr<void> register_console(Router& router, Gateway& gw, const std::string& public_origin,
                                       std::vector<std::string> hosts);

}  // namespace merchant
