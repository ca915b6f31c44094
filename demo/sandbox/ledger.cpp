// The sandbox's ledger (ledger.hpp): how a payment becomes a Transaction object, how its status
// moves over time, and the listings of the control API. Subscriptions are subscriptions.cpp's.
#include "ledger.hpp"

#include <algorithm>
#include <map>

#include "market.hpp"
#include "paywasm/codec.hpp"
#include "paywasm/crypto.hpp"
#include "paywasm/protocol.hpp"
#include "paywasm/status.hpp"
#include "http.hpp"
#include "paywasm/text.hpp"

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

// Where the sandbox's status clock stops: a final status of the core's table, or a partial payment
// (not final: the rest may still come, from a payer the sandbox does not play).
bool stops_clock(int code) {
    const paywasm::StatusInfo info = paywasm::describe_status(code);
    return info.final || info.kind == paywasm::StatusKind::partial;
}

// A JSON number from an exact decimal, written from its digits (no double in between).
std::string number(const Decimal& d) { return json_number(d.to_string()); }

// Writes `v` again with the members at the dotted paths in `set` ("status", "meta.hash.value")
// replaced by the JSON texts given. The sandbox's own transaction text only (at most a few levels).
void write_with(JsonWriter& w, JsonValue v, const std::map<std::string, std::string>& set, const std::string& path) {
    if (!v.is_object()) {
        w.value(v);
        return;
    }
    w.begin_object();
    for (JsonValue m : v.children()) {
        const std::string p = path.empty() ? std::string(m.key()) : path + "." + std::string(m.key());
        w.key(m.key());
        auto it = set.find(p);
        if (it != set.end()) w.raw(it->second);
        else write_with(w, m, set, p);
    }
    w.end_object();
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
    if (status == outcome || stops_clock(status)) return std::nullopt;
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



}  // namespace

bool is_known_status(int code) {
    const auto& known = paywasm::known_status_codes();
    return std::find(known.begin(), known.end(), code) != known.end();
}

Ledger::Ledger(Db& db, const Config& config, const Identity& identity, Webhooks& webhooks)
    : db_(db), config_(config), identity_(identity), webhooks_(webhooks) {}

// ---- Building a Transaction object ------------------------------------------------------------------

