// The overview's figures (overview.hpp): pure.
#include "rules/overview.hpp"

#include <algorithm>

namespace merchant {

namespace {

// Sorts by key, merges what has the same key (counts added), drops counts of 0.
template <class T>
std::vector<T> merged(std::vector<T> v) {
    std::sort(v.begin(), v.end(), [](const T& a, const T& b) { return a.key() < b.key(); });
    std::vector<T> out;
    for (auto& x : v) {
        if (!out.empty() && out.back().key() == x.key()) {
            out.back().count += x.count;
        } else {
            out.push_back(std::move(x));
        }
    }
    out.erase(std::remove_if(out.begin(), out.end(), [](const T& x) { return x.count == 0; }), out.end());
    return out;
}

}  // namespace

OverviewTally normalized(OverviewTally t) {
    return OverviewTally{merged(std::move(t.kinds)), merged(std::move(t.to_final))};
}

OverviewTally overview_tally(const std::vector<OverviewOrder>& rows) {
    OverviewTally t;
    for (const auto& r : rows) {
        const std::int64_t day = r.created_at / kDayMs;
        // An empty text is none (the database's tally keeps none as '').
        const auto some = [](const std::optional<std::string>& v) { return v && !v->empty() ? v : std::nullopt; };
        t.kinds.push_back(OverviewKind{day, r.state, r.success, r.final, r.accepted, r.paid_elsewhere, r.closed, r.currency, r.amount,
                                       r.method, some(r.received), some(r.received_currency), 1});
        if (r.final && r.status_at >= r.created_at) t.to_final.push_back(OverviewTimes{day, (r.status_at - r.created_at) / 1000, 1});
    }
    return normalized(std::move(t));
}

std::string_view overview_state(const OverviewKind& k) {
    OrderFacts f;
    f.state = k.state;
    f.success = k.success;
    f.accepted = k.accepted;
    f.paid_elsewhere = k.paid_elsewhere;
    f.closed = k.closed;
    return order_bucket(f);
}

OverviewCard overview_card(const OverviewTally& t, std::int64_t since_day) {
    OverviewCard c;
    for (const auto& k : t.kinds) {
        if (k.day < since_day) continue;
        const std::int64_t n = k.count;
        c.created += n;
        const std::string_view state = overview_state(k);
        paywasm::Decimal a;
        // An amount of n orders alike: the amount n times (exact decimal arithmetic).
        const auto times_n = [n](const paywasm::Decimal& v) { return v * paywasm::Decimal::from_int(n); };
        if (state == "paid") {
            c.paid += n;
            c.finished += n;
            if (k.success) {
                c.verified += n;
                if (paywasm::Decimal::try_parse(k.amount, a)) {
                    c.verified_totals[{k.currency, k.method.empty() ? "unknown" : k.method}] += times_n(a);
                }
            } else if (k.accepted) {
                c.accepted += n;
                if (k.received && k.received_currency && paywasm::Decimal::try_parse(*k.received, a)) {
                    c.accepted_arrived[*k.received_currency] += times_n(a);
                }
            } else {
                c.paid_elsewhere += n;
                if (paywasm::Decimal::try_parse(k.amount, a)) c.paid_elsewhere_totals[k.currency] += times_n(a);
            }
        } else if (k.final || state == "failed") {
            c.finished += n;
        }
        if (state == "partial") c.partial += n;
    }
    // The median of the whole seconds: the one at index total / 2 of them in order.
    std::int64_t total = 0;
    for (const auto& x : t.to_final) total += x.day >= since_day ? x.count : 0;
    if (total > 0) {
        std::int64_t seen = 0;
        std::map<std::int64_t, std::int64_t> by_seconds;
        for (const auto& x : t.to_final) {
            if (x.day >= since_day) by_seconds[x.seconds] += x.count;
        }
        for (const auto& [seconds, count] : by_seconds) {
            seen += count;
            if (seen > total / 2) {
                c.median_to_final_s = seconds;
                break;
            }
        }
    }
    return c;
}

std::vector<std::int64_t> paid_per_day(const OverviewTally& t, std::int64_t first_day, std::size_t days) {
    std::vector<std::int64_t> out(days, 0);
    for (const auto& k : t.kinds) {
        const std::int64_t i = k.day - first_day;
        if (i >= 0 && i < static_cast<std::int64_t>(days) && overview_state(k) == "paid") out[static_cast<std::size_t>(i)] += k.count;
    }
    return out;
}

}  // namespace merchant
