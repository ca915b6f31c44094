// One order state (src/merchant/rules/order_state.hpp), the attention rule of an attempt, the merchant's
// word from the resolutions (attempts.hpp) and the overview's figures (overview.hpp), without a
// database. Each case here failed before issue 45: "paid elsewhere" read as pending (or expired), a
// late webhook that paid a stuck attempt left it needing attention, and the overview summed an
// accepted underpayment's full order total as paid.
#include <doctest/doctest.h>

#include "rules/attempts.hpp"
#include "rules/order_state.hpp"
#include "rules/overview.hpp"
#include "paywasm/status.hpp"

using namespace merchant;

namespace {

OrderFacts facts(std::string_view state) {
    OrderFacts f;
    f.state = state;
    return f;
}

}  // namespace

TEST_CASE("order_bucket: the verified status alone") {
    CHECK(order_bucket(facts("open")) == "pending");
    OrderFacts expired = facts("open");
    expired.expired = true;
    CHECK(order_bucket(expired) == "expired");
    for (const char* s : {"awaiting_payment", "pending", "processing", "unknown"}) CHECK(order_bucket(facts(s)) == "pending");
    for (const char* s : {"partial", "partial_closed", "amount_mismatch"}) CHECK(order_bucket(facts(s)) == "partial");
    for (const char* s : {"failed", "timed_out", "canceled"}) CHECK(order_bucket(facts(s)) == "failed");
    CHECK(order_bucket(facts("refund")) == "refunded");
    OrderFacts paid = facts("success");
    paid.success = true;
    CHECK(order_bucket(paid) == "paid");
}

TEST_CASE("order_bucket: the merchant's word") {
    // Paid elsewhere: paid whatever the service's status says, and never expired.
    for (const char* s : {"open", "pending", "awaiting_payment", "failed", "partial"}) {
        OrderFacts f = facts(s);
        f.paid_elsewhere = true;
        f.expired = true;
        CHECK_MESSAGE(order_bucket(f) == "paid", s);
    }
    // An accepted underpayment is paid; refunded once the service refunds.
    OrderFacts accepted = facts("partial_closed");
    accepted.accepted = true;
    CHECK(order_bucket(accepted) == "paid");
    accepted.state = "refund";
    CHECK(order_bucket(accepted) == "refunded");
    // Closed as not paid: failed, a clear end (not pending, not expired); money that arrived later
    // still shows (partly paid, or a verified success).
    OrderFacts closed = facts("open");
    closed.closed = true;
    CHECK(order_bucket(closed) == "failed");
    closed.expired = true;
    CHECK(order_bucket(closed) == "failed");
    closed.state = "partial";
    CHECK(order_bucket(closed) == "partial");
    closed.success = true;
    CHECK(order_bucket(closed) == "paid");
    // Released: nothing of the merchant's word stays on the order.
    CHECK(order_bucket(facts("pending")) == "pending");
}

TEST_CASE("needs_attention: stuck and unresolved, until a verified outcome or a resolution settles it") {
    AttemptFacts a;
    a.id = "at_1";
    a.method = "exchange";
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
    a.method = "exchange";
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
