#include <doctest/doctest.h>

#include <string>

#include "paywasm/error.hpp"
#include "paywasm/validate.hpp"

using namespace paywasm;

namespace {

CartItem item(const char* id, const char* price, const char* qty) {
    CartItem c;
    c.id = id;
    c.name = std::string("Item ") + id;
    c.price = Decimal::parse(price);
    c.quantity = Decimal::parse(qty);
    c.local_amount = Decimal::parse(price);
    c.local_currency = "USD";
    return c;
}

ExchangePayment good_exchange() {
    ExchangePayment p;
    p.client_id = "0f8fad5b-d9cb-469f-a165-70867728950e";
    p.assets = "BTC";
    p.cart = {item("sku-1", "19.99", "2"), item("sku-2", "5.50", "1")};
    p.shipping_address.firstname = "Ada";
    p.shipping_address.email = "ada@example.org";
    p.offer_id = "order-1001";
    p.native_amount = Decimal::parse("45.48");
    p.code2fa = "123456";
    p.merchant_store_currency = "USD";
    return p;
}

// The field path and message of the validation error `f` throws.
template <class F>
std::pair<std::string, std::string> failure(F&& f) {
    try {
        f();
    } catch (const Error& e) {
        CHECK(e.code() == ErrorCode::validation);
        return {e.field(), e.what()};
    }
    FAIL("expected a validation error");
    return {};
}

}  // namespace

TEST_CASE("A complete exchange payment passes validation") {
    CHECK_NOTHROW(validate(good_exchange()));
}

TEST_CASE("Exchange payment rules name the field and the reason") {
    ExchangePayment p = good_exchange();

    SUBCASE("quantity must be positive") {
        p.cart[1].quantity = Decimal::parse("0");
        auto [field, msg] = failure([&] { validate(p); });
        CHECK(field == "cart[1].quantity");
        CHECK(msg == "cart[1].quantity: must be > 0");
    }
    SUBCASE("negative price") {
        p.cart[0].price = Decimal::parse("-1");
        CHECK(failure([&] { validate(p); }).first == "cart[0].price");
    }
    SUBCASE("totals that don't add up") {
        p.native_amount = Decimal::parse("45.47");
        auto [field, msg] = failure([&] { validate(p); });
        CHECK(field == "nativeAmount");
        CHECK(msg.find("45.48") != std::string::npos);
    }
    SUBCASE("totals check can be switched off, positivity cannot") {
        p.native_amount = Decimal::parse("1");
        Limits relaxed;
        relaxed.check_totals = false;
        CHECK_NOTHROW(validate(p, relaxed));
        p.native_amount = Decimal::parse("0");
        CHECK(failure([&] { validate(p, relaxed); }).first == "nativeAmount");
    }
    SUBCASE("empty cart") {
        p.cart.clear();
        CHECK(failure([&] { validate(p); }).second == "cart: must have at least one item");
    }
    SUBCASE("absurd cart length names the cap") {
        p.cart.assign(101, item("x", "1", "1"));
        p.native_amount = Decimal::parse("101");
        CHECK(failure([&] { validate(p); }).second == "cart: has 101 items; the limit is 100");
    }
    SUBCASE("absurd string length names the cap") {
        p.cart[0].name.assign(1024 * 1024, 'a');
        CHECK(failure([&] { validate(p); }).second == "cart[0].name: is 1048576 bytes; the limit is 256");
    }
    SUBCASE("control characters") {
        p.cart[0].name = "Tea\n";
        CHECK(failure([&] { validate(p); }).second.find("control character") != std::string::npos);
    }
    SUBCASE("right-to-left override") {
        p.cart[0].name = "gnp.\xE2\x80\xAE" "exe";
        CHECK(failure([&] { validate(p); }).second.find("bidirectional override") != std::string::npos);
    }
    SUBCASE("invalid UTF-8") {
        p.cart[0].name = "caf\xC3";
        CHECK(failure([&] { validate(p); }).second.find("UTF-8") != std::string::npos);
    }
    SUBCASE("required strings") {
        p.client_id.clear();
        CHECK(failure([&] { validate(p); }).second == "clientId: is required");
    }
    SUBCASE("offer id required") {
        p.offer_id.clear();
        CHECK(failure([&] { validate(p); }).first == "offerId");
    }
    SUBCASE("unknown fiat currency") {
        p.merchant_store_currency = "XYZ";
        CHECK(failure([&] { validate(p); }).first == "merchantStoreCurrency");
    }
    SUBCASE("lower-case currency") {
        p.merchant_store_currency = "usd";
        CHECK(failure([&] { validate(p); }).first == "merchantStoreCurrency");
    }
    SUBCASE("crypto asset code") {
        p.assets = "bitcoin!";
        CHECK(failure([&] { validate(p); }).first == "assets");
    }
    SUBCASE("exchange form needs localAmount and localCurrency") {
        p.cart[0].local_amount.reset();
        CHECK(failure([&] { validate(p); }).first == "cart[0].localAmount");
        p = good_exchange();
        p.cart[1].local_currency = "EURO";
        CHECK(failure([&] { validate(p); }).first == "cart[1].localCurrency");
    }
    SUBCASE("2FA code") {
        p.code2fa = "12a456";
        CHECK(failure([&] { validate(p); }).first == "code2fa");
        p.code2fa = "";
        CHECK_NOTHROW(validate(p));
    }
    SUBCASE("shipping email") {
        p.shipping_address.email = "not-an-email";
        CHECK(failure([&] { validate(p); }).first == "shippingAddress.email");
    }
}

