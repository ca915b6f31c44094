// The one status table (paywasm/status.hpp) and what is still owed: natively and in wasm.
#include <doctest/doctest.h>

#include "paywasm/error.hpp"
#include "paywasm/status.hpp"

using namespace paywasm;

TEST_CASE("Every status says whether money was taken, and only 1-4 are a success") {
    for (int code : known_status_codes()) {
        const StatusInfo s = describe_status(code);
        CHECK(s.success == (code >= 1 && code <= 4));
        if (s.success) {
            CHECK(s.final);
            CHECK(s.taken == MoneyTaken::all);
            CHECK(s.next == NextStep::done);
        }
        // Nothing taken: the shopper may pay again, so the status is never "wait" or "contact the shop".
        if (s.taken == MoneyTaken::none) CHECK((s.next == NextStep::pay || s.next == NextStep::pay_again));
    }
    CHECK(describe_status(10).taken == MoneyTaken::none);
    CHECK(describe_status(0).taken == MoneyTaken::all);
    CHECK(describe_status(-1).taken == MoneyTaken::none);
    CHECK(describe_status(19).taken == MoneyTaken::none);
    CHECK(describe_status(101).taken == MoneyTaken::some);
    CHECK(describe_status(1011).taken == MoneyTaken::some);
    CHECK(describe_status(20).taken == MoneyTaken::maybe);
    // A code the table does not know may have moved money: never "pay again".
    CHECK(describe_status(7).taken == MoneyTaken::maybe);
    CHECK(describe_status(7).next == NextStep::contact_shop);
    CHECK_FALSE(describe_status(7).final);
}

TEST_CASE("A partial payment is finished at the QR code's address, and only there") {
    CHECK(describe_status(101, PayMethod::qr).next == NextStep::pay_rest);
    CHECK(describe_status(101, PayMethod::exchange).next == NextStep::contact_shop);
    CHECK(describe_status(101, PayMethod::bank).next == NextStep::contact_shop);
    CHECK(describe_status(101, PayMethod::qr).tone == Tone::warning);
    CHECK(describe_status_word("completed").success);
    CHECK(describe_status_word("canceled").taken == MoneyTaken::none);
}

TEST_CASE("What is owed is in the transaction's own currency, exactly") {
    const StatusInfo partial = describe_status(101, PayMethod::qr);
    const Owed o = amounts_owed(partial, {Decimal::parse("0.00128126"), "BTC"}, Decimal::parse("0.00064063"));
    CHECK(o.expected.currency == "BTC");
    CHECK(o.received.amount == Decimal::parse("0.00064063"));
    CHECK(o.remaining.amount.to_string() == "0.00064063");
    CHECK(o.remaining.currency == "BTC");
    SUBCASE("nothing received yet: all of it is owed") {
        const Owed w = amounts_owed(describe_status(10), {Decimal::parse("0.5"), "ETH"}, std::nullopt);
        CHECK(w.received.amount.is_zero());
        CHECK(w.remaining.amount.to_string() == "0.5");
    }
    SUBCASE("more than asked, or a success: nothing is owed") {
        CHECK(amounts_owed(partial, {Decimal::parse("1"), "BTC"}, Decimal::parse("1.2")).remaining.amount.is_zero());
        CHECK(amounts_owed(describe_status(1), {Decimal::parse("1"), "BTC"}, std::nullopt).remaining.amount.is_zero());
    }
    SUBCASE("no currency, or a negative amount: refused") {
        CHECK_THROWS_AS(amounts_owed(partial, {Decimal::parse("1"), ""}, std::nullopt), Error);
        CHECK_THROWS_AS(amounts_owed(partial, {Decimal::parse("-1"), "BTC"}, std::nullopt), Error);
        CHECK_THROWS_AS(amounts_owed(partial, {Decimal::parse("1"), "BTC"}, Decimal::parse("-0.1")), Error);
    }
}

TEST_CASE("Amounts are written one way: fiat with two fraction digits at least, crypto with every digit") {
    CHECK(amount_text({Decimal::parse("82"), "USD"}) == "82.00");
    CHECK(amount_text({Decimal::parse("82.5"), "EUR"}) == "82.50");
    CHECK(amount_text({Decimal::parse("0.125"), "USD"}) == "0.125");
    CHECK(amount_text({Decimal::parse("0.00064063"), "BTC"}) == "0.00064063");
    CHECK(amount_text({Decimal::parse("82"), "BTC"}) == "82");
    // Per currency (issue 30: JPY was "1500.00"): its ISO 4217 minor unit, more digits kept.
    CHECK(amount_text({Decimal::parse("1500"), "JPY"}) == "1500");
    CHECK(amount_text({Decimal::parse("1500.00"), "JPY"}) == "1500");
    CHECK(amount_text({Decimal::parse("1500.5"), "JPY"}) == "1500.5");
    CHECK(amount_text({Decimal::parse("1.5"), "KWD"}) == "1.500");
    CHECK(amount_text({Decimal::parse("7"), "KRW"}) == "7");
}
