// paywasm/order.hpp: a line's amount, the minor-unit rule of a custom amount, the payment methods'
// set, and the order's bucket read from the status table.
#include <doctest/doctest.h>

#include <string>

#include "paywasm/error.hpp"
#include "paywasm/order.hpp"
#include "paywasm/validate.hpp"

using namespace paywasm;

namespace {

Money money(const char* amount, const char* currency) { return Money{Decimal::parse(amount), currency}; }

CartItem item(const char* price, const char* quantity) {
    CartItem i;
    i.id = "sku";
    i.name = "Tea";
    i.price = Decimal::parse(price);
    i.quantity = Decimal::parse(quantity);
    return i;
}

OrderFacts facts(std::string_view state) {
    OrderFacts f;
    f.state = state;
    return f;
}

}  // namespace

TEST_CASE("line_total: price × quantity, exact, in the checkout's currency; the lines sum to cart_total") {
    const Money line = line_total(item("12.5", "2"), "USD");
    CHECK(line.amount == Decimal::parse("25"));
    CHECK(line.currency == "USD");
    CHECK(amount_text(line) == "25.00");
    // Never rounded: a fractional quantity keeps every digit.
    CHECK(line_total(item("0.125", "3"), "USD").amount.to_string() == "0.375");
    const std::vector<CartItem> cart = {item("12.5", "2"), item("0.99", "3"), item("1500", "1")};
    Decimal sum;
    for (const auto& i : cart) sum += line_total(i, "EUR").amount;
    CHECK(sum == cart_total(cart));
}

TEST_CASE("in_minor_units: the currency's ISO 4217 minor unit, not two decimals everywhere") {
    CHECK(in_minor_units(money("12.34", "USD")));
    CHECK(in_minor_units(money("12.50", "USD")));  // "12.5"
    CHECK_FALSE(in_minor_units(money("12.345", "USD")));
    CHECK(in_minor_units(money("1500", "JPY")));
    CHECK_FALSE(in_minor_units(money("1500.5", "JPY")));  // yen have no fraction: `scale() > 2` let this through
    CHECK(in_minor_units(money("1.125", "KWD")));         // three decimals: `scale() > 2` refused this
    CHECK_FALSE(in_minor_units(money("1.1255", "KWD")));
    CHECK_THROWS_WITH_AS(in_minor_units(money("1", "BTC")), "currency: 'BTC' is not an ISO 4217 currency code", Error);
}

TEST_CASE("require_chargeable_total: a checkout's total in its currency's minor units") {
    Checkout c;
    c.currency = "USD";
    c.cart = {item("9.5", "2")};
    CHECK_NOTHROW(require_chargeable_total(c));
    c.cart = {item("0.001", "1")};  // no payment carries a thousandth of a dollar
    CHECK_THROWS_WITH_AS(require_chargeable_total(c), "cart: the total 0.001 USD has more decimals than the currency has (it cannot be charged)",
                         Error);
    c.cart = {item("1.5", "0.333")};  // 0.4995: a price in cents times a fractional quantity
    CHECK_THROWS_AS(require_chargeable_total(c), Error);
    c.cart = {item("0.125", "8")};  // 1.000: every line need not be in cents, the total must
    CHECK_NOTHROW(require_chargeable_total(c));
    c.currency = "JPY";
    c.cart = {item("100.5", "1")};
    CHECK_THROWS_AS(require_chargeable_total(c), Error);
}

TEST_CASE("custom amounts: bounds above zero in minor units, a choice within them") {
    CHECK(is_custom_amount_bound(money("0.01", "USD")));
    CHECK_FALSE(is_custom_amount_bound(money("0", "USD")));
    CHECK_FALSE(is_custom_amount_bound(money("-1", "USD")));
    CHECK_FALSE(is_custom_amount_bound(money("1.001", "USD")));
    CHECK_FALSE(is_custom_amount_bound(money("100.5", "JPY")));
    const Decimal min = Decimal::parse("5"), max = Decimal::parse("50");
    CHECK(is_custom_amount(money("5", "EUR"), min, max));
    CHECK(is_custom_amount(money("50.00", "EUR"), min, max));
    CHECK(is_custom_amount(money("12.34", "EUR"), min, max));
    CHECK_FALSE(is_custom_amount(money("4.99", "EUR"), min, max));
    CHECK_FALSE(is_custom_amount(money("50.01", "EUR"), min, max));
    CHECK_FALSE(is_custom_amount(money("12.345", "EUR"), min, max));
    CHECK_FALSE(is_custom_amount(money("12.5", "JPY"), min, max));
    CHECK(is_custom_amount(money("12.345", "BHD"), min, max));
}

