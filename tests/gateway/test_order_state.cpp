// The gateway's rules around the one order state, without a database: the attention rule of an
// attempt, the merchant's word from the resolutions (rules/attempts.hpp), Pay after a decision, and
// the overview's figures (rules/overview.hpp). The order's bucket itself is the core's
// (paywasm/order.hpp order_bucket(): tests/unit/test_order.cpp). Each case here failed before issue
// 45: a late webhook that paid a stuck attempt left it needing attention, and the overview summed an
// accepted underpayment's full order total as paid.
#include <doctest/doctest.h>

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
    const std::int64_t now = 1000000;
    OverviewOrder verified{"USD", "64.00", "exchange", "success", true, true};
    verified.expires_at = now + 1;
    OverviewOrder accepted{"USD", "64.00", "qr", "partial_closed", false, true, true};
    accepted.received = "0.0005";
    accepted.received_currency = "BTC";
    accepted.expires_at = now - 1;
    OverviewOrder elsewhere{"EUR", "30.00", "bank", "pending"};
    elsewhere.paid_elsewhere = true;
    elsewhere.expires_at = now - 1;
    OverviewOrder partial{"USD", "64.00", "exchange", "partial"};
    partial.expires_at = now + 1;
    OverviewOrder old = verified;
    old.created_at = -5;
    const auto c = overview_card({verified, accepted, elsewhere, partial, old}, 0, now);
    CHECK(c.created == 4);
    CHECK(c.paid == 3);
    CHECK(c.verified == 1);
    CHECK(c.accepted == 1);
    CHECK(c.paid_elsewhere == 1);
    CHECK(c.partial == 1);
    REQUIRE(c.verified_totals.size() == 1);
    CHECK(paywasm::amount_text({c.verified_totals.at({"USD", "exchange"}), "USD"}) == "64.00");
    REQUIRE(c.accepted_arrived.size() == 1);
    CHECK(paywasm::amount_text({c.accepted_arrived.at("BTC"), "BTC"}) == "0.0005");  // what arrived, not the order's 64.00 USD
    CHECK(paywasm::amount_text({c.paid_elsewhere_totals.at("EUR"), "EUR"}) == "30.00");
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
