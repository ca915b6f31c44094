// Hosted checkout and payment links (docs/merchant.md "No front end? Hosted checkout and payment
// links"): pages the gateway serves itself, for a seller with no web page of their own.
// The part's files (src/merchant/hosted):
//   hosted_page.cpp     GET /pay/{sessionId} (the order, the widget in session mode, the receipt, the
//                       expired page), POST /pay/{id}/details (a link's shopper fields), /assets/...
//   link_routes.cpp     the links' routes: the app API's /v1/links and the public opening GET /l/{linkId}
//   hosted_words.cpp    the pages' words in the widget's languages (Words)
//   hosted_details.hpp  a link's shopper fields: the form, its reading, the countries it lists
//   countries.cpp       those countries (ISO 3166-1, each language's names; scripts/countries.py)
// The link operations (gateway/links.hpp, shared with the console's link pages) and the point of
// sale's sales (gateway/sales.hpp) are the gateway part's; the links table is the store's links
// group (store_links.hpp, LinkStore); a link's opening makes its session with
// session_factory.hpp's open_session, as the app API does.
// Every page is rendered with the page kit (src/server/html.hpp, page_pieces.hpp, web_form.hpp,
// accept_list.hpp) and src/server/static_files.hpp: escaped values only, under a strict
// Content-Security-Policy (no inline script or style; 'self' and the service's origin).
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gateway/gateway.hpp"
#include "server/static_files.hpp"

namespace merchant {

// The embedded files of web/hosted (hosted_files.cpp, generated at build time).
std::vector<std::pair<std::string, std::string>> hosted_files();

// Registers the hosted pages and their assets (needs --widget-dir) and the links.
void register_hosted(Router& server, Gateway& gw);
void register_links(Router& server, Gateway& gw);

// The pages' own words in one of the widget's languages (en, de, es, fr, pt-BR, pt-PT): the
// embedded web/hosted/text-<lang>.json, each with every key of text-en.json (checked at start:
// load_words throws std::logic_error naming the file and key otherwise).
class Words {
public:
    const std::string& lang() const { return lang_; }
    // The text of `key`, its {name} placeholders filled from `vars` (as text: the page escapes it).
    // An unknown key throws std::logic_error (a program and its texts never drift apart silently).
    std::string operator()(std::string_view key,
                           std::initializer_list<std::pair<std::string_view, std::string>> vars = {}) const;

private:
    friend void load_words(const std::vector<std::pair<std::string, std::string>>& files);
    std::string lang_;
    std::map<std::string, std::string, std::less<>> texts_;
};
// Reads the text-<lang>.json files among `files` (hosted_files()); once, before the server runs.
void load_words(const std::vector<std::pair<std::string, std::string>>& files);
// The language a request's Accept-Language prefers among those (highest q first, q=0 never; "pt"
// and "pt-BR" are Brazilian, other Portuguese regions European), English when none matches.
const Words& words_for(const Request& req);

// What both files render: a whole page (the shop's header, `title`, `body`, in `words`' language),
// its headers set, `status` as the HTTP status. The page carries its stylesheet inline (no request
// before the first paint); `with_widget`: the widget's script too, at the end of the body (after the
// element and its inline JSON, which holds the session view: checkout_page), with a <base> at the
// widget's folder so that the script finds its module and language files, each inline code allowed
// by its hash in the page's CSP. Sent gzip-compressed to a client that takes gzip, the inline widget
// compressed once at start (gzip_pieces.hpp): `req` says which. A page with the widget may connect
// to the payment service and the shop's token URL (its CSP's connect-src).
void send_page(Gateway& gw, Req req, Response& res, const Words& words, int status, const std::string& title,
               const paywasm::server::Html& body, bool with_widget);

// Whether the client asks for HTML (its Accept names text/html): a browser, which gets pages; any
// other client gets the API's answers (JSON, a 303).
bool wants_html(Req req);

// The page session `s` is at (GET /pay/{id}): by the order's one state (order_state.hpp), the
// receipt, the shop's closing, "expired" (410), a link session's shopper fields, or the checkout.
void send_session_page(Gateway& gw, Req req, Res res, const Session& s);

// A route whose answers a shopper's browser shows (/l/{id}, /pay/{id}, its form): any error answer
// the handler leaves (a thrown HttpError, the database away: 503, anything unforeseen: 500) is a
// page in the shop's look and the shopper's language, with what to do next, when the client asks for
// HTML (Accept: text/html); any other client keeps the API's JSON. The status and Retry-After stay.
void shopper_route(Router& server, std::string_view method, const std::string& pattern, std::size_t limit, Gateway& gw,
                   std::function<void(Req, Res, Body)> handler);

}  // namespace merchant
