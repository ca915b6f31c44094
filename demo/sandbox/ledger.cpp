#include "ledger.hpp"

#include <algorithm>

#include "market.hpp"
#include "paywasm/codec.hpp"
#include "paywasm/crypto.hpp"
#include "paywasm/protocol.hpp"
#include "util.hpp"

namespace sandbox {

using paywasm::Decimal;

namespace {

// Type codes of the sandbox (the spec does not show the service's meanings).
int type_code(const std::string& kind) {
    if (kind == "qr") return 1;
    if (kind == "exchange") return 2;
    if (kind == "bank") return 3;
    return 4;  // debit
}

bool is_final_outcome(int code) {
    return (code >= 1 && code <= 4) || code == -1 || code == 101 || code == 19 || code == 1011;
}

// A JSON number from an exact decimal: integral values as integers; others through a double, which
// prints back the same digits for the amounts the sandbox deals in (at most 15 significant digits).
json number(const Decimal& d) {
    if (d.scale() == 0) return std::stoll(d.to_string());
    return std::stod(d.to_string());
}

std::string capitalized(std::string s) {
    if (!s.empty()) s[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(s[0])));
    return s;
}

bool is_crypto_kind(const std::string& kind, const std::string& asset) {
    return kind != "bank" && find_coin(asset) != nullptr;
}

struct Step {
    int status;
    std::int64_t delay_ms;
};

std::optional<Step> next_step(const Config& config, const std::string& kind, int status, int outcome) {
    if (status == outcome || is_final_outcome(status)) return std::nullopt;
    if (kind == "qr") {
        if (status == 10) {
            return outcome == 19 ? Step{19, config.scaled_ms(900)} : Step{0, config.scaled_ms(60)};
        }
        if (status == 0) return Step{outcome, config.scaled_ms(300)};
        return std::nullopt;
    }
    if (status != 0) return std::nullopt;
    if (kind == "bank") return Step{outcome, config.bank_day_ms() * 7 / 2};
    return Step{outcome, config.scaled_ms(120)};
}

std::optional<std::int64_t> due_at(const Config& config, const std::string& kind, int status, int outcome,
                                   std::int64_t now) {
    auto step = next_step(config, kind, status, outcome);
    if (!step) return std::nullopt;
    return now + step->delay_ms;
}

json parse_or_null(const std::string& text) { return read_json_or_null(text); }

}  // namespace

bool is_known_status(int code) {
    return code == 10 || code == 0 || is_final_outcome(code) || (code >= 20 && code <= 23);
}

Ledger::Ledger(Db& db, const Config& config, const Identity& identity, Webhooks& webhooks)
    : db_(db), config_(config), identity_(identity), webhooks_(webhooks) {}

// ---- Building a Transaction object ------------------------------------------------------------------

