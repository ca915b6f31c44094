// The console's audit log page (console_pages.hpp): every action, newest first, 100 a page.
#include "console/console_pages.hpp"
#include "gateway/orders.hpp"

namespace merchant {

ConsolePage render_audit(Gateway& gw, const Request& req) {
    const AuditPage page = audit_page(gw, req.get_param_value("cursor"));
    Html body;
    for (const auto& a : page.rows) {
        body += row({when(a.at), Html::text(a.actor), Html::text(a.action), Html::element("span", {{"class", "id"}}, a.target.value_or("")),
                     Html::text(a.detail.value_or("")), Html::text(a.address.value_or(""))});
    }
    Html main = table("Every action, newest first", {"When", "Who", "Action", "On", "Detail", "From"}, body);
    if (page.next) main += Html::element("p", {}, link("/audit?cursor=" + *page.next, "Older entries"));
    return ConsolePage{"Audit log", main, "/audit"};
}

}  // namespace merchant
