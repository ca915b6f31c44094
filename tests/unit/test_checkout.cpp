// The product's operations (paywasm/checkout.hpp): one rule each for defaults, totals, key pins,
// merchantAuth, webhooks and error JSON, so the widget, the CLI and the servers cannot drift.
#include <doctest/doctest.h>

#include <string>

#include "paywasm/checkout.hpp"
#include "paywasm/codec.hpp"
#include "paywasm/json.hpp"
#include "samples.hpp"
#include "test_crypto_keys.hpp"
#include "test_support.hpp"

using namespace paywasm;
namespace keys = paywasm::test_keys;
using paywasm::test::error_of;

namespace {

// The documented exchange sample with the defaults left out: no nativeAmount, no local fields.
constexpr std::string_view kBareExchangeOrder =
    R"({"clientId":"5f2b7c1e-8a4d-4c3b-9e61-2d7f0a9b3c48","assets":"BTC","cart":[)"
    R"({"id":"1001","name":"Wool sweater","price":89.99,"quantity":1},)"
    R"({"id":"2042","name":"Card holder","price":24.5,"quantity":2,"localAmount":49},)"
    R"({"id":"4410","name":"Café crème \"250 g\"","price":12.1,"quantity":3,"localAmount":36.3,"localCurrency":"USD"}],)"
    R"("shippingAddress":{"firstname":"Ada","lastname":"Lovelace","phoneNo":"+14155550132",)"
    R"("address1":"1200 Market St","address2":"Apt 5B","state":"CA","city":"San Francisco",)"
    R"("zipcode":"94102","country":"US","landmark":"Near the library","email":"ada@example.com"},)"
    R"("offerId":"ORD-2026-000187","savepassword":false,"code2fa":"123456",)"
    R"("merchantStoreCurrency":"USD"})";

Checkout sample_checkout() {
    return from_json<Checkout>(
        R"({"offerId":"order-1","currency":"EUR","cart":[{"id":"a","name":"Mug","price":9.99,"quantity":2},)"
        R"({"id":"b","name":"Tea","price":0.01,"quantity":1,"localAmount":1,"localCurrency":"GBP"}],)"
        R"("shippingAddress":{"firstname":"Ada","lastname":"Lovelace","email":"ada@example.com"}})");
}

}  // namespace

TEST_CASE("An order without nativeAmount and local fields gets the core's defaults") {
    SUBCASE("the payload is the documented sample, byte for byte") {
        CHECK(payment_payload(from_json<ExchangePayment>(kBareExchangeOrder)) == samples::kExchangePayment);
    }
    SUBCASE("given values are kept, and then checked") {
        auto order = from_json<ExchangePayment>(kBareExchangeOrder);
        order.native_amount = Decimal::parse("175.30");
        const Error e = error_of([&] { payment_payload(order); });
        CHECK(e.field() == "nativeAmount");
    }
    SUBCASE("bank orders: amount and the local fields") {
        auto bank = from_json<BankPayment>(samples::kBankPayment);
        bank.amount.reset();
        for (CartItem& item : bank.cart) {
            item.local_amount.reset();
            item.local_currency.reset();
        }
        const std::string payload = payment_payload(bank);
        // The sample's lines have localAmount = price * quantity; the default is the price.
        CHECK(payload.find(R"("amount":139.48)") != std::string::npos);
        CHECK(payload.find(R"("price":19.99,"quantity":2,"localAmount":19.99,"localCurrency":"USD")") !=
              std::string::npos);
    }
    SUBCASE("without defaults, validate() names what is missing") {
        auto order = from_json<ExchangePayment>(kBareExchangeOrder);
        CHECK(error_of([&] { validate(order); }).field() == "cart[0].localAmount");
        complete_order_defaults(order);
        CHECK_NOTHROW(validate(order));
    }
}

TEST_CASE("A checkout becomes the QR order in the core") {
    const Checkout c = sample_checkout();
    SUBCASE("customer from the address, or refused") {
        const QrGenerateRequest q = qr_order(c, "btc");
        CHECK(q.order_id == "order-1");
        CHECK(q.crypto_currency == "BTC");
        CHECK(q.amount == Decimal::parse("19.99"));
        CHECK(q.customer_info.name == "Ada Lovelace");
        CHECK(q.customer_info.email == "ada@example.com");
        CHECK_FALSE(q.cart[1].local_amount.has_value());
        CHECK_NOTHROW(validate(q));
        Checkout anonymous = c;
        anonymous.shipping_address.reset();
        CHECK(error_of([&] { qr_order(anonymous); }).field() == "customerInfo");
    }
    SUBCASE("a checkout's own rules") {
        CHECK_NOTHROW(validate(c));
        Checkout bad = c;
        bad.cart[0].quantity = Decimal();
        CHECK(error_of([&] { validate(bad); }).field() == "cart[0].quantity");
        bad = c;
        bad.cart[0].price = Decimal();
        bad.cart[1].price = Decimal();
        CHECK(std::string(error_of([&] { validate(bad); }).what()) == "cart: the total must be > 0");
    }
}