TEST_CASE("PayMethods: one set, listed exchange, bank, qr; one parser and one printer") {
    PayMethods all{PayMethod::qr, PayMethod::exchange, PayMethod::bank};
    CHECK(to_string(all) == "exchange,bank,qr");
    CHECK(to_string(all, " ") == "exchange bank qr");
    CHECK(to_string(PayMethods{PayMethod::qr, PayMethod::exchange}) == "exchange,qr");
    CHECK(to_string(PayMethods()) == "");
    CHECK(PayMethods().empty());
    const auto parsed = parse_pay_methods("qr,exchange");
    REQUIRE(parsed);
    CHECK(*parsed == PayMethods{PayMethod::exchange, PayMethod::qr});
    CHECK(parsed->has(PayMethod::qr));
    CHECK_FALSE(parsed->has(PayMethod::bank));
    CHECK(parse_pay_methods("exchange bank", ' ') == PayMethods{PayMethod::exchange, PayMethod::bank});
    for (const char* bad : {"", "card", "exchange,", ",qr", "qr,qr", "Exchange", "exchange, qr"}) {
        CHECK_MESSAGE(!parse_pay_methods(bad), bad);
        CHECK_MESSAGE(!method_list_error(bad).empty(), bad);
    }
    CHECK(method_list_error("") == "names no method");
    CHECK(method_list_error("exchange,card") == "'card' is not exchange, bank or qr");
    CHECK(method_list_error("qr,bank,qr") == "names qr twice");
    CHECK(method_list_error("bank,qr") == "");
    // A list an older gateway stored (--methods took repeats): each name once.
    CHECK(parse_pay_methods("exchange,exchange,qr", ',', true) == PayMethods{PayMethod::exchange, PayMethod::qr});
    CHECK_FALSE(parse_pay_methods("exchange,card", ',', true));
    // Every set prints what it parses back to.
    for (unsigned bits = 1; bits < 8; ++bits) {
        PayMethods m;
        if (bits & 1) m.add(PayMethod::exchange);
        if (bits & 2) m.add(PayMethod::bank);
        if (bits & 4) m.add(PayMethod::qr);
        CHECK(parse_pay_methods(to_string(m)) == m);
    }
}

TEST_CASE("describe_checkout_state: a stored word reads back as its row of the status table") {
    CHECK_FALSE(describe_checkout_state(kNoStatusState));
    for (int code : known_status_codes()) {
        const StatusInfo want = describe_status(code);
        const auto got = describe_checkout_state(checkout_state(want.kind, false));
        REQUIRE(got);
        CHECK(got->kind == want.kind);
        CHECK(got->final == want.final);
        CHECK(got->taken == want.taken);
        CHECK(std::string(got->label) == std::string(describe_status(got->code).label));
    }
    CHECK(describe_checkout_state("canceled")->kind == StatusKind::canceled);
    CHECK(describe_checkout_state("processing")->kind == StatusKind::processing);
    CHECK(describe_checkout_state("no-such-word")->kind == StatusKind::unknown);
    const auto mismatch = describe_checkout_state("amount_mismatch");
    REQUIRE(mismatch);
    CHECK_FALSE(mismatch->success);
    CHECK(mismatch->next == NextStep::contact_shop);
}

TEST_CASE("is_partly_paid_state: part of the money arrived (partial, partial_closed), nothing else") {
    CHECK(is_partly_paid_state("partial"));
    CHECK(is_partly_paid_state("partial_closed"));
    for (const char* s : {"open", "amount_mismatch", "success", "pending", "awaiting_payment", "refund", "failed", "unknown"}) {
        CHECK_MESSAGE(!is_partly_paid_state(s), s);
    }
}

