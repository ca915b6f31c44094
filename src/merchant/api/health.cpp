// GET /healthz, /readyz, /metrics (health.hpp).
#include "api/health.hpp"

#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <mutex>

#include "gateway/console_auth.hpp"
#include "paywasm/crypto.hpp"
#include "server/util.hpp"

namespace merchant {

namespace {

// A pending event due this long ago and leased by no one: no forwarder is working the outbox.
constexpr std::int64_t kStuckAfterMs = 5 * 60 * 1000;

// Seconds one trivial query takes (the database's round trip), or a negative number when it fails.
double ping(Gateway& gw) {
    const auto started = std::chrono::steady_clock::now();
    try {
        gw.store.upkeep.ping();
    } catch (const std::exception&) {
        return -1;
    }
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
}

std::string label(std::string_view v) {
    std::string out;
    for (char c : v) {
        if (c == '\\' || c == '"') out += '\\';
        if (c == '\n') {
            out += "\\n";
            continue;
        }
        out += c;
    }
    return out;
}

struct WebhookOutcomes {
    std::mutex mutex;
    std::map<std::string, std::uint64_t> counts;
};

}  // namespace

void register_health(Router& server, Gateway& gw, std::atomic<const paywasm::server::Server*>& http) {
    auto outcomes = std::make_shared<WebhookOutcomes>();
    // A webhook's outcome is in its answer: {"outcome": ...} (200) or {"error": ...} (4xx/5xx).
    server.set_post_routing_handler([outcomes](const Request& req, Response& res) {
        if (req.method != "POST" || req.path != "/v1/webhooks") return;
        std::string outcome = "unknown";
        if (auto doc = read_json(res.body); doc && doc->root().is_object()) {
            outcome = res.status == 200 ? string_or(doc->root().member("outcome"), "unknown")
                                        : "refused_" + string_or(doc->root().member("error"), std::to_string(res.status));
        }
        std::lock_guard<std::mutex> lock(outcomes->mutex);
        ++outcomes->counts[outcome];
    });

    server.route("GET", "/healthz", gw.config.max_body,
                 [](const Request&, Response& res, const std::string&) { send_json(res, 200, R"({"ok":true})"); });

    server.route("GET", "/readyz", gw.config.max_body, [&gw](const Request&, Response& res, const std::string&) {
        const double db = ping(gw);
        std::string outbox = "ok";
        if (db >= 0) {
            try {
                if (gw.store.events.backlog(kStuckAfterMs, now_ms()).stuck > 0 && !gw.config.app_callback.empty()) outbox = "stuck";
            } catch (const std::exception&) {
                outbox = "unknown";
            }
        }
        const bool ready = db >= 0 && outbox == "ok";
        JsonWriter w;
        w.begin_object().flag("ok", ready).str("database", db >= 0 ? "ok" : "unavailable").str("outbox", outbox).end_object();
        if (!ready) res.set_header("Retry-After", "5");
        send_json(res, ready ? 200 : 503, w.text());
    });

    server.route("GET", "/metrics", gw.config.max_body, [&gw, &server, &http, outcomes](const Request& req, Response& res, const std::string&) {
        // Its own bearer, PAYWASM_METRICS_TOKEN: none set, no metrics (the app secret is not one).
        if (gw.config.metrics_token.empty()) {
            throw HttpError(404, "not_found", "/metrics is off: set PAYWASM_METRICS_TOKEN to serve it");
        }
        const std::string token = bearer_token(req);
        if (token.empty() || !paywasm::constant_time_equal(token, gw.config.metrics_token)) {
            throw HttpError(401, "unauthorized", "/metrics needs Authorization: Bearer <PAYWASM_METRICS_TOKEN>");
        }
        std::string out;
        auto line = [&out](const std::string& text) { out += text + "\n"; };
        auto num = [](double v) {
            char b[32];
            std::snprintf(b, sizeof b, "%.6g", v);
            return std::string(b);
        };

        line("# HELP paywasm_http_requests_total Requests answered, by route (method and pattern) and status.");
        line("# TYPE paywasm_http_requests_total counter");
        const auto counts = server.counts();
        for (const auto& c : counts) {
            line("paywasm_http_requests_total{method=\"" + label(c.method) + "\",route=\"" + label(c.pattern) + "\",status=\"" +
                 std::to_string(c.status) + "\"} " + std::to_string(c.requests));
        }
        line("# HELP paywasm_http_request_handler_seconds_total Time spent in handlers, by route and status.");
        line("# TYPE paywasm_http_request_handler_seconds_total counter");
        for (const auto& c : counts) {
            line("paywasm_http_request_handler_seconds_total{method=\"" + label(c.method) + "\",route=\"" + label(c.pattern) +
                 "\",status=\"" + std::to_string(c.status) + "\"} " + num(c.seconds));
        }
        line("# HELP paywasm_webhooks_total Webhooks by outcome (applied, duplicate, stale, amount_mismatch, unknown_offer, refused_<error>).");
        line("# TYPE paywasm_webhooks_total counter");
        {
            std::lock_guard<std::mutex> lock(outcomes->mutex);
            for (const auto& [outcome, n] : outcomes->counts) line("paywasm_webhooks_total{outcome=\"" + label(outcome) + "\"} " + std::to_string(n));
        }
        line("# HELP paywasm_console_password_checks_total Console password checks run (one scrypt each; a login for a user that does not exist checks a decoy).");
        line("# TYPE paywasm_console_password_checks_total counter");
        line("paywasm_console_password_checks_total " + std::to_string(password_checks()));
        line("# HELP paywasm_sse_streams_open Status streams open now.");
        line("# TYPE paywasm_sse_streams_open gauge");
        line("paywasm_sse_streams_open " + std::to_string(gw.hub.open()));
        if (const auto* h = http.load()) {
            line("# HELP paywasm_http_connections_open Client connections open now.");
            line("# TYPE paywasm_http_connections_open gauge");
            line("paywasm_http_connections_open " + std::to_string(h->open_connections()));
            line("# HELP paywasm_http_refused_heads_total Requests refused by the framing rules (400, connection closed).");
            line("# TYPE paywasm_http_refused_heads_total counter");
            line("paywasm_http_refused_heads_total " + std::to_string(h->refused_heads()));
            line("# HELP paywasm_http_received_bytes_total Bytes read from clients: as requests, or dropped after an answer that closes.");
            line("# TYPE paywasm_http_received_bytes_total counter");
            line("paywasm_http_received_bytes_total{use=\"request\"} " + std::to_string(h->bytes_read()));
            line("paywasm_http_received_bytes_total{use=\"dropped\"} " + std::to_string(h->bytes_dropped()));
        }
        if (gw.config.retain_ms > 0) {
            line("# HELP paywasm_retention_passes_total Retention passes finished (--retain-days).");
            line("# TYPE paywasm_retention_passes_total counter");
            line("paywasm_retention_passes_total " + std::to_string(gw.retention_passes.load()));
            line("# HELP paywasm_retention_kept_sessions Sessions past --retain-days kept at the last pass: money may still move in them.");
            line("# TYPE paywasm_retention_kept_sessions gauge");
            line("paywasm_retention_kept_sessions " + std::to_string(gw.retention_kept.load()));
        }
        const double db = ping(gw);
        line("# HELP paywasm_db_up Whether the database answered this scrape's query.");
        line("# TYPE paywasm_db_up gauge");
        line(std::string("paywasm_db_up ") + (db >= 0 ? "1" : "0"));
        if (db >= 0) {
            line("# HELP paywasm_db_ping_seconds The round trip of one trivial query at this scrape.");
            line("# TYPE paywasm_db_ping_seconds gauge");
            line("paywasm_db_ping_seconds " + num(db));
            const auto started = std::chrono::steady_clock::now();
            const EventStore::Backlog f = gw.store.events.backlog(kStuckAfterMs, now_ms());
            const double outbox_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
            line("# HELP paywasm_outbox_pending Forwarded events not yet delivered to --app-callback.");
            line("# TYPE paywasm_outbox_pending gauge");
            line("paywasm_outbox_pending " + std::to_string(f.pending));
            line("# HELP paywasm_outbox_oldest_pending_age_seconds Age of the oldest undelivered event (0: none).");
            line("# TYPE paywasm_outbox_oldest_pending_age_seconds gauge");
            line("paywasm_outbox_oldest_pending_age_seconds " + num(static_cast<double>(f.oldest_age_ms) / 1000.0));
            line("# HELP paywasm_outbox_stuck Pending events overdue by 5 min and leased by no one.");
            line("# TYPE paywasm_outbox_stuck gauge");
            line("paywasm_outbox_stuck " + std::to_string(f.stuck));
            line("# HELP paywasm_db_outbox_query_seconds The outbox figures' queries at this scrape.");
            line("# TYPE paywasm_db_outbox_query_seconds gauge");
            line("paywasm_db_outbox_query_seconds " + num(outbox_seconds));
        }
        res.status = 200;
        res.set_content(std::move(out), "text/plain; version=0.0.4; charset=utf-8");
    });
}

}  // namespace merchant
