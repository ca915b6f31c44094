// The JSON codec (paywasm/codec.hpp): golden bytes for the payloads, lossless round trips of the
// responses, exact numbers, every type error with its path, writing refusals. The JSON reader and
// writer underneath have their own suite, test_json.cpp. Over 600 lines: every shape's sample texts
// are inline beside the checks that read them, one TEST_CASE per shape.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "core/json_tree.hpp"
#include "paywasm/codec.hpp"
#include "paywasm/validate.hpp"
#include "paywasm/error.hpp"
#include "samples.hpp"
#include "test_support.hpp"

using namespace paywasm;
using namespace paywasm::test;
namespace samples = paywasm::samples;

namespace {

Decimal d(const char* text) { return Decimal::parse(text); }

CartItem exchange_line(const char* id, const char* name, const char* price, const char* quantity,
                       const char* local_amount) {
    CartItem c;
    c.id = id;
    c.name = name;
    c.price = d(price);
    c.quantity = d(quantity);
    c.local_amount = d(local_amount);
    c.local_currency = "USD";
    return c;
}

ExchangePayment exchange_payment_model() {
    ExchangePayment p;
    p.client_id = "5f2b7c1e-8a4d-4c3b-9e61-2d7f0a9b3c48";
    p.assets = "BTC";
    p.cart = {exchange_line("1001", "Wool sweater", "89.99", "1", "89.99"),
              exchange_line("2042", "Card holder", "24.50", "2", "49.00"),
              exchange_line("4410", "Caf\xC3\xA9 cr\xC3\xA8me \"250 g\"", "12.1", "3", "36.3")};
    ShippingAddress& a = p.shipping_address;
    a.firstname = "Ada";
    a.lastname = "Lovelace";
    a.phone_no = "+14155550132";
    a.address1 = "1200 Market St";
    a.address2 = "Apt 5B";
    a.state = "CA";
    a.city = "San Francisco";
    a.zipcode = "94102";
    a.country = "US";
    a.landmark = "Near the library";
    a.email = "ada@example.com";
    p.offer_id = "ORD-2026-000187";
    p.native_amount = d("175.290");
    p.savepassword = false;
    p.code2fa = "123456";
    p.merchant_store_currency = "USD";
    return p;
}

BankPayment bank_payment_model() {
    BankPayment p;
    p.client_id = "5f2b7c1e-8a4d-4c3b-9e61-2d7f0a9b3c48";
    p.amount = d("139.48");
    p.account_id = "acct_7Hq2LmN4";
    p.cart = {exchange_line("SKU-5150", "Canvas tote", "19.99", "2", "39.98"),
              exchange_line("SKU-6021", "Desk lamp", "99.50", "1", "99.5")};
    p.stock_id = "bank-acc-9c1e55";
    p.offer_id = "ORD-2026-000188";
    p.merchant_store_currency = "USD";
    p.hosted_page_id = "hp_3kF9wQ";
    // Set out of wire order on purpose: the writer's order is the spec's, not the caller's.
    p.shipping_address.country = "US";
    p.shipping_address.zipcode = "02139";
    p.shipping_address.firstname = "Grace";
    p.shipping_address.lastname = "Hopper";
    p.shipping_address.address1 = "77 Massachusetts Ave";
    p.shipping_address.city = "Cambridge";
    p.shipping_address.state = "MA";
    return p;
}

// Text standing for the meaning of a JSON value, to compare two documents regardless of member
// order, number spelling and escapes: members sorted by name, numbers and decimal-string amounts
// by value, and members that are null left out (the models read a null optional as absent).
std::string meaning(detail::JsonValue v, std::string_view key = {}) {
    static const std::vector<std::string_view> kDecimalStrings = {
        "nativeAmount", "amount", "receivedAmount", "localAmount", "merchantPayableAmount",
        "totalAmount", "rateDivisor"};
    Decimal value;
    switch (v.kind()) {
        case detail::JsonKind::null: return "null";
        case detail::JsonKind::boolean: return v.boolean() ? "true" : "false";
        case detail::JsonKind::number: return "n" + Decimal::parse(v.text()).to_string();
        case detail::JsonKind::string:
            if (std::find(kDecimalStrings.begin(), kDecimalStrings.end(), key) !=
                    kDecimalStrings.end() &&
                Decimal::try_parse(v.text(), value))
                return "n" + value.to_string();
            return json_quote(v.text());
        case detail::JsonKind::array: {
            std::string out = "[";
            for (auto e = v.first_child(); e.valid(); e = e.next_sibling())
                out += meaning(e, key) + ",";
            return out + "]";
        }
        case detail::JsonKind::object: {
            std::vector<std::string> members;
            for (auto m = v.first_child(); m.valid(); m = m.next_sibling())
                if (!m.is_null()) members.push_back(json_quote(m.key()) + ":" + meaning(m, m.key()));
            std::sort(members.begin(), members.end());
            std::string out = "{";
            for (const auto& m : members) out += m + ",";
            return out + "}";
        }
    }
    return {};
}

std::string meaning_of(std::string_view json) {
    detail::JsonTree tree = detail::parse_json(json, ErrorCode::bad_response);
    return meaning(tree.root());
}


}  // namespace

// ---- Golden bytes ------------------------------------------------------------------------------

// This case runs in the native and in the WASM unit-test binary: both comparing to the same
// literal proves that both builds produce the same bytes for the encrypted payloads.
TEST_CASE("Native and WASM builds write the exchange and bank payloads as the same golden bytes") {
    SUBCASE("exchange payment built in code") {
        std::string json = to_json(exchange_payment_model());
        CHECK(json == samples::kExchangePayment);
        CHECK(json.size() == 773);
    }
    SUBCASE("exchange payment read and written back") {
        CHECK(to_json(from_json<ExchangePayment>(samples::kExchangePayment)) == samples::kExchangePayment);
    }
    SUBCASE("bank payment built in code, members set out of order") {
        CHECK(to_json(bank_payment_model()) == samples::kBankPayment);
    }
    SUBCASE("bank payment read and written back") {
        CHECK(to_json(from_json<BankPayment>(samples::kBankPayment)) == samples::kBankPayment);
    }
}