TEST_CASE("An exchange order's asset code is written in upper case") {
    auto order = from_json<ExchangePayment>(kBareExchangeOrder);
    order.assets = "btc";
    CHECK(payment_payload(order) == samples::kExchangePayment);
}

TEST_CASE("Carts are read strictly and totalled once") {
    CHECK(cart_total(cart_from_json(R"([{"id":"a","name":"A","price":0.1,"quantity":3},{"id":"b","name":"B","price":0.2,"quantity":1}])"))
              .to_string() == "0.5");
    CHECK(cart_total({}).is_zero());
    const Error e = error_of([] { cart_from_json(R"([{"id":"a","name":"A","price":"12.50","quantity":1}])"); });
    CHECK(e.code() == ErrorCode::validation);
    CHECK(e.field() == "cart[0].price");
    CHECK(error_of([] { cart_from_json(R"({"id":"a"})"); }).field() == "cart");
    CHECK(error_of([] { cart_from_json(R"([1])"); }).field() == "cart[0]");
    CHECK(error_of([] { cart_from_json(R"([{"id":"a","name":"A","price":1,"quantity":1,"image":"x"}])"); }).field() ==
          "cart[0].image");
}

TEST_CASE("A cart is paid with a session only when it adds up to the session's amount") {
    const auto cart = cart_from_json(
        R"([{"id":"a","name":"A","price":24.5,"quantity":2},{"id":"b","name":"B","price":9.99,"quantity":1}])");
    SUBCASE("the same amount, however it is written") {
        CHECK(require_session_amount(cart, "58.99").to_string() == "58.99");
        CHECK(require_session_amount(cart, "58.990").to_string() == "58.99");
    }
    SUBCASE("another amount is refused, naming the cart and both amounts") {
        const Error e = error_of([&] { require_session_amount(cart, "49.00"); });
        CHECK(e.code() == ErrorCode::validation);
        CHECK(e.field() == "cart");
        CHECK(std::string(e.what()).find("58.99") != std::string::npos);
        CHECK(std::string(e.what()).find("49") != std::string::npos);
        CHECK(error_of([&] { require_session_amount({}, "58.99"); }).field() == "cart");
    }
    SUBCASE("a session amount that is not a decimal is refused as the amount") {
        const Error e = error_of([&] { require_session_amount(cart, "58,99"); });
        CHECK(e.code() == ErrorCode::validation);
        CHECK(e.field() == "amount");
    }
}

TEST_CASE("A key pin matches in any case and with ':' separators") {
    const PublicKey key = PublicKey::parse(keys::kPublic2048);
    std::string upper = keys::kFingerprint2048, colons;
    for (char& c : upper) c = static_cast<char>(c >= 'a' && c <= 'f' ? c - 'a' + 'A' : c);
    for (std::size_t i = 0; i < upper.size(); i += 2) colons += (i ? ":" : "") + upper.substr(i, 2);
    CHECK(key.matches_fingerprint(keys::kFingerprint2048));
    CHECK(key.matches_fingerprint(upper));
    CHECK(key.matches_fingerprint(colons));
    CHECK_FALSE(key.matches_fingerprint(keys::kFingerprint3072));
    CHECK_FALSE(key.matches_fingerprint(std::string(keys::kFingerprint2048).substr(1)));
    CHECK_NOTHROW(load_merchant_key({keys::kPublic2048, colons}));
    const Error e = error_of([] { load_merchant_key({keys::kPublic2048, keys::kFingerprint3072}); });
    CHECK(e.code() == ErrorCode::key_mismatch);
    CHECK(e.field() == "fingerprint");
}

TEST_CASE("prepare_exchange_payment sends one encrypted payload the merchant can read") {
    const PrivateKey priv = PrivateKey::parse(keys::kPrivate2048);
    const HttpRequest r = prepare_exchange_payment(from_json<ExchangePayment>(kBareExchangeOrder), "kraken",
                                                   {keys::kPublic2048, keys::kFingerprint2048}, "shopper-token");
    CHECK(r.method == "POST");
    CHECK(r.path == "/exchanges/payments/kraken");
    const JsonDocument body = parse_json(r.body);
    CHECK(decrypt(priv, body.root().member("data").text()) == samples::kExchangePayment);
    SUBCASE("nothing is built for a bad exchange, key or pin") {
        auto order = from_json<ExchangePayment>(kBareExchangeOrder);
        CHECK(error_of([&] { prepare_exchange_payment(order, "mtgox", {keys::kPublic2048}, "t"); }).field() == "exchange");
        CHECK(error_of([&] { prepare_exchange_payment(order, "kraken", {"not a key"}, "t"); }).code() ==
              ErrorCode::invalid_key);
        CHECK(error_of([&] { prepare_exchange_payment(order, "kraken", {keys::kPublic2048, "00"}, "t"); }).code() ==
              ErrorCode::key_mismatch);
    }
}

