#include "webhooks.hpp"

#include <algorithm>
#include <chrono>
#include <cctype>
#include <cmath>

#include "paywasm/crypto.hpp"
#include "http.hpp"
#include "client/transport.hpp"
#include "client/url.hpp"

namespace sandbox {

using paywasm::client::split_url;

// Loopback always; other hosts only when named by --allow-webhook-host (exact, case-insensitive).
// Without this the control API could make the sandbox POST to any host and port it can reach.
bool Webhooks::allowed(const std::string& url) const {
    auto parts = split_url(url);
    if (!parts || parts->user_info) return false;
    std::string host = parts->host;
    if (is_loopback_host(host)) return true;
    for (char& c : host) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    for (std::string allowed : config_.webhook_hosts) {
        for (char& c : allowed) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        if (host == allowed) return true;
    }
    return false;
}

namespace {
paywasm::server::OutboxOptions delivery_options(const Config& config) {
    paywasm::server::OutboxOptions o;
    o.name = "paywasm-sandbox: webhook delivery";
    o.workers = 1;
    o.timeouts = {3, 5, 5};
    o.idle_ms = 100;
    // min(2^(attempt-1), 600) s, divided by --speed, at least 10 ms.
    o.backoff_ms = [&config](std::int64_t failures) {
        const double s = std::min(std::pow(2.0, static_cast<double>(failures - 1)), 600.0);
        return std::max<std::int64_t>(config.scaled_ms(s), 10);
    };
    return o;
}
}  // namespace

Webhooks::Webhooks(Db& db, const Config& config, const Identity& identity)
    : db_(db), config_(config), identity_(identity), outbox_(*this, delivery_options(config)) {}

Webhooks::~Webhooks() { stop(); }

void Webhooks::enqueue(const std::string& text) {
    const JsonDocument doc = paywasm::parse_json(text);
    const JsonValue tx = doc.root();
    JsonWriter w;
    w.begin_object().str("type", "rf:alert").key("data").begin_object();
    w.str("data", text);
    w.key("offerId").value(tx.member("meta").member("offerId"));
    w.key("transactionId").value(tx.member("id"));
    w.key("amount").value(tx.member("amount"));
    w.key("currency").value(tx.member("currency"));
    w.key("status").value(tx.member("status"));
    w.key("receivedAmount").value(tx.member("receivedAmount"));
    w.end_object();
    w.str("signature", paywasm::sign_sha256(identity_.webhook_key, text));
    w.end_object();
    const std::string transaction_id(tx.member("id").text());
    const std::int64_t status = tx.member("status").integer().value_or(0);
    std::optional<std::string> target = url();
    const std::int64_t now = now_ms();
    db_.execute("INSERT INTO outbox (merchant_id, transaction_id, status, url, body, state, next_attempt_at, created_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                {identity_.merchant_id, transaction_id, status, opt(target), w.text(), target ? "pending" : "skipped",
                 target ? SqlValue(now) : SqlValue(), now});
    if (target) wake();
}

std::optional<std::string> Webhooks::url() {
    auto v = db_.setting("webhook_url");
    if (!v || v->empty()) return std::nullopt;
    return v;
}

void Webhooks::set_url(const std::optional<std::string>& url) {
    if (url && !split_url(*url)) {
        throw HttpError(400, "validation", "url: must be an absolute http:// or https:// URL", "url");
    }
    if (url && !allowed(*url)) {
        throw HttpError(400, "webhook_host_not_allowed",
                        "url: the host must be loopback (localhost, 127.0.0.1, [::1]) or named by "
                        "--allow-webhook-host",
                        "url");
    }
    db_.set_setting("webhook_url", url.value_or(""));
    wake();
}

