#include "webhooks.hpp"

#include <algorithm>
#include <chrono>
#include <cctype>
#include <cmath>

#include "paywasm/crypto.hpp"
#include "http.hpp"
#include "server/transport.hpp"
#include "server/url.hpp"

namespace sandbox {

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

Webhooks::Webhooks(Db& db, const Config& config, const Identity& identity)
    : db_(db), config_(config), identity_(identity) {}

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
    Stmt s(db_, "INSERT INTO outbox (merchant_id, transaction_id, status, url, body, state, next_attempt_at, created_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
    const std::int64_t now = now_ms();
    s.bind(1, identity_.merchant_id)
        .bind(2, transaction_id)
        .bind(3, status)
        .bind(4, target)
        .bind(5, w.text())
        .bind(6, target ? "pending" : "skipped")
        .bind(7, target ? std::optional<std::int64_t>(now) : std::nullopt)
        .bind(8, now)
        .run();
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
    auto lk = db_.lock();
    JsonWriter w;
    w.begin_array();
    Stmt s(db_, "SELECT seq, transaction_id, status, url, body, state, attempts, next_attempt_at, last_http_status, "
                "last_error, created_at, delivered_at FROM outbox WHERE seq > ? ORDER BY seq LIMIT ?");
    s.bind(1, since).bind(2, limit);
    auto text_or_null = [&](const Stmt& st, int col) -> JsonWriter& {
        return st.is_null(col) ? w.null() : w.string(st.text(col));
    };
    while (s.step()) {
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
        Stmt a(db_, "SELECT attempt, at, http_status, error, ms FROM delivery_attempts WHERE outbox_seq = ? ORDER BY attempt");
        a.bind(1, s.integer(0));
        while (a.step()) {
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

void Webhooks::start() {
    stopping_ = false;
    thread_ = std::thread([this] { run(); });
}

void Webhooks::stop() {
    {
        std::lock_guard<std::mutex> lk(mutex_);
        stopping_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
}

void Webhooks::wake() {
    {
        std::lock_guard<std::mutex> lk(mutex_);
        woken_ = true;
    }
    cv_.notify_all();
}

void Webhooks::run() {
    while (true) {
        {
            std::unique_lock<std::mutex> lk(mutex_);
            if (stopping_) return;
        }
        bool delivered_any = false;
        try {
            delivered_any = deliver_one();
        } catch (const std::exception& e) {
            std::fprintf(stderr, "paywasm-sandbox: webhook delivery: %s\n", e.what());
        }
        if (delivered_any) continue;
        std::unique_lock<std::mutex> lk(mutex_);
        cv_.wait_for(lk, std::chrono::milliseconds(100), [this] { return stopping_ || woken_; });
        woken_ = false;
    }
}

bool Webhooks::deliver_one() {
    // Deliver to the URL configured now: a merchant who fixes a wrong URL gets the backlog; with no
    // URL, pending events wait.
    const std::optional<std::string> current = url();
    if (!current) return false;
    std::int64_t seq = 0, attempts = 0;
    std::string target, body;
    {
        auto lk = db_.lock();
        Stmt s(db_, "SELECT seq, url, body, attempts FROM outbox WHERE state = 'pending' AND next_attempt_at <= ? "
                    "ORDER BY next_attempt_at, seq LIMIT 1");
        s.bind(1, now_ms());
        if (!s.step()) return false;
        seq = s.integer(0);
        target = s.text(1);
        body = s.text(2);
        attempts = s.integer(3);
    }
    target = *current;

    const std::int64_t started = now_ms();
    std::optional<std::int64_t> http_status;
    std::optional<std::string> error;
    auto parts = split_url(target);
    if (!parts) {
        error = "not an http(s) URL";
    } else if (!allowed(target)) {  // a URL stored by an older run or before a flag was dropped
        error = "host not allowed (loopback or --allow-webhook-host only)";
    } else {
        Poster client(parts->origin, {3, 5, 5});
        const auto result = client.post(parts->path, {{"User-Agent", "paywasm-sandbox"}, {"X-Sandbox-Event", std::to_string(seq)}},
                                        body, "application/json");
        if (result.status) {
            http_status = *result.status;
            if (*result.status < 200 || *result.status > 299) error = "HTTP " + std::to_string(*result.status);
        } else {
            error = result.error;
        }
    }
    const std::int64_t finished = now_ms();
    ++attempts;

    DbTransaction t(db_);
    Stmt a(db_, "INSERT INTO delivery_attempts (outbox_seq, attempt, at, http_status, error, ms) VALUES (?, ?, ?, ?, ?, ?)");
    a.bind(1, seq).bind(2, attempts).bind(3, started).bind(4, http_status).bind(5, error).bind(6, finished - started).run();
    if (!error) {
        Stmt u(db_, "UPDATE outbox SET state = 'delivered', attempts = ?, url = ?, last_http_status = ?, last_error = NULL, "
                    "delivered_at = ?, next_attempt_at = NULL WHERE seq = ?");
        u.bind(1, attempts).bind(2, target).bind(3, http_status).bind(4, finished).bind(5, seq).run();
    } else {
        const double backoff_s = std::min(std::pow(2.0, static_cast<double>(attempts - 1)), 600.0);
        const std::int64_t next = finished + std::max<std::int64_t>(config_.scaled_ms(backoff_s), 10);
        Stmt u(db_, "UPDATE outbox SET attempts = ?, url = ?, last_http_status = ?, last_error = ?, next_attempt_at = ? "
                    "WHERE seq = ?");
        u.bind(1, attempts).bind(2, target).bind(3, http_status).bind(4, error).bind(5, next).bind(6, seq).run();
    }
    t.commit();
    return true;
}

}  // namespace sandbox