TEST_CASE("order_bucket: every row of the status table, then the merchant's word") {
    CHECK(order_bucket(facts("open")) == "pending");
    OrderFacts expired = facts("open");
    expired.expired = true;
    CHECK(order_bucket(expired) == "expired");
    // Each code of the table by its row: a success paid, a refund refunded, part of the money partial,
    // a final status that took nothing failed, anything else (money may still move) pending.
    for (int code : known_status_codes()) {
        const StatusInfo info = describe_status(code);
        OrderFacts f = facts(checkout_state(info.kind, false));
        f.success = info.success;
        f.expired = true;  // a status, once there, is never "expired"
        const std::string_view want = info.success ? "paid"
                                      : info.kind == StatusKind::refund ? "refunded"
                                      : info.taken == MoneyTaken::some ? "partial"
                                      : info.final && info.taken == MoneyTaken::none ? "failed"
                                                                                      : "pending";
        CHECK_MESSAGE(order_bucket(f) == want, code);
    }
    for (const char* s : {"awaiting_payment", "pending", "processing", "unknown", "success"}) CHECK(order_bucket(facts(s)) == "pending");
    for (const char* s : {"partial", "partial_closed", "amount_mismatch"}) CHECK(order_bucket(facts(s)) == "partial");
    for (const char* s : {"failed", "timed_out", "canceled"}) CHECK(order_bucket(facts(s)) == "failed");
    CHECK(order_bucket(facts("refund")) == "refunded");
    // The merchant's word: paid elsewhere or an accepted underpayment is paid (a refund still wins);
    // closed as not paid is failed, unless money arrived after. Paid elsewhere is paid whatever the
    // service's status says, and never expired (before issue 45 it read pending, then expired).
    for (const char* s : {"open", "pending", "awaiting_payment", "failed", "partial"}) {
        OrderFacts e = facts(s);
        e.paid_elsewhere = true;
        e.expired = true;
        CHECK_MESSAGE(order_bucket(e) == "paid", s);
    }
    OrderFacts f = facts("partial_closed");
    f.accepted = true;
    CHECK(order_bucket(f) == "paid");
    f.state = "refund";
    CHECK(order_bucket(f) == "refunded");
    OrderFacts closed = facts("open");
    closed.closed = true;
    closed.expired = true;
    CHECK(order_bucket(closed) == "failed");
    closed.state = "partial";
    CHECK(order_bucket(closed) == "partial");
    closed.success = true;
    CHECK(order_bucket(closed) == "paid");
}

TEST_CASE("order_progress: paid, then partial, then a payment under way, then nothing; read from the bucket") {
    CHECK(order_progress(facts("open")) == OrderProgress::nothing);  // no status: nothing seen yet
    for (const char* s : {"awaiting_payment", "pending", "processing"}) CHECK_MESSAGE(order_progress(facts(s)) == OrderProgress::under_way, s);
    for (const char* s : {"partial", "partial_closed", "amount_mismatch"}) CHECK_MESSAGE(order_progress(facts(s)) == OrderProgress::partial, s);
    for (const char* s : {"failed", "timed_out", "canceled", "refund"}) CHECK_MESSAGE(order_progress(facts(s)) == OrderProgress::nothing, s);
    OrderFacts paid = facts("success");
    paid.success = true;
    CHECK(order_progress(paid) == OrderProgress::paid);
    OrderFacts accepted = facts("partial_closed");  // the merchant's word counts as the bucket does
    accepted.accepted = true;
    CHECK(order_progress(accepted) == OrderProgress::paid);
    OrderFacts expired = facts("open");
    expired.expired = true;
    CHECK(order_progress(expired) == OrderProgress::nothing);
    CHECK(OrderProgress::paid > OrderProgress::partial);
    CHECK(OrderProgress::partial > OrderProgress::under_way);
    CHECK(OrderProgress::under_way > OrderProgress::nothing);
}

TEST_CASE("checkout_status_words: the code and the table's label; a mismatch says it is not the order's total") {
    CHECK(checkout_status_words(101, false) == "101 (partial payment)");
    CHECK(checkout_status_words(1, true) == "1 (successful, not the order's total)");
    CHECK(checkout_status_words(1011, false) == "1011 (partial payment, closed by the merchant)");
    CHECK(checkout_status_words(7, false) == "7 (unknown status)");
    for (int code : known_status_codes()) {
        CHECK(checkout_status_words(code, false) == std::to_string(code) + " (" + std::string(describe_status(code).label) + ")");
    }
}