TEST_CASE("Reading the exchange payment sample gives every field") {
    ExchangePayment p = from_json<ExchangePayment>(samples::kExchangePayment);
    CHECK(p.client_id == "5f2b7c1e-8a4d-4c3b-9e61-2d7f0a9b3c48");
    CHECK(p.assets == "BTC");
    REQUIRE(p.cart.size() == 3);
    CHECK(p.cart[1].price == d("24.5"));
    CHECK(p.cart[1].quantity == d("2"));
    CHECK(p.cart[1].local_amount == d("49"));
    CHECK(p.cart[2].name == "Caf\xC3\xA9 cr\xC3\xA8me \"250 g\"");
    CHECK(p.cart[2].local_currency == "USD");
    CHECK_FALSE(p.cart[0].is_subscription.has_value());
    CHECK(p.shipping_address.landmark == "Near the library");
    CHECK(p.shipping_address.phone_no == "+14155550132");
    CHECK(p.offer_id == "ORD-2026-000187");
    CHECK(p.native_amount->to_string() == "175.29");
    CHECK(p.savepassword == false);
    CHECK(p.code2fa == "123456");
    CHECK(p.merchant_store_currency == "USD");
    CHECK(cart_total(p.cart) == p.native_amount);
}

TEST_CASE("The other requests read and write back to the same bytes") {
    SUBCASE("QR generate request with a subscription line and custom parameters") {
        QrGenerateRequest q = from_json<QrGenerateRequest>(samples::kQrGenerateRequest);
        CHECK(q.amount == d("59.97"));
        CHECK(q.crypto_currency == "ETH");
        REQUIRE(q.cart.size() == 2);
        CHECK(q.cart[0].is_subscription == true);
        CHECK(q.cart[0].frequency == "monthly");
        CHECK(q.cart[0].subscription_period == "12m");
        CHECK(q.cart[0].merchant_subscription_id == "msub-0042");
        CHECK_FALSE(q.cart[0].local_amount.has_value());
        CHECK_FALSE(q.cart[1].is_subscription.has_value());
        CHECK(q.customer_info.phone == "+14155550132");
        CHECK_FALSE(q.customer_info.address.has_value());
        REQUIRE(q.custom_parameter.has_value());
        CHECK(q.custom_parameter->return_method == "POST");
        REQUIRE(q.custom_parameter->params.size() == 1);
        CHECK(q.custom_parameter->params[0].value == "c-991");
        CHECK(to_json(q) == samples::kQrGenerateRequest);
    }
    SUBCASE("subscription debit request") {
        auto r = from_json<SubscriptionDebitRequest>(samples::kSubscriptionDebitRequest);
        CHECK(r.order_id == "SUB-ORD-0007");
        REQUIRE(r.items.has_value());
        CHECK(r.items->at(0).amount == d("19.99"));
        CHECK(to_json(r) == samples::kSubscriptionDebitRequest);
        SubscriptionDebitRequest bare;
        bare.merchant_auth = "a";
        bare.merchant_id = "m";
        CHECK(to_json(bare) == R"({"merchantAuth":"a","merchantId":"m"})");
    }
    SUBCASE("subscription cancel request") {
        auto r = from_json<SubscriptionCancelRequest>(samples::kSubscriptionCancelRequest);
        CHECK(r.subscription_id == "sub_01HV7Q");
        CHECK(to_json(r) == samples::kSubscriptionCancelRequest);
    }
    SUBCASE("a cart item and a shipping address alone") {
        const char* item = R"({"id":"1","name":"n","price":0.5,"quantity":3,"isSubscription":false})";
        CHECK(to_json(from_json<CartItem>(item)) == item);
        CHECK(to_json(ShippingAddress{}) == "{}");
        CHECK(to_json(from_json<ShippingAddress>(R"({"city":"Oslo","zipcode":"0150"})")) ==
              R"({"city":"Oslo","zipcode":"0150"})");
    }
}

// ---- Responses ---------------------------------------------------------------------------------

