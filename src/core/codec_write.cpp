// to_json: the models -> compact JSON, members in the spec's order, absent optionals left out,
// `extra` members after the known ones. The same model always gives the same bytes, natively and
// in WASM, and the same bytes as JSON.stringify of the equivalent JavaScript object.
#include "core/json_tree.hpp"
#include "paywasm/codec.hpp"

namespace paywasm::detail {
namespace {

#define PAYWASM_WRITER(T) void write_value(std::string&, const T&, const JsonPath&);
PAYWASM_WRITER(CartItem)
PAYWASM_WRITER(ShippingAddress)
PAYWASM_WRITER(CustomerInfo)
PAYWASM_WRITER(CustomParam)
PAYWASM_WRITER(CustomParameter)
PAYWASM_WRITER(ExchangePayment)
PAYWASM_WRITER(BankPayment)
PAYWASM_WRITER(QrGenerateRequest)
PAYWASM_WRITER(QrTransactionMeta)
PAYWASM_WRITER(QrTransactionResult)
PAYWASM_WRITER(QrGenerateResponse)
PAYWASM_WRITER(StatusRefund)
PAYWASM_WRITER(CheckItem)
PAYWASM_WRITER(ChainHash)
PAYWASM_WRITER(TransactionMeta)
PAYWASM_WRITER(ShopData)
PAYWASM_WRITER(MerchantInfo)
PAYWASM_WRITER(Customer)
PAYWASM_WRITER(CurrencyInfo)
PAYWASM_WRITER(TxMetadata)
PAYWASM_WRITER(Transaction)
PAYWASM_WRITER(ShopperProfileDetails)
PAYWASM_WRITER(ShopperProfile)
PAYWASM_WRITER(UsersMeResponse)
PAYWASM_WRITER(DebitItem)
PAYWASM_WRITER(SubscriptionDebitRequest)
PAYWASM_WRITER(DebitEntry)
PAYWASM_WRITER(SubscriptionDebitResult)
PAYWASM_WRITER(SubscriptionCancelRequest)
PAYWASM_WRITER(SubscriptionCancelResult)
#undef PAYWASM_WRITER

void write_value(std::string& out, const std::string& s, const JsonPath&) { append_quoted(out, s); }
// An absent RawJson is left out by its object; inside an array it can only be written as null.
void write_value(std::string& out, const RawJson& raw, const JsonPath& path) {
    if (!raw.present())
        out += "null";
    else
        append_raw(out, raw.text, path);
}

template <class T>
void write_value(std::string& out, const std::vector<T>& items, const JsonPath& path) {
    out += '[';
    for (std::size_t i = 0; i < items.size(); ++i) {
        if (i > 0) out += ',';
        write_value(out, items[i], path.element(i));
    }
    out += ']';
}

// Writes one object member by member; the path only names the field in an error about a RawJson
// or an `extra` that is not valid JSON.
class ObjectWriter {
public:
    ObjectWriter(std::string& out, const JsonPath& path) : out_(out), path_(path) { out_ += '{'; }

