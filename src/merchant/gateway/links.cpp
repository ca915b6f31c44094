// Payment links' operations (links.hpp): a link checked and created, read with its sessions and
// totals, stopped and resumed; the routes that call them (/v1/links with the app's bearer, a
// shopper's opening GET /l/{linkId}) are hosted/link_routes.cpp's, the console's pages
// console/console_links.cpp's.
#include "rules/events.hpp"
#include "gateway/app_requests.hpp"
#include "gateway/links.hpp"
#include "paywasm/checkout.hpp"
#include "paywasm/codec.hpp"
#include "paywasm/order.hpp"
#include "paywasm/status.hpp"
#include "paywasm/validate.hpp"
#include "server/iso8601.hpp"
#include "server/util.hpp"

namespace merchant {

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
    paywasm::require_chargeable_total(checkout);
    return checkout;
}

// Why a link opens no more, as a key of the pages' words ("" when it opens).
std::string closed_reason(LinkStore& links, const Link& l) {
    if (!l.active) return "link.inactive";
    if (l.expires_at && now_ms() >= *l.expires_at) return "link.expired";
    if (l.usage_limit && links.paid_sessions(l.id) >= *l.usage_limit) return "link.usedUp";
    return "";
}

namespace {

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

LinkRecord record_of(Gateway& gw, LinkStore& links, Link l, bool detail) {
    LinkRecord r;
    const JsonDocument spec = paywasm::parse_json(l.spec);
    r.name = opt_string(spec.root(), "name").value_or("");
    r.closed_key = closed_reason(links, l);
    r.state = r.closed_key.empty() ? "open" : (l.active ? "closed" : "inactive");
    r.url = link_url(gw, l.id);
    if (JsonValue c = spec.root().member("customAmount"); c.valid()) {
        r.min_amount = string_or(c.member("min"));
        r.max_amount = string_or(c.member("max"));
    } else {
        const paywasm::Checkout checkout = link_checkout(spec, "link-view");
        r.fixed_amount = paywasm::amount_text({paywasm::cart_total(checkout.cart), checkout.currency});
    }
    for (JsonValue m : spec.root().member("methods").children()) r.methods.emplace_back(m.text());
    JsonValue shipping = spec.root().member("collectShipping");
    r.collect_shipping = shipping.valid() && shipping.boolean();
    r.paid_sessions = links.paid_sessions(l.id);
    if (detail) {
        r.sessions = links.sessions(l.id, 500);
        std::map<std::string, paywasm::Decimal> totals;
        for (const auto& s : r.sessions) {
            if (!s.success) continue;
            auto [it, fresh] = totals.try_emplace(s.currency, paywasm::Decimal::from_int(0));
            it->second += paywasm::Decimal::parse(s.amount);
        }
        for (const auto& [currency, sum] : totals) r.totals.push_back({sum, currency});
    }
    r.link = std::move(l);
    return r;
}

Link need_link(LinkStore& links, const std::string& id) {
    auto l = links.find(id);
    if (!l) throw HttpError(404, "not_found", "no link with this id");
    return *l;
}

// A console user's action on a link, in the audit log (the app's actions are the app's own record).
void audit_link(Gateway& gw, const Actor& actor, const char* action, const std::string& id, const std::string& detail) {
    if (actor.name.rfind("console:", 0) != 0) return;
    gw.store.console.audit(actor.name, action, id, detail.empty() ? std::nullopt : std::optional<std::string>(detail), actor.address, now_ms());
}

}  // namespace

std::string link_url(const Gateway& gw, const std::string& id) { return gw.config.public_url + "/l/" + id; }

Link create_link(Gateway& gw, JsonValue request, const Actor& actor, const std::optional<std::string>& sold_by) {
    if (gw.config.widget_dir.empty()) {
        throw HttpError(409, "hosted_pages_off", "payment links need the hosted pages: start paywasm-merchant with --widget-dir DIR");
    }
    Link l;
    l.spec = read_spec(gw, request, l.usage_limit, l.expires_at);
    l.currency = paywasm::parse_json(l.spec).root().member("currency").text();
    l.id = random_token("pl_");
    l.created_at = l.updated_at = now_ms();
    l.sold_by = sold_by;
    LinkStore& links = gw.store.links;
    links.insert(l);
    audit_link(gw, actor, sold_by ? "sale_created" : "link_created", l.id, "");
    return l;
}

std::vector<LinkRecord> link_list(Gateway& gw) {
    LinkStore& links = gw.store.links;
    std::vector<LinkRecord> out;
    for (auto& l : links.list(500)) out.push_back(record_of(gw, links, std::move(l), false));
    return out;
}

LinkRecord link_record(Gateway& gw, const std::string& id, bool detail) {
    LinkStore& links = gw.store.links;
    return record_of(gw, links, need_link(links, id), detail);
}

LinkRecord set_link_active(Gateway& gw, const std::string& id, bool active, const Actor& actor) {
    LinkStore& links = gw.store.links;
    if (!links.set_active(id, active, now_ms())) throw HttpError(404, "not_found", "no link with this id");
    audit_link(gw, actor, active ? "link_activated" : "link_deactivated", id, "");
    return record_of(gw, links, need_link(links, id), true);
}

std::string link_json(const LinkRecord& r, bool detail) {
    const Link& l = r.link;
    const JsonDocument spec = paywasm::parse_json(l.spec);
    JsonWriter w;
    w.begin_object().str("id", l.id).str("url", r.url).str("qrUrl", "/v1/links/" + l.id + "/qr.svg");
    w.flag("active", l.active);
    w.str("state", r.state);
    for (JsonValue m : spec.root().children()) w.key(m.key()).value(m);
    l.usage_limit ? w.num("usageLimit", *l.usage_limit) : w.key("usageLimit").null();
    w.key("expiresAt");
    l.expires_at ? w.string(iso8601(*l.expires_at)) : w.null();
    w.str("createdAt", iso8601(l.created_at)).str("updatedAt", iso8601(l.updated_at));
    w.num("paidSessions", r.paid_sessions);
    if (detail) {
        w.key("sessions").begin_array();
        for (const auto& s : r.sessions) {
            w.begin_object().str("id", s.id).str("amount", s.amount).str("currency", s.currency).str("status", s.state);
            w.flag("success", s.success).str("createdAt", iso8601(s.created_at)).end_object();
        }
        w.end_array();
        // What the link's paid sessions add up to, per currency (their orders' totals).
        w.key("totals").begin_array();
        for (const auto& m : r.totals) w.begin_object().str("currency", m.currency).str("amount", paywasm::amount_text(m)).end_object();
        w.end_array();
    }
    w.end_object();
    return w.take();
}

}  // namespace merchant