TEST_CASE("A full Transaction reads every documented field and writes back without loss") {
    Transaction t = from_json<Transaction>(samples::kTransactionFull);
    CHECK(t.id == "3f6c1b2a-9d8e-4f7a-b5c4-1e2d3c4b5a69");
    CHECK(t.status == 0);
    CHECK_FALSE(t.status_word.has_value());
    CHECK(t.native_amount == d("180.24"));
    CHECK(t.native_currency == "USD");
    CHECK(t.amount->to_string() == "0.00271834");
    CHECK(t.received_amount->is_zero());
    CHECK(t.currency == "BTC");
    CHECK(t.type == 2);
    CHECK(t.description == "Order ORD-2026-000187");
    REQUIRE(t.check.size() == 2);
    CHECK(t.check[0].num == 1);
    CHECK(t.check[0].extra == R"({"sku":"MWS-M-NAVY"})");
    CHECK(t.check[1].price == d("24.5"));
    CHECK(t.check[1].local_amount == d("49"));
    CHECK(t.check[1].amount_final == d("49"));
    REQUIRE(t.check[1].status_refund.has_value());
    CHECK(t.check[1].status_refund->pending == 1);
    CHECK(t.check[1].status_refund->extra == R"({"updatedBy":"system"})");
    CHECK(t.subscription_ids.text == "[]");
    CHECK(t.subscription_order == false);
    REQUIRE(t.meta.has_value());
    REQUIRE(t.meta->hash.has_value());
    CHECK(t.meta->hash->value ==
          std::vector<std::string>{"4a5e1e4baab89f3a32518a88c31bc87f618f76673e2cc77ab2127b7afdeda33b"});
    CHECK(t.meta->hash->network == "bitcoin");
    CHECK(t.meta->hash->extra == R"({"confirmations":3})");
    CHECK(t.meta->offer_id == "ORD-2026-000187");
    CHECK(t.meta->receiver_address == "bc1qxy2kgdygjrsqtzq2n0yrf2493p83kkfjhx0wlh");
    CHECK(t.meta->extra == R"({"exchange":"kraken"})");
    CHECK_FALSE(t.stock_id.has_value());  // null
    CHECK(t.user_id == "b7e4c2d1-6a5f-4e3d-9c8b-7a6f5e4d3c2b");
    CHECK(t.merchant_id == "5f2b7c1e-8a4d-4c3b-9e61-2d7f0a9b3c48");
    CHECK(t.settlement_id == "0c9d8e7f-6a5b-4c3d-2e1f-0a9b8c7d6e5f");
    CHECK(t.status_refund == 0);
    CHECK(t.local_amount == d("180.24"));
    CHECK(t.local_currency == "USD");
    CHECK(t.reference_field == "referenceKraken");
    CHECK(t.reference_value == "OQCLML-BW3P3-BUCMWZ");
    CHECK(t.merchant_payable_amount == d("177.54"));
    CHECK_FALSE(t.error_message.has_value());
    CHECK(t.settlement_status == 0);
    CHECK(t.tx_meta_id == "9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b");
    CHECK_FALSE(t.partner_id.has_value());
    CHECK(t.created_by == "b7e4c2d1-6a5f-4e3d-9c8b-7a6f5e4d3c2b");
    CHECK(t.created_at == "2026-03-14T09:26:53.589Z");
    CHECK(t.updated_at == "2026-03-14T09:27:05.112Z");
    REQUIRE(t.merchant.has_value());
    REQUIRE(t.merchant->shop_data.has_value());
    CHECK(t.merchant->shop_data->company_name == "Example Goods & Co.");
    CHECK(t.merchant->shop_data->url == "https://shop.example.com");
    CHECK(t.merchant->shop_data->extra == R"({"supportEmail":"help@shop.example.com"})");
    CHECK(t.merchant->extra == R"({"id":"5f2b7c1e-8a4d-4c3b-9e61-2d7f0a9b3c48"})");
    CHECK(t.customer->fullname == "Ada Lovelace");
    CHECK(t.customer->extra == R"({"id":"b7e4c2d1-6a5f-4e3d-9c8b-7a6f5e4d3c2b"})");
    CHECK(t.currency_info->is_fiat == false);
    CHECK(t.currency_info->extra == R"({"decimals":8})");
    CHECK(t.stock.present());
    CHECK(t.stock.is_null());
    CHECK(t.partner.text == R"({"name":"Kraken","fees":{"percent":0.26}})");
    REQUIRE(t.tx_metadata.has_value());
    CHECK(t.tx_metadata->id == "9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b");
    REQUIRE(t.tx_metadata->shipping_address.has_value());
    CHECK(t.tx_metadata->shipping_address->landmark == "Opposite the library");
    CHECK(t.tx_metadata->native_conversion_rate == "66305.12");
    CHECK(t.tx_metadata->extra == R"({"ipCountry":"US"})");
    CHECK(t.received_amount_final == d("0"));
    CHECK(t.received_amount_cal == d("0.00271834"));
    CHECK(t.extra == R"({"riskScore":12,"fees":{"network":"0.00001","service":"1.80"}})");

    std::string written = to_json(t);
    CHECK(written == samples::kTransactionFullCanonical);
    CHECK(meaning_of(written) == meaning_of(samples::kTransactionFull));
    // Writing is a fixed point: reading the written text and writing it again changes nothing.
    CHECK(to_json(from_json<Transaction>(written)) == written);
}

TEST_CASE("A Transaction's status may be a word and its reference may be null") {
    Transaction t = from_json<Transaction>(samples::kTransactionStatusWord);
    CHECK(t.status_word == "processing");
    CHECK(t.status == 0);
    CHECK(t.reference_field == "referenceStripe");
    CHECK_FALSE(t.reference_value.has_value());
    CHECK(t.check.empty());
    CHECK_FALSE(t.subscription_ids.present());
    CHECK(to_json(t) ==
          R"({"id":"7a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d","status":"processing","nativeAmount":"25",)"
          R"("nativeCurrency":"USD","referenceStripe":null})");

    struct Word {
        const char* word;
        int code;
    };
    for (Word w : {Word{"pending", 0}, Word{"processing", 0}, Word{"completed", 1}, Word{"canceled", -1}}) {
        CAPTURE(w.word);
        Transaction s = from_json<Transaction>(std::string(R"({"id":"x","status":")") + w.word + "\"}");
        CHECK(s.status == w.code);
        CHECK(s.status_word == w.word);
    }
    Transaction numeric = from_json<Transaction>(R"({"id":"x","status":-1})");
    CHECK(numeric.status == -1);
    CHECK_FALSE(numeric.status_word.has_value());
    CHECK(from_json<Transaction>(R"({"id":"x","status":1011})").status == 1011);

    SUBCASE("only the first reference<processor> member is the reference; a bare 'reference' is not") {
        Transaction r = from_json<Transaction>(
            R"({"id":"x","status":1,"reference":"r0","referencePaypal":"P-1","referenceStripe":"pi_2"})");
        CHECK(r.reference_field == "referencePaypal");
        CHECK(r.reference_value == "P-1");
        CHECK(r.extra == R"({"reference":"r0","referenceStripe":"pi_2"})");
    }
    SUBCASE("a reference name holding an escaped NUL keeps all its bytes") {
        Transaction r = from_json<Transaction>(R"({"id":"x","status":1,"reference\u0000Stripe":"v"})");
        CHECK(r.reference_field == std::string("reference\0Stripe", 16));
        CHECK(r.reference_value == "v");
        CHECK(to_json(r) == R"({"id":"x","status":1,"reference\u0000Stripe":"v"})");
    }
}