    // A struct, a string or a vector of them.
    template <class T>
    void value(std::string_view name, const T& v) {
        member(name);
        write_value(out_, v, at(name));
    }
    template <class T>
    void value(std::string_view name, const std::optional<T>& v) {
        if (v) value(name, *v);
    }
    void number(std::string_view name, const Decimal& d) {
        member(name);
        out_ += d.to_string();
    }
    void number(std::string_view name, const std::optional<Decimal>& d) {
        if (d) number(name, *d);
    }
    void decimal_string(std::string_view name, const Decimal& d) {
        member(name);
        append_quoted(out_, d.to_string());
    }
    void decimal_string(std::string_view name, const std::optional<Decimal>& d) {
        if (d) decimal_string(name, *d);
    }
    void integer(std::string_view name, long long n) {
        member(name);
        out_ += std::to_string(n);
    }
    void integer(std::string_view name, const std::optional<long long>& n) {
        if (n) integer(name, *n);
    }
    void boolean(std::string_view name, bool b) {
        member(name);
        out_ += b ? "true" : "false";
    }
    void boolean(std::string_view name, const std::optional<bool>& b) {
        if (b) boolean(name, *b);
    }
    // Left out when absent; "null" is written as null.
    void raw(std::string_view name, const RawJson& r) {
        if (r.present()) value(name, r);
    }
    void null(std::string_view name) {
        member(name);
        out_ += "null";
    }
    void extra(const std::string& extra_json) {
        append_extra_members(out_, extra_json, first_, at("extra"));
    }
    void close() { out_ += '}'; }
    // Writes the name of a member whose value the caller writes next.
    void member(std::string_view name) {
        if (!first_) out_ += ',';
        first_ = false;
        append_quoted(out_, name);
        out_ += ':';
    }
    JsonPath at(std::string_view name) const { return path_.member(name); }

private:
    std::string& out_;
    JsonPath path_;
    bool first_ = true;
};

// ---- Requests ----

void write_value(std::string& out, const CartItem& c, const JsonPath& path) {
    ObjectWriter w(out, path);
    w.value("id", c.id);
    w.value("name", c.name);
    w.number("price", c.price);
    w.number("quantity", c.quantity);
    w.number("localAmount", c.local_amount);
    w.value("localCurrency", c.local_currency);
    w.boolean("isSubscription", c.is_subscription);
    w.value("frequency", c.frequency);
    w.value("subscriptionPeriod", c.subscription_period);
    w.value("merchantSubscriptionId", c.merchant_subscription_id);
    w.close();
}

void write_value(std::string& out, const ShippingAddress& a, const JsonPath& path) {
    ObjectWriter w(out, path);
    w.value("firstname", a.firstname);
    w.value("lastname", a.lastname);
    w.value("phoneNo", a.phone_no);
    w.value("address1", a.address1);
    w.value("address2", a.address2);
    w.value("state", a.state);
    w.value("city", a.city);
    w.value("zipcode", a.zipcode);
    w.value("country", a.country);
    w.value("landmark", a.landmark);
    w.value("email", a.email);
    w.close();
}

void write_value(std::string& out, const CustomerInfo& c, const JsonPath& path) {
    ObjectWriter w(out, path);
    w.value("name", c.name);
    w.value("email", c.email);
    w.value("phone", c.phone);
    w.value("address", c.address);
    w.close();
}

void write_value(std::string& out, const CustomParam& p, const JsonPath& path) {
    ObjectWriter w(out, path);
    w.value("name", p.name);
    w.value("value", p.value);
    w.close();
}

void write_value(std::string& out, const CustomParameter& p, const JsonPath& path) {
    ObjectWriter w(out, path);
    w.value("returnMethod", p.return_method);
    w.value("params", p.params);
    w.close();
}

void write_value(std::string& out, const ExchangePayment& p, const JsonPath& path) {
    ObjectWriter w(out, path);
    w.value("clientId", p.client_id);
    w.value("assets", p.assets);
    w.value("cart", p.cart);
    w.value("shippingAddress", p.shipping_address);
    w.value("offerId", p.offer_id);
    w.decimal_string("nativeAmount", p.native_amount);
    w.boolean("savepassword", p.savepassword);
    w.value("code2fa", p.code2fa);
    w.value("merchantStoreCurrency", p.merchant_store_currency);
    w.close();
}

void write_value(std::string& out, const BankPayment& p, const JsonPath& path) {
    ObjectWriter w(out, path);
    w.value("clientId", p.client_id);
    w.number("amount", p.amount);
    w.value("accountId", p.account_id);
    w.value("cart", p.cart);
    w.value("stockId", p.stock_id);
    w.value("offerId", p.offer_id);
    w.value("merchantStoreCurrency", p.merchant_store_currency);
    w.value("hostedPageId", p.hosted_page_id);
    w.value("shippingAddress", p.shipping_address);
    w.close();
}

void write_value(std::string& out, const QrGenerateRequest& q, const JsonPath& path) {
    ObjectWriter w(out, path);
    w.decimal_string("amount", q.amount);
    w.value("currency", q.currency);
    w.value("cryptoCurrency", q.crypto_currency);
    w.value("orderId", q.order_id);
    w.value("cart", q.cart);
    w.value("customerInfo", q.customer_info);
    w.value("customParameter", q.custom_parameter);
    w.close();
}

void write_value(std::string& out, const DebitItem& d, const JsonPath& path) {
    ObjectWriter w(out, path);
    w.value("subscriptionId", d.subscription_id);
    w.number("amount", d.amount);
    w.value("currency", d.currency);
    w.close();
}

void write_value(std::string& out, const SubscriptionDebitRequest& r, const JsonPath& path) {
    ObjectWriter w(out, path);
    w.value("merchantAuth", r.merchant_auth);
    w.value("merchantId", r.merchant_id);
    w.value("orderId", r.order_id);
    w.value("items", r.items);
    w.close();
}

void write_value(std::string& out, const SubscriptionCancelRequest& r, const JsonPath& path) {
    ObjectWriter w(out, path);
    w.value("merchantId", r.merchant_id);
    w.value("merchantAuth", r.merchant_auth);
    w.value("subscriptionId", r.subscription_id);
    w.close();
}

// ---- QR result ----

void write_value(std::string& out, const QrTransactionMeta& m, const JsonPath& path) {
    ObjectWriter w(out, path);
    w.value("offerId", m.offer_id);
    w.value("receiverAddress", m.receiver_address);
    w.value("qrString", m.qr_string);
    w.extra(m.extra);
    w.close();
}

void write_value(std::string& out, const QrTransactionResult& r, const JsonPath& path) {
    ObjectWriter w(out, path);
    w.decimal_string("totalAmount", r.total_amount);
    w.value("currency", r.currency);
    w.value("crytoCurrency", r.cryto_currency);
    w.value("id", r.id);
    w.value("meta", r.meta);
    w.extra(r.extra);
    w.close();
}

void write_value(std::string& out, const QrGenerateResponse& r, const JsonPath& path) {
    ObjectWriter w(out, path);
    w.boolean("ok", r.ok);
    w.value("result", r.result);
    w.extra(r.extra);
    w.close();
}

// ---- Transaction ----

void write_value(std::string& out, const StatusRefund& s, const JsonPath& path) {
    ObjectWriter w(out, path);
    w.integer("pending", s.pending);
    w.integer("success", s.success);
    w.integer("rejected", s.rejected);
    w.extra(s.extra);
    w.close();
}

void write_value(std::string& out, const CheckItem& c, const JsonPath& path) {
    ObjectWriter w(out, path);
    w.value("id", c.id);
    w.integer("num", c.num);
    w.value("name", c.name);
    w.number("price", c.price);
    w.number("quantity", c.quantity);
    w.number("localAmount", c.local_amount);
    w.value("statusRefund", c.status_refund);
    w.number("amountFinal", c.amount_final);
    w.extra(c.extra);
    w.close();
}

void write_value(std::string& out, const ChainHash& h, const JsonPath& path) {
    ObjectWriter w(out, path);
    w.value("value", h.value);
    w.value("network", h.network);
    w.extra(h.extra);
    w.close();
}

void write_value(std::string& out, const TransactionMeta& m, const JsonPath& path) {
    ObjectWriter w(out, path);
    w.value("hash", m.hash);
    w.value("offerId", m.offer_id);
    w.value("receiverAddress", m.receiver_address);
    w.extra(m.extra);
    w.close();
}

void write_value(std::string& out, const ShopData& s, const JsonPath& path) {
    ObjectWriter w(out, path);
    w.value("url", s.url);
    w.value("logo", s.logo);
    w.value("companyName", s.company_name);
    w.value("description", s.description);
    w.extra(s.extra);
    w.close();
}

void write_value(std::string& out, const MerchantInfo& m, const JsonPath& path) {
    ObjectWriter w(out, path);
    w.value("shopData", m.shop_data);
    w.extra(m.extra);
    w.close();
}

void write_value(std::string& out, const Customer& c, const JsonPath& path) {
    ObjectWriter w(out, path);
    w.value("email", c.email);
    w.value("fullname", c.fullname);
    w.extra(c.extra);
    w.close();
}

void write_value(std::string& out, const CurrencyInfo& c, const JsonPath& path) {
    ObjectWriter w(out, path);
    w.boolean("isFiat", c.is_fiat);
    w.extra(c.extra);
    w.close();
}

void write_value(std::string& out, const TxMetadata& t, const JsonPath& path) {
    ObjectWriter w(out, path);
    w.value("id", t.id);
    w.value("shippingAddress", t.shipping_address);
    w.value("nativeConversionRate", t.native_conversion_rate);
    w.extra(t.extra);
    w.close();
}

// The spec's field table order. `status` goes back out as the word when it came as one; `check`
// is left out when empty (absent and empty read the same).
void write_value(std::string& out, const Transaction& t, const JsonPath& path) {
    ObjectWriter w(out, path);
    w.value("id", t.id);
    if (t.status_word)
        w.value("status", *t.status_word);
    else
        w.integer("status", t.status);
    w.decimal_string("nativeAmount", t.native_amount);
    w.value("nativeCurrency", t.native_currency);
    w.decimal_string("amount", t.amount);
    w.decimal_string("receivedAmount", t.received_amount);
    w.value("currency", t.currency);
    w.integer("type", t.type);
    w.value("description", t.description);
    if (!t.check.empty()) w.value("check", t.check);
    w.raw("subscriptionIds", t.subscription_ids);
    w.boolean("subscriptionOrder", t.subscription_order);
    w.value("meta", t.meta);
    w.value("stockId", t.stock_id);
    w.value("userId", t.user_id);
    w.value("merchantId", t.merchant_id);
    w.value("settlementId", t.settlement_id);
    w.integer("statusRefund", t.status_refund);
    w.decimal_string("localAmount", t.local_amount);
    w.value("localCurrency", t.local_currency);
    if (!t.reference_field.empty()) {
        if (t.reference_value)
            w.value(t.reference_field, *t.reference_value);
        else
            w.null(t.reference_field);
    }
    w.decimal_string("merchantPayableAmount", t.merchant_payable_amount);
    w.value("errorMessage", t.error_message);
    w.integer("settlementStatus", t.settlement_status);
    w.value("txMetaId", t.tx_meta_id);
    w.value("partnerId", t.partner_id);
    w.value("createdBy", t.created_by);
    w.value("createdAt", t.created_at);
    w.value("updatedAt", t.updated_at);
    w.value("merchant", t.merchant);
    w.value("customer", t.customer);
    w.value("currencyInfo", t.currency_info);
    w.raw("stock", t.stock);
    w.raw("partner", t.partner);
    w.value("txMetadata", t.tx_metadata);
    w.number("receivedAmountFinal", t.received_amount_final);
    w.number("receivedAmountCal", t.received_amount_cal);
    w.extra(t.extra);
    w.close();
}

// ---- Shopper ----

void write_value(std::string& out, const ShopperProfileDetails& p, const JsonPath& path) {
    ObjectWriter w(out, path);
    w.value("zip", p.zip);
    w.value("city", p.city);
    w.value("phone", p.phone);
    w.value("state", p.state);
    w.value("address", p.address);
    w.value("country", p.country);
    w.value("lastName", p.last_name);
    w.value("firstName", p.first_name);
    w.value("dateOfBirth", p.date_of_birth);
    w.integer("phoneCountry", p.phone_country);
    w.extra(p.extra);
    w.close();
}

void write_value(std::string& out, const ShopperProfile& p, const JsonPath& path) {
    ObjectWriter w(out, path);
    w.value("id", p.id);
    w.value("email", p.email);
    w.value("username", p.username);
    w.value("fullname", p.fullname);
    w.value("avatar", p.avatar);
    w.value("profile", p.profile);
    w.integer("status", p.status);
    w.integer("type", p.type);
    w.integer("kybCryptoStatus", p.kyb_crypto_status);
    w.integer("kybBankStatus", p.kyb_bank_status);
    w.raw("shopData", p.shop_data);
    w.raw("withdrawalAddresses", p.withdrawal_addresses);
    w.boolean("ssoStatus", p.sso_status);
    w.boolean("enableCancelSubscription", p.enable_cancel_subscription);
    w.raw("verification", p.verification);
    w.raw("graphSettings", p.graph_settings);
    w.boolean("is2faEnabled", p.is2fa_enabled);
    w.boolean("enableBankPayment", p.enable_bank_payment);
    w.raw("verificationStatus", p.verification_status);
    w.extra(p.extra);
    w.close();
}

void write_value(std::string& out, const UsersMeResponse& r, const JsonPath& path) {
    ObjectWriter w(out, path);
    w.boolean("ok", r.ok);
    w.value("result", r.result);
    w.extra(r.extra);
    w.close();
}

// ---- Subscriptions ----

// Amounts come back as numbers whichever form they arrived in.
void write_value(std::string& out, const DebitEntry& d, const JsonPath& path) {
    ObjectWriter w(out, path);
    w.value("transactionId", d.transaction_id);
    w.number("amount", d.amount);
    w.value("currency", d.currency);
    w.number("rateDivisor", d.rate_divisor);
    w.value("orderId", d.order_id);
    w.integer("status", d.status);
    w.value("userId", d.user_id);
    w.value("merchantId", d.merchant_id);
    w.value("subscriptionId", d.subscription_id);
    w.extra(d.extra);
    w.close();
}

void write_value(std::string& out, const SubscriptionDebitResult& r, const JsonPath& path) {
    ObjectWriter envelope(out, path);
    envelope.integer("status", r.status);
    envelope.member("result");
    {
        ObjectWriter w(out, envelope.at("result"));
        w.value("data", r.data);
        w.value("errors", r.errors);
        w.extra(r.extra);
        w.close();
    }
    envelope.extra(r.envelope_extra);
    envelope.close();
}

void write_value(std::string& out, const SubscriptionCancelResult& r, const JsonPath& path) {
    ObjectWriter envelope(out, path);
    envelope.integer("status", r.status);
    envelope.member("result");
    {
        ObjectWriter w(out, envelope.at("result"));
        w.boolean("success", r.success);
        w.extra(r.extra);
        w.close();
    }
    envelope.extra(r.envelope_extra);
    envelope.close();
}

template <class T>
std::string write_document(const T& value) {
    std::string out;
    write_value(out, value, JsonPath{});
    return out;
}

}  // namespace
}  // namespace paywasm::detail

namespace paywasm {

std::string to_json(const CartItem& v) { return detail::write_document(v); }
std::string to_json(const ShippingAddress& v) { return detail::write_document(v); }
std::string to_json(const ExchangePayment& v) { return detail::write_document(v); }
std::string to_json(const BankPayment& v) { return detail::write_document(v); }
std::string to_json(const QrGenerateRequest& v) { return detail::write_document(v); }
std::string to_json(const QrGenerateResponse& v) { return detail::write_document(v); }
std::string to_json(const QrTransactionResult& v) { return detail::write_document(v); }
std::string to_json(const Transaction& v) { return detail::write_document(v); }
std::string to_json(const ShopperProfile& v) { return detail::write_document(v); }
std::string to_json(const UsersMeResponse& v) { return detail::write_document(v); }
std::string to_json(const SubscriptionDebitRequest& v) { return detail::write_document(v); }
std::string to_json(const SubscriptionDebitResult& v) { return detail::write_document(v); }
std::string to_json(const SubscriptionCancelRequest& v) { return detail::write_document(v); }
std::string to_json(const SubscriptionCancelResult& v) { return detail::write_document(v); }

}  // namespace paywasm
