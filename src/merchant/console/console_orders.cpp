// The console's orders list (console_pages.hpp): filters by state, the search, keyset pages, the
// CSV export's link, and on "Needs attention" the bulk resolve of stuck attempts.
#include "console/console_pages.hpp"
#include "rules/order_state.hpp"
#include "gateway/orders.hpp"
#include "server/util.hpp"
#include "server/web_form.hpp"

namespace merchant {

ConsolePage render_orders(Gateway& gw, const Request& req, const Signed& login) {
    SessionQuery query = session_query(req);
    const SessionsPage page_of = sessions_page(gw, query);
    const std::vector<Session>& rows = page_of.rows;
    const std::optional<std::string>& next = page_of.next;
    const auto with = [&](const std::string& state, const std::string& q, const std::string& cursor) {
        std::string href = "/orders";
        std::string sep = "?";
        const auto add = [&](const char* k, const std::string& v) {
            if (v.empty()) return;
            href += sep + k + "=" + url_encode(v);
            sep = "&";
        };
        add("state", state);
        add("q", q);
        add("cursor", cursor);
        return href;
    };
    Html filters;
    filters += Html::element("li", {}, query.state.empty() ? Html::element("a", {{"href", with("", query.q, "")}, {"aria-current", "page"}}, "All")
                                                           : link(with("", query.q, ""), "All"));
    for (std::string_view s : kOrderStates) {
        const std::string st(s);
        const std::string label = st == "attention" ? "Needs attention" : st == "partial" ? "Partly paid" : st;
        filters += Html::element("li", {}, query.state == st ? Html::element("a", {{"href", with(st, query.q, "")}, {"aria-current", "page"}}, label)
                                                             : link(with(st, query.q, ""), label));
    }
    Html search = Html::markup("<label for=\"q\">Search by offerId (or its start), session id or transaction id</label> ") +
                  Html::void_element("input", {{"id", "q"}, {"name", "q"}, {"value", query.q}}) + Html::markup(" ");
    if (!query.state.empty()) search += Html::void_element("input", {{"type", "hidden"}, {"name", "state"}, {"value", query.state}});
    search += Html::element("button", {{"type", "submit"}}, "Search");
    Html body;
    const std::int64_t now = now_ms();
    for (const auto& s : rows) {
        // A point-of-sale sale says so, and who charged it.
        const Html order = s.sold_by ? link("/orders/" + s.id, s.offer_id) + Html::element("span", {{"class", "tag"}}, " sale by " + *s.sold_by)
                                     : link("/orders/" + s.id, s.offer_id);
        body += row({when(s.created_at), order, state_badge(order_state(s, now)), ship_to_cell(ship_to(s)),
                     Html::text(s.status.state), Html::text(money(s.amount, s.currency)), Html::text(s.status.method ? paywasm::to_string(*s.status.method) : ""),
                     Html::element("span", {{"class", "id"}}, s.status.transaction_id.value_or(""))});
    }
    Html main = Html::element("nav", {{"aria-label", "Filter by state"}}, Html::element("ul", {{"class", "filters"}}, filters));
    main += Html::element("form", {{"method", "get"}, {"action", "/orders"}, {"role", "search"}}, search);
    main += rows.empty() ? Html::element("p", {}, "No order matches.")
                         : table("Orders, newest first", {"Created", "Order", "State", "Ship to", "Status", "Total", "Method", "Transaction"}, body);
    if (next) main += Html::element("p", {}, link(with(query.state, query.q, *next), "Next page"));
    if (query.state == "attention" && !rows.empty()) {
        // Many attempts that never reported anything (tabs closed mid-payment), resolved at once as
        // POST /v1/sessions/resolve-stuck would: never "paid" in bulk, no resolution chosen for you.
        main += Html::element(
            "form", {{"class", "stack"}, {"method", "post"}, {"action", "/orders/resolve-stuck"}},
            hidden_csrf(login) +
                Html::markup("<label for=\"before\">Resolve every stuck attempt raised before (UTC)</label>"
                             "<input id=\"before\" name=\"before\" type=\"datetime-local\" required>"
                             "<label for=\"bulk-r\">Resolution</label><select id=\"bulk-r\" name=\"resolution\" required>"
                             "<option value=\"\">Choose what the portal shows for all of them</option>"
                             "<option value=\"release\">Release: the shoppers may pay again</option>"
                             "<option value=\"not_paid\">Not paid: close the orders</option></select>"
                             "<label for=\"bulk-n\">Note</label><input id=\"bulk-n\" name=\"note\" required maxlength=\"2000\">") +
                Html::element("button", {{"type", "submit"}}, "Resolve stuck attempts"));
    }
    if (query.state != "attention") {
        std::string csv = "/orders.csv";
        std::string sep = "?";
        if (!query.state.empty()) { csv += sep + "state=" + query.state; sep = "&"; }
        if (!query.q.empty()) csv += sep + "q=" + url_encode(query.q);
        main += Html::element("p", {}, link(csv, "Export these orders as CSV"));
    }
    return ConsolePage{"Orders", main, query.state == "attention" ? "/orders?state=attention" : "/orders"};
}

}  // namespace merchant