TEST_CASE("The QR generate response reads the result, keeps extras and writes back") {
    QrGenerateResponse r = from_json<QrGenerateResponse>(samples::kQrGenerateResponse);
    CHECK(r.ok);
    CHECK(r.result.total_amount == d("59.97"));
    CHECK(r.result.currency == "USD");
    CHECK(r.result.cryto_currency == "ETH");
    CHECK(r.result.id == "8b1d6f2e-3c4a-4b5d-9e6f-7a8b9c0d1e2f");
    CHECK(r.result.meta.offer_id == "ORD-2026-000190");
    CHECK(r.result.meta.receiver_address == "0x52908400098527886E0F7030069857D2E4169EE7");
    CHECK(r.result.meta.qr_string ==
          "ethereum:0x52908400098527886E0F7030069857D2E4169EE7?amount=0.0183&value=18300000000000000");
    CHECK(r.result.meta.extra == R"({"network":"ethereum"})");
    CHECK(r.result.extra == R"({"expiresAt":"2026-03-14T10:26:53.589Z"})");
    CHECK(r.extra == R"({"requestId":"req-5521"})");
    std::string written = to_json(r);
    CHECK(meaning_of(written) == meaning_of(samples::kQrGenerateResponse));
    CHECK(starts_with(written, R"({"ok":true,"result":{"totalAmount":"59.97","currency":"USD","crytoCurrency":"ETH",)"));
    CHECK(to_json(r.result) == to_json(from_json<QrTransactionResult>(to_json(r.result))));

    SUBCASE("ok false needs no result") {
        QrGenerateResponse failed = from_json<QrGenerateResponse>(R"({"ok":false,"message":"bad token"})");
        CHECK_FALSE(failed.ok);
        CHECK(failed.extra == R"({"message":"bad token"})");
    }
}

TEST_CASE("The users/me response reads the shopper profile and writes back") {
    UsersMeResponse r = from_json<UsersMeResponse>(samples::kUsersMeResponse);
    const ShopperProfile& p = r.result;
    CHECK(r.ok);
    CHECK(p.id == "b7e4c2d1-6a5f-4e3d-9c8b-7a6f5e4d3c2b");
    CHECK(p.username == "ada");
    CHECK_FALSE(p.avatar.has_value());
    REQUIRE(p.profile.has_value());
    CHECK(p.profile->first_name == "Ada");
    CHECK(p.profile->date_of_birth == "12-10-1985");
    CHECK(p.profile->phone_country == 1);
    CHECK(p.profile->extra == R"({"gender":"f"})");
    CHECK(p.status == 1);
    CHECK(p.type == 2);
    CHECK(p.kyb_crypto_status == 0);
    CHECK(p.kyb_bank_status == 0);
    CHECK(p.shop_data.text == "{}");
    CHECK(p.withdrawal_addresses.text ==
          R"([{"asset":"BTC","address":"bc1qxy2kgdygjrsqtzq2n0yrf2493p83kkfjhx0wlh"}])");
    CHECK(p.sso_status == false);
    CHECK(p.enable_cancel_subscription == true);
    CHECK(p.verification.is_null());
    CHECK(p.graph_settings.text == "[]");
    CHECK(p.is2fa_enabled == true);
    CHECK(p.enable_bank_payment == false);
    CHECK(p.verification_status.text == R"({"level":2,"checkedAt":"2026-01-02T03:04:05Z"})");
    CHECK(p.extra == R"({"lastLoginAt":"2026-03-14T09:20:00.000Z"})");
    std::string written = to_json(r);
    CHECK(meaning_of(written) == meaning_of(samples::kUsersMeResponse));
    CHECK(to_json(p) == to_json(from_json<ShopperProfile>(to_json(p))));
}

TEST_CASE("Debit and cancel results read both amount forms and keep both levels of extras") {
    SubscriptionDebitResult r = from_json<SubscriptionDebitResult>(samples::kSubscriptionDebitResult);
    CHECK(r.status == 200);
    REQUIRE(r.data.size() == 2);
    CHECK(r.data[0].amount == d("19.99"));      // a string on the wire
    CHECK(r.data[0].rate_divisor == d("1"));    // a number
    CHECK(r.data[1].amount == d("9.5"));        // a number
    CHECK(r.data[1].rate_divisor == d("66305.12"));  // a string
    CHECK(r.data[0].order_id == "SUB-ORD-0007");
    CHECK(r.data[1].status == 1);
    CHECK_FALSE(r.data[1].user_id.has_value());
    CHECK(r.data[1].extra == R"({"exchange":"kraken"})");
    REQUIRE(r.errors.size() == 1);
    CHECK(r.errors[0].text == R"({"subscriptionId":"sub_01HV7S","message":"Insufficient Balance"})");
    CHECK(r.extra == R"({"processed":2})");
    CHECK(r.envelope_extra == R"({"traceId":"t-778"})");
    std::string written = to_json(r);
    CHECK(meaning_of(written) == meaning_of(samples::kSubscriptionDebitResult));
    CHECK(starts_with(written, R"({"status":200,"result":{"data":[{"transactionId":)"));

    SubscriptionCancelResult c = from_json<SubscriptionCancelResult>(samples::kSubscriptionCancelResult);
    CHECK(c.status == 200);
    CHECK(c.success);
    CHECK(c.extra == R"({"cancelledAt":"2026-03-14T09:30:00Z"})");
    CHECK(c.envelope_extra == R"({"traceId":"t-779"})");
    CHECK(to_json(c) == samples::kSubscriptionCancelResult);

    SubscriptionDebitResult empty;
    CHECK(to_json(empty) == R"({"status":0,"result":{"data":[],"errors":[]}})");
    CHECK(from_json<SubscriptionDebitResult>(R"({"status":200,"result":{}})").data.empty());
}

