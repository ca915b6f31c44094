// The console's subscriptions page (console_pages.hpp): the debits the gateway asked for, newest first.
#include "console/console_pages.hpp"
#include "gateway/orders.hpp"
#include "server/util.hpp"

namespace merchant {

ConsolePage render_subscriptions(Gateway& gw) {
    Html body;
    for (const auto& d : debit_list(gw)) {
        body += row({Html::element("span", {{"class", "id"}}, d.subscription_id), Html::text(d.merchant_subscription_id.value_or("")),
                     Html::text(iso8601(d.created_at).substr(0, 7)), Html::element("span", {{"class", "id"}}, d.order_id),
                     Html::text(d.status ? std::to_string(*d.status) + " (" + d.state.value_or("") + ")" : "no status yet"),
                     Html::text(d.amount ? money(*d.amount, d.currency.value_or("")) : "-"), when(d.created_at)});
    }
    Html main = table("Debits, newest first", {"Subscription", "Shop's id", "Period", "Debit", "Outcome", "Amount", "Asked"}, body);
    return ConsolePage{"Subscriptions", main, "/subscriptions"};
}

}  // namespace merchant
