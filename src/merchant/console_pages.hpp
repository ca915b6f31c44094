// The console's pages (console.hpp): each renderer returns a page's title and content from typed
// records read through orders.hpp (never the store); console.cpp's routes wrap it in the layout.
//   console_layout.cpp         the document around every page: head, navigation, flash, CSS link
//                              (web/console/page.html and console.css, embedded: console_assets.hpp)
//   console_login.cpp          /login's form
//   console_overview.cpp       /  (console_overview.hpp)
//   console_orders.cpp         /orders: filters, search, keyset pages, the bulk resolve
//   console_order.cpp          /orders/{id}: facts, ship-to, cart, transactions, attempts, timeline
//   console_events.cpp         /events
//   console_subscriptions.cpp  /subscriptions
//   console_audit.cpp          /audit
#pragma once

#include <string>
#include <string_view>

#include "console_html.hpp"
#include "gateway.hpp"

namespace merchant {

// The console's files write with the page kit's pieces and the console's own (console_html.hpp).
using namespace console_html;

// A request's login: its session and the token its cookie carried.
struct Signed {
    ConsoleSession session;
    std::string token;
};

// A page as a renderer gives it: its title (the <title> and <h1>), its <main>, and the navigation
// entry it is under ("/", "/orders", ...; "" for none).
struct ConsolePage {
    std::string title;
    Html main;
    std::string current;
};

// <input type="hidden" name="csrf" value="..."> of a login: every form of a logged-in page has it.
Html hidden_csrf(const Signed& login);

// The whole document of `page` in `layout` (web/console/page.html): the navigation and the "Log out"
// form when `login` is given, the flash message named by `done` (a key of the console's own list:
// never a text from the request; unknown keys show nothing), the stylesheet at `css`.
std::string console_document(std::string_view layout, const ConsolePage& page, const Signed* login, const std::string& done,
                             const std::string& css);

ConsolePage render_login(const std::string& login_token, const char* message);
ConsolePage render_orders(Gateway& gw, const Request& req, const Signed& login);
ConsolePage render_order(Gateway& gw, const Signed& login, const std::string& id);  // HttpError 404: none
ConsolePage render_events(Gateway& gw, const Signed& login);
ConsolePage render_subscriptions(Gateway& gw);
ConsolePage render_audit(Gateway& gw, const Request& req);  // HttpError 400: a bad cursor

}  // namespace merchant