TEST_CASE("Response sub-objects read on their own") {
    CHECK(from_json<CheckItem>(R"({"num":3,"price":1.25})").price == d("1.25"));
    CHECK(from_json<StatusRefund>(R"({"rejected":2})").rejected == 2);
    CHECK(from_json<ChainHash>(R"({"value":["a","b"]})").value.size() == 2);
    CHECK(from_json<TransactionMeta>(R"({"offerId":"o"})").offer_id == "o");
    CHECK(from_json<ShopData>(R"({"logo":"l"})").logo == "l");
    CHECK(from_json<MerchantInfo>(R"({"shopData":{"url":"u"}})").shop_data->url == "u");
    CHECK(from_json<Customer>(R"({"email":"e"})").email == "e");
    CHECK(from_json<CurrencyInfo>(R"({"isFiat":true})").is_fiat == true);
    CHECK_FALSE(from_json<TxMetadata>(R"({"shippingAddress":null})").shipping_address.has_value());
    CHECK(from_json<ShopperProfileDetails>(R"({"zip":"1"})").zip == "1");
    CHECK(from_json<DebitEntry>(R"({"amount":"0.10"})").amount == d("0.1"));
    CHECK(from_json<QrTransactionMeta>(R"({"receiverAddress":"r","qrString":"q"})").qr_string == "q");
}

TEST_CASE("Unknown members of a response's shipping address are kept") {
    TxMetadata m = from_json<TxMetadata>(R"({"shippingAddress":{"city":"Oslo","floor":"3"},"x":1})");
    CHECK(m.shipping_address->city == "Oslo");
    CHECK(m.shipping_address->extra == R"({"floor":"3"})");
    CHECK(m.extra == R"({"x":1})");
    CHECK(to_json(from_json<Transaction>(R"({"id":"i","status":0,"txMetadata":{"shippingAddress":{"city":"Oslo","floor":"3"}}})")) ==
          R"({"id":"i","status":0,"txMetadata":{"shippingAddress":{"city":"Oslo","floor":"3"}}})");
    // A request still refuses them (a typo must not silently drop a field).
    CHECK_THROWS_AS(from_json<ShippingAddress>(R"({"city":"Oslo","floor":"3"})"), Error);
}

// ---- Numbers -------------------------------------------------------------------------------------

TEST_CASE("JSON numbers become exact Decimals, exponent notation included") {
    auto price = [](const std::string& number) {
        return from_json<CheckItem>(R"({"price":)" + number + "}").price->to_string();
    };
    CHECK(price("0") == "0");
    CHECK(price("-0") == "0");
    CHECK(price("0.1") == "0.1");
    CHECK(price("24.50") == "24.5");
    CHECK(price("1e2") == "100");
    CHECK(price("1.5E3") == "1500");
    CHECK(price("1.5e-7") == "0.00000015");
    CHECK(price("-2.5e+1") == "-25");
    CHECK(price("0.30000000000000004") == "0.30000000000000004");
    CHECK(price("123456789012345678901234567890") == "123456789012345678901234567890");
    CHECK(price("1e29") == "100000000000000000000000000000");
    CHECK(price("0e-999999999999") == "0");

    SUBCASE("a response's number with more than 18 fractional digits is rounded half away from zero") {
        CHECK(price("1.2345678901234567e-7") == "0.000000123456789012");
        CHECK(price("0.0000000000000000015") == "0.000000000000000002");
        CHECK(price("-0.0000000000000000015") == "-0.000000000000000002");
        CHECK(price("0.0000000000000000005") == "0.000000000000000001");
        CHECK(price("0.0000000000000000004999") == "0");
        CHECK(price("0.9999999999999999999") == "1");
        CHECK(price("1e-999999999") == "0");
    }
    SUBCASE("a response's number over 30 integer digits is refused") {
        check_response_error<CheckItem>(R"({"price":1e30})", "price", "number has more than 30 integer digits");
        check_response_error<CheckItem>(R"({"price":1234567890123456789012345678901})", "price",
                                        "number has more than 30 integer digits");
        check_response_error<CheckItem>(R"({"price":1e308})", "price",
                                        "number has more than 30 integer digits");
        // Rounding must not carry into a 31st integer digit (the result could not be read back).
        check_response_error<CheckItem>(R"({"price":999999999999999999999999999999.9999999999999999995})", "price",
                                        "number has more than 30 integer digits");
        CHECK(price("999999999999999999999999999999.9999999999999999994") ==
              "999999999999999999999999999999.999999999999999999");
        // The reader itself refuses a number beyond a double's range, before the codec sees it.
        CHECK(error_message<CheckItem>(R"({"price":1e309})") ==
              "not valid JSON at offset 9: a number is too large for a double");
    }
    SUBCASE("a request's number keeps Decimal's limits") {
        const std::string head = R"({"id":"1","name":"n","quantity":1,"price":)";
        CHECK(from_json<CartItem>(head + "1e2}").price == d("100"));
        check_request_error<CartItem>(head + "1e-19}", "price", "number has more than 18 fractional digits");
        check_request_error<CartItem>(head + "0.0000000000000000001}", "price",
                                      "number has more than 18 fractional digits");
        check_request_error<CartItem>(head + "1e30}", "price", "number has more than 30 integer digits");
    }
}

// ---- Type errors, each path ------------------------------------------------------------------------