TEST_CASE("Subscription calls make merchantAuth from merchantId when it is left out") {
    const PrivateKey priv = PrivateKey::parse(keys::kPrivate2048);
    auto debit = from_json<SubscriptionDebitRequest>(
        R"({"merchantId":"m-7","items":[{"subscriptionId":"s-1","amount":19.99,"currency":"USD"}]})");
    const HttpRequest r = prepare_subscription_debit(debit, {keys::kPublic2048});
    const JsonDocument body = parse_json(r.body);
    CHECK(decrypt(priv, body.root().member("merchantAuth").text()) == R"({"merchantId":"m-7"})");
    auto cancel = from_json<SubscriptionCancelRequest>(samples::kSubscriptionCancelRequest);
    CHECK(to_json(cancel) == samples::kSubscriptionCancelRequest);
    const HttpRequest c = prepare_subscription_cancel(cancel, {});  // given merchantAuth: no key needed
    CHECK(c.body == samples::kSubscriptionCancelRequest);
    auto bearer = [](const HttpRequest& req) {
        for (const auto& [name, value] : req.headers) {
            if (name == "Authorization") return value;
        }
        return std::string();
    };
    CHECK(bearer(r).empty());
    CHECK(bearer(prepare_subscription_cancel(cancel, {}, "mt_secret")) == "Bearer mt_secret");
    CHECK(bearer(prepare_subscription_debit(debit, {keys::kPublic2048}, "mt_secret")) == "Bearer mt_secret");
}

TEST_CASE("Webhooks are verified over data.data and read from it only") {
    const PrivateKey service = PrivateKey::parse(keys::kPrivate3072);
    const PublicKey service_pub = service.public_key();
    const std::string tx = R"({"id":"tx-1","status":1,"meta":{"offerId":"order-1"}})";
    auto body = [&](const std::string& status_copy, const std::string& signature) {
        return R"({"type":"rf:alert","data":{"data":)" + json_quote(tx) + R"(,"offerId":"order-1","status":)" +
               status_copy + R"(},"signature":)" + json_quote(signature) + "}";
    };
    const std::string good = sign_sha256(service, tx);
    const VerifiedWebhook v = verify_webhook(body("1", good), service_pub);
    CHECK(v.signed_json == tx);
    CHECK(v.transaction.id == "tx-1");
    CHECK(describe_status(v.transaction).final);
    CHECK(error_of([&] { verify_webhook(body("1", sign_sha256(service, tx + " ")), service_pub); }).code() ==
          ErrorCode::crypto);
    CHECK(error_of([&] { verify_webhook(body("-1", good), service_pub); }).code() == ErrorCode::crypto);
    CHECK(error_of([&] { verify_webhook("{\"data\":1}", service_pub); }).code() == ErrorCode::validation);
    CHECK(error_of([&] { verify_webhook(std::string(100000, '['), service_pub); }).code() == ErrorCode::validation);
}

TEST_CASE("One error object for every edge") {
    Error e(ErrorCode::insufficient_balance, "Insufficient Balance", "");
    e.with_http_status(419);
    CHECK(error_json(e) ==
          R"({"code":"insufficient_balance","message":"Insufficient Balance","field":"","httpStatus":419})");
    CHECK(error_json("internal", "a \"quoted\"\nline") ==
          R"({"code":"internal","message":"a \"quoted\"\nline","field":"","httpStatus":0})");
}

TEST_CASE("Forwarded events: HMAC-SHA256 over \"<t>.<body>\", checked in constant time with a tolerance") {
    // RFC 4231 test case 2.
    CHECK(hmac_sha256_hex("Jefe", "what do ya want for nothing?") ==
          "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
    CHECK(constant_time_equal("", ""));
    CHECK(constant_time_equal("abc", "abc"));
    CHECK_FALSE(constant_time_equal("abc", "abd"));
    CHECK_FALSE(constant_time_equal("abc", "ab"));
    const std::string body = R"({"id":"evt_1","status":1})";
    const std::string header = sign_event("s3cret", body, 1700000000);
    CHECK(header == "t=1700000000,v1=" + hmac_sha256_hex("s3cret", "1700000000." + body));
    CHECK_NOTHROW(verify_event("s3cret", body, header, 1700000100));
    CHECK_NOTHROW(verify_event("s3cret", body, "v0=zz, " + header, 1700000000));  // other schemes ignored
    auto code_of = [](auto&& f) {
        try {
            f();
        } catch (const Error& e) {
            return std::string(to_string(e.code())) + ":" + e.field();
        }
        return std::string("none");
    };
    CHECK(code_of([&] { verify_event("s3cret", body + " ", header, 1700000000); }) == "crypto:signature");
    CHECK(code_of([&] { verify_event("other", body, header, 1700000000); }) == "crypto:signature");
    CHECK(code_of([&] { verify_event("s3cret", body, header, 1700000301); }) == "crypto:timestamp");
    CHECK(code_of([&] { verify_event("s3cret", body, header, 1699999699); }) == "crypto:timestamp");
    CHECK(code_of([&] { verify_event("s3cret", body, header, 1700000301, 400); }) == "none");
    for (const char* bad : {"", "t=1700000000", "v1=00", "t=abc,v1=00", "t=1700000000,v1=XYZ", "garbage"}) {
        CAPTURE(bad);
        CHECK(code_of([&] { verify_event("s3cret", body, bad, 1700000000); }) == "validation:Paywasm-Signature");
    }
}
