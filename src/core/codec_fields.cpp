// The members of every model, in wire order (the spec's order; models.hpp gives it for requests).
// Reading and writing both walk these lists; see codec_fields.hpp.
#include "core/codec_fields.hpp"

namespace paywasm::detail {
namespace {

template <class T>
void element(FieldVisitor& v, std::size_t i, T& model) {
    v.enter_element_object(i);
    visit(v, model);
    v.leave_object(own_extra(model));
}
void element(FieldVisitor& v, std::size_t i, std::string& s) { v.element(i, s); }
void element(FieldVisitor& v, std::size_t i, RawJson& r) { v.element(i, r); }

template <class T>
void elements(FieldVisitor& v, std::size_t n, std::vector<T>& items) {
    if (v.reading()) items.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
        if (v.reading()) items.emplace_back();
        element(v, i, items[i]);
    }
    v.leave_array();
}

// An array member; the writer writes it when `present`.
template <class T>
void array(FieldVisitor& v, const char* name, std::vector<T>& items, Need need,
           bool present = true) {
    if (v.reading()) items.clear();
    std::size_t n = v.enter_array(name, items.size(), present, need);
    if (n != kNoArray) elements(v, n, items);
}

// An array member that may be absent (absent and empty differ).
template <class T>
void array(FieldVisitor& v, const char* name, std::optional<std::vector<T>>& items) {
    std::size_t n = v.enter_array(name, items ? items->size() : 0, items.has_value(), Need::optional);
    if (v.reading()) items.reset();
    if (n == kNoArray) return;
    if (v.reading()) items.emplace();
    elements(v, n, *items);
}

// A member that is a model.
template <class T>
void object(FieldVisitor& v, const char* name, T& model, Need need) {
    if (!v.enter_object(name, true, need)) return;
    visit(v, model);
    v.leave_object(own_extra(model));
}

template <class T>
void object(FieldVisitor& v, const char* name, std::optional<T>& model) {
    if (v.reading()) model.reset();
    if (!v.enter_object(name, model.has_value(), Need::optional)) return;
    if (v.reading()) model.emplace();
    visit(v, *model);
    v.leave_object(own_extra(*model));
}

constexpr Need kReq = Need::required;
constexpr Need kOpt = Need::optional;

}  // namespace

// ---- Requests ----------------------------------------------------------------------------------

// QR form: id, name, price, quantity, subscription fields; exchange/bank form: id, name, price,
// quantity, localAmount, localCurrency. Absent fields of the other form are not written.
void visit(FieldVisitor& v, CartItem& c) {
    v.text("id", c.id, kReq);
    v.text("name", c.name, kReq);
    v.amount("price", c.price, Wire::number, kReq);
    v.amount("quantity", c.quantity, Wire::number, kReq);
    v.amount("localAmount", c.local_amount, Wire::number);
    v.text("localCurrency", c.local_currency);
    v.flag("isSubscription", c.is_subscription);
    v.text("frequency", c.frequency);
    v.text("subscriptionPeriod", c.subscription_period);
    v.text("merchantSubscriptionId", c.merchant_subscription_id);
}

// Also inside a response (txMetadata.shippingAddress), where unknown members go to `extra`.
void visit(FieldVisitor& v, ShippingAddress& a) {
    v.text("firstname", a.firstname);
    v.text("lastname", a.lastname);
    v.text("phoneNo", a.phone_no);
    v.text("address1", a.address1);
    v.text("address2", a.address2);
    v.text("state", a.state);
    v.text("city", a.city);
    v.text("zipcode", a.zipcode);
    v.text("country", a.country);
    v.text("landmark", a.landmark);
    v.text("email", a.email);
}

void visit(FieldVisitor& v, CustomerInfo& c) {
    v.text("name", c.name, kReq);
    v.text("email", c.email, kReq);
    v.text("phone", c.phone);
    v.text("address", c.address);
}

void visit(FieldVisitor& v, CustomParam& p) {
    v.text("name", p.name, kReq);
    v.text("value", p.value, kReq);
}

void visit(FieldVisitor& v, CustomParameter& p) {
    v.text("returnMethod", p.return_method, kReq);
    array(v, "params", p.params, kReq);
}

void visit(FieldVisitor& v, Checkout& c) {
    v.text("offerId", c.offer_id, kReq);
    v.text("currency", c.currency, kReq);
    array(v, "cart", c.cart, kReq);
    object(v, "shippingAddress", c.shipping_address);
    object(v, "customerInfo", c.customer_info);
}

void visit(FieldVisitor& v, ExchangePayment& p) {
    v.text("clientId", p.client_id, kReq);
    v.text("assets", p.assets, kReq);
    array(v, "cart", p.cart, kReq);
    object(v, "shippingAddress", p.shipping_address, kReq);
    v.text("offerId", p.offer_id, kReq);
    v.amount("nativeAmount", p.native_amount, Wire::string);
    v.flag("savepassword", p.savepassword, kReq);
    v.text("code2fa", p.code2fa, kReq);
    v.text("merchantStoreCurrency", p.merchant_store_currency, kReq);
}

