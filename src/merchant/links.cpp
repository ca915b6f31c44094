// Payment links (hosted.hpp): the app API creates, lists, reads and deactivates them
// (/v1/links, Bearer $PAYWASM_APP_SECRET), and prints their QR code; a shopper opens one at
// GET /l/{linkId}: a new session for that visitor, 303 to its hosted page (HEAD: none, 200). Opening creates a
// session, so it is rate-limited per client address and per link, and a link session lives
// --link-session-ttl until the shopper gives their fields (then --session-ttl).

#include "events.hpp"
#include "hosted.hpp"
#include "paywasm/checkout.hpp"
#include "paywasm/codec.hpp"
#include "paywasm/order.hpp"
#include "paywasm/qr.hpp"
#include "paywasm/status.hpp"
#include "paywasm/validate.hpp"
#include "server/client_address.hpp"
#include "server/iso8601.hpp"
#include "server/util.hpp"

namespace merchant {

namespace {

using paywasm::server::Html;

std::string link_url(const Gateway& gw, const std::string& id) { return gw.config.public_url + "/l/" + id; }

// The checkout a link's session starts with: its cart (or, for a shopper-chosen amount, one line
// at the minimum until the shopper chooses), read and validated by the core.
paywasm::Checkout link_checkout(const JsonDocument& spec, const std::string& offer_id) {
    JsonWriter w;
    w.begin_object().str("offerId", offer_id).key("currency").value(spec.root().member("currency"));
    if (JsonValue custom = spec.root().member("customAmount"); custom.valid()) {
        w.key("cart").begin_array().begin_object().str("id", "amount").key("name").value(custom.member("label"));
        w.raw("price", json_number(string_or(custom.member("min")))).raw("quantity", "1").end_object().end_array();
    } else {
        w.key("cart").value(spec.root().member("cart"));
    }
    w.end_object();
    auto checkout = paywasm::from_json<paywasm::Checkout>(w.text());
    paywasm::validate(checkout);
    return checkout;
}

// A POST /v1/links body, checked, as the spec the link keeps (members in a fixed order).
std::string read_spec(const Gateway& gw, JsonValue root, std::optional<std::int64_t>& usage_limit,
                      std::optional<std::int64_t>& expires_at) {
    static const std::vector<std::string> kKnown = {"name", "currency", "cart", "customAmount", "methods", "collectShipping",
                                                    "successUrl", "cancelUrl", "usageLimit", "expiresAt"};
    for (JsonValue m : root.children()) {
        bool known = false;
        for (const auto& k : kKnown) known = known || m.key() == k;
        if (!known) throw HttpError(400, "validation", "unknown member " + std::string(m.key()), std::string(m.key()));
    }
    JsonWriter w;
    w.begin_object();
    const std::string name = opt_string(root, "name").value_or("");
    if (name.size() > 200) throw HttpError(400, "validation", "name is at most 200 bytes", "name");
    w.str("name", name);
    const std::string currency = need_string(root, "currency");
    w.str("currency", currency);
    const bool has_cart = root.member("cart").valid(), has_custom = root.member("customAmount").valid();
    if (has_cart == has_custom) throw HttpError(400, "validation", "give either cart or customAmount", "cart");
    if (has_cart) {
        w.key("cart").value(root.member("cart"));
    } else {
        JsonValue c = root.member("customAmount");
        if (!c.is_object()) throw HttpError(400, "validation", "customAmount is {min, max, label}", "customAmount");
        const auto dec = [&](const char* field) {
            JsonValue v = c.member(field);
            const std::string text = has_kind(v, paywasm::JsonKind::number) ? std::string(v.text()) : string_or(v);
            const auto d = paywasm::Decimal::parse(text, std::string("customAmount.") + field);
            if (!paywasm::is_custom_amount_bound({d, currency})) {
                // The currency's minor unit (paywasm/order.hpp): 2 decimals for USD, none for JPY, 3 for KWD.
                const int minor = paywasm::fiat_minor_units(currency);
                throw HttpError(400, "validation",
                                std::string("customAmount.") + field + " must be above zero, " +
                                    (minor == 0 ? "a whole number of " + currency : "at most " + std::to_string(minor) + " decimals in " + currency),
                                std::string("customAmount.") + field);
            }
            return d;
        };
        const auto min = dec("min"), max = dec("max");
        if (paywasm::Decimal::compare(min, max) > 0) throw HttpError(400, "validation", "customAmount.min is above max", "customAmount.min");
        const std::string label = opt_string(c, "label").value_or(name.empty() ? "Amount" : name);
        w.key("customAmount").begin_object().str("min", min.to_string()).str("max", max.to_string()).str("label", label).end_object();
    }
    w.key("methods").begin_array();
    for (paywasm::PayMethod m : methods_of(root.member("methods"), gw.config.methods).list()) w.string(paywasm::to_string(m));
    w.end_array();
    JsonValue shipping = root.member("collectShipping");
    if (shipping.valid() && !has_kind(shipping, paywasm::JsonKind::boolean)) {
        throw HttpError(400, "validation", "collectShipping is true or false", "collectShipping");
    }
    w.flag("collectShipping", shipping.valid() && shipping.boolean());
    const ReturnUrls back = read_return_urls(root, gw.config);
    if (back.success) w.str("successUrl", *back.success);
    if (back.cancel) w.str("cancelUrl", *back.cancel);
    if (JsonValue u = root.member("usageLimit"); u.valid()) {
        const std::string t = has_kind(u, paywasm::JsonKind::number) ? std::string(u.text()) : "";
        if (t.empty() || t.size() > 9 || t.find_first_not_of("0123456789") != std::string::npos || std::stoll(t) < 1) {
            throw HttpError(400, "validation", "usageLimit is a whole number from 1", "usageLimit");
        }
        usage_limit = std::stoll(t);
    }
    if (auto e = opt_string(root, "expiresAt")) {
        expires_at = paywasm::server::parse_iso8601(*e, paywasm::server::Iso8601::seconds_z);
        if (!expires_at) throw HttpError(400, "validation", "expiresAt is a UTC time like 2026-12-31T23:59:59Z", "expiresAt");
        if (*expires_at <= now_ms()) throw HttpError(400, "validation", "expiresAt is in the past", "expiresAt");
    }
    w.end_object();
    // The cart (or amount) as a session will have it: the core's rules now, not at the first visit.
    const JsonDocument spec = paywasm::parse_json(w.text());
    (void)link_checkout(spec, "link-check");
    return w.take();
}

// Why a link opens no more, as a key of the pages' words ("" when it opens).
std::string closed_reason(LinkStore& links, const Link& l) {
    if (!l.active) return "link.inactive";
    if (l.expires_at && now_ms() >= *l.expires_at) return "link.expired";
    if (l.usage_limit && links.paid_sessions(l.id) >= *l.usage_limit) return "link.usedUp";
    return "";
}

std::string link_json(Gateway& gw, LinkStore& links, const Link& l, bool detail) {
    const JsonDocument spec = paywasm::parse_json(l.spec);
    JsonWriter w;
    w.begin_object().str("id", l.id).str("url", link_url(gw, l.id)).str("qrUrl", "/v1/links/" + l.id + "/qr.svg");
    w.flag("active", l.active);
    w.str("state", closed_reason(links, l).empty() ? "open" : (l.active ? "closed" : "inactive"));
    for (JsonValue m : spec.root().children()) w.key(m.key()).value(m);
    l.usage_limit ? w.num("usageLimit", *l.usage_limit) : w.key("usageLimit").null();
    w.key("expiresAt");
    l.expires_at ? w.string(iso8601(*l.expires_at)) : w.null();
    w.str("createdAt", iso8601(l.created_at)).str("updatedAt", iso8601(l.updated_at));
    w.num("paidSessions", links.paid_sessions(l.id));
    if (detail) {
        const auto sessions = links.sessions(l.id, 500);
        std::map<std::string, paywasm::Decimal> totals;
        w.key("sessions").begin_array();
        for (const auto& s : sessions) {
            w.begin_object().str("id", s.id).str("amount", s.amount).str("currency", s.currency).str("status", s.state);
            w.flag("success", s.success).str("createdAt", iso8601(s.created_at)).end_object();
            if (s.success) {
                auto [it, fresh] = totals.try_emplace(s.currency, paywasm::Decimal::from_int(0));
                it->second += paywasm::Decimal::parse(s.amount);
            }
        }
        w.end_array();
        // What the link's paid sessions add up to, per currency (their orders' totals).
        w.key("totals").begin_array();
        for (const auto& [currency, sum] : totals) {
            w.begin_object().str("currency", currency).str("amount", paywasm::amount_text({sum, currency})).end_object();
        }
        w.end_array();
    }
    w.end_object();
    return w.take();
}

Link need_link(LinkStore& links, const std::string& id) {
    auto l = links.find(id);
    if (!l) throw HttpError(404, "not_found", "no link with this id");
    return *l;
}

}  // namespace

void register_links(Router& server, Gateway& gw) {
    const std::size_t limit = gw.config.max_body;

    // POST /v1/links {name?, currency, cart | customAmount {min, max, label?}, methods?, collectShipping?,
    // successUrl?, cancelUrl?, usageLimit?, expiresAt?} -> 201 the link.
    server.route("POST", "/v1/links", limit, [&gw](Req req, Res res, Body body) {
        require_app(gw, req);
        const JsonDocument doc = parse_object(req, body);
        Link l;
        l.spec = read_spec(gw, doc.root(), l.usage_limit, l.expires_at);
        l.currency = paywasm::parse_json(l.spec).root().member("currency").text();
        l.id = random_token("pl_");
        l.created_at = l.updated_at = now_ms();
        LinkStore links(gw.store.sql());
        links.insert(l);
        send_json(res, 201, link_json(gw, links, l, false));
    });

    server.route("GET", "/v1/links", limit, [&gw](Req req, Res res, Body) {
        require_app(gw, req);
        LinkStore links(gw.store.sql());
        JsonWriter w;
        w.begin_object().key("links").begin_array();
        for (const auto& l : links.list(500)) w.raw(link_json(gw, links, l, false));
        w.end_array().end_object();
        send_json(res, 200, w.take());
    });

    server.route("GET", R"(/v1/links/([A-Za-z0-9_-]+))", limit, [&gw](Req req, Res res, Body) {
        require_app(gw, req);
        LinkStore links(gw.store.sql());
        send_json(res, 200, link_json(gw, links, need_link(links, req.matches[1]), true));
    });

    // PATCH /v1/links/{id} {"active": false | true}
    server.route("PATCH", R"(/v1/links/([A-Za-z0-9_-]+))", limit, [&gw](Req req, Res res, Body body) {
        require_app(gw, req);
        const JsonDocument doc = parse_object(req, body);
        JsonValue active = doc.root().member("active");
        if (!has_kind(active, paywasm::JsonKind::boolean)) throw HttpError(400, "validation", "active is true or false", "active");
        LinkStore links(gw.store.sql());
        if (!links.set_active(req.matches[1], active.boolean(), now_ms())) throw HttpError(404, "not_found", "no link with this id");
        send_json(res, 200, link_json(gw, links, need_link(links, req.matches[1]), true));
    });

    // The link's URL as a QR code, SVG (the core's qrcodegen), for printing.
    server.route("GET", R"(/v1/links/([A-Za-z0-9_-]+)/qr\.svg)", limit, [&gw](Req req, Res res, Body) {
        require_app(gw, req);
        LinkStore links(gw.store.sql());
        const Link l = need_link(links, req.matches[1]);
        res.set_header("Cache-Control", "no-store");
        res.set_header("X-Content-Type-Options", "nosniff");
        res.set_header("Content-Security-Policy", "default-src 'none'; sandbox");
        res.status = 200;
        res.set_content(paywasm::qr_svg(paywasm::qr_encode(link_url(gw, l.id))), "image/svg+xml");
    });

    // Opening a link: a new session for this visitor, 303 to its hosted page.
    shopper_route(server, "GET", R"(/l/([A-Za-z0-9_-]+))", limit, gw, [&gw](Req req, Res res, Body) {
        res.set_header("Cache-Control", "no-store");
        const Words& w = words_for(req);
        // Over a limit: a page in the shopper's language (429, Retry-After), not the API's JSON.
        const auto limited = [&](const std::string& key, int per_minute, const char* what) {
            try {
                gw.rate_limit(key, per_minute, res, what);
                return false;
            } catch (const HttpError& e) {
                if (e.status != 429) throw;
                send_page(gw, res, w, 429, w("title.busy"),
                          Html::element("h1", {}, w("busy.link")) + Html::element("p", {}, w("busy.text")), false);
                return true;
            }
        };
        // Per client first: guessing ids costs the guesser's own tokens.
        if (limited("link-client:" + paywasm::server::client_key(req.remote_addr), gw.config.link_rate_per_client,
                    "link openings from this address a minute")) {
            return;
        }
        LinkStore links(gw.store.sql());
        const auto l = links.find(req.matches[1]);
        if (!l) {
            return send_page(gw, res, w, 404, w("title.notFound"),
                             Html::element("h1", {}, w("notFound.link")) + Html::element("p", {}, w("notFound.text")), false);
        }
        if (const std::string why = closed_reason(links, *l); !why.empty()) {
            return send_page(gw, res, w, 410, w("title.linkClosed"),
                             Html::element("h1", {}, w("link.closed")) + Html::element("p", {}, w(why)) +
                                 Html::element("p", {}, w("link.nothingCharged")),
                             false);
        }
        if (req.method == "HEAD") {
            // A link previewer or a mail scanner: the link is there and open; no session is made.
            res.status = 200;
            res.set_content("", "text/html; charset=utf-8");
            return;
        }
        if (limited("link:" + l->id, gw.config.link_rate_per_link, "openings of this link a minute")) return;
        const JsonDocument spec = paywasm::parse_json(l->spec);
        Session s;
        s.id = random_token("cs_");
        s.offer_id = "link_" + random_hex(12);
        const paywasm::Checkout checkout = link_checkout(spec, s.offer_id);
        s.checkout_json = paywasm::to_json(checkout);
        s.amount = paywasm::amount_text({paywasm::cart_total(checkout.cart), checkout.currency});
        s.currency = checkout.currency;
        s.methods_csv = paywasm::to_string(methods_of(spec.root().member("methods"), gw.config.methods));
        s.link_id = l->id;
        if (JsonValue v = spec.root().member("successUrl"); v.valid()) s.success_url = std::string(v.text());
        if (JsonValue v = spec.root().member("cancelUrl"); v.valid()) s.cancel_url = std::string(v.text());
        s.created_at = now_ms();
        s.expires_at = s.created_at + std::min(gw.config.link_open_ttl_ms, gw.config.session_ttl_ms);
        s.status.state = paywasm::kNoStatusState;
        bool created = false;
        const Session stored = gw.store.create_session(s, paywasm::sha256_hex(s.checkout_json), created);
        res.status = 303;
        res.set_header("Location", "/pay/" + stored.id);
        res.set_content("", "text/plain");
    });
}

}  // namespace merchant
