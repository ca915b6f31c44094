// The console's payment links (console_pages.hpp): the list with each link's state, paid count and
// totals; the form that makes one (the same rules as POST /v1/links: links.hpp's create_link); a
// link's page with its sessions, deactivate and reactivate; its printable poster (A4, A6).
#include "console/console_pages.hpp"
#include "gateway/links.hpp"
#include "paywasm/json.hpp"
#include "paywasm/order.hpp"
#include "server/util.hpp"
#include "server/web_form.hpp"

namespace merchant {

namespace {

constexpr int kFormLines = 5;  // cart lines on the form (the console runs no script to add more)

// A link that lets the customer choose: its bounds, "1.00 to 100.00 USD".
std::string range(const LinkRecord& r) { return *r.min_amount + " to " + money(*r.max_amount, r.link.currency); }

// What a link asks, in one line: "19.00 USD", or "1.00 to 100.00 USD, the customer chooses".
std::string asks(const LinkRecord& r) {
    return r.fixed_amount ? money(*r.fixed_amount, r.link.currency) : range(r) + ", the customer chooses";
}

Html text_input(const char* id, const char* label, const std::string& value) {
    return Html::element("label", {{"for", id}}, label) + Html::void_element("input", {{"id", id}, {"name", id}, {"value", value}});
}

Html labelled(const char* id, const char* label, const Html& control) {
    return Html::element("label", {{"for", id}}, label) + control;
}

Html check(const char* id, const char* label, bool on) {
    return Html::element("label", {{"class", "check"}},
                         Html::void_element("input", {{"type", "checkbox"}, {"id", id}, {"name", id}, {"value", "1"},
                                                      {"checked", on ? std::optional<std::string>("checked") : std::nullopt}}) +
                             Html::text(" ") + Html::text(label));
}

}  // namespace

ConsolePage render_links(Gateway& gw) {
    Html body;
    for (const auto& r : link_list(gw)) {
        body += row({link("/links/" + r.link.id, r.name.empty() ? r.link.id : r.name), Html::text(asks(r)),
                     Html::element("span", {{"class", "state-" + r.state}}, r.state), Html::text(std::to_string(r.paid_sessions)),
                     Html::void_element("input", {{"class", "url"}, {"readonly", "readonly"}, {"value", r.url},
                                                  {"aria-label", "Link URL of " + (r.name.empty() ? r.link.id : r.name)}}),
                     when(r.link.created_at)});
    }
    Html main = Html::element("p", {}, link("/links/new", "Create a payment link", "button"));
    main += table("Payment links, newest first", {"Link", "Amount", "State", "Paid", "URL (select to copy)", "Created"}, body);
    return ConsolePage{"Payment links", main, "/links"};
}

ConsolePage render_link_form(Gateway& gw, const Signed& login, const Form& given, const std::string& error) {
    const auto v = [&](const std::string& name) { return field(given, name); };
    const bool fresh = given.empty();
    const bool custom = v("kind") == "custom";
    Html lines;
    for (int i = 1; i <= kFormLines; ++i) {
        const std::string n = std::to_string(i);
        lines += row({Html::void_element("input", {{"name", "line" + n + "_name"}, {"value", v("line" + n + "_name")}, {"aria-label", "Item " + n}}),
                      Html::void_element("input", {{"name", "line" + n + "_price"}, {"value", v("line" + n + "_price")}, {"inputmode", "decimal"},
                                                   {"aria-label", "Price of item " + n}}),
                      Html::void_element("input", {{"name", "line" + n + "_qty"}, {"value", fresh ? std::string(i == 1 ? "1" : "") : v("line" + n + "_qty")},
                                                   {"inputmode", "numeric"}, {"aria-label", "Quantity of item " + n}})});
    }
    const auto offered = [&](paywasm::PayMethod m) {
        return fresh ? gw.config.methods.has(m) : v("method_" + std::string(paywasm::to_string(m))) == "1";
    };
    Html form = hidden_csrf(login);
    form += text_input("name", "What it is for (shown to the customer)", v("name"));
    form += labelled("currency", "Currency", Html::void_element("input", {{"id", "currency"}, {"name", "currency"}, {"maxlength", "3"},
                                                                          {"value", fresh ? gw.config.pos_currency : v("currency")}}));
    form += Html::element(
        "fieldset", {},
        Html::element("legend", {}, "Amount") +
            Html::element("label", {{"class", "check"}},
                          Html::void_element("input", {{"type", "radio"}, {"name", "kind"}, {"value", "cart"},
                                                       {"checked", custom ? std::nullopt : std::optional<std::string>("checked")}}) +
                              Html::text(" Fixed: the items below")) +
            Html::element("table", {{"class", "lines"}},
                          Html::element("thead", {}, Html::markup("<tr><th scope=\"col\">Item</th><th scope=\"col\">Price</th><th scope=\"col\">Quantity</th></tr>")) +
                              Html::element("tbody", {}, lines)) +
            Html::element("label", {{"class", "check"}},
                          Html::void_element("input", {{"type", "radio"}, {"name", "kind"}, {"value", "custom"},
                                                       {"checked", custom ? std::optional<std::string>("checked") : std::nullopt}}) +
                              Html::text(" The customer chooses, between")) +
            Html::element("div", {{"class", "range"}},
                          Html::void_element("input", {{"name", "min"}, {"value", v("min")}, {"inputmode", "decimal"}, {"aria-label", "Lowest amount"}}) +
                              Html::text(" and ") +
                              Html::void_element("input", {{"name", "max"}, {"value", v("max")}, {"inputmode", "decimal"}, {"aria-label", "Highest amount"}})));
    form += Html::element("fieldset", {},
                          Html::element("legend", {}, "How the customer may pay") + check("method_exchange", "Exchange account", offered(paywasm::PayMethod::exchange)) +
                              check("method_bank", "Bank transfer", offered(paywasm::PayMethod::bank)) + check("method_qr", "QR code (asks the customer's name and e-mail)", offered(paywasm::PayMethod::qr)));
    form += check("shipping", "Ask for a shipping address", v("shipping") == "1");
    form += labelled("usage", "Stop after this many payments (empty: no limit)",
                     Html::void_element("input", {{"id", "usage"}, {"name", "usage"}, {"inputmode", "numeric"}, {"value", v("usage")}}));
    form += labelled("expires", "Stop taking payments after (UTC, empty: never)",
                     Html::void_element("input", {{"id", "expires"}, {"name", "expires"}, {"type", "datetime-local"}, {"value", v("expires")}}));
    form += labelled("success", "Send the customer to this page after paying (optional; an origin allowed by --return-origin)",
                     Html::void_element("input", {{"id", "success"}, {"name", "success"}, {"type", "url"}, {"value", v("success")}}));
    form += Html::element("button", {{"type", "submit"}}, "Create the link");
    Html main;
    if (!error.empty()) main += Html::element("p", {{"class", "banner bad"}, {"role", "alert"}}, error);
    main += Html::element("form", {{"class", "stack"}, {"method", "post"}, {"action", "/links"}}, form);
    return ConsolePage{"New payment link", main, "/links"};
}

std::string link_request(const Form& f) {
    JsonWriter w;
    w.begin_object().str("name", field(f, "name")).str("currency", field(f, "currency"));
    // A number field's text goes in only when it is a number (else the link's rules name the field).
    const auto number = [&](const char* name, const std::string& text) {
        if (!text.empty() && text.find_first_not_of("0123456789.") == std::string::npos && text.front() != '.' && text.back() != '.') {
            w.raw(name, text);
        } else {
            w.str(name, text);  // refused by the rules as "must be a number", naming the field
        }
    };
    if (field(f, "kind") == "custom") {
        w.key("customAmount").begin_object();
        w.str("min", field(f, "min")).str("max", field(f, "max"));
        if (!field(f, "name").empty()) w.str("label", field(f, "name"));
        w.end_object();
    } else {
        w.key("cart").begin_array();
        for (int i = 1; i <= kFormLines; ++i) {
            const std::string n = std::to_string(i);
            const std::string name = field(f, "line" + n + "_name"), price = field(f, "line" + n + "_price");
            if (name.empty() && price.empty()) continue;
            w.begin_object().str("id", "item" + n).str("name", name);
            number("price", price);
            const std::string qty = field(f, "line" + n + "_qty");
            number("quantity", qty.empty() ? "1" : qty);
            w.end_object();
        }
        w.end_array();
    }
    w.key("methods").begin_array();
    using paywasm::PayMethod;
    for (const PayMethod m : paywasm::PayMethods{PayMethod::exchange, PayMethod::bank, PayMethod::qr}.list()) {
        const std::string name(paywasm::to_string(m));
        if (field(f, "method_" + name) == "1") w.string(name);
    }
    w.end_array();
    w.flag("collectShipping", field(f, "shipping") == "1");
    if (!field(f, "success").empty()) w.str("successUrl", field(f, "success"));
    if (!field(f, "usage").empty()) number("usageLimit", field(f, "usage"));
    if (std::string e = field(f, "expires"); !e.empty()) {
        // datetime-local sends 2026-12-31T23:59 (seconds only when given); the link takes ...:SSZ.
        if (e.size() == 16) e += ":00";
        w.str("expiresAt", e + "Z");
    }
    w.end_object();
    return w.take();
}

ConsolePage render_link(Gateway& gw, const Signed& login, const std::string& id) {
    const LinkRecord r = link_record(gw, id, true);
    Html facts;
    const auto fact = [&](const char* name, const Html& value) { facts += Html::element("dt", {}, name) + Html::element("dd", {}, value); };
    fact("What it is for", Html::text(r.name.empty() ? "(no name)" : r.name));
    fact("Amount", Html::text(asks(r)));
    fact("State", Html::element("span", {{"class", "state-" + r.state}}, r.state));
    fact("URL", Html::void_element("input", {{"class", "url"}, {"readonly", "readonly"}, {"value", r.url}, {"aria-label", "Link URL"}}));
    std::string methods;
    for (const auto& m : r.methods) methods += (methods.empty() ? "" : ", ") + m;
    fact("Payment methods", Html::text(methods));
    fact("Paid", Html::text(std::to_string(r.paid_sessions) + (r.link.usage_limit ? " of " + std::to_string(*r.link.usage_limit) : "")));
    std::string totals;
    for (const auto& t : r.totals) totals += (totals.empty() ? "" : ", ") + money(paywasm::amount_text(t), t.currency);
    fact("Received (paid orders)", Html::text(totals.empty() ? "nothing yet" : totals));
    fact("Stops after", r.link.expires_at ? when(*r.link.expires_at) : Html::text("never"));
    fact("Created", when(r.link.created_at));

    Html main = Html::element("dl", {{"class", "facts"}}, facts);
    main += Html::element("p", {}, Html::void_element("img", {{"class", "qr"}, {"src", "/links/" + r.link.id + "/qr.svg"},
                                                              {"alt", "QR code of the link's URL"}, {"width", "180"}, {"height", "180"}}));
    main += Html::element("p", {}, Html::text("Print a poster: ") + link("/links/" + r.link.id + "/poster?size=a4", "A4") +
                                       Html::text(" · ") + link("/links/" + r.link.id + "/poster?size=a6", "A6 (a table card)"));
    main += Html::element("form", {{"method", "post"}, {"action", "/links/" + r.link.id + (r.link.active ? "/deactivate" : "/activate")}},
                          hidden_csrf(login) + Html::element("button", {{"type", "submit"}, {"class", r.link.active ? "quiet" : std::string()}},
                                                             r.link.active ? "Deactivate: stop new payments" : "Reactivate"));
    Html body;
    for (const auto& s : r.sessions) {
        body += row({when(s.created_at), link("/orders/" + s.id, s.id.substr(0, 10) + "..."), Html::text(money(s.amount, s.currency)),
                     Html::text(s.state), Html::text(s.success ? "paid" : "")});
    }
    main += Html::element("h2", {}, "Visits and orders");
    main += table("Sessions opened from this link, newest first", {"Opened", "Session", "Amount", "Status", "Paid"}, body);
    return ConsolePage{r.name.empty() ? "Payment link" : "Payment link: " + r.name, main, "/links"};
}

std::string render_poster(Gateway& gw, std::string_view layout, const std::string& id, const std::string& size,
                          const std::string& css, const std::string& page_css) {
    const LinkRecord r = link_record(gw, id, false);
    const std::string amount = r.fixed_amount ? money(*r.fixed_amount, r.link.currency) : "Choose your amount: " + range(r);
    return render(layout, {{"title", Html::text(r.name.empty() ? gw.config.shop_name : r.name)},
                           {"size", Html::text(size)},
                           {"css", Html::text(css)},
                           {"page", Html::text(page_css)},
                           {"shop", Html::text(gw.config.shop_name)},
                           {"what", Html::text(r.name)},
                           {"amount", Html::text(amount)},
                           {"qr", Html::text("/links/" + r.link.id + "/qr.svg")},
                           {"url", Html::text(r.url)}});
}

}  // namespace merchant
