// The console's HTML pieces (console_html.hpp).
#include "console_html.hpp"

#include "server/util.hpp"

namespace merchant::console_html {

using paywasm::server::iso8601;

std::string money(const std::string& amount, const std::string& currency) { return amount + " " + currency; }

Html when(std::int64_t t) {
    const std::string iso = iso8601(t);
    return Html::element("time", {{"datetime", iso}}, iso.substr(0, 10) + " " + iso.substr(11, 8) + " UTC");
}

Html link(const std::string& href, std::string_view text) { return Html::element("a", {{"href", href}}, text); }

Html state_badge(std::string_view state) {
    return Html::element("span", {{"class", "state-" + std::string(state)}}, state);
}

Html row(std::initializer_list<Html> cells) {
    Html out;
    for (const auto& c : cells) out += Html::element("td", {}, c);
    return Html::element("tr", {}, out);
}

namespace {
Html head_row(std::initializer_list<const char*> names) {
    Html out;
    for (const char* n : names) out += Html::element("th", {{"scope", "col"}}, n);
    return Html::element("thead", {}, Html::element("tr", {}, out));
}
}  // namespace

Html table(const char* caption, std::initializer_list<const char*> names, const Html& body) {
    if (body.str().empty()) return Html::element("p", {{"class", "muted"}}, std::string(caption) + ": none.");
    return Html::element("table", {}, Html::element("caption", {{"class", "muted"}}, caption) + head_row(names) +
                                          Html::element("tbody", {}, body));
}

Html ship_to_section(const ShipTo& t) {
    Html facts;
    const auto fact = [&facts](const char* dt, const std::string& dd) {
        facts += Html::element("dt", {}, dt) + Html::element("dd", {}, dd.empty() ? std::string("not given") : dd);
    };
    fact("Name", t.name);
    fact("E-mail", t.email);
    fact("Shipping address", t.address);
    fact("Products", t.products());
    fact("Payment link", t.link_id.value_or(""));
    return Html::element("section", {{"aria-labelledby", "ship-h"}},
                         Html::element("h2", {{"id", "ship-h"}}, "Ship to") + Html::element("dl", {{"class", "facts"}}, facts));
}

Html ship_to_cell(const ShipTo& t) {
    const std::string who = t.name + (t.email.empty() ? "" : " <" + t.email + ">");
    return Html::text(who) + Html::markup("<br>") + Html::element("span", {{"class", "muted"}}, t.products());
}

}  // namespace merchant::console_html
