// The console's overview (console_overview.hpp).
#include "console/console_overview.hpp"

#include <algorithm>

#include "console/console_html.hpp"
#include "rules/notify.hpp"
#include "rules/order_state.hpp"
#include "gateway/orders.hpp"
#include "paywasm/status.hpp"
#include "server/util.hpp"

namespace merchant {

using namespace console_html;
using paywasm::server::iso8601;

namespace {

// "12.00 USD by exchange" items of a total per currency (and method).
template <class Map, class Label>
Html sums(const Map& totals, Label label, const char* none) {
    Html out;
    for (const auto& [k, v] : totals) out += Html::element("li", {}, label(k, v));
    return totals.empty() ? Html::element("li", {}, none) : out;
}

Html card(const char* label, const OverviewCard& c) {
    Html facts;
    const auto fact = [&facts](const char* dt, const std::string& dd) {
        facts += Html::element("dt", {}, dt) + Html::element("dd", {}, dd);
    };
    fact("Orders created", std::to_string(c.created));
    fact("Paid", std::to_string(c.paid) + " (" + std::to_string(c.verified) + " verified, " + std::to_string(c.accepted) +
                     " underpayments you accepted, " + std::to_string(c.paid_elsewhere) + " paid elsewhere by your word)");
    fact("Partly paid", std::to_string(c.partial));
    fact("Success rate", c.finished ? std::to_string((c.paid * 100) / c.finished) + "% of " + std::to_string(c.finished) + " finished"
                                     : "nothing finished yet");
    fact("Time to final (median)", c.median_to_final_s ? std::to_string(*c.median_to_final_s) + " s" : "-");
    const auto text = [](const std::string& currency, const paywasm::Decimal& v) {
        return money(paywasm::amount_text({v, currency}), currency);
    };
    Html body = Html::element("h2", {}, label) + Html::element("dl", {{"class", "facts"}}, facts) +
                Html::element("h3", {}, "Paid, verified by the service") +
                Html::element("ul", {}, sums(c.verified_totals, [&](const auto& k, const auto& v) { return text(k.first, v) + " by " + k.second; },
                                             "no payments"));
    if (c.accepted) {
        body += Html::element("h3", {}, "Arrived of the underpayments you accepted") +
                Html::element("ul", {}, sums(c.accepted_arrived, [&](const auto& k, const auto& v) { return text(k, v); }, "nothing known"));
    }
    if (c.paid_elsewhere) {
        body += Html::element("h3", {}, "Paid elsewhere (your word, checked in the portal)") +
                Html::element("ul", {}, sums(c.paid_elsewhere_totals, [&](const auto& k, const auto& v) { return text(k, v); }, "none"));
    }
    return Html::element("section", {{"class", "card"}, {"aria-label", label}}, body);
}

}  // namespace

Html overview_html(Gateway& gw, std::int64_t now) {
    const std::int64_t day = kDayMs, today = now - now % day, today_n = now / day;
    const OverviewFigures figures = overview_figures(gw, today_n - 29, kFailingEventAttempts);
    Html cards;
    for (auto [label, since_day] : {std::pair<const char*, std::int64_t>{"Today", today_n}, {"Last 7 days", today_n - 6},
                                    {"Last 30 days", today_n - 29}}) {
        cards += card(label, overview_card(figures.tally, since_day));
    }
    // Paid orders a day, the last 30 days, as bars (the count, whatever the currency).
    const std::vector<std::int64_t> per_day = paid_per_day(figures.tally, today_n - 29, 30);
    const std::int64_t top = std::max<std::int64_t>(1, *std::max_element(per_day.begin(), per_day.end()));
    Html bars = Html::element("line", {{"x1", "0"}, {"y1", "100"}, {"x2", "600"}, {"y2", "100"}}, "");
    for (std::size_t i = 0; i < per_day.size(); ++i) {
        const std::int64_t h = per_day[i] * 90 / top;
        bars += Html::element("rect", {{"x", std::to_string(i * 20 + 2)}, {"y", std::to_string(100 - h)}, {"width", "16"},
                                       {"height", std::to_string(h)}},
                              Html::element("title", {}, iso8601(today - (29 - static_cast<std::int64_t>(i)) * day).substr(0, 10) +
                                                             ": " + std::to_string(per_day[i]) + " paid"));
    }
    bars += Html::element("text", {{"x", "0"}, {"y", "114"}}, iso8601(today - 29 * day).substr(0, 10));
    bars += Html::element("text", {{"x", "540"}, {"y", "114"}}, iso8601(today).substr(0, 10));
    Html chart = Html::element("svg", {{"class", "chart"}, {"viewBox", "0 0 600 118"}, {"role", "img"},
                                       {"aria-label", "Paid orders a day, last 30 days; most in a day: " + std::to_string(top)}},
                               bars);
    // What needs a person: stuck or contradicted attempts, partly paid orders, events the app refused.
    const std::int64_t attention = figures.attention, partial = figures.partial, failing = figures.failing;
    Html main;
    Html needs;
    if (attention > 0) {
        needs += Html::element("li", {}, Html::text(std::to_string(attention) + " order(s) with a payment attempt to resolve: ") +
                                             link("/orders?state=attention", "the orders that need attention"));
    }
    if (partial > 0) {
        needs += Html::element("li", {}, Html::text(std::to_string(partial) + " order(s) partly paid: ") +
                                             link("/orders?state=partial", "accept what arrived or settle with the shopper"));
    }
    if (failing > 0) {
        needs += Html::element("li", {}, Html::text(std::to_string(failing) + " event(s) your app has refused " +
                                                    std::to_string(kFailingEventAttempts) + " times or more (still retried): ") +
                                             link("/events", "the failing events"));
    }
    if (needs.str().empty()) {
        main += Html::element("p", {}, "No order needs attention.");
    } else {
        main += Html::element("section", {{"class", "banner"}, {"aria-labelledby", "needs-h"}},
                              Html::element("h2", {{"id", "needs-h"}}, "Needs attention") + Html::element("ul", {}, needs));
    }
    main += Html::element("div", {{"class", "cards"}}, cards);
    main += Html::element("h2", {}, "Paid orders a day") + chart;
    return main;
}

}  // namespace merchant