std::string Ledger::build_transaction(const NewPayment& p, const std::string& id, std::int64_t now, int status,
                                      const std::vector<std::string>& subscription_ids, std::string& qr_result) {
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

    const std::string tx_meta_id = uuid_v4();
    const std::string created_by = p.user_id.value_or(identity_.merchant_id);
    std::string reference_field = p.kind == "exchange" ? "reference" + capitalized(p.exchange) : "referenceSandbox";
    auto string_or_null = [](JsonWriter& w, const std::optional<std::string>& v) -> JsonWriter& {
        return v ? w.string(*v) : w.null();
    };

    JsonWriter w;
    w.begin_object();
    w.str("id", id).num("status", status).str("nativeAmount", native).str("nativeCurrency", p.native_currency);
    w.str("amount", amount).str("receivedAmount", crypto ? "0.00000000" : "0.00").str("currency", currency);
    w.num("type", type_code(p.kind));
    w.key("description");
    string_or_null(w, p.kind == "debit" ? std::optional<std::string>("Subscription debit") : std::nullopt);
    w.key("check").begin_array();
    long long num = 1;
    for (const auto& c : p.cart) {
        Decimal line = c.price * c.quantity;
        w.begin_object().str("id", c.id).num("num", num++).str("name", c.name);
        w.raw("price", number(c.price)).raw("quantity", number(c.quantity));
        w.raw("localAmount", number(c.local_amount.value_or(line)));
        w.key("statusRefund").begin_object().num("pending", 0).num("success", 0).num("rejected", 0).end_object();
        w.raw("amountFinal", number(line));
        w.end_object();
    }
    w.end_array();
    w.key("subscriptionIds").begin_array();
    for (const auto& sid : subscription_ids) w.string(sid);
    w.end_array();
    w.flag("subscriptionOrder", !subscription_ids.empty());
    w.key("meta").begin_object();
    w.key("hash").begin_object().key("value").begin_array().end_array().str("network", crypto ? coin->network : "ach");
    w.end_object();
    w.str("offerId", p.offer_id).str("receiverAddress", receiver);
    for (const auto& [name, value] : p.extra_meta) w.str(name, value);
    w.end_object();
    w.key("stockId");
    string_or_null(w, p.stock_id);
    w.key("userId");
    string_or_null(w, p.user_id);
    w.str("merchantId", identity_.merchant_id).str("settlementId", uuid_v4()).num("statusRefund", 0);
    w.str("localAmount", local_amount).str("localCurrency", local_currency);
    w.str(reference_field, "sbx_" + random_hex(12));
    w.str("merchantPayableAmount", (p.native_amount * Decimal::parse("0.99")).to_fixed(2));
    w.key("errorMessage").null();
    w.num("settlementStatus", 0).str("txMetaId", tx_meta_id);
    w.key("partnerId").null();
    w.str("createdBy", created_by).str("createdAt", iso8601(now)).str("updatedAt", iso8601(now));
    w.key("merchant").begin_object().key("shopData").begin_object();
    w.str("url", "https://sandbox-shop.example").str("logo", "https://sandbox-shop.example/logo.svg");
    w.str("companyName", "Sandbox Coffee Roasters").str("description", "A make-believe shop run by the paywasm sandbox");
    w.end_object().end_object();
    w.key("customer").begin_object().str("email", p.customer_email).str("fullname", p.customer_name).end_object();
    w.key("currencyInfo").begin_object().flag("isFiat", !crypto).end_object();
    w.key("stock");
    if (p.stock_id) {
        w.begin_object().str("id", *p.stock_id).str("name", "Sandbox Checking").str("mask", "6789").end_object();
    } else {
        w.null();
    }
    w.key("partner").null();
    w.key("txMetadata").begin_object().str("id", tx_meta_id);
    if (p.shipping) w.raw("shippingAddress", paywasm::to_json(*p.shipping));
    else w.key("shippingAddress").null();
    w.str("nativeConversionRate", rate).end_object();
    w.num("receivedAmountFinal", 0).num("receivedAmountCal", 0);
    w.end_object();

    qr_result.clear();
    if (p.kind == "qr") {
        JsonWriter q;
        q.begin_object();
        q.str("totalAmount", native);  // in `currency`, the fiat; the coin amount is in qrString
        q.str("currency", p.native_currency).str("crytoCurrency", p.asset).str("id", id);
        q.key("meta").begin_object().str("offerId", p.offer_id).str("receiverAddress", receiver);
        q.str("qrString", payment_uri(*coin, receiver, amount, native)).end_object();
        q.end_object();
        qr_result = q.take();
    }
    return w.take();
}

// Sets `status` on the transaction and everything that follows from it.
std::string Ledger::apply(const std::string& text, const std::string& kind, int status, std::int64_t now) {
    const JsonDocument doc = paywasm::parse_json(text);
    const JsonValue tx = doc.root();
    const std::string asset(tx.member("currency").text());
    const bool crypto = is_crypto_kind(kind, asset);
    const Coin* coin = crypto ? find_coin(asset) : nullptr;
    const Decimal amount = Decimal::parse(tx.member("amount").text());
    const Decimal native = Decimal::parse(tx.member("nativeAmount").text());
    const int places = crypto ? 8 : 2;
    std::map<std::string, std::string> set;
    auto add_hash = [&] {
        if (coin && tx.member("meta").member("hash").member("value").size() == 0) {
            set["meta.hash.value"] = "[" + paywasm::json_quote(chain_hash(*coin)) + "]";
        }
    };
    auto received = [&](const Decimal& coins, const Decimal& fiat) {
        set["receivedAmount"] = paywasm::json_quote(coins.to_fixed(places));
        set["receivedAmountFinal"] = json_number(coins.to_fixed(places));
        set["receivedAmountCal"] = json_number(fiat.to_fixed(2));
    };

    set["status"] = std::to_string(status);
    set["updatedAt"] = paywasm::json_quote(iso8601(now));
    if (status == 0 && kind == "qr") add_hash();
    if (status >= 1 && status <= 4) {
        add_hash();
        received(amount, native);
        set["errorMessage"] = "null";
    } else if (status == 101) {
        add_hash();
        const Decimal half = Decimal::parse("0.5");
        received(amount * half, native * half);
        set["errorMessage"] = paywasm::json_quote("Partial payment: received " + (amount * half).to_fixed(places) + " of " +
                                                  amount.to_fixed(places) + " " + asset);
    } else if (status == -1) {
        received(Decimal(), Decimal());
        set["errorMessage"] = paywasm::json_quote(kind == "exchange" ? "The exchange rejected the withdrawal (sandbox)"
                                                                     : "The payment failed (sandbox)");
    } else if (status == 19) {
        received(Decimal(), Decimal());
        set["errorMessage"] = paywasm::json_quote("The payment window expired before the funds arrived");
    } else if (status >= 20 && status <= 23) {
        set["statusRefund"] = std::to_string(status - 19);
    }
    JsonWriter w;
    write_with(w, tx, set, "");
    return w.take();
}