std::string Webhooks::log(std::int64_t since, int limit) {
    JsonWriter w;
    w.begin_array();
    auto text_or_null = [&](const SqlRow& row, std::size_t col) -> JsonWriter& {
        return row.is_null(col) ? w.null() : w.string(row.text(col));
    };
    const auto rows = db_.transaction([&] {  // one snapshot of the log and its attempts
        return db_.query("SELECT seq, transaction_id, status, url, body, state, attempts, next_attempt_at, last_http_status, "
                         "last_error, created_at, delivered_at FROM outbox WHERE seq > ? ORDER BY seq LIMIT ?",
                         {since, limit});
    });
    for (const auto& s : rows) {
        w.begin_object().num("id", s.integer(0)).str("transactionId", s.text(1)).num("status", s.integer(2));
        w.key("url");
        text_or_null(s, 3);
        w.str("state", s.text(5)).num("attempts", s.integer(6));
        w.key("nextAttemptAt");
        if (s.is_null(7) || s.text(5) != "pending") w.null();
        else w.string(iso8601(s.integer(7)));
        w.key("lastHttpStatus");
        if (s.is_null(8)) w.null();
        else w.number(s.integer(8));
        w.key("lastError");
        text_or_null(s, 9);
        w.str("createdAt", iso8601(s.integer(10)));
        w.key("deliveredAt");
        if (s.is_null(11)) w.null();
        else w.string(iso8601(s.integer(11)));
        w.raw("body", s.text(4));  // the exact JSON the sandbox wrote and POSTs
        w.key("deliveries").begin_array();
        for (const auto& a : db_.query("SELECT attempt, at, http_status, error, ms FROM delivery_attempts WHERE outbox_seq = ? "
                                       "ORDER BY attempt",
                                       {s.integer(0)})) {
            w.begin_object().num("attempt", a.integer(0)).str("at", iso8601(a.integer(1)));
            w.key("httpStatus");
            if (a.is_null(2)) w.null();
            else w.number(a.integer(2));
            w.key("error");
            text_or_null(a, 3);
            w.num("ms", a.integer(4)).end_object();
        }
        w.end_array().end_object();
    }
    w.end_array();
    return w.take();
}

void Webhooks::start() { outbox_.start(); }
void Webhooks::stop() { outbox_.stop(); }
void Webhooks::wake() { outbox_.wake(); }

std::optional<paywasm::server::OutboxStore::Item> Webhooks::claim(std::int64_t now) {
    const std::optional<std::string> current = url();
    if (!current) return std::nullopt;
    const auto rows = db_.query("SELECT seq, body, attempts FROM outbox WHERE state = 'pending' AND next_attempt_at <= ? "
                                "ORDER BY next_attempt_at, seq LIMIT 1",
                                {now});
    if (rows.empty()) return std::nullopt;
    Item item;
    item.id = std::to_string(rows[0].integer(0));
    item.body = rows[0].text(1);
    item.attempts = rows[0].integer(2);
    item.url = *current;
    item.headers = {{"User-Agent", "paywasm-sandbox"}, {"X-Sandbox-Event", item.id}};
    if (!split_url(item.url)) item.refuse = "not an http(s) URL";
    else if (!allowed(item.url)) item.refuse = "host not allowed (loopback or --allow-webhook-host only)";  // stored by an older run
    return item;
}

void Webhooks::delivered(const Item& item, const Attempt& attempt) { record(item, attempt); }
void Webhooks::failed(const Item& item, const Attempt& attempt) { record(item, attempt); }

void Webhooks::record(const Item& item, const Attempt& attempt) {
    const std::int64_t seq = std::stoll(item.id), attempts = item.attempts + 1;
    const SqlValue http_status = attempt.http_status ? SqlValue(std::int64_t{*attempt.http_status}) : SqlValue();
    const bool ok = attempt.error.empty();
    db_.transaction([&] {
        db_.execute("INSERT INTO delivery_attempts (outbox_seq, attempt, at, http_status, error, ms) VALUES (?, ?, ?, ?, ?, ?)",
                    {seq, attempts, attempt.started, http_status, ok ? SqlValue() : SqlValue(attempt.error),
                     attempt.finished - attempt.started});
        if (ok) {
            db_.execute("UPDATE outbox SET state = 'delivered', attempts = ?, url = ?, last_http_status = ?, last_error = NULL, "
                        "delivered_at = ?, next_attempt_at = NULL WHERE seq = ?",
                        {attempts, item.url, http_status, attempt.finished, seq});
        } else {
            db_.execute("UPDATE outbox SET attempts = ?, url = ?, last_http_status = ?, last_error = ?, next_attempt_at = ? "
                        "WHERE seq = ?",
                        {attempts, item.url, http_status, attempt.error, attempt.next_attempt_at, seq});
        }
    });
}

}  // namespace sandbox
