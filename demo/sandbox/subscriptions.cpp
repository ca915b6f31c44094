// The sandbox's subscriptions (ledger.hpp): the control API's list, and POST /subscription/debit
// and /subscription/cancel after authentication. A payment's subscriptions are created with it
// (Ledger::create) and activated when it succeeds.
#include <algorithm>
#include <map>

#include "http.hpp"
#include "ledger.hpp"
#include "paywasm/codec.hpp"
#include "paywasm/crypto.hpp"
#include "paywasm/protocol.hpp"
#include "paywasm/status.hpp"
#include "paywasm/text.hpp"

namespace sandbox {

using paywasm::Decimal;

std::string Ledger::subscriptions() {
    JsonWriter w;
    w.begin_array();
    for (const auto& s : db_.query("SELECT id, user_id, transaction_id, offer_id, item, asset, currency, status, created_at, "
                                   "cancelled_at, (SELECT COUNT(*) FROM transactions t WHERE t.subscription_id = subscriptions.id) "
                                   "FROM subscriptions ORDER BY seq DESC")) {
        const paywasm::CartItem cart_item = paywasm::from_json<paywasm::CartItem>(s.text(4));
        const Decimal price = cart_item.price * cart_item.quantity;
        w.begin_object().str("id", s.text(0));
        w.key("userId");
        if (s.is_null(1)) w.null();
        else w.string(s.text(1));
        w.str("transactionId", s.text(2)).str("offerId", s.text(3));
        w.raw("item", s.text(4));  // the core's to_json of the cart item
        w.str("amount", price.to_fixed(2)).str("currency", s.text(6)).str("asset", s.text(5)).str("status", s.text(7));
        w.str("createdAt", iso8601(s.integer(8)));
        w.key("cancelledAt");
        if (s.is_null(9)) w.null();
        else w.string(iso8601(s.integer(9)));
        w.num("debits", s.integer(10)).end_object();
    }
    w.end_array();
    return w.take();
}

// ---- Subscriptions ---------------------------------------------------------------------------------

std::string Ledger::debit(const paywasm::SubscriptionDebitRequest& request) {
    // One transaction: a debit request's idempotency checks and inserts stay together.
    return db_.transaction([&]() -> std::string {
    struct Wanted {
        std::string subscription_id;
        std::optional<Decimal> amount;
        std::string currency;
        std::string item;  // the request's item as JSON text (the debit's recorded plaintext)
    };
    std::vector<Wanted> wanted;
    if (request.items) {
        for (const auto& i : *request.items) {
            wanted.push_back({i.subscription_id, i.amount, i.currency,
                              JsonWriter()
                                  .begin_object()
                                  .str("subscriptionId", i.subscription_id)
                                  .raw("amount", json_number(i.amount.to_string()))
                                  .str("currency", i.currency)
                                  .end_object()
                                  .take()});
        }
    } else if (request.order_id) {
        for (const auto& s : db_.query("SELECT id, currency FROM subscriptions WHERE merchant_id = ? AND offer_id = ? AND "
                                       "status = 'active' ORDER BY seq",
                                       {identity_.merchant_id, *request.order_id})) {
            wanted.push_back({s.text(0), std::nullopt, s.text(1),
                              JsonWriter().begin_object().str("subscriptionId", s.text(0)).end_object().take()});
        }
    } else {
        throw HttpError(400, "validation", "items: required when orderId is absent", "items");
    }

    JsonWriter data, errors;
    data.begin_array();
    errors.begin_array();
    auto fail = [&](const std::string& sub, const char* reason, const std::string& message) {
        errors.begin_object().str("subscriptionId", sub).str("reason", reason).str("message", message).end_object();
    };
    for (const Wanted& w : wanted) {
        const auto found = db_.query("SELECT item, asset, currency, status, cancelled_at, user_id, transaction_id, "
                                     "(SELECT COUNT(*) FROM transactions t WHERE t.subscription_id = subscriptions.id) "
                                     "FROM subscriptions WHERE id = ? AND merchant_id = ?",
                                     {w.subscription_id, identity_.merchant_id});
        if (found.empty()) {
            fail(w.subscription_id, "not_found", "no subscription with this id");
            continue;
        }
        const SqlRow& s = found[0];
        if (s.text(3) == "cancelled") {
            fail(w.subscription_id, "cancelled", "the subscription was cancelled at " + iso8601(s.integer(4)));
            continue;
        }
        if (s.text(3) == "pending") {
            fail(w.subscription_id, "not_active", "the order's payment has not succeeded yet; the subscription starts when it does");
            continue;
        }
        if (s.text(3) != "active") {
            fail(w.subscription_id, "payment_failed", "the order's payment failed or timed out; the subscription never started");
            continue;
        }
        const std::string currency = s.text(2);
        if (w.currency != currency) {
            fail(w.subscription_id, "currency_mismatch", "the subscription is billed in " + currency);
            continue;
        }
        paywasm::CartItem item = paywasm::from_json<paywasm::CartItem>(s.text(0));
        const Decimal price = item.price * item.quantity;
        const Decimal amount = w.amount.value_or(price);
        if (price < amount) {  // in every mode: merchantAuth is no secret (SECURITY.md)
            fail(w.subscription_id, "amount_too_high",
                 "the subscription's price is " + price.to_fixed(2) + " " + currency + "; a debit cannot be more");
            continue;
        }
        const std::string asset = s.text(1);
        const std::optional<std::string> user_id = s.is_null(5) ? std::nullopt : std::optional<std::string>(s.text(5));
        const std::string origin_tx = s.text(6);
        const std::int64_t count = s.integer(7);

        std::string offer_id = request.order_id.value_or("sub-" + w.subscription_id.substr(0, 8) + "-" + std::to_string(count + 1));
        std::string tx;
        if (request.order_id) {  // idempotent per (orderId, subscription)
            const auto e = db_.query("SELECT body FROM transactions WHERE kind = 'debit' AND merchant_id = ? AND offer_id = ? AND "
                                     "subscription_id = ?",
                                     {identity_.merchant_id, offer_id, w.subscription_id});
            if (!e.empty()) tx = e[0].text(0);
        }
        if (tx.empty()) {
            std::optional<JsonDocument> origin;
            if (const auto o = db_.query("SELECT body FROM transactions WHERE id = ?", {origin_tx}); !o.empty()) origin = read_json(o[0].text(0));
            NewPayment p;
            p.kind = "debit";
            p.offer_id = offer_id;
            p.native_amount = amount;
            p.native_currency = currency;
            p.asset = asset;
            paywasm::CartItem line;
            line.id = item.id;
            line.name = item.name;
            line.price = amount;
            line.quantity = Decimal::from_int(1);
            p.cart.push_back(line);
            if (origin) {
                const JsonValue customer = origin->root().member("customer");
                p.customer_email = string_or(customer.member("email"), "");
                p.customer_name = string_or(customer.member("fullname"), "");
            }
            p.user_id = user_id;
            p.plaintext = w.item;
            p.payer = "merchant:" + identity_.merchant_id;
            p.request_hash = paywasm::sha256_hex(p.plaintext);
            p.subscription_id = w.subscription_id;
            p.extra_meta = {{"subscriptionId", w.subscription_id}};
            if (item.merchant_subscription_id) p.extra_meta.emplace_back("merchantSubscriptionId", *item.merchant_subscription_id);
            tx = create(p).transaction;
        }
        const JsonDocument doc = paywasm::parse_json(tx);
        const JsonValue t = doc.root();
        data.begin_object();
        data.key("transactionId").value(t.member("id"));
        data.key("amount").value(t.member("localAmount"));
        data.key("currency").value(t.member("localCurrency"));
        data.key("rateDivisor").value(t.member("txMetadata").member("nativeConversionRate"));
        data.key("orderId").value(t.member("meta").member("offerId"));
        data.key("status").value(t.member("status"));
        data.key("userId").value(t.member("userId"));
        data.key("merchantId").value(t.member("merchantId"));
        data.str("subscriptionId", w.subscription_id);
        data.end_object();
    }
    data.end_array();
    errors.end_array();
    return JsonWriter().begin_object().raw("data", data.text()).raw("errors", errors.text()).end_object().take();
    });
}

bool Ledger::cancel(const std::string& subscription_id) {
    return db_.transaction([&] {
        const auto rows = db_.query("SELECT status FROM subscriptions WHERE id = ? AND merchant_id = ?",
                                    {subscription_id, identity_.merchant_id});
        if (rows.empty()) throw HttpError(404, "not_found", "no subscription with id " + paywasm::escape_untrusted(subscription_id, 64));
        if (rows[0].text(0) != "active" && rows[0].text(0) != "pending") return false;  // cancelled, or void (never started)
        db_.execute("UPDATE subscriptions SET status = 'cancelled', cancelled_at = ? WHERE id = ?", {now_ms(), subscription_id});
        return true;
    });
}

}  // namespace sandbox