json Ledger::build_transaction(const NewPayment& p, const std::string& id, std::int64_t now, int status,
                               const std::vector<std::string>& subscription_ids, json& qr_result) {
    const bool crypto = is_crypto_kind(p.kind, p.asset);
    const Coin* coin = crypto ? find_coin(p.asset) : nullptr;
    const std::string native = p.native_amount.to_fixed(2);
    const std::string amount = crypto ? to_coin_amount(p.native_amount, p.native_currency, *coin) : native;
    const std::string currency = crypto ? p.asset : p.native_currency;
    const std::string rate = crypto ? coin_price(p.native_currency, *coin) : "1.00";
    std::string receiver = crypto ? wallet_address(*coin) : p.account_id.value_or("");

    // Local amount: the cart's, when every item carries one in the same currency.
    std::string local_amount = native, local_currency = p.native_currency;
    if (!p.cart.empty() && std::all_of(p.cart.begin(), p.cart.end(), [&](const paywasm::CartItem& c) {
            return c.local_amount && c.local_currency && *c.local_currency == *p.cart[0].local_currency;
        })) {
        Decimal sum;
        for (const auto& c : p.cart) sum += *c.local_amount;
        local_amount = sum.to_fixed(2);
        local_currency = *p.cart[0].local_currency;
    }

    json check = json::array();
    long long num = 1;
    for (const auto& c : p.cart) {
        Decimal line = c.price * c.quantity;
        check.push_back({
            {"id", c.id},
            {"num", num++},
            {"name", c.name},
            {"price", number(c.price)},
            {"quantity", number(c.quantity)},
            {"localAmount", number(c.local_amount.value_or(line))},
            {"statusRefund", {{"pending", 0}, {"success", 0}, {"rejected", 0}}},
            {"amountFinal", number(line)},
        });
    }

    json meta = {
        {"hash", {{"value", json::array()}, {"network", crypto ? coin->network : "ach"}}},
        {"offerId", p.offer_id},
        {"receiverAddress", receiver},
    };
    for (auto it = p.extra_meta.begin(); it != p.extra_meta.end(); ++it) meta[it.key()] = it.value();

    const std::string tx_meta_id = uuid_v4();
    const std::string created_by = p.user_id.value_or(identity_.merchant_id);
    std::string reference_field = p.kind == "exchange" ? "reference" + capitalized(p.exchange) : "referenceSandbox";

    json tx;
    tx["id"] = id;
    tx["status"] = status;
    tx["nativeAmount"] = native;
    tx["nativeCurrency"] = p.native_currency;
    tx["amount"] = amount;
    tx["receivedAmount"] = crypto ? "0.00000000" : "0.00";
    tx["currency"] = currency;
    tx["type"] = type_code(p.kind);
    tx["description"] = p.kind == "debit" ? json("Subscription debit") : json(nullptr);
    tx["check"] = check;
    tx["subscriptionIds"] = subscription_ids;
    tx["subscriptionOrder"] = !subscription_ids.empty();
    tx["meta"] = meta;
    tx["stockId"] = p.stock_id ? json(*p.stock_id) : json(nullptr);
    tx["userId"] = p.user_id ? json(*p.user_id) : json(nullptr);
    tx["merchantId"] = identity_.merchant_id;
    tx["settlementId"] = uuid_v4();
    tx["statusRefund"] = 0;
    tx["localAmount"] = local_amount;
    tx["localCurrency"] = local_currency;
    tx[reference_field] = "sbx_" + random_hex(12);
    tx["merchantPayableAmount"] = (p.native_amount * Decimal::parse("0.99")).to_fixed(2);
    tx["errorMessage"] = nullptr;
    tx["settlementStatus"] = 0;
    tx["txMetaId"] = tx_meta_id;
    tx["partnerId"] = nullptr;
    tx["createdBy"] = created_by;
    tx["createdAt"] = iso8601(now);
    tx["updatedAt"] = iso8601(now);
    tx["merchant"] = {{"shopData",
                       {{"url", "https://sandbox-shop.example"},
                        {"logo", "https://sandbox-shop.example/logo.svg"},
                        {"companyName", "Sandbox Coffee Roasters"},
                        {"description", "A make-believe shop run by the paywasm sandbox"}}}};
    tx["customer"] = {{"email", p.customer_email}, {"fullname", p.customer_name}};
    tx["currencyInfo"] = {{"isFiat", !crypto}};
    tx["stock"] = p.stock_id ? json{{"id", *p.stock_id}, {"name", "Sandbox Checking"}, {"mask", "6789"}} : json(nullptr);
    tx["partner"] = nullptr;
    tx["txMetadata"] = {
        {"id", tx_meta_id},
        {"shippingAddress", p.shipping ? json::parse(paywasm::to_json(*p.shipping)) : json(nullptr)},
        {"nativeConversionRate", rate},
    };
    tx["receivedAmountFinal"] = 0;
    tx["receivedAmountCal"] = 0;

    qr_result = nullptr;
    if (p.kind == "qr") {
        qr_result = {
            {"totalAmount", native},  // in `currency`, the fiat; the coin amount is in qrString
            {"currency", p.native_currency},
            {"crytoCurrency", p.asset},
            {"id", id},
            {"meta",
             {{"offerId", p.offer_id},
              {"receiverAddress", receiver},
              {"qrString", payment_uri(*coin, receiver, amount, native)}}},
        };
    }
    return tx;
}

