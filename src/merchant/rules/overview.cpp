// The overview's figures (overview.hpp): pure.
#include "rules/overview.hpp"

#include <algorithm>

namespace merchant {

std::string_view overview_state(const OverviewOrder& r, std::int64_t now) {
    OrderFacts f;
    f.state = r.state;
    f.success = r.success;
    f.accepted = r.accepted;
    f.paid_elsewhere = r.paid_elsewhere;
    f.closed = r.closed;
    f.expired = now >= r.expires_at;
    return order_bucket(f);
}

OverviewCard overview_card(const std::vector<OverviewOrder>& rows, std::int64_t since, std::int64_t now) {
    OverviewCard c;
    std::vector<std::int64_t> to_final;
    for (const auto& r : rows) {
        if (r.created_at < since) continue;
        ++c.created;
        const std::string_view state = overview_state(r, now);
        paywasm::Decimal a;
        if (state == "paid") {
            ++c.paid;
            ++c.finished;
            if (r.success) {
                ++c.verified;
                if (paywasm::Decimal::try_parse(r.amount, a)) c.verified_totals[{r.currency, r.method.empty() ? "unknown" : r.method}] += a;
            } else if (r.accepted) {
                ++c.accepted;
                if (r.received && r.received_currency && paywasm::Decimal::try_parse(*r.received, a)) {
                    c.accepted_arrived[*r.received_currency] += a;
                }
            } else {
                ++c.paid_elsewhere;
                if (paywasm::Decimal::try_parse(r.amount, a)) c.paid_elsewhere_totals[r.currency] += a;
            }
        } else if (r.final || state == "failed") {
            ++c.finished;
        }
        if (state == "partial") ++c.partial;
        if (r.final && r.status_at >= r.created_at) to_final.push_back(r.status_at - r.created_at);
    }
    if (!to_final.empty()) {
        std::sort(to_final.begin(), to_final.end());
        c.median_to_final_ms = to_final[to_final.size() / 2];
    }
    return c;
}

}  // namespace merchant