TEST_CASE("Requests name the full path of every wrong type, missing or unknown member") {
    const std::string cart_head = R"({"clientId":"c","assets":"BTC","cart":[{"id":"1","name":"a","price":1,"quantity":1},)"
                                  R"({"id":"2","name":"b","price":1,"quantity":1},)";
    const std::string cart_tail = R"(],"shippingAddress":{},"offerId":"o","nativeAmount":"2","savepassword":false,)"
                                  R"("code2fa":"","merchantStoreCurrency":"USD"})";
    auto third_item = [&](const std::string& item) { return cart_head + item + cart_tail; };
    REQUIRE_NOTHROW(from_json<ExchangePayment>(third_item(R"({"id":"3","name":"c","price":1,"quantity":1})")));

    SUBCASE("strings") {
        check_request_error<ExchangePayment>(third_item(R"({"id":3,"name":"c","price":1,"quantity":1})"),
                                             "cart[2].id", "expected a string");
        check_request_error<ExchangePayment>(third_item(R"({"id":"3","name":null,"price":1,"quantity":1})"),
                                             "cart[2].name", "expected a string");
        check_request_error<ExchangePayment>(
            third_item(R"({"id":"3","name":"c","price":1,"quantity":1,"localCurrency":840})"),
            "cart[2].localCurrency", "expected a string");
    }
    SUBCASE("numbers") {
        check_request_error<ExchangePayment>(third_item(R"({"id":"3","name":"c","price":"1","quantity":1})"),
                                             "cart[2].price", "expected a number");
        check_request_error<ExchangePayment>(third_item(R"({"id":"3","name":"c","price":1,"quantity":true})"),
                                             "cart[2].quantity", "expected a number");
        check_request_error<ExchangePayment>(
            third_item(R"({"id":"3","name":"c","price":1,"quantity":1,"localAmount":"1"})"),
            "cart[2].localAmount", "expected a number");
        check_request_error<BankPayment>(
            R"({"clientId":"c","amount":"139.48","accountId":"a","cart":[],"stockId":"s","offerId":"o",)"
            R"("merchantStoreCurrency":"USD","hostedPageId":"h","shippingAddress":{}})",
            "amount", "expected a number");
        check_request_error<SubscriptionDebitRequest>(
            R"({"merchantAuth":"a","merchantId":"m","items":[{"subscriptionId":"s","amount":"1","currency":"USD"}]})",
            "items[0].amount", "expected a number");
    }
    SUBCASE("decimal strings") {
        check_request_error<ExchangePayment>(cart_head + R"({"id":"3","name":"c","price":1,"quantity":1})" +
                                                 R"(],"shippingAddress":{},"offerId":"o","nativeAmount":2,)"
                                                 R"("savepassword":false,"code2fa":"","merchantStoreCurrency":"USD"})",
                                             "nativeAmount", "expected a decimal string");
        check_request_error<QrGenerateRequest>(
            R"({"amount":"1e3","currency":"USD","cryptoCurrency":"BTC","orderId":"o","cart":[],)"
            R"("customerInfo":{"name":"n","email":"e"}})",
            "amount", "uses exponent notation (write all digits, e.g. 1500 not 1.5e3)");
        check_request_error<QrGenerateRequest>(
            R"({"amount":"NaN","currency":"USD","cryptoCurrency":"BTC","orderId":"o","cart":[],)"
            R"("customerInfo":{"name":"n","email":"e"}})",
            "amount", "is not a finite number");
    }
    SUBCASE("booleans") {
        check_request_error<ExchangePayment>(
            cart_head + R"({"id":"3","name":"c","price":1,"quantity":1})" +
                R"(],"shippingAddress":{},"offerId":"o","nativeAmount":"2","savepassword":"no",)"
                R"("code2fa":"","merchantStoreCurrency":"USD"})",
            "savepassword", "expected a boolean");
        check_request_error<CartItem>(R"({"id":"1","name":"a","price":1,"quantity":1,"isSubscription":1})",
                                      "isSubscription", "expected a boolean");
    }
    SUBCASE("objects and arrays") {
        check_request_error<ExchangePayment>("[]", "", "expected an object");
        check_request_error<ExchangePayment>(third_item("7"), "cart[2]", "expected an object");
        check_request_error<ExchangePayment>(
            R"({"clientId":"c","assets":"BTC","cart":{},"shippingAddress":{},"offerId":"o","nativeAmount":"2",)"
            R"("savepassword":false,"code2fa":"","merchantStoreCurrency":"USD"})",
            "cart", "expected an array");
        check_request_error<ExchangePayment>(
            R"({"clientId":"c","assets":"BTC","cart":[],"shippingAddress":"here","offerId":"o","nativeAmount":"2",)"
            R"("savepassword":false,"code2fa":"","merchantStoreCurrency":"USD"})",
            "shippingAddress", "expected an object");
        check_request_error<QrGenerateRequest>(
            R"({"amount":"1","currency":"USD","cryptoCurrency":"BTC","orderId":"o","cart":[],)"
            R"("customerInfo":{"name":"n","email":"e"},"customParameter":{"returnMethod":"GET","params":[{"name":"a","value":1}]}})",
            "customParameter.params[0].value", "expected a string");
        check_request_error<SubscriptionDebitRequest>(R"({"merchantAuth":"a","merchantId":"m","items":{}})",
                                                      "items", "expected an array");
    }
    SUBCASE("missing required members") {
        check_request_error<ExchangePayment>(third_item(R"({"id":"3","name":"c","quantity":1})"),
                                             "cart[2].price", "missing required member");
        check_request_error<QrGenerateRequest>(
            R"({"amount":"1","currency":"USD","cryptoCurrency":"BTC","orderId":"o","cart":[],"customerInfo":{"name":"n"}})",
            "customerInfo.email", "missing required member");
        check_request_error<SubscriptionCancelRequest>(R"({"merchantId":"m","merchantAuth":"a"})",
                                                       "subscriptionId", "missing required member");
        // amount and merchantAuth may be left out (the core's operations fill them in).
        check_request_error<BankPayment>(R"({"clientId":"c"})", "accountId", "missing required member");
        check_request_error<SubscriptionDebitRequest>(R"({"merchantAuth":"a"})", "merchantId",
                                                      "missing required member");
    }
    SUBCASE("unknown and repeated members") {
        check_request_error<ExchangePayment>(
            third_item(R"({"id":"3","name":"c","price":1,"quantity":1,"colour":"red"})"), "cart[2].colour",
            "unknown member");
        check_request_error<ShippingAddress>(R"({"city":"Oslo","zip":"0150"})", "zip", "unknown member");
        check_request_error<ExchangePayment>(third_item(R"({"id":"3","name":"c","price":1,"price":2,"quantity":1})"),
                                             "cart[2].price", "member appears twice");
        check_request_error<SubscriptionCancelRequest>(
            R"({"merchantId":"m","merchantAuth":"a","subscriptionId":"s","merchantId":"evil"})", "merchantId",
            "member appears twice");
    }
    SUBCASE("optional members may be null or absent") {
        CartItem c = from_json<CartItem>(R"({"id":"1","name":"a","price":1,"quantity":1,"frequency":null})");
        CHECK_FALSE(c.frequency.has_value());
        CHECK(to_json(c) == R"({"id":"1","name":"a","price":1,"quantity":1})");
    }
}