TEST_CASE("Subscription fields follow isSubscription") {
    ExchangePayment p = good_exchange();
    CartItem& s = p.cart[0];

    SUBCASE("a subscription item with frequency and period passes") {
        s.is_subscription = true;
        s.frequency = "half-yearly";
        s.subscription_period = "12m";
        s.merchant_subscription_id = "sub-42";
        CHECK_NOTHROW(validate(p));
    }
    SUBCASE("unknown frequency") {
        s.is_subscription = true;
        s.frequency = "daily";
        CHECK(failure([&] { validate(p); }).first == "cart[0].frequency");
    }
    SUBCASE("frequency required") {
        s.is_subscription = true;
        CHECK(failure([&] { validate(p); }).first == "cart[0].frequency");
    }
    SUBCASE("malformed periods") {
        s.is_subscription = true;
        s.frequency = "monthly";
        for (const char* bad : {"m", "12", "12x", "012m", "1mm", "1000y", " 1m"}) {
            CAPTURE(bad);
            s.subscription_period = bad;
            CHECK(failure([&] { validate(p); }).first == "cart[0].subscriptionPeriod");
        }
        for (const char* good : {"1d", "2w", "12m", "1y"}) {
            s.subscription_period = good;
            CHECK_NOTHROW(validate(p));
        }
    }
    SUBCASE("subscription fields without isSubscription") {
        s.frequency = "monthly";
        CHECK(failure([&] { validate(p); }).second == "cart[0].frequency: is only allowed when isSubscription is true");
    }
}

TEST_CASE("Bank payment rules") {
    BankPayment b;
    b.client_id = "m-1";
    b.account_id = "acct-1";
    b.stock_id = "bank-7";
    b.offer_id = "order-2";
    b.merchant_store_currency = "USD";
    b.cart = {item("a", "10", "3")};
    b.amount = Decimal::parse("30");
    CHECK_NOTHROW(validate(b));
    b.amount = Decimal::parse("30.01");
    CHECK(failure([&] { validate(b); }).first == "amount");
    b.amount = Decimal::parse("30");
    b.stock_id.clear();
    CHECK(failure([&] { validate(b); }).first == "stockId");
}

TEST_CASE("QR generate request rules") {
    QrGenerateRequest r;
    r.amount = Decimal::parse("12.5");
    r.currency = "EUR";
    r.crypto_currency = "USDT";
    r.order_id = "o-9";
    CartItem c;
    c.id = "1";
    c.name = "Mug";
    c.price = Decimal::parse("6.25");
    c.quantity = Decimal::parse("2");
    r.cart = {c};
    r.customer_info.name = "Bo";
    r.customer_info.email = "bo@example.com";
    CHECK_NOTHROW(validate(r));

    SUBCASE("QR form does not need local fields, but needs a customer email") {
        r.customer_info.email = "bo";
        CHECK(failure([&] { validate(r); }).first == "customerInfo.email");
    }
    SUBCASE("returnMethod") {
        r.custom_parameter = CustomParameter{"PUT", {}};
        CHECK(failure([&] { validate(r); }).first == "customParameter.returnMethod");
        r.custom_parameter = CustomParameter{"GET", {{"", "x"}}};
        CHECK(failure([&] { validate(r); }).first == "customParameter.params[0].name");
    }
    SUBCASE("crypto currency") {
        r.crypto_currency = "";
        CHECK(failure([&] { validate(r); }).second == "cryptoCurrency: is required");
    }
}

TEST_CASE("Subscription debit and cancel rules") {
    SubscriptionDebitRequest d;
    d.merchant_auth = "QUJD";
    d.merchant_id = "m-1";
    CHECK_NOTHROW(validate(d));
    d.items = std::vector<DebitItem>{{"sub-1", Decimal::parse("9.99"), "USD"}};
    CHECK_NOTHROW(validate(d));
    (*d.items)[0].amount = Decimal::parse("0");
    CHECK(failure([&] { validate(d); }).first == "items[0].amount");
    (*d.items)[0].amount = Decimal::parse("1");
    (*d.items)[0].currency = "usd";
    CHECK(failure([&] { validate(d); }).first == "items[0].currency");
    d.merchant_auth.clear();
    CHECK(failure([&] { validate(d); }).first == "merchantAuth");

    SubscriptionCancelRequest c{"m-1", "QUJD", ""};
    CHECK(failure([&] { validate(c); }).first == "subscriptionId");
}

TEST_CASE("Currency code checks") {
    CHECK(is_fiat_currency("USD"));
    CHECK(is_fiat_currency("EUR"));
    CHECK(is_fiat_currency("ZWL"));
    CHECK_FALSE(is_fiat_currency("US"));
    CHECK_FALSE(is_fiat_currency("ABC"));
    CHECK(is_crypto_currency("BTC"));
    CHECK(is_crypto_currency("USDT"));
    CHECK_FALSE(is_crypto_currency("B"));
    CHECK_FALSE(is_crypto_currency("btc"));
}

TEST_CASE("Exchange names come from the configured list") {
    CHECK_NOTHROW(validate_exchange_name("coinbase"));
    CHECK_NOTHROW(validate_exchange_name("binanceus"));
    CHECK_THROWS_AS(validate_exchange_name("Coinbase"), Error);
    CHECK_THROWS_AS(validate_exchange_name("../users/me"), Error);
    Limits more;
    more.exchanges.push_back("bitstamp");
    CHECK_NOTHROW(validate_exchange_name("bitstamp", more));
}
