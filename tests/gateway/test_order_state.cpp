// The gateway's rules around the one order state, without a database: the attention rule of an
// attempt, the merchant's word from the resolutions (rules/attempts.hpp), Pay after a decision, and
// the overview's figures (rules/overview.hpp). The order's bucket itself is the core's
// (paywasm/order.hpp order_bucket(): tests/unit/test_order.cpp). Each case here failed before issue
// 45: a late webhook that paid a stuck attempt left it needing attention, and the overview summed an
// accepted underpayment's full order total as paid.
#include <doctest/doctest.h>

#include <algorithm>

#include "rules/attempts.hpp"
#include "rules/order_state.hpp"
#include "rules/overview.hpp"
#include "paywasm/status.hpp"

using namespace merchant;

TEST_CASE("needs_attention: stuck and unresolved, until a verified outcome or a resolution settles it") {
    AttemptFacts a;
    a.id = "at_1";
    a.method = paywasm::PayMethod::exchange;
    CHECK_FALSE(needs_attention(a));
    a.attention_at = 10;
    CHECK(needs_attention(a));
    a.verified = Verified::open;
    CHECK(needs_attention(a));
    a.verified = Verified::paid;  // the late webhook paid it
    CHECK_FALSE(needs_attention(a));
    a.verified = Verified::no_money;
    CHECK_FALSE(needs_attention(a));
    a.verified = Verified::none;
    a.resolution = "release";
    CHECK_FALSE(needs_attention(a));
    a.conflict_at = 20;  // a verified outcome contradicted the resolution
    CHECK(needs_attention(a));
}

TEST_CASE("merchant_word: from the attempts' resolutions") {
    AttemptFacts a, b;
    CHECK_FALSE(merchant_word({a, b}).paid_elsewhere);
    a.resolution = "release";
    b.resolution = "paid_elsewhere";
    CHECK(merchant_word({a, b}).paid_elsewhere);
    CHECK_FALSE(merchant_word({a, b}).closed);
    b.resolution = "not_paid";
    CHECK(merchant_word({a, b}).closed);
    CHECK_FALSE(merchant_word({a, b}).paid_elsewhere);
}

TEST_CASE("overview_card: verified, accepted and paid-elsewhere money counted apart, each with its currency") {
    const std::int64_t day = kDayMs, d = 20'000;  // the day of the cards' since
    OverviewOrder verified{"USD", "64.00", "exchange", "success", true, true};
    verified.created_at = d * day + 5;
    OverviewOrder accepted{"USD", "64.00", "qr", "partial_closed", false, true, true};
    accepted.received = "0.0005";
    accepted.received_currency = "BTC";
    accepted.created_at = d * day + 6;
    OverviewOrder elsewhere{"EUR", "30.00", "bank", "pending"};
    elsewhere.paid_elsewhere = true;
    elsewhere.created_at = (d + 1) * day;
    OverviewOrder partial{"USD", "64.00", "exchange", "partial"};
    partial.created_at = d * day + 7;
    OverviewOrder old = verified;
    old.created_at = d * day - 1;  // the day before
    const auto c = overview_card(overview_tally({verified, accepted, elsewhere, partial, old, verified}), d);
    CHECK(c.created == 5);
    CHECK(c.paid == 4);
    CHECK(c.verified == 2);
    CHECK(c.accepted == 1);
    CHECK(c.paid_elsewhere == 1);
    CHECK(c.partial == 1);
    REQUIRE(c.verified_totals.size() == 1);
    CHECK(paywasm::amount_text({c.verified_totals.at({"USD", "exchange"}), "USD"}) == "128.00");  // two alike: 64.00 twice
    REQUIRE(c.accepted_arrived.size() == 1);
    CHECK(paywasm::amount_text({c.accepted_arrived.at("BTC"), "BTC"}) == "0.0005");  // what arrived, not the order's 64.00 USD
    CHECK(paywasm::amount_text({c.paid_elsewhere_totals.at("EUR"), "EUR"}) == "30.00");
    CHECK(overview_card(overview_tally({verified, accepted, elsewhere, partial, old, verified}), d + 1).created == 1);
    CHECK(paid_per_day(overview_tally({verified, accepted, elsewhere, partial, old, verified}), d - 1, 3) ==
          std::vector<std::int64_t>{1, 3, 1});
}

TEST_CASE("overview_card: the median time to final in whole seconds is the whole seconds of the median in milliseconds") {
    // The page shows whole seconds; the tally keeps whole seconds. For any set of times, the median
    // (the one at index size / 2 in order) of their whole seconds is the median's whole seconds.
    std::uint64_t seed = 42;
    for (int round = 0; round < 200; ++round) {
        std::vector<OverviewOrder> rows;
        std::vector<std::int64_t> ms;
        const int count = 1 + round % 17;
        for (int i = 0; i < count; ++i) {
            seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
            OverviewOrder r{"USD", "1.00", "exchange", "success", true, true};
            r.created_at = 1'000'000'000'000 + i;
            r.status_at = r.created_at + static_cast<std::int64_t>((seed >> 33) % 9000);
            ms.push_back(r.status_at - r.created_at);
            rows.push_back(r);
        }
        std::sort(ms.begin(), ms.end());
        const auto c = overview_card(overview_tally(rows), 0);
        REQUIRE(c.median_to_final_s);
        CHECK(*c.median_to_final_s == ms[ms.size() / 2] / 1000);
    }
    OverviewOrder open{"USD", "1.00", "", "open"};
    open.status_at = 5'000;
    CHECK_FALSE(overview_card(overview_tally({open}), 0).median_to_final_s);  // not final: no time to final
}

TEST_CASE("payable: an order the merchant closed reads closed, expired or not; paid elsewhere reads paid") {
    AttemptFacts a;
    a.id = "at_1";
    a.method = paywasm::PayMethod::exchange;
    a.reported = true;
    a.transaction_id = "tx";
    a.attention_at = 5;
    a.resolution = "not_paid";
    PayableSession s;
    s.expired = true;
    CHECK(payable(s, {a}).reason == "closed");
    a.resolution = "paid_elsewhere";
    CHECK(payable(s, {a}).reason == "paid");
}