// ---- Payments ------------------------------------------------------------------------------------

std::optional<Payment> Ledger::find_payment(const std::string& offer_id) {
    const auto rows = db_.query("SELECT body, qr_result, payer, request_hash FROM transactions "
                                "WHERE merchant_id = ? AND offer_id = ? AND kind <> 'debit'",
                                {identity_.merchant_id, offer_id});
    if (rows.empty()) return std::nullopt;
    const SqlRow& r = rows[0];
    return Payment{r.text(0), r.text(1), true, r.text(2), r.text(3)};
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
    return db_.transaction([&]() -> Payment {
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
    std::string qr_result;
    const std::string tx = build_transaction(p, id, now, status, subscription_ids, qr_result);

    db_.execute("INSERT INTO transactions (id, merchant_id, kind, exchange, offer_id, subscription_id, status, outcome, "
                "next_change_at, body, qr_result, plaintext, padding, created_at, payer, request_hash) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                {id, identity_.merchant_id, p.kind, p.exchange.empty() ? SqlValue() : SqlValue(p.exchange), p.offer_id,
                 opt(p.subscription_id), status, outcome, opt(due_at(config_, p.kind, status, outcome, now)), tx,
                 qr_result.empty() ? SqlValue() : SqlValue(qr_result), p.plaintext, opt(p.padding), now, p.payer, p.request_hash});

    if (p.kind != "debit") {
        std::size_t next = 0;
        for (const auto& item : p.cart) {
            if (!item.is_subscription.value_or(false)) continue;
            db_.execute("INSERT INTO subscriptions (id, merchant_id, user_id, transaction_id, offer_id, item, asset, "
                        "currency, status, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?)",
                        {subscription_ids[next++], identity_.merchant_id, opt(p.user_id), id, p.offer_id, paywasm::to_json(item),
                         p.asset, p.native_currency, now});
        }
    }
    webhooks_.enqueue(tx);
    return Payment{tx, qr_result, false, p.payer, p.request_hash};
    });
}

// ---- The status clock ------------------------------------------------------------------------------