// Sets `status` on the transaction object and everything that follows from it.
void Ledger::apply(json& tx, const std::string& kind, int status, std::int64_t now) {
    const std::string asset = tx["currency"].get<std::string>();
    const bool crypto = is_crypto_kind(kind, asset);
    const Coin* coin = crypto ? find_coin(asset) : nullptr;
    const Decimal amount = Decimal::parse(tx["amount"].get<std::string>());
    const Decimal native = Decimal::parse(tx["nativeAmount"].get<std::string>());
    const int places = crypto ? 8 : 2;
    auto add_hash = [&] {
        if (coin && tx["meta"]["hash"]["value"].empty()) tx["meta"]["hash"]["value"].push_back(chain_hash(*coin));
    };
    auto received = [&](const Decimal& coins, const Decimal& fiat) {
        tx["receivedAmount"] = coins.to_fixed(places);
        tx["receivedAmountFinal"] = number(Decimal::parse(coins.to_fixed(places)));
        tx["receivedAmountCal"] = number(Decimal::parse(fiat.to_fixed(2)));
    };

    tx["status"] = status;
    tx["updatedAt"] = iso8601(now);
    if (status == 0 && kind == "qr") add_hash();
    if (status >= 1 && status <= 4) {
        add_hash();
        received(amount, native);
        tx["errorMessage"] = nullptr;
    } else if (status == 101) {
        add_hash();
        const Decimal half = Decimal::parse("0.5");
        received(amount * half, native * half);
        tx["errorMessage"] = "Partial payment: received " + (amount * half).to_fixed(places) + " of " +
                             amount.to_fixed(places) + " " + asset;
    } else if (status == -1) {
        received(Decimal(), Decimal());
        tx["errorMessage"] = kind == "exchange" ? "The exchange rejected the withdrawal (sandbox)"
                                                : "The payment failed (sandbox)";
    } else if (status == 19) {
        received(Decimal(), Decimal());
        tx["errorMessage"] = "The payment window expired before the funds arrived";
    } else if (status >= 20 && status <= 23) {
        tx["statusRefund"] = status - 19;
    }
}

// ---- Payments ------------------------------------------------------------------------------------

std::optional<Payment> Ledger::find_payment(const std::string& offer_id) {
    auto lk = db_.lock();
    Stmt s(db_, "SELECT body, qr_result, payer, request_hash FROM transactions "
                "WHERE merchant_id = ? AND offer_id = ? AND kind <> 'debit'");
    s.bind(1, identity_.merchant_id).bind(2, offer_id);
    if (!s.step()) return std::nullopt;
    return Payment{json::parse(s.text(0)), s.is_null(1) ? json(nullptr) : json::parse(s.text(1)), true, s.text(2),
                   s.text(3)};
}

const Payment& Ledger::replay_or_conflict(const Payment& existing, const std::string& payer,
                                          const std::string& request_hash) {
    if (existing.payer.empty() || existing.payer != payer || existing.request_hash != request_hash) {
        throw HttpError(409, "idempotency_conflict",
                        "offerId: is already used by another payment request; repeat a request only with the same "
                        "body and credentials, and use a new offerId for a new payment",
                        "offerId");
    }
    return existing;
}

