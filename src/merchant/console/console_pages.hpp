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
//   console_links.cpp          /links, /links/new, /links/{id}, its poster (links.hpp)
//   console_pos.cpp            /pos and a sale's screen /pos/sales/{id} (sales.hpp)
//   console_mail.cpp           /mail: the user's own mail (mail_settings.hpp)
#pragma once

#include <string>
#include <string_view>

#include "console/console_html.hpp"
#include "gateway/gateway.hpp"
#include "gateway/mail_settings.hpp"
#include "gateway/sales.hpp"
#include "server/web_form.hpp"

namespace merchant {

// The console's files write with the page kit's pieces and the console's own (console_html.hpp).
using namespace console_html;

// A request's login: its session and the token its cookie carried.
struct Signed {
    ConsoleSession session;
    std::string token;
};

// A page as a renderer gives it: its title (the <title> and <h1>), its <main>, the navigation
// entry it is under ("/", "/orders", ...; "" for none), and its kind: a page runs no script; the
// point of sale's pages run the console's one script (web/console/pos.js) and are laid out for a
// phone; a sale still open reloads itself every 3 s where script is off.
struct ConsolePage {
    enum class Kind { page, pos, pos_following };
    std::string title;
    Html main;
    std::string current;
    Kind kind = Kind::page;
};

// <input type="hidden" name="csrf" value="..."> of a login: every form of a logged-in page has it.
Html hidden_csrf(const Signed& login);

// The whole document of `page` in `layout` (web/console/page.html): the navigation and the "Log out"
// form when `login` is given, the flash message named by `done` (a key of the console's own list:
// never a text from the request; unknown keys show nothing), the stylesheet at `css`, and for the
// point of sale's pages the script at `script`.
std::string console_document(std::string_view layout, const ConsolePage& page, const Signed* login, const std::string& done,
                             const std::string& css, const std::string& script);

ConsolePage render_login(const std::string& login_token, const char* message);
ConsolePage render_orders(Gateway& gw, const Request& req, const Signed& login);
ConsolePage render_order(Gateway& gw, const Signed& login, const std::string& id);  // HttpError 404: none
ConsolePage render_events(Gateway& gw, const Signed& login);
ConsolePage render_subscriptions(Gateway& gw);
ConsolePage render_audit(Gateway& gw, const Request& req);  // HttpError 400: a bad cursor

// Payment links (console_links.cpp). The form shows `given` (empty: a new form) and `error`.
ConsolePage render_links(Gateway& gw);
ConsolePage render_link_form(Gateway& gw, const Signed& login, const Form& given, const std::string& error);
ConsolePage render_link(Gateway& gw, const Signed& login, const std::string& id);  // HttpError 404: none
// The form's fields as POST /v1/links's request object (create_link checks it).
std::string link_request(const Form& form);
// The poster of link `id` (HttpError 404: none) in `layout` (web/console/poster.html): `size` a4 or
// a6, its stylesheets at `css` and `page_css`.
std::string render_poster(Gateway& gw, std::string_view layout, const std::string& id, const std::string& size,
                          const std::string& css, const std::string& page_css);

// The user's mail (console_mail.cpp): `current` as stored (read by the route), the form showing
// `given` (empty: a new form) and `error`.
ConsolePage render_mail(Gateway& gw, const Signed& login, const std::optional<MailSetting>& current, const Form& given,
                        const std::string& error);

// The point of sale (console_pos.cpp): the keypad, and a sale's screen (HttpError 404: not a sale).
ConsolePage render_pos(Gateway& gw, const Signed& login);
ConsolePage render_sale(Gateway& gw, const std::string& id);
// A sale's state (sales.hpp) as its screen says it, for the seller and the customer.
std::string sale_text(const SaleState& st);

}  // namespace merchant
