// The page kit's pieces (page_pieces.hpp).
#include "server/page_pieces.hpp"

#include "server/util.hpp"

namespace paywasm::server::page {

std::string money(const std::string& amount, const std::string& currency) { return amount + " " + currency; }

Html when(std::int64_t epoch_ms) {
    const std::string iso = iso8601(epoch_ms);
    return Html::element("time", {{"datetime", iso}}, iso.substr(0, 10) + " " + iso.substr(11, 8) + " UTC");
}

Html link(const std::string& href, std::string_view text, std::optional<std::string> cls) {
    return Html::element("a", {{"href", href}, {"class", std::move(cls)}}, text);
}

Html row(std::initializer_list<Html> cells) {
    Html out;
    for (const auto& c : cells) out += Html::element("td", {}, c);
    return Html::element("tr", {}, out);
}

Html table(const char* caption, std::initializer_list<const char*> names, const Html& body) {
    if (body.empty()) return Html::element("p", {{"class", "muted"}}, std::string(caption) + ": none.");
    Html head;
    for (const char* n : names) head += Html::element("th", {{"scope", "col"}}, n);
    return Html::element("table", {}, Html::element("caption", {{"class", "muted"}}, caption) +
                                          Html::element("thead", {}, Html::element("tr", {}, head)) +
                                          Html::element("tbody", {}, body));
}

}  // namespace paywasm::server::page
