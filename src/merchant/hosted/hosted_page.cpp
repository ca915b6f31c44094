// The hosted checkout page (hosted.hpp): GET /pay/{sessionId} answers the page the session is at
// (a link's shopper fields, the order with the widget, the receipt, or "expired"), POST
// /pay/{id}/details takes a link session's fields, /assets/hosted/* and /assets/widget/* are the
// page's files. The session id is the capability, as for the widget's browser API: a page shows
// its own session and nothing else.
#include <regex>

#include "client/url.hpp"

#include "rules/events.hpp"
#include "hosted/hosted.hpp"
#include "hosted/hosted_details.hpp"
#include "paywasm/checkout.hpp"
#include "paywasm/codec.hpp"
#include "paywasm/order.hpp"
#include "paywasm/status.hpp"
#include "paywasm/validate.hpp"
#include "gateway/orders.hpp"
#include "server/gzip_pieces.hpp"
#include "server/page_pieces.hpp"
#include "server/util.hpp"
#include "server/web_form.hpp"

namespace merchant {

namespace {

using paywasm::client::http_origin;
using paywasm::server::Html;
using paywasm::server::page::link;
using paywasm::server::page::money;

// The pages' files, read once (register_hosted): web/hosted's, theme.css, the logo, the widget's.
struct Assets {
    StaticFiles own, widget;
    Html style;                   // <style>: hosted.css and theme.css, inline in every page
    std::string style_hash;       // its CSP source
    Html widget_script;           // <script>: paywasm.js, inline in a page with the widget
    std::string widget_hash;      // its CSP source
    std::string widget_deflated;  // widget_script as a DEFLATE piece (gzip_pieces.hpp), made once
    std::vector<std::string> connect;  // the widget page's connect-src: the service, the token URL
};
Assets* g_assets = nullptr;  // set once by register_hosted, before the server runs; read-only after
// Where page.html's {{widget}} is, in a rendered page: where the widget's script goes (send_page).
constexpr char kWidgetMark[] = "<!--widget-->";

const std::regex kSessionId("^[A-Za-z0-9_-]{1,200}$");

// The order's lines and total, from the session's checkout as the core wrote it; each line's amount
// is the core's (line_total).
Html order_table(const Words& w, const Session& s) {
    const auto checkout = paywasm::from_json<paywasm::Checkout>(s.checkout_json);
    Html rows;
    for (const auto& item : checkout.cart) {
        const paywasm::Money line = paywasm::line_total(item, checkout.currency);
        rows += Html::markup("<tr>") + Html::element("td", {}, item.name) +
                Html::element("td", {{"class", "num"}}, item.quantity.to_string()) +
                Html::element("td", {{"class", "num"}}, money(paywasm::amount_text(line), line.currency)) +
                Html::markup("</tr>");
    }
    return Html::markup("<section aria-labelledby=\"order-h\">") + Html::element("h2", {{"id", "order-h"}}, w("order.heading")) +
           Html::markup("<table><thead><tr>") + Html::element("th", {{"scope", "col"}}, w("order.item")) +
           Html::element("th", {{"scope", "col"}, {"class", "num"}}, w("order.qty")) +
           Html::element("th", {{"scope", "col"}, {"class", "num"}}, w("order.amount")) + Html::markup("</tr></thead><tbody>") +
           rows + Html::markup("</tbody><tfoot><tr>") + Html::element("th", {{"scope", "row"}, {"colspan", "2"}}, w("order.total")) +
           Html::element("td", {{"class", "num"}}, money(s.amount, s.currency)) + Html::markup("</tr></tfoot></table></section>");
}

Html paragraph(std::string_view text) { return Html::element("p", {}, text); }

// The receipt of a paid order (order_state.hpp's paid): a verified success; an underpayment the shop
// accepted (what arrived, in the currency it arrived in); or an attempt the shop resolved as paid
// after checking the service's portal (the reference the shopper's browser or the service gave).
Html receipt(const Words& w, const Session& s) {
    Html dl = Html::markup("<dl class=\"receipt\">");
    const auto row = [&dl](const std::string& term, const std::string& value) {
        dl += Html::element("dt", {}, term) + Html::element("dd", {}, value);
    };
    const bool verified = s.status.success;
    const bool accepted = !verified && s.underpayment_accepted_at.has_value();
    std::optional<std::string> reference = s.status.transaction_id;
    std::optional<paywasm::PayMethod> method = s.status.method;
    if (!verified && !accepted) {
        for (const auto& a : s.attempts) {
            if (a.resolution != std::optional<std::string>("paid_elsewhere")) continue;
            reference = a.transaction_id ? a.transaction_id : a.reported_transaction_id;
            method = a.method;
        }
    }
    row(w("receipt.order"), s.offer_id);
    row(w("receipt.orderTotal"), money(s.amount, s.currency));
    if (accepted && s.status.received_amount) {
        const std::string currency = s.status.tx_currency.value_or(s.currency);
        paywasm::Decimal arrived;
        row(w("receipt.arrived"), money(paywasm::Decimal::try_parse(*s.status.received_amount, arrived)
                                                   ? paywasm::amount_text({arrived, currency})
                                                   : *s.status.received_amount,
                                               currency));
    } else if (verified && s.status.tx_amount && s.status.tx_currency && *s.status.tx_currency != s.currency) {
        row(w("receipt.paid"), money(*s.status.tx_amount, *s.status.tx_currency));
    }
    row(w("receipt.method"), method ? w("method." + std::string(paywasm::to_string(*method))) : "—");
    if (verified || accepted) row(w("receipt.paidAt"), iso8601(s.status.updated_at));
    row(w("receipt.reference"), reference.value_or("—"));
    dl += Html::markup("</dl>");
    Html actions = Html::markup("<p class=\"actions\">") +
                   Html::element("button", {{"type", "button"}, {"id", "print"}}, w("receipt.print"));
    if (s.success_url) actions += link(*s.success_url, w("back"), "button");
    actions += Html::markup("</p>");
    const std::string said = verified ? "receipt.thanks" : accepted ? "receipt.accepted" : "receipt.confirmed";
    return Html::element("h1", {}, w("receipt.heading")) + paragraph(w(said)) + dl + order_table(w, s) + actions;
}

// An order the shop closed as not paid (an attempt resolved not_paid): a clear end, nothing to pay.
Html closed_page(const Words& w, const Session& s) {
    Html body = Html::element("h1", {}, w("closed.heading")) + paragraph(w("closed.text")) + order_table(w, s);
    if (s.cancel_url) body += Html::markup("<p>") + link(*s.cancel_url, w("back")) + Html::markup("</p>");
    return body;
}

// The expired page: a link's session offers a fresh checkout while the link still opens.
Html expired_page(Gateway& gw, const Words& w, const Session& s) {
    Html body = Html::element("h1", {}, w("expired.heading")) + paragraph(w("expired.text"));
    if (s.link_id) {
        LinkStore& links = gw.store.links;
        const auto l = links.find(*s.link_id);
        if (l && l->active && (!l->expires_at || now_ms() < *l->expires_at)) {
            body += Html::markup("<p class=\"actions\">") + link("/l/" + *s.link_id, w("expired.again"), "button") +
                    Html::markup("</p>");
        }
    }
    if (s.cancel_url) body += Html::markup("<p>") + link(*s.cancel_url, w("back")) + Html::markup("</p>");
    return body;
}

// A link session's fields (hosted_details.hpp): the order (unless the shopper chooses the amount),
// then the form.
Html details_form(const Words& w, const Session& s, const JsonDocument& spec, const Details& d, const DetailsRefusal& refusal) {
    Html body = Html::element("h1", {}, w("title.details"));
    if (!spec.root().member("customAmount").valid()) body += order_table(w, s);
    body += details_fields(w, s, spec, d, refusal);
    if (s.cancel_url) body += Html::markup("<p>") + link(*s.cancel_url, w("cancel")) + Html::markup("</p>");
    // The session's own address: a form answered at the link's URL (link_routes.cpp) takes it in the
    // address bar (hosted.js), so that a reload shows this session rather than opening another.
    body += Html::element("div", {{"id", "hosted"}, {"hidden", "hidden"}, {"data-page", "/pay/" + s.id}}, Html());
    return body;
}

// The checkout: the order, the time left, the widget on the session.
Html checkout_page(Gateway& gw, const Words& w, const Session& s) {
    const bool token = !gw.config.shopper_token_url.empty();
    // Without a way to the shopper's token only QR can be paid here: the widget offers it alone.
    paywasm::PayMethods offered = s.methods();
    if (!token) offered = offered.has(paywasm::PayMethod::qr) ? paywasm::PayMethods{paywasm::PayMethod::qr} : paywasm::PayMethods();
    const std::string methods = paywasm::to_string(offered, " ");
    Html body = Html::element("h1", {}, w("title.checkout")) + order_table(w, s);
    body += Html::markup("<p class=\"muted\">") + Html::text(w("checkout.timeLeft")) + Html::markup(" <span id=\"time-left\">") +
            Html::text(iso8601(s.expires_at)) + Html::markup("</span></p>");
    if (methods.empty()) {
        body += paragraph(w("checkout.noMethod"));
    } else {
        // The widget speaks the page's language (its locale attribute), not the browser's own pick.
        // The bank method also needs the merchant's account (--bank-account-id) and the shopper's
        // (stock-id: hosted.js sets it from the token URL's answer); the widget hides it otherwise.
        const std::string url = "/v1/checkout/" + s.id;
        const auto account = gw.config.bank_account_id.empty() ? std::nullopt : std::optional(gw.config.bank_account_id);
        // Its inline JSON holds the session view (GET /v1/checkout/{id}'s answer, as of this page):
        // the widget draws from it without a request of its own (web/src/flows.js readSession).
        body += Html::element("paywasm-checkout",
                              {{"session-url", url}, {"methods", methods}, {"theme", "auto"}, {"locale", w.lang()}, {"account-id", account}},
                              Html::json_data("{\"checkout\":" + checkout_view(gw, s) + "}"));
    }
    // data-status and data-version: the status stream hosted.js follows for the shop's decisions,
    // and the order's version this page shows (only a later one loads the page again).
    body += Html::element("div", {{"id", "hosted"}, {"hidden", "hidden"}, {"data-page", "/pay/" + s.id},
                                  {"data-expires", iso8601(s.expires_at)}, {"data-expired", w("expired.short")},
                                  {"data-token-url", gw.config.shopper_token_url},
                                  {"data-status", "/v1/checkout/" + s.id + "/status"},
                                  {"data-version", std::to_string(s.status.version)}},
                          Html());
    if (s.cancel_url) body += Html::markup("<p>") + link(*s.cancel_url, w("cancel")) + Html::markup("</p>");
    return body;
}

// A form post from the gateway's own page, or from no browser at all: a browser says where a POST
// comes from (Origin, and Sec-Fetch-Site where it sends it), and another site's page, which could
// make a visitor's browser send a session's fields, is refused with 403 cross_site_form. The
// pages' Referrer-Policy is same-origin so that a browser names the page's origin here (under
// no-referrer it sends "Origin: null"). A client that sends neither header is no browser a
// third site could drive, and is read as any API client.
void require_own_origin(const Gateway& gw, Req req) {
    const std::string site = req.get_header_value("Sec-Fetch-Site");
    const std::string origin = req.get_header_value("Origin");
    const bool site_ok = site.empty() || site == "same-origin" || site == "none";
    const bool origin_ok = origin.empty() || http_origin(origin) == http_origin(gw.config.public_url);
    if (!site_ok || !origin_ok) {
        throw HttpError(403, "cross_site_form", "this form is taken only from its own checkout page");
    }
}

}  // namespace

void shopper_route(Router& server, std::string_view method, const std::string& pattern, std::size_t limit, Gateway& gw,
                   std::function<void(Req, Res, Body)> handler) {
    server.route(method, pattern, limit, [&gw, handler = std::move(handler)](Req req, Res res, Body body) {
        paywasm::server::guard(res, [&] { handler(req, res, body); });
        if (res.status < 400 || res.get_header_value("Content-Type").rfind("application/json", 0) != 0) return;
        if (!wants_html(req)) return;
        const int status = res.status;
        const std::string retry = res.get_header_value("Retry-After");
        res.headers.clear();
        if (!retry.empty()) res.set_header("Retry-After", retry);
        const Words& w = words_for(req);
        const bool later = status >= 500 || status == 429;  // the gateway's or the service's trouble: try again
        send_page(gw, req, res, w, status, w("title.error"),
                  Html::element("h1", {}, w(later ? "error.later" : "error.request")) +
                      Html::element("p", {}, w(later ? "error.later.text" : "error.request.text")),
                  false);
    });
}

void send_page(Gateway& gw, Req req, Response& res, const Words& words, int status, const std::string& title, const Html& body,
               bool with_widget) {
    const Assets& a = *g_assets;
    Csp csp;
    csp.wasm = with_widget;
    if (with_widget) csp.connect_src = a.connect;
    csp.img_src = {"data:"};  // the widget draws its QR code as a data: image
    csp.style_hashes = {a.style_hash};
    Html head;
    if (with_widget) {
        // The inline script has no URL of its own: the widget finds paywasm.wasm and its language
        // files beside the document's base (web/src/assets.js). Every URL the page writes is absolute.
        head += Html::void_element("base", {{"href", "/assets/widget/"}});
        csp.script_hashes = {a.widget_hash};
        csp.base_self = true;
    }
    head += a.style;
    head += Html::element("script", {{"src", a.own.url("/assets/hosted/", "hosted.js")}, {"defer", "defer"}}, Html());
    Html logo;
    for (const char* name : {"logo.png", "logo.svg"}) {
        if (a.own.find(name)) logo = Html::void_element("img", {{"alt", ""}, {"src", a.own.url("/assets/hosted/", name)}});
    }
    // The widget's script goes where {{widget}} is: the page is split there, so that its gzip is the
    // page's own bytes compressed now around the script's piece compressed at start.
    const std::string page = render(a.own.find("page.html")->body,
                                    {{"lang", Html::text(words.lang())},
                                     {"title", Html::text(title + " · " + gw.config.shop_name)},
                                     {"head", head},
                                     {"logo", logo},
                                     {"shop", Html::text(gw.config.shop_name)},
                                     {"footer", Html::text(words("footer"))},
                                     {"body", body},
                                     {"widget", Html::markup(kWidgetMark)}});
    // (The mark is found once: every value render() wrote is escaped, so none holds a '<'.)
    const std::size_t at = page.find(kWidgetMark);
    const std::string_view before = std::string_view(page).substr(0, at);
    const std::string_view after = std::string_view(page).substr(at + std::string_view(kWidgetMark).size());
    const std::string_view widget = with_widget ? std::string_view(a.widget_script.str()) : std::string_view();
    page_headers(res, csp);
    res.set_header("Content-Language", words.lang());
    res.set_header("Vary", "Accept-Language, Accept-Encoding");
    res.status = status;
    if (paywasm::server::accepts_gzip(req.get_header_value("Accept-Encoding"))) {
        res.set_header("Content-Encoding", "gzip");
        res.set_content(paywasm::server::gzip_join({{before, {}}, {widget, with_widget ? a.widget_deflated : std::string_view()}, {after, {}}}),
                        "text/html; charset=utf-8");
    } else {
        res.set_content(std::string(before).append(widget).append(after), "text/html; charset=utf-8");
    }
}

bool wants_html(Req req) { return req.get_header_value("Accept").find("text/html") != std::string::npos; }

void send_session_page(Gateway& gw, Req req, Res res, const Session& s) {
    const Words& w = words_for(req);
    // The page follows the order's one state (order_state.hpp): paid (verified, accepted by the
    // shop, or paid elsewhere by its word) is the receipt; closed by the shop as not paid, a clear
    // end; expired with nothing paid, "expired"; anything else (a release included), the checkout.
    const std::string_view state = order_state(s, now_ms());
    if (state == "paid") return send_page(gw, req, res, w, 200, w("title.receipt"), receipt(w, s), false);
    if (state == "failed" && s.closed_at) return send_page(gw, req, res, w, 200, w("title.closed"), closed_page(w, s), false);
    if (state == "expired") return send_page(gw, req, res, w, 410, w("title.expired"), expired_page(gw, w, s), false);
    if (s.link_id && !s.status.status) {
        LinkStore& links = gw.store.links;
        if (!links.details_given(s.id)) {
            const auto l = links.find(*s.link_id);
            const JsonDocument spec = paywasm::parse_json(l ? l->spec : "{}");
            return send_page(gw, req, res, w, 200, w("title.details"), details_form(w, s, spec, {}, {}), false);
        }
    }
    send_page(gw, req, res, w, 200, w("title.checkout"), checkout_page(gw, w, s), true);
}

void register_hosted(Router& server, Gateway& gw) {
    static Assets assets;
    // The widget's own files only (its script, its two modules, its stylesheet, its languages): a
    // --widget-dir that also holds a package, notes or keys serves none of them on the gateway's origin.
    static const std::regex kWidgetFile(R"(paywasm\.(js|css|wasm)|paywasm-nosimd\.wasm|paywasm-[A-Za-z]{2}(-[A-Za-z]{2})?\.json)");
    assets.widget = StaticFiles::load(gw.config.widget_dir, {"paywasm.js", "paywasm.wasm", "paywasm.css"},
                                      [](const std::string& name) { return std::regex_match(name, kWidgetFile); });
    auto files = hosted_files();
    load_words(files);
    for (auto& [name, body] : files) {
        if (name.rfind("text-", 0) != 0) assets.own.add(name, std::move(body));  // the words are the program's, not files
    }
    // The shop's colour, validated at start (main.cpp), and a text colour that reads on it.
    const auto channel = [&](int i) { return std::stoi(gw.config.shop_colour.substr(1 + 2 * i, 2), nullptr, 16); };
    const double luma = 0.2126 * channel(0) + 0.7152 * channel(1) + 0.0722 * channel(2);
    assets.own.add("theme.css", ":root { --brand: " + gw.config.shop_colour + "; --brand-text: " +
                                    (luma > 150 ? "#000" : "#fff") + "; }\n");
    if (!gw.config.shop_logo.empty()) {
        assets.own.add(gw.config.shop_logo_type == "image/svg+xml" ? "logo.svg" : "logo.png", gw.config.shop_logo);
    }
    // Inline: the stylesheet in every page, the widget's script in a checkout page (send_page).
    const std::string css = assets.own.find("hosted.css")->body + assets.own.find("theme.css")->body;
    assets.style = Html::inline_code("style", css);
    assets.style_hash = paywasm::server::csp_sha256(css);
    const std::string& script = assets.widget.find("paywasm.js")->body;
    assets.widget_script = Html::inline_code("script", script);
    assets.widget_hash = paywasm::server::csp_sha256(script);
    assets.widget_deflated = paywasm::server::deflate_piece(assets.widget_script.str(), 9);
    g_assets = &assets;
    const std::size_t limit = gw.config.max_body;
    const std::string service_origin = http_origin(gw.config.public_service_url.empty() ? gw.config.service_url : gw.config.public_service_url);
    // The shop's token endpoint is called from the page, with the shop's cookies.
    assets.connect = {service_origin};
    if (!gw.config.shopper_token_url.empty()) assets.connect.push_back(http_origin(gw.config.shopper_token_url));

    server.route("GET", R"(/assets/hosted/([A-Za-z0-9._-]+))", limit, [](Req req, Res res, Body) {
        // The template is the gateway's own source, not a page.
        if (req.matches[1] == "page.html" || !g_assets->own.serve(req, res, req.matches[1])) {
            throw HttpError(404, "not_found", "no such file");
        }
    });
    server.route("GET", R"(/assets/widget/([A-Za-z0-9._-]+))", limit, [](Req req, Res res, Body) {
        if (!g_assets->widget.serve(req, res, req.matches[1])) throw HttpError(404, "not_found", "no such file");
    });

    shopper_route(server, "GET", R"(/pay/([A-Za-z0-9_-]+))", limit, gw, [&gw](Req req, Res res, Body) {
        const auto s = gw.store.sessions.session(req.matches[1]);
        if (!s) {
            const Words& w = words_for(req);
            return send_page(gw, req, res, w, 404, w("title.notFound"),
                             Html::element("h1", {}, w("notFound.checkout")) + paragraph(w("notFound.text")), false);
        }
        send_session_page(gw, req, res, *s);
    });

    // A link session's fields, from its form: read by the core's rules, then the checkout is
    // replaced (LinkStore::set_details) and the shopper goes on to pay (303 to the page).
    shopper_route(server, "POST", R"(/pay/([A-Za-z0-9_-]+)/details)", limit, gw, [&gw](Req req, Res res, Body body) {
        auto s = gw.store.sessions.session(req.matches[1]);
        require_own_origin(gw, req);
        if (!s || !s->link_id) throw HttpError(404, "not_found", "no link checkout with this id");
        const Details d = read_details(paywasm::server::read_form(req, body, 1000));
        const Words& w = words_for(req);
        LinkStore& links = gw.store.links;
        const auto l = links.find(*s->link_id);
        if (!l) throw HttpError(404, "not_found", "no link checkout with this id");
        const JsonDocument spec = paywasm::parse_json(l->spec);
        auto checkout = paywasm::from_json<paywasm::Checkout>(s->checkout_json);
        if (const auto refusal = apply_details(w, spec, d, s->offers(paywasm::PayMethod::qr), checkout)) {
            return send_page(gw, req, res, w, 400, w("title.details"), details_form(w, *s, spec, d, *refusal), false);
        }
        const std::string json = paywasm::to_json(checkout);
        const std::string amount = paywasm::amount_text({paywasm::cart_total(checkout.cart), checkout.currency});
        const std::int64_t now = now_ms();
        if (!links.set_details(s->id, json, paywasm::sha256_hex(json), amount, now + gw.config.session_ttl_ms, now)) {
            // Given already (a second tab, a double submit), or expired: the page says which.
            res.status = 303;
            res.set_header("Location", "/pay/" + s->id);
            res.set_header("Cache-Control", "no-store");
            return;
        }
        gw.hub.notify(s->id);
        res.status = 303;
        res.set_header("Location", "/pay/" + s->id);
        res.set_header("Cache-Control", "no-store");
    });
}

}  // namespace merchant