void visit(FieldVisitor& v, BankPayment& p) {
    v.text("clientId", p.client_id, kReq);
    v.amount("amount", p.amount, Wire::number);
    v.text("accountId", p.account_id, kReq);
    array(v, "cart", p.cart, kReq);
    v.text("stockId", p.stock_id, kReq);
    v.text("offerId", p.offer_id, kReq);
    v.text("merchantStoreCurrency", p.merchant_store_currency, kReq);
    v.text("hostedPageId", p.hosted_page_id, kReq);
    object(v, "shippingAddress", p.shipping_address, kReq);
}

void visit(FieldVisitor& v, QrGenerateRequest& q) {
    v.amount("amount", q.amount, Wire::string, kReq);
    v.text("currency", q.currency, kReq);
    v.text("cryptoCurrency", q.crypto_currency, kReq);
    v.text("orderId", q.order_id, kReq);
    array(v, "cart", q.cart, kReq);
    object(v, "customerInfo", q.customer_info, kReq);
    object(v, "customParameter", q.custom_parameter);
}

void visit(FieldVisitor& v, DebitItem& d) {
    v.text("subscriptionId", d.subscription_id, kReq);
    v.amount("amount", d.amount, Wire::number, kReq);
    v.text("currency", d.currency, kReq);
}

void visit(FieldVisitor& v, SubscriptionDebitRequest& r) {
    v.text("merchantAuth", r.merchant_auth, kOpt);  // absent: prepare_subscription_debit makes it
    v.text("merchantId", r.merchant_id, kReq);
    v.text("orderId", r.order_id);
    array(v, "items", r.items);
}

void visit(FieldVisitor& v, SubscriptionCancelRequest& r) {
    v.text("merchantId", r.merchant_id, kReq);
    v.text("merchantAuth", r.merchant_auth, kOpt);  // absent: prepare_subscription_cancel makes it
    v.text("subscriptionId", r.subscription_id, kReq);
}

// ---- QR result ---------------------------------------------------------------------------------

void visit(FieldVisitor& v, QrTransactionMeta& m) {
    v.text("offerId", m.offer_id, kOpt);
    v.text("receiverAddress", m.receiver_address, kReq);
    v.text("qrString", m.qr_string, kReq);
}

void visit(FieldVisitor& v, QrTransactionResult& r) {
    v.amount("totalAmount", r.total_amount, Wire::string, kReq);
    v.text("currency", r.currency, kOpt);
    v.text("crytoCurrency", r.cryto_currency, kOpt);
    v.text("id", r.id, kReq);
    object(v, "meta", r.meta, kReq);
}

// `result` is required when ok is true; with ok false it is read only if present.
void visit(FieldVisitor& v, QrGenerateResponse& r) {
    v.flag("ok", r.ok, kReq);
    object(v, "result", r.result, r.ok ? kReq : kOpt);
}

// ---- Transaction -------------------------------------------------------------------------------

void visit(FieldVisitor& v, StatusRefund& s) {
    v.integer("pending", s.pending);
    v.integer("success", s.success);
    v.integer("rejected", s.rejected);
}

void visit(FieldVisitor& v, CheckItem& c) {
    v.text("id", c.id);
    v.integer("num", c.num);
    v.text("name", c.name);
    v.amount("price", c.price, Wire::number);
    v.amount("quantity", c.quantity, Wire::number);
    v.amount("localAmount", c.local_amount, Wire::number);
    object(v, "statusRefund", c.status_refund);
    v.amount("amountFinal", c.amount_final, Wire::number);
}

void visit(FieldVisitor& v, ChainHash& h) {
    array(v, "value", h.value, kOpt);
    v.text("network", h.network);
}

void visit(FieldVisitor& v, TransactionMeta& m) {
    object(v, "hash", m.hash);
    v.text("offerId", m.offer_id);
    v.text("receiverAddress", m.receiver_address);
}

void visit(FieldVisitor& v, ShopData& s) {
    v.text("url", s.url);
    v.text("logo", s.logo);
    v.text("companyName", s.company_name);
    v.text("description", s.description);
}

void visit(FieldVisitor& v, MerchantInfo& m) { object(v, "shopData", m.shop_data); }

void visit(FieldVisitor& v, Customer& c) {
    v.text("email", c.email);
    v.text("fullname", c.fullname);
}

void visit(FieldVisitor& v, CurrencyInfo& c) { v.flag("isFiat", c.is_fiat); }

void visit(FieldVisitor& v, TxMetadata& t) {
    v.text("id", t.id);
    object(v, "shippingAddress", t.shipping_address);
    v.text("nativeConversionRate", t.native_conversion_rate);
}

