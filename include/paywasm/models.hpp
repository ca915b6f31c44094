// paywasm/models.hpp — every request and response shape of the payment service API.
//
// Names follow the spec (camelCase there, snake_case here). Conventions:
// - Amounts are Decimal, whether the wire carries a JSON string ("decimal" in the spec) or a JSON
//   number; the codec writes each back in the form the spec gives it.
// - std::optional marks a field that may be absent on the wire. A response field that arrives
//   missing stays empty; it is never invented.
// - RawJson holds a value whose shape the spec does not show (shopData inner fields, stock, ...),
//   verbatim, so nothing is lost when it is passed on.
// - `extra` of a response object holds the members the spec does not name, as the JSON text of an
//   object ("{}" when there were none): unknown fields are kept, not dropped.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "paywasm/decimal.hpp"

namespace paywasm {

// The JSON text of one value, compact. Empty text means "absent".
struct RawJson {
    std::string text;
    bool present() const { return !text.empty(); }
    bool is_null() const { return text == "null"; }
};

// ---- Request building blocks -------------------------------------------------------------------

// A cart line. QR form: id, name, price, quantity and the subscription fields. Exchange/bank form:
// id, name, price, quantity, local_amount, local_currency. Fields of the other form stay empty.
struct CartItem {
    std::string id;
    std::string name;
    Decimal price;     // JSON number
    Decimal quantity;  // JSON number
    // Exchange/bank form.
    std::optional<Decimal> local_amount;  // JSON number
    std::optional<std::string> local_currency;
    // Subscription products only.
    std::optional<bool> is_subscription;
    std::optional<std::string> frequency;            // weekly|monthly|quarterly|half-yearly|yearly
    std::optional<std::string> subscription_period;  // [number][period], e.g. "12m"
    std::optional<std::string> merchant_subscription_id;
};

// All members are strings; an absent one is not written. `extra` is filled only where the address
// comes back in a response (txMetadata.shippingAddress); requests refuse unknown members.
struct ShippingAddress {
    std::optional<std::string> firstname, lastname, phone_no, address1, address2, state, city,
        zipcode, country, landmark, email;
    std::string extra = "{}";
};

struct CustomerInfo {
    std::string name;   // required
    std::string email;  // required
    std::optional<std::string> phone, address;
};

struct CustomParam {
    std::string name, value;
};
struct CustomParameter {
    std::string return_method;  // "POST" or "GET"
    std::vector<CustomParam> params;
};

// ---- A checkout, before the shopper picks a method -----------------------------------------------

// What a shop knows of one order: the widget's attributes, the merchant gateway's session.
// checkout.hpp turns it into each method's payload. Wire order: offerId, currency, cart,
// shippingAddress, customerInfo. Not a service shape: the project's own.
struct Checkout {
    std::string offer_id;
    std::string currency;         // ISO 4217: the order's (merchant store) currency
    std::vector<CartItem> cart;   // localAmount/localCurrency may be left out (defaults: price, currency)
    std::optional<ShippingAddress> shipping_address;
    std::optional<CustomerInfo> customer_info;  // the QR method's customer; else from the address
};

// ---- Encrypted payloads (the plaintext of `data`) ------------------------------------------------

// POST /exchanges/payments/{exchange_name}. Wire order: clientId, assets, cart, shippingAddress,
// offerId, nativeAmount, savepassword, code2fa, merchantStoreCurrency.
struct ExchangePayment {
    std::string client_id;  // merchant id
    std::string assets;     // crypto asset code, e.g. "BTC"
    std::vector<CartItem> cart;
    ShippingAddress shipping_address;
    std::string offer_id;
    // JSON string; the cart total. Absent in an order, complete_order_defaults() computes it.
    std::optional<Decimal> native_amount;
    bool savepassword = false;
    std::string code2fa;    // may be empty
    std::string merchant_store_currency;
};

// POST /purchases (DEPRECATED). Wire order: clientId, amount, accountId, cart, stockId, offerId,
// merchantStoreCurrency, hostedPageId, shippingAddress.
struct BankPayment {
    std::string client_id;
    // JSON number; the cart total. Absent in an order, complete_order_defaults() computes it.
    std::optional<Decimal> amount;
    std::string account_id;
    std::vector<CartItem> cart;
    std::string stock_id;  // shopper's connected bank account
    std::string offer_id;
    std::string merchant_store_currency;
    std::string hosted_page_id;
    ShippingAddress shipping_address;
};

// ---- QR (DEPRECATED endpoint) ---------------------------------------------------------------------

// Wire order: amount, currency, cryptoCurrency, orderId, cart, customerInfo, customParameter.
struct QrGenerateRequest {
    Decimal amount;  // JSON string
    std::string currency;         // fiat
    std::string crypto_currency;  // request spells it "cryptoCurrency"
    std::string order_id;
    std::vector<CartItem> cart;
    CustomerInfo customer_info;
    std::optional<CustomParameter> custom_parameter;
};

struct QrTransactionMeta {
    std::string offer_id;          // echoes orderId
    std::string receiver_address;  // wallet address
    std::string qr_string;         // payment URI
    std::string extra = "{}";
};
struct QrTransactionResult {
    Decimal total_amount;  // JSON string
    std::string currency;
    std::string cryto_currency;  // the service spells it "crytoCurrency"
    std::string id;
    QrTransactionMeta meta;
    std::string extra = "{}";
};
struct QrGenerateResponse {
    bool ok = false;
    QrTransactionResult result;
    std::string extra = "{}";
};

// ---- Transaction (exchange and bank payment answers) ----------------------------------------------

struct StatusRefund {
    std::optional<long long> pending, success, rejected;
    std::string extra = "{}";
};
struct CheckItem {
    std::optional<std::string> id;
    std::optional<long long> num;
    std::optional<std::string> name;
    std::optional<Decimal> price, quantity, local_amount, amount_final;  // JSON numbers
    std::optional<StatusRefund> status_refund;
    std::string extra = "{}";
};
struct ChainHash {
    std::vector<std::string> value;  // chain transaction hashes
    std::optional<std::string> network;
    std::string extra = "{}";
};
struct TransactionMeta {
    std::optional<ChainHash> hash;
    std::optional<std::string> offer_id, receiver_address;
    std::string extra = "{}";
};
struct ShopData {
    std::optional<std::string> url, logo, company_name, description;
    std::string extra = "{}";
};
struct MerchantInfo {
    std::optional<ShopData> shop_data;
    std::string extra = "{}";
};
struct Customer {
    std::optional<std::string> email, fullname;
    std::string extra = "{}";
};
struct CurrencyInfo {
    std::optional<bool> is_fiat;
    std::string extra = "{}";
};
struct TxMetadata {
    std::optional<std::string> id;
    std::optional<ShippingAddress> shipping_address;  // null on the wire -> empty
    std::optional<std::string> native_conversion_rate;
    std::string extra = "{}";
};

// Required on the wire: id and status. Everything else is optional and type-checked when present.
struct Transaction {
    std::string id;
    int status = 0;  // code table: 10, 0, 1-4, -1, 101, 19 (also 1011, 20-23)
    // Set when the service sent the immediate status as a word (pending, processing, canceled,
    // completed) instead of a number; `status` then holds the mapped code (see protocol.hpp).
    std::optional<std::string> status_word;
    std::optional<Decimal> native_amount, amount, received_amount, local_amount,
        merchant_payable_amount;  // JSON strings
    std::optional<std::string> native_currency, currency, local_currency;
    std::optional<long long> type, status_refund, settlement_status;
    std::optional<std::string> description;  // string or null
    std::vector<CheckItem> check;
    RawJson subscription_ids;  // array, element shape not shown
    std::optional<bool> subscription_order;
    std::optional<TransactionMeta> meta;
    std::optional<std::string> stock_id, user_id, partner_id, error_message;  // string or null
    std::optional<std::string> merchant_id, settlement_id, tx_meta_id, created_by, created_at,
        updated_at;
    // `reference<processor>`: the first member whose name starts with "reference" and is longer.
    std::string reference_field;  // e.g. "referenceStripe"; empty when absent
    std::optional<std::string> reference_value;
    std::optional<MerchantInfo> merchant;
    std::optional<Customer> customer;
    std::optional<CurrencyInfo> currency_info;
    RawJson stock, partner;  // object or null
    std::optional<TxMetadata> tx_metadata;
    std::optional<Decimal> received_amount_final, received_amount_cal;  // JSON numbers
    std::string extra = "{}";
};

// ---- Shopper (GET /users/me) -----------------------------------------------------------------------

struct ShopperProfileDetails {
    std::optional<std::string> zip, city, phone, state, address, country, last_name, first_name,
        date_of_birth;  // month-day-year, hyphens
    std::optional<long long> phone_country;
    std::string extra = "{}";
};
struct ShopperProfile {
    std::optional<std::string> id, email, username, fullname, avatar;
    std::optional<ShopperProfileDetails> profile;
    std::optional<long long> status, type, kyb_crypto_status, kyb_bank_status;
    RawJson shop_data, withdrawal_addresses, verification, graph_settings, verification_status;
    std::optional<bool> sso_status, enable_cancel_subscription, is2fa_enabled, enable_bank_payment;
    std::string extra = "{}";
};
struct UsersMeResponse {
    bool ok = false;
    ShopperProfile result;
    std::string extra = "{}";
};

// ---- Subscriptions ---------------------------------------------------------------------------------

struct DebitItem {
    std::string subscription_id;
    Decimal amount;  // JSON number
    std::string currency;
};
// Wire order: merchantAuth, merchantId, orderId, items.
struct SubscriptionDebitRequest {
    std::string merchant_auth;
    std::string merchant_id;
    std::optional<std::string> order_id;
    std::optional<std::vector<DebitItem>> items;
};
struct DebitEntry {
    std::optional<std::string> transaction_id, currency, order_id, user_id, merchant_id,
        subscription_id;
    std::optional<Decimal> amount, rate_divisor;  // string or number on the wire
    std::optional<long long> status;
    std::string extra = "{}";
};
struct SubscriptionDebitResult {
    long long status = 0;
    std::vector<DebitEntry> data;
    std::vector<RawJson> errors;  // element shape not shown
    std::string extra = "{}";           // unknown members of `result`
    std::string envelope_extra = "{}";  // unknown members beside `status` and `result`
};

// Wire order: merchantId, merchantAuth, subscriptionId.
struct SubscriptionCancelRequest {
    std::string merchant_id, merchant_auth, subscription_id;
};
struct SubscriptionCancelResult {
    long long status = 0;
    bool success = false;
    std::string extra = "{}";           // unknown members of `result`
    std::string envelope_extra = "{}";  // unknown members beside `status` and `result`
};

}  // namespace paywasm
