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

}  // namespace merchant::console_html