// The spec's field table order. `check` is written only when it has items (absent and empty read
// the same); `status` goes back out as the word when it came as one.
void visit(FieldVisitor& v, Transaction& t) {
    v.text("id", t.id, kReq);
    v.status(t);
    v.amount("nativeAmount", t.native_amount, Wire::string);
    v.text("nativeCurrency", t.native_currency);
    v.amount("amount", t.amount, Wire::string);
    v.amount("receivedAmount", t.received_amount, Wire::string);
    v.text("currency", t.currency);
    v.integer("type", t.type);
    v.text("description", t.description);
    array(v, "check", t.check, kOpt, !t.check.empty());
    v.raw("subscriptionIds", t.subscription_ids, Shape::array_or_null);
    v.flag("subscriptionOrder", t.subscription_order);
    object(v, "meta", t.meta);
    v.text("stockId", t.stock_id);
    v.text("userId", t.user_id);
    v.text("merchantId", t.merchant_id);
    v.text("settlementId", t.settlement_id);
    v.integer("statusRefund", t.status_refund);
    v.amount("localAmount", t.local_amount, Wire::string);
    v.text("localCurrency", t.local_currency);
    v.reference(t);
    v.amount("merchantPayableAmount", t.merchant_payable_amount, Wire::string);
    v.text("errorMessage", t.error_message);
    v.integer("settlementStatus", t.settlement_status);
    v.text("txMetaId", t.tx_meta_id);
    v.text("partnerId", t.partner_id);
    v.text("createdBy", t.created_by);
    v.text("createdAt", t.created_at);
    v.text("updatedAt", t.updated_at);
    object(v, "merchant", t.merchant);
    object(v, "customer", t.customer);
    object(v, "currencyInfo", t.currency_info);
    v.raw("stock", t.stock, Shape::object_or_null);
    v.raw("partner", t.partner, Shape::object_or_null);
    object(v, "txMetadata", t.tx_metadata);
    v.amount("receivedAmountFinal", t.received_amount_final, Wire::number);
    v.amount("receivedAmountCal", t.received_amount_cal, Wire::number);
}

// ---- Shopper -----------------------------------------------------------------------------------

void visit(FieldVisitor& v, ShopperProfileDetails& p) {
    v.text("zip", p.zip);
    v.text("city", p.city);
    v.text("phone", p.phone);
    v.text("state", p.state);
    v.text("address", p.address);
    v.text("country", p.country);
    v.text("lastName", p.last_name);
    v.text("firstName", p.first_name);
    v.text("dateOfBirth", p.date_of_birth);
    v.integer("phoneCountry", p.phone_country);
}

void visit(FieldVisitor& v, ShopperProfile& p) {
    v.text("id", p.id);
    v.text("email", p.email);
    v.text("username", p.username);
    v.text("fullname", p.fullname);
    v.text("avatar", p.avatar);
    object(v, "profile", p.profile);
    v.integer("status", p.status);
    v.integer("type", p.type);
    v.integer("kybCryptoStatus", p.kyb_crypto_status);
    v.integer("kybBankStatus", p.kyb_bank_status);
    v.raw("shopData", p.shop_data, Shape::object_or_null);
    v.raw("withdrawalAddresses", p.withdrawal_addresses, Shape::array_or_null);
    v.flag("ssoStatus", p.sso_status);
    v.flag("enableCancelSubscription", p.enable_cancel_subscription);
    v.raw("verification", p.verification, Shape::any);
    v.raw("graphSettings", p.graph_settings, Shape::array_or_null);
    v.flag("is2faEnabled", p.is2fa_enabled);
    v.flag("enableBankPayment", p.enable_bank_payment);
    v.raw("verificationStatus", p.verification_status, Shape::any);
}

// `result` is required when ok is true; with ok false it is read only if present.
void visit(FieldVisitor& v, UsersMeResponse& r) {
    v.flag("ok", r.ok, kReq);
    object(v, "result", r.result, r.ok ? kReq : kOpt);
}

// ---- Subscriptions -----------------------------------------------------------------------------

void visit(FieldVisitor& v, DebitEntry& d) {
    v.text("transactionId", d.transaction_id);
    v.amount("amount", d.amount, Wire::number_or_string);
    v.text("currency", d.currency);
    v.amount("rateDivisor", d.rate_divisor, Wire::number_or_string);
    v.text("orderId", d.order_id);
    v.integer("status", d.status);
    v.text("userId", d.user_id);
    v.text("merchantId", d.merchant_id);
    v.text("subscriptionId", d.subscription_id);
}

// {"status":..,"result":{"data":[..],"errors":[..]}}; the envelope's unknown members are the
// caller's to keep (own_extra: envelope_extra), those of `result` go to extra.
void visit(FieldVisitor& v, SubscriptionDebitResult& r) {
    v.integer("status", r.status, kReq);
    if (!v.enter_object("result", true, kReq)) return;
    array(v, "data", r.data, kOpt);
    array(v, "errors", r.errors, kOpt);
    v.leave_object(&r.extra);
}

void visit(FieldVisitor& v, SubscriptionCancelResult& r) {
    v.integer("status", r.status, kReq);
    if (!v.enter_object("result", true, kReq)) return;
    v.flag("success", r.success, kReq);
    v.leave_object(&r.extra);
}

}  // namespace paywasm::detail