Payment Ledger::create(const NewPayment& p) {
    DbTransaction t(db_);
    if (p.kind != "debit") {
        if (auto existing = find_payment(p.offer_id)) return replay_or_conflict(*existing, p.payer, p.request_hash);
    }
    const std::int64_t now = now_ms();
    const std::string id = uuid_v4();

    std::vector<std::string> subscription_ids;
    if (p.kind == "debit") {
        subscription_ids.push_back(*p.subscription_id);
    } else {
        for (const auto& item : p.cart) {
            if (item.is_subscription.value_or(false)) subscription_ids.push_back(uuid_v4());
        }
    }

    const int status = p.kind == "qr" ? 10 : 0;
    const int outcome = 1;
    json qr_result;
    json tx = build_transaction(p, id, now, status, subscription_ids, qr_result);

    Stmt ins(db_, "INSERT INTO transactions (id, merchant_id, kind, exchange, offer_id, subscription_id, status, outcome, "
                  "next_change_at, body, qr_result, plaintext, padding, created_at, payer, request_hash) "
                  "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    ins.bind(1, id)
        .bind(2, identity_.merchant_id)
        .bind(3, p.kind)
        .bind(4, p.exchange.empty() ? std::nullopt : std::optional<std::string>(p.exchange))
        .bind(5, p.offer_id)
        .bind(6, p.subscription_id)
        .bind(7, status)
        .bind(8, outcome)
        .bind(9, due_at(config_, p.kind, status, outcome, now))
        .bind(10, tx.dump())
        .bind(11, qr_result.is_null() ? std::nullopt : std::optional<std::string>(qr_result.dump()))
        .bind(12, p.plaintext)
        .bind(13, p.padding)
        .bind(14, now)
        .bind(15, p.payer)
        .bind(16, p.request_hash)
        .run();

    if (p.kind != "debit") {
        std::size_t next = 0;
        for (const auto& item : p.cart) {
            if (!item.is_subscription.value_or(false)) continue;
            Stmt sub(db_, "INSERT INTO subscriptions (id, merchant_id, user_id, transaction_id, offer_id, item, asset, "
                          "currency, status, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?)");
            sub.bind(1, subscription_ids[next++])
                .bind(2, identity_.merchant_id)
                .bind(3, p.user_id)
                .bind(4, id)
                .bind(5, p.offer_id)
                .bind(6, paywasm::to_json(item))
                .bind(7, p.asset)
                .bind(8, p.native_currency)
                .bind(9, now)
                .run();
        }
    }
    webhooks_.enqueue(tx);
    t.commit();
    return Payment{tx, qr_result, false, p.payer, p.request_hash};
}

// ---- The status clock ------------------------------------------------------------------------------

json Ledger::advance(const std::string& id, std::optional<int> status, std::optional<int> outcome) {
    if (status && !is_known_status(*status)) {
        throw HttpError(400, "validation", "status: must be one of 10, 0, 1, 2, 3, 4, -1, 101, 19, 1011, 20-23", "status");
    }
    if (outcome && !is_final_outcome(*outcome)) {
        throw HttpError(400, "validation", "outcome: must be a final status: 1-4, -1, 101, 19 or 1011", "outcome");
    }
    DbTransaction t(db_);
    Stmt s(db_, "SELECT kind, status, outcome, body FROM transactions WHERE id = ?");
    s.bind(1, id);
    if (!s.step()) throw HttpError(404, "not_found", "no transaction with id " + id.substr(0, 64));
    const std::string kind = s.text(0);
    const int current = static_cast<int>(s.integer(1));
    int planned = outcome.value_or(static_cast<int>(s.integer(2)));
    json tx = json::parse(s.text(3));

    int target;
    if (status) {
        target = *status;
    } else {
        auto step = next_step(config_, kind, current, planned);
        if (!step) {
            throw HttpError(409, "final_status",
                            "transaction is in status " + std::to_string(current) + ", which has no next status");
        }
        target = step->status;
    }
    if (is_final_outcome(target)) planned = target;
    const std::int64_t now = now_ms();
    apply(tx, kind, target, now);
    Stmt u(db_, "UPDATE transactions SET status = ?, outcome = ?, next_change_at = ?, body = ? WHERE id = ?");
    u.bind(1, target).bind(2, planned).bind(3, due_at(config_, kind, target, planned, now)).bind(4, tx.dump()).bind(5, id).run();
    // The order's subscriptions start when its payment succeeds, and never when it fails.
    const char* subscription_status = (target >= 1 && target <= 4) ? "active"
                                    : (target == -1 || target == 19 || target == 1011) ? "void" : nullptr;
    if (subscription_status) {
        Stmt sub(db_, "UPDATE subscriptions SET status = ? WHERE transaction_id = ? AND status = 'pending'");
        sub.bind(1, subscription_status).bind(2, id).run();
    }
    webhooks_.enqueue(tx);
    t.commit();
    return tx;
}

int Ledger::tick() {
    int changed = 0;
    while (true) {
        std::string id;
        {
            auto lk = db_.lock();
            Stmt s(db_, "SELECT id FROM transactions WHERE next_change_at IS NOT NULL AND next_change_at <= ? "
                        "ORDER BY next_change_at LIMIT 1");
            s.bind(1, now_ms());
            if (!s.step()) return changed;
            id = s.text(0);
        }
        advance(id, std::nullopt, std::nullopt);
        ++changed;
    }
}

// ---- Listing ----------------------------------------------------------------------------------------

json Ledger::row_to_entry(Stmt& s) {
    // Columns: id, kind, exchange, offer_id, status, outcome, next_change_at, body, qr_result, plaintext,
    // padding, created_at, subscription_id
    const int status = static_cast<int>(s.integer(4));
    const std::string plaintext = s.text(9);
    return json{
        {"id", s.text(0)},
        {"kind", s.text(1)},
        {"exchange", s.is_null(2) ? json(nullptr) : json(s.text(2))},
        {"offerId", s.text(3)},
        {"status", status},
        {"statusLabel", std::string(paywasm::describe_status(status).label)},
        {"plannedOutcome", s.integer(5)},
        {"nextChangeAt", s.is_null(6) ? json(nullptr) : json(iso8601(s.integer(6)))},
        {"createdAt", iso8601(s.integer(11))},
        {"subscriptionId", s.is_null(12) ? json(nullptr) : json(s.text(12))},
        {"padding", s.is_null(10) ? json(nullptr) : json(s.text(10))},
        {"transaction", json::parse(s.text(7))},
        {"qr", s.is_null(8) ? json(nullptr) : json::parse(s.text(8))},
        {"plaintext", parse_or_null(plaintext)},
        {"plaintextText", plaintext},
    };
}

static constexpr const char* kEntryColumns =
    "SELECT id, kind, exchange, offer_id, status, outcome, next_change_at, body, qr_result, plaintext, padding, "
    "created_at, subscription_id FROM transactions ";

std::optional<json> Ledger::get(const std::string& id) {
    auto lk = db_.lock();
    Stmt s(db_, std::string(kEntryColumns) + "WHERE id = ?");
    s.bind(1, id);
    if (!s.step()) return std::nullopt;
    return row_to_entry(s);
}

json Ledger::list() {
    auto lk = db_.lock();
    json out = json::array();
    Stmt s(db_, std::string(kEntryColumns) + "ORDER BY seq DESC");
    while (s.step()) out.push_back(row_to_entry(s));
    return out;
}

json Ledger::subscriptions() {
    auto lk = db_.lock();
    json out = json::array();
    Stmt s(db_, "SELECT id, user_id, transaction_id, offer_id, item, asset, currency, status, created_at, cancelled_at, "
                "(SELECT COUNT(*) FROM transactions t WHERE t.subscription_id = subscriptions.id) "
                "FROM subscriptions ORDER BY seq DESC");
    while (s.step()) {
        json item = json::parse(s.text(4));
        const paywasm::CartItem cart_item = paywasm::from_json<paywasm::CartItem>(s.text(4));
        const Decimal price = cart_item.price * cart_item.quantity;
        out.push_back({
            {"id", s.text(0)},
            {"userId", s.is_null(1) ? json(nullptr) : json(s.text(1))},
            {"transactionId", s.text(2)},
            {"offerId", s.text(3)},
            {"item", item},
            {"amount", price.to_fixed(2)},
            {"currency", s.text(6)},
            {"asset", s.text(5)},
            {"status", s.text(7)},
            {"createdAt", iso8601(s.integer(8))},
            {"cancelledAt", s.is_null(9) ? json(nullptr) : json(iso8601(s.integer(9)))},
            {"debits", s.integer(10)},
        });
    }
    return out;
}

// ---- Subscriptions ---------------------------------------------------------------------------------

json Ledger::debit(const paywasm::SubscriptionDebitRequest& request) {
    auto lk = db_.lock();  // one debit request at a time: its idempotency checks and inserts stay together
    struct Wanted {
        std::string subscription_id;
        std::optional<Decimal> amount;
        std::string currency;
        json item;
    };
    std::vector<Wanted> wanted;
    if (request.items) {
        for (const auto& i : *request.items) {
            wanted.push_back({i.subscription_id, i.amount, i.currency,
                              json{{"subscriptionId", i.subscription_id}, {"amount", number(i.amount)}, {"currency", i.currency}}});
        }
    } else if (request.order_id) {
        Stmt s(db_, "SELECT id, currency FROM subscriptions WHERE merchant_id = ? AND offer_id = ? AND status = 'active' ORDER BY seq");
        s.bind(1, identity_.merchant_id).bind(2, *request.order_id);
        while (s.step()) wanted.push_back({s.text(0), std::nullopt, s.text(1), json{{"subscriptionId", s.text(0)}}});
    } else {
        throw HttpError(400, "validation", "items: required when orderId is absent", "items");
    }

    json data = json::array(), errors = json::array();
    auto fail = [&](const std::string& sub, const char* reason, const std::string& message) {
        errors.push_back({{"subscriptionId", sub}, {"reason", reason}, {"message", message}});
    };
    for (const Wanted& w : wanted) {
        Stmt s(db_, "SELECT item, asset, currency, status, cancelled_at, user_id, transaction_id, "
                    "(SELECT COUNT(*) FROM transactions t WHERE t.subscription_id = subscriptions.id) "
                    "FROM subscriptions WHERE id = ? AND merchant_id = ?");
        s.bind(1, w.subscription_id).bind(2, identity_.merchant_id);
        if (!s.step()) {
            fail(w.subscription_id, "not_found", "no subscription with this id");
            continue;
        }
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
        json tx;
        if (request.order_id) {  // idempotent per (orderId, subscription)
            Stmt e(db_, "SELECT body FROM transactions WHERE kind = 'debit' AND merchant_id = ? AND offer_id = ? AND subscription_id = ?");
            e.bind(1, identity_.merchant_id).bind(2, offer_id).bind(3, w.subscription_id);
            if (e.step()) tx = json::parse(e.text(0));
        }
        if (tx.is_null()) {
            json origin;
            Stmt o(db_, "SELECT body FROM transactions WHERE id = ?");
            o.bind(1, origin_tx);
            if (o.step()) origin = json::parse(o.text(0));
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
            if (origin.is_object()) {
                p.customer_email = origin["customer"].value("email", "");
                p.customer_name = origin["customer"].value("fullname", "");
            }
            p.user_id = user_id;
            p.plaintext = w.item.dump();
            p.payer = "merchant:" + identity_.merchant_id;
            p.request_hash = paywasm::sha256_hex(p.plaintext);
            p.subscription_id = w.subscription_id;
            p.extra_meta = {{"subscriptionId", w.subscription_id}};
            if (item.merchant_subscription_id) p.extra_meta["merchantSubscriptionId"] = *item.merchant_subscription_id;
            tx = create(p).transaction;
        }
        data.push_back({
            {"transactionId", tx["id"]},
            {"amount", tx["localAmount"]},
            {"currency", tx["localCurrency"]},
            {"rateDivisor", tx["txMetadata"]["nativeConversionRate"]},
            {"orderId", tx["meta"]["offerId"]},
            {"status", tx["status"]},
            {"userId", tx["userId"]},
            {"merchantId", tx["merchantId"]},
            {"subscriptionId", w.subscription_id},
        });
    }
    return json{{"data", data}, {"errors", errors}};
}

bool Ledger::cancel(const std::string& subscription_id) {
    auto lk = db_.lock();
    Stmt s(db_, "SELECT status FROM subscriptions WHERE id = ? AND merchant_id = ?");
    s.bind(1, subscription_id).bind(2, identity_.merchant_id);
    if (!s.step()) throw HttpError(404, "not_found", "no subscription with id " + subscription_id.substr(0, 64));
    if (s.text(0) != "active" && s.text(0) != "pending") return false;  // cancelled, or void (never started)
    Stmt u(db_, "UPDATE subscriptions SET status = 'cancelled', cancelled_at = ? WHERE id = ?");
    u.bind(1, now_ms()).bind(2, subscription_id).run();
    return true;
}

}  // namespace sandbox
