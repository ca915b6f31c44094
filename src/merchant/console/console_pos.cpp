// The console's point of sale (console_pages.hpp, sales.hpp): a page made for a phone in the
// seller's hand. The keypad form; the sale's screen: the amount and the QR code of the sale (its
// link's URL) for the customer to scan, and the order's state, followed live (web/console/pos.js polls the
// sale's state; without script the page reloads itself) until it is paid, partly paid or expired,
// then "New sale".
#include "console/console_pages.hpp"
#include "gateway/sales.hpp"
#include "server/util.hpp"

namespace merchant {

std::string sale_text(const SaleState& st) {
    const std::string total = money(st.amount, st.currency);
    if (st.state == "paid") return "Paid: " + total + " received.";
    if (st.state == "partial") {
        return "Partly paid: " + (st.received.empty() ? std::string() : money(st.received, st.currency) + " of ") + total +
               " received. Ask the customer for the rest, or see the order.";
    }
    if (st.state == "pending") return "Payment in progress...";
    if (st.state == "expired") return "Expired: nothing was paid. Start a new sale.";
    return "Waiting for the customer: scan the code to pay.";
}

ConsolePage render_pos(Gateway& gw, const Signed& login) {
    Html keys;
    for (const char* k : {"1", "2", "3", "4", "5", "6", "7", "8", "9", ".", "0"}) {
        keys += Html::element("button", {{"type", "button"}, {"data-key", k}}, k);
    }
    keys += Html::element("button", {{"type", "button"}, {"data-key", "back"}, {"aria-label", "Delete the last digit"}}, "⌫");
    Html form = hidden_csrf(login);
    form += Html::element("label", {{"for", "amount"}}, "Amount (" + gw.config.pos_currency + ")");
    form += Html::void_element("input", {{"id", "amount"}, {"name", "amount"}, {"class", "amount"}, {"inputmode", "decimal"},
                                         {"autocomplete", "off"}, {"required", "required"}, {"placeholder", "0.00"}});
    // The keypad types into the field (pos.js); without script it stays hidden and the phone's own
    // keyboard types (inputmode=decimal).
    form += Html::element("div", {{"class", "keypad"}, {"role", "group"}, {"aria-label", "Keypad"}, {"hidden", "hidden"}}, keys);
    form += Html::element("label", {{"for", "note"}}, "Note (optional, the customer sees it)");
    form += Html::void_element("input", {{"id", "note"}, {"name", "note"}, {"maxlength", "200"}, {"autocomplete", "off"}});
    form += Html::element("button", {{"type", "submit"}, {"class", "charge"}}, "Charge");
    Html main = Html::element("form", {{"class", "pos"}, {"method", "post"}, {"action", "/pos/charge"}}, form);
    return ConsolePage{"Point of sale", main, "/pos", ConsolePage::Kind::pos};
}

ConsolePage render_sale(Gateway& gw, const std::string& id) {
    const SaleState st = sale_state(gw, id, now_ms());
    Html main = Html::element("p", {{"class", "sale-amount"}}, money(st.amount, st.currency));
    if (!st.final) {
        main += Html::element("p", {{"class", "sale-code"}},
                              Html::void_element("img", {{"src", "/pos/sales/" + id + "/qr.svg"}, {"width", "320"}, {"height", "320"},
                                                         {"alt", "QR code of the sale: the customer scans it with their phone's camera"}}));
    }
    main += Html::element("p", {{"id", "sale-state"}, {"class", "sale-state state-" + st.state}, {"role", "status"}, {"data-state", st.state},
                                {"data-follow", st.final ? std::nullopt : std::optional<std::string>("/pos/sales/" + id + "/state")}},
                          sale_text(st));
    main += Html::element("p", {{"class", "sale-actions"}}, link("/pos", st.final ? "New sale" : "Cancel and start a new sale", st.final ? "button" : "quiet"));
    return ConsolePage{"Sale", main, "/pos", st.final ? ConsolePage::Kind::pos : ConsolePage::Kind::pos_following};
}

}  // namespace merchant