TEST_CASE("Responses name the full path of every wrong type or missing member") {
    SUBCASE("Transaction") {
        check_response_error<Transaction>(R"({"status":0})", "id", "missing required member");
        check_response_error<Transaction>(R"({"id":"x"})", "status", "missing required member");
        check_response_error<Transaction>(R"({"id":1,"status":0})", "id", "expected a string");
        check_response_error<Transaction>(R"({"id":"x","status":true})", "status",
                                          "expected an integer or a status word");
        check_response_error<Transaction>(R"({"id":"x","status":"done"})", "status",
                                          "expected an integer or one of pending, processing, canceled, completed");
        check_response_error<Transaction>(R"({"id":"x","status":"Pending"})", "status",
                                          "expected an integer or one of pending, processing, canceled, completed");
        check_response_error<Transaction>(R"({"id":"x","status":1.5})", "status", "expected an integer");
        check_response_error<Transaction>(R"({"id":"x","status":2147483648})", "status", "integer out of range");
        check_response_error<Transaction>(R"({"id":"x","status":0,"type":99999999999999999999})", "type",
                                          "integer out of range");
        check_response_error<Transaction>(R"({"id":"x","status":0,"type":"2"})", "type", "expected an integer");
        check_response_error<Transaction>(R"({"id":"x","status":0,"nativeAmount":180.24})", "nativeAmount",
                                          "expected a decimal string");
        check_response_error<Transaction>(R"({"id":"x","status":0,"amount":"1e-8"})", "amount",
                                          "uses exponent notation (write all digits, e.g. 1500 not 1.5e3)");
        check_response_error<Transaction>(R"({"id":"x","status":0,"receivedAmountCal":"0.1"})",
                                          "receivedAmountCal", "expected a number");
        check_response_error<Transaction>(R"({"id":"x","status":0,"description":7})", "description",
                                          "expected a string");
        check_response_error<Transaction>(R"({"id":"x","status":0,"subscriptionOrder":"false"})",
                                          "subscriptionOrder", "expected a boolean");
        check_response_error<Transaction>(R"({"id":"x","status":0,"subscriptionIds":{}})", "subscriptionIds",
                                          "expected an array or null");
        check_response_error<Transaction>(R"({"id":"x","status":0,"stock":"s"})", "stock",
                                          "expected an object or null");
        check_response_error<Transaction>(R"({"id":"x","status":0,"check":{}})", "check", "expected an array");
        check_response_error<Transaction>(R"({"id":"x","status":0,"check":[{},{"statusRefund":{"success":"1"}}]})",
                                          "check[1].statusRefund.success", "expected an integer");
        check_response_error<Transaction>(R"({"id":"x","status":0,"check":[{"amountFinal":"49"}]})",
                                          "check[0].amountFinal", "expected a number");
        check_response_error<Transaction>(R"({"id":"x","status":0,"meta":{"hash":{"value":["a",1]}}})",
                                          "meta.hash.value[1]", "expected a string");
        check_response_error<Transaction>(R"({"id":"x","status":0,"meta":[]})", "meta", "expected an object");
        check_response_error<Transaction>(R"({"id":"x","status":0,"referenceStripe":5})", "referenceStripe",
                                          "expected a string or null");
        check_response_error<Transaction>(R"({"id":"x","status":0,"merchant":{"shopData":{"companyName":false}}})",
                                          "merchant.shopData.companyName", "expected a string");
        check_response_error<Transaction>(R"({"id":"x","status":0,"currencyInfo":{"isFiat":"yes"}})",
                                          "currencyInfo.isFiat", "expected a boolean");
        check_response_error<Transaction>(R"({"id":"x","status":0,"customer":{"email":[]}})", "customer.email",
                                          "expected a string");
        check_response_error<Transaction>(R"({"id":"x","status":0,"txMetadata":{"shippingAddress":{"zipcode":94102}}})",
                                          "txMetadata.shippingAddress.zipcode", "expected a string");
        check_response_error<Transaction>("\"x\"", "", "expected an object");
    }
    SUBCASE("QR result") {
        const std::string meta = R"("meta":{"offerId":"o","receiverAddress":"r","qrString":"q"})";
        check_response_error<QrGenerateResponse>(R"({"result":{}})", "ok", "missing required member");
        check_response_error<QrGenerateResponse>(R"({"ok":"true"})", "ok", "expected a boolean");
        check_response_error<QrGenerateResponse>(R"({"ok":true})", "result", "missing required member");
        check_response_error<QrGenerateResponse>(R"({"ok":true,"result":{"totalAmount":"1",)" + meta + "}}",
                                                 "result.id", "missing required member");
        check_response_error<QrGenerateResponse>(R"({"ok":true,"result":{"id":"i",)" + meta + "}}",
                                                 "result.totalAmount", "missing required member");
        check_response_error<QrGenerateResponse>(R"({"ok":true,"result":{"id":"i","totalAmount":1,)" + meta + "}}",
                                                 "result.totalAmount", "expected a decimal string");
        check_response_error<QrGenerateResponse>(R"({"ok":true,"result":{"id":"i","totalAmount":"1"}})",
                                                 "result.meta", "missing required member");
        check_response_error<QrGenerateResponse>(
            R"({"ok":true,"result":{"id":"i","totalAmount":"1","meta":{"offerId":"o","receiverAddress":"r"}}})",
            "result.meta.qrString", "missing required member");
        check_response_error<QrGenerateResponse>(
            R"({"ok":true,"result":{"id":"i","totalAmount":"1","meta":{"offerId":"o","qrString":"q"}}})",
            "result.meta.receiverAddress", "missing required member");
        check_response_error<QrGenerateResponse>(
            R"({"ok":true,"result":{"id":"i","totalAmount":"1","meta":{"offerId":5,"receiverAddress":"r","qrString":"q"}}})",
            "result.meta.offerId", "expected a string");
        check_response_error<QrGenerateResponse>(
            R"({"ok":true,"result":{"id":"i","totalAmount":"1","crytoCurrency":null,"currency":1,)" + meta + "}}",
            "result.currency", "expected a string");
    }
    SUBCASE("users/me") {
        check_response_error<UsersMeResponse>(R"({"ok":true,"result":[]})", "result", "expected an object");
        check_response_error<UsersMeResponse>(R"({"ok":true,"result":{"profile":{"phoneCountry":"1"}}})",
                                              "result.profile.phoneCountry", "expected an integer");
        check_response_error<UsersMeResponse>(R"({"ok":true,"result":{"shopData":[]}})", "result.shopData",
                                              "expected an object or null");
        check_response_error<UsersMeResponse>(R"({"ok":true,"result":{"withdrawalAddresses":"none"}})",
                                              "result.withdrawalAddresses", "expected an array or null");
        check_response_error<UsersMeResponse>(R"({"ok":true,"result":{"graphSettings":{}}})",
                                              "result.graphSettings", "expected an array or null");
        check_response_error<UsersMeResponse>(R"({"ok":true,"result":{"is2faEnabled":0}})",
                                              "result.is2faEnabled", "expected a boolean");
        CHECK(from_json<UsersMeResponse>(R"({"ok":true,"result":{"verification":"manual"}})")
                  .result.verification.text == R"("manual")");
    }
    SUBCASE("subscription results") {
        check_response_error<SubscriptionDebitResult>(R"({"result":{}})", "status", "missing required member");
        check_response_error<SubscriptionDebitResult>(R"({"status":200})", "result", "missing required member");
        check_response_error<SubscriptionDebitResult>(R"({"status":"200","result":{}})", "status",
                                                      "expected an integer");
        check_response_error<SubscriptionDebitResult>(R"({"status":200,"result":{"data":[{"amount":true}]}})",
                                                      "result.data[0].amount",
                                                      "expected a number or a decimal string");
        check_response_error<SubscriptionDebitResult>(R"({"status":200,"result":{"data":[{"rateDivisor":"1,5"}]}})",
                                                      "result.data[0].rateDivisor",
                                                      "is not a plain decimal number (digits, optional '.' and digits)");
        check_response_error<SubscriptionDebitResult>(R"({"status":200,"result":{"errors":"none"}})",
                                                      "result.errors", "expected an array");
        check_response_error<SubscriptionCancelResult>(R"({"status":200,"result":{}})", "result.success",
                                                       "missing required member");
        check_response_error<SubscriptionCancelResult>(R"({"status":200,"result":{"success":"true"}})",
                                                       "result.success", "expected a boolean");
        check_response_error<SubscriptionCancelResult>(R"({"status":200,"result":true})", "result",
                                                       "expected an object");
    }
}