std::string Ledger::advance(const std::string& id, std::optional<int> status, std::optional<int> outcome) {
    if (status && !is_known_status(*status)) {
        throw HttpError(400, "validation", "status: must be one of 10, 0, 1, 2, 3, 4, -1, 101, 19, 1011, 20-23", "status");
    }
    if (outcome && !stops_clock(*outcome)) {
        throw HttpError(400, "validation", "outcome: must be a final status: 1-4, -1, 101, 19 or 1011", "outcome");
    }
    return db_.transaction([&]() -> std::string {
    const auto rows = db_.query("SELECT kind, status, outcome, body FROM transactions WHERE id = ?", {id});
    if (rows.empty()) throw HttpError(404, "not_found", "no transaction with id " + paywasm::escape_untrusted(id, 64));
    const std::string kind = rows[0].text(0);
    const int current = static_cast<int>(rows[0].integer(1));
    int planned = outcome.value_or(static_cast<int>(rows[0].integer(2)));
    std::string tx = rows[0].text(3);

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
    if (stops_clock(target)) planned = target;
    const std::int64_t now = now_ms();
    tx = apply(tx, kind, target, now);
    db_.execute("UPDATE transactions SET status = ?, outcome = ?, next_change_at = ?, body = ? WHERE id = ?",
                {target, planned, opt(due_at(config_, kind, target, planned, now)), tx, id});
    // The order's subscriptions start when its payment succeeds, and never when it fails.
    const char* subscription_status = (target >= 1 && target <= 4) ? "active"
                                    : (target == -1 || target == 19 || target == 1011) ? "void" : nullptr;
    if (subscription_status) {
        db_.execute("UPDATE subscriptions SET status = ? WHERE transaction_id = ? AND status = 'pending'", {subscription_status, id});
    }
    webhooks_.enqueue(tx);
    return tx;
    });
}

int Ledger::tick() {
    int changed = 0;
    while (true) {
        const auto rows = db_.query("SELECT id FROM transactions WHERE next_change_at IS NOT NULL AND next_change_at <= ? "
                                    "ORDER BY next_change_at LIMIT 1",
                                    {now_ms()});
        if (rows.empty()) return changed;
        const std::string id = rows[0].text(0);
        advance(id, std::nullopt, std::nullopt);
        ++changed;
    }
}

// ---- Listing ----------------------------------------------------------------------------------------

void Ledger::write_entry(JsonWriter& w, const SqlRow& s) {
    // Columns: id, kind, exchange, offer_id, status, outcome, next_change_at, body, qr_result, plaintext,
    // padding, created_at, subscription_id
    const int status = static_cast<int>(s.integer(4));
    const std::string plaintext = s.text(9);
    auto text_or_null = [&](std::size_t col) -> JsonWriter& { return s.is_null(col) ? w.null() : w.string(s.text(col)); };
    w.begin_object().str("id", s.text(0)).str("kind", s.text(1));
    w.key("exchange");
    text_or_null(2);
    w.str("offerId", s.text(3)).num("status", status);
    w.str("statusLabel", paywasm::describe_status(status).label).num("plannedOutcome", s.integer(5));
    w.key("nextChangeAt");
    if (s.is_null(6)) w.null();
    else w.string(iso8601(s.integer(6)));
    w.str("createdAt", iso8601(s.integer(11)));
    w.key("subscriptionId");
    text_or_null(12);
    w.key("padding");
    text_or_null(10);
    w.raw("transaction", s.text(7));  // the sandbox's own JSON text
    if (s.is_null(8)) w.key("qr").null();
    else w.raw("qr", s.text(8));
    w.key("plaintext");
    if (auto doc = read_json(plaintext)) w.value(doc->root());
    else w.null();
    w.str("plaintextText", plaintext);
    w.end_object();
}

static constexpr const char* kEntryColumns =
    "SELECT id, kind, exchange, offer_id, status, outcome, next_change_at, body, qr_result, plaintext, padding, "
    "created_at, subscription_id FROM transactions ";

std::optional<std::string> Ledger::get(const std::string& id) {
    const auto rows = db_.query(std::string(kEntryColumns) + "WHERE id = ?", {id});
    if (rows.empty()) return std::nullopt;
    JsonWriter w;
    write_entry(w, rows[0]);
    return w.take();
}

std::optional<std::string> Ledger::transaction(const std::string& id) {
    const auto rows = db_.query("SELECT body FROM transactions WHERE id = ?", {id});
    if (rows.empty()) return std::nullopt;
    return rows[0].text(0);
}

std::string Ledger::list() {
    JsonWriter w;
    w.begin_array();
    for (const auto& r : db_.query(std::string(kEntryColumns) + "ORDER BY seq DESC")) write_entry(w, r);
    w.end_array();
    return w.take();
}

}  // namespace sandbox
