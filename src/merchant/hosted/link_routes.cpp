// Payment links' routes (hosted.hpp; the operations are gateway/links.hpp's): the app API creates,
// lists, reads and deactivates links (/v1/links, Bearer $PAYWASM_APP_SECRET), and prints their QR
// code; a shopper opens one at GET /l/{linkId}: a new session for that visitor, 303 to its hosted
// page (HEAD: none, 200). Opening creates a session, so it is rate-limited per client address and
// per link, and a link session lives --link-session-ttl until the shopper gives their fields (then
// --session-ttl).
#include "gateway/app_requests.hpp"
#include "gateway/links.hpp"
#include "gateway/session_factory.hpp"
#include "hosted/hosted.hpp"
#include "paywasm/checkout.hpp"
#include "paywasm/codec.hpp"
#include "paywasm/order.hpp"
#include "paywasm/qr.hpp"
#include "server/client_address.hpp"
#include "server/util.hpp"

namespace merchant {

namespace {

using paywasm::server::Html;

const Actor kApp{"app", ""};
}  // namespace

void register_links(Router& server, Gateway& gw) {
    const std::size_t limit = gw.config.max_body;

    // POST /v1/links {name?, currency, cart | customAmount {min, max, label?}, methods?, collectShipping?,
    // successUrl?, cancelUrl?, usageLimit?, expiresAt?} -> 201 the link.
    server.route("POST", "/v1/links", limit, [&gw](Req req, Res res, Body body) {
        require_app(gw, req);
        const JsonDocument doc = parse_object(req, body);
        const Link l = create_link(gw, doc.root(), kApp);
        send_json(res, 201, link_json(link_record(gw, l.id, false), false));
    });

    server.route("GET", "/v1/links", limit, [&gw](Req req, Res res, Body) {
        require_app(gw, req);
        JsonWriter w;
        w.begin_object().key("links").begin_array();
        for (const auto& r : link_list(gw)) w.raw(link_json(r, false));
        w.end_array().end_object();
        send_json(res, 200, w.take());
    });

    server.route("GET", R"(/v1/links/([A-Za-z0-9_-]+))", limit, [&gw](Req req, Res res, Body) {
        require_app(gw, req);
        send_json(res, 200, link_json(link_record(gw, req.matches[1], true), true));
    });

    // PATCH /v1/links/{id} {"active": false | true}
    server.route("PATCH", R"(/v1/links/([A-Za-z0-9_-]+))", limit, [&gw](Req req, Res res, Body body) {
        require_app(gw, req);
        const JsonDocument doc = parse_object(req, body);
        JsonValue active = doc.root().member("active");
        if (!has_kind(active, paywasm::JsonKind::boolean)) throw HttpError(400, "validation", "active is true or false", "active");
        send_json(res, 200, link_json(set_link_active(gw, req.matches[1], active.boolean(), kApp), true));
    });

    // The link's URL as a QR code, SVG (the core's qrcodegen), for printing.
    server.route("GET", R"(/v1/links/([A-Za-z0-9_-]+)/qr\.svg)", limit, [&gw](Req req, Res res, Body) {
        require_app(gw, req);
        const LinkRecord l = link_record(gw, req.matches[1], false);
        res.set_header("Cache-Control", "no-store");
        res.set_header("X-Content-Type-Options", "nosniff");
        res.set_header("Content-Security-Policy", "default-src 'none'; sandbox");
        res.status = 200;
        res.set_content(paywasm::qr_svg(paywasm::qr_encode(l.url)), "image/svg+xml");
    });

    // Opening a link: a new session for this visitor, and its hosted page (a browser) or a 303 to it.
    shopper_route(server, "GET", R"(/l/([A-Za-z0-9_-]+))", limit, gw, [&gw](Req req, Res res, Body) {
        // (Cache-Control: no-store on every answer: a page's own headers say it, the others below.)
        const Words& w = words_for(req);
        // Over a limit: a page in the shopper's language (429, Retry-After), not the API's JSON.
        const auto limited = [&](const std::string& key, int per_minute, const char* what) {
            try {
                gw.rate_limit(key, per_minute, res, what);
                return false;
            } catch (const HttpError& e) {
                if (e.status != 429) throw;
                send_page(gw, req, res, w, 429, w("title.busy"),
                          Html::element("h1", {}, w("busy.link")) + Html::element("p", {}, w("busy.text")), false);
                return true;
            }
        };
        // Per client first: guessing ids costs the guesser's own tokens.
        if (limited("link-client:" + paywasm::server::client_key(req.remote_addr), gw.config.link_rate_per_client,
                    "link openings from this address a minute")) {
            return;
        }
        LinkStore& links = gw.store.links;
        const auto l = links.find(req.matches[1]);
        if (!l) {
            return send_page(gw, req, res, w, 404, w("title.notFound"),
                             Html::element("h1", {}, w("notFound.link")) + Html::element("p", {}, w("notFound.text")), false);
        }
        if (const std::string why = closed_reason(links, *l); !why.empty()) {
            return send_page(gw, req, res, w, 410, w("title.linkClosed"),
                             Html::element("h1", {}, w("link.closed")) + Html::element("p", {}, w(why)) +
                                 Html::element("p", {}, w("link.nothingCharged")),
                             false);
        }
        if (req.method == "HEAD") {
            // A link previewer or a mail scanner: the link is there and open; no session is made.
            res.set_header("Cache-Control", "no-store");
            res.status = 200;
            res.set_content("", "text/html; charset=utf-8");
            return;
        }
        if (limited("link:" + l->id, gw.config.link_rate_per_link, "openings of this link a minute")) return;
        const JsonDocument spec = paywasm::parse_json(l->spec);
        const paywasm::Checkout checkout = link_checkout(spec, "link_" + random_hex(12));
        Session s;
        s.methods_csv = paywasm::to_string(methods_of(spec.root().member("methods"), gw.config.methods));
        s.link_id = l->id;
        s.sold_by = l->sold_by;
        if (JsonValue v = spec.root().member("successUrl"); v.valid()) s.success_url = std::string(v.text());
        if (JsonValue v = spec.root().member("cancelUrl"); v.valid()) s.cancel_url = std::string(v.text());
        bool created = false;
        const Session stored =
            open_session(gw, checkout, std::move(s), std::min(gw.config.link_open_ttl_ms, gw.config.session_ttl_ms), created);
        // A browser gets the session's page at once: one round trip less than following a redirect
        // (0.56 s on a phone's slow network); the page puts its own address in the address bar
        // (hosted.js), so a reload shows this session. Any other client is sent there (303).
        if (wants_html(req)) return send_session_page(gw, req, res, stored);
        res.status = 303;
        res.set_header("Location", "/pay/" + stored.id);
        res.set_header("Cache-Control", "no-store");
        res.set_content("", "text/plain");
    });
}

}  // namespace merchant
