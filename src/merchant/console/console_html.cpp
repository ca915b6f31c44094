// The console's HTML pieces (console_html.hpp).
#include "console/console_html.hpp"

namespace merchant::console_html {

Html state_badge(std::string_view state) {
    return Html::element("span", {{"class", "state-" + std::string(state)}}, state);
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