TEST_CASE("Of a repeated known member in a response the last one wins, as in JSON.parse") {
    Transaction t = from_json<Transaction>(R"({"id":"a","status":1,"id":"b","x":1,"x":2,"y":0})");
    CHECK(t.id == "b");
    // Unknown members stay as they came; JSON.parse of the extra still sees x = 2.
    CHECK(t.extra == R"({"x":1,"x":2,"y":0})");
    CHECK(to_json(t) == R"({"id":"b","status":1,"x":1,"x":2,"y":0})");
}

TEST_CASE("Writing refuses a RawJson or an extra that is not valid JSON, naming the field") {
    Transaction t;
    t.id = "x";
    t.stock.text = "{oops";
    try {
        to_json(t);
        FAIL("accepted");
    } catch (const Error& e) {
        CHECK(e.code() == ErrorCode::validation);
        CHECK(e.field() == "stock");
    }
    t.stock.text = "{ \"a\" : [1, 2] }";  // valid, written compactly
    CHECK(to_json(t) == R"({"id":"x","status":0,"stock":{"a":[1,2]}})");
    t.stock = {};
    t.extra = "[1]";
    try {
        to_json(t);
        FAIL("accepted");
    } catch (const Error& e) {
        CHECK(e.field() == "extra");
        CHECK(std::string(e.what()) == "extra: must be the JSON text of an object");
    }
    t.extra = "";
    CHECK(to_json(t) == R"({"id":"x","status":0})");
    t.meta = TransactionMeta{};
    t.meta->extra = "{\"a\":";
    try {
        to_json(t);
        FAIL("accepted");
    } catch (const Error& e) {
        CHECK(e.field() == "meta.extra");
    }
}
