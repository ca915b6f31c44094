// The Gateway object (gateway.hpp): the keys, the store and the status hub it owns, the service
// client, the rate limits. The forwarder, the pruner and the routes are in their own files.
#include "gateway/gateway.hpp"

#include <chrono>
#include <cstdio>

#include "rules/events.hpp"
#include "paywasm/error.hpp"
#include "paywasm/protocol.hpp"
#include "client/transport.hpp"
#include "server/util.hpp"
#include "paywasm/text.hpp"

namespace merchant {

Gateway::Gateway(Config config_, std::unique_ptr<Sql> sql)
    : config(std::move(config_)),
      merchant_key(paywasm::PublicKey::parse(config.merchant_public_pem)),
      webhook_key(paywasm::PublicKey::parse(config.webhook_public_pem)),
      merchant_fingerprint(merchant_key.fingerprint()),
      hub(),
      store(std::move(sql)),
      stream_reads(std::make_unique<boost::asio::thread_pool>(2)) {
    store.upkeep.check_keys(merchant_fingerprint, webhook_key.fingerprint(), now_ms());
    // Another instance changed a session (PostgreSQL NOTIFY): wake this instance's streams. The
    // payload is a wake tag only (StatusHub::wake_tag): the streams read the session's row.
    store.sessions.on_status_change([this](const std::string& payload) { hub.notify_tag(payload); });
}

Gateway::~Gateway() { stop(); }

void Gateway::rate_limit(const std::string& key, int per_minute, Response& res, const char* what) {
    const std::int64_t wait_ms = store.upkeep.take_token(key, per_minute);
    if (wait_ms == 0) return;
    res.set_header("Retry-After", std::to_string((wait_ms + 999) / 1000));
    throw HttpError(429, "rate_limited", std::string("too many ") + what + "; try again after Retry-After seconds");
}

paywasm::HttpResponse Gateway::call_service(const paywasm::HttpRequest& request) {
    paywasm::client::TransportOptions options;
    options.timeout_seconds = config.service_timeout_s;
    return paywasm::client::send(request, config.service_url, options);
}

// The answer names what happened, never how: the service's internal URL, a TLS or resolver error
// and the service's own message go to stderr (escaped), not to a browser or an app.
HttpError Gateway::service_error(const paywasm::Error& e) {
    using paywasm::ErrorCode;
    // The transport's own words (URL, TLS, resolver) for a timeout or an unreachable service; for
    // an answer, its HTTP status only: the service's message may name ids that stay off logs.
    std::string detail;
    if (e.code() == ErrorCode::timeout || e.code() == ErrorCode::network) {
        detail = paywasm::escape_untrusted(e.what(), 300);
    } else {
        detail = "HTTP " + std::to_string(e.http_status());
    }
    std::fprintf(stderr, "paywasm-merchant: payment service: %s: %s\n", std::string(paywasm::to_string(e.code())).c_str(),
                 detail.c_str());
    if (e.code() == ErrorCode::timeout) return HttpError(504, "service_timeout", "the payment service did not answer in time");
    if (e.code() == ErrorCode::network) return HttpError(502, "service_unreachable", "the payment service could not be reached");
    std::string message = "the payment service refused or could not read the request";
    if (e.http_status()) message += " (HTTP " + std::to_string(e.http_status()) + ")";
    return HttpError(502, std::string(paywasm::to_string(e.code())), message, e.field());
}

}  // namespace merchant

namespace merchant {

void Gateway::attention_pass() {
    const auto changed = store.attempts.attention_pass(config.attention, !config.app_callback.empty(), now_ms());
    for (const auto& id : changed) hub.notify(id);
    if (!changed.empty()) wake_forwarder();
}

}  // namespace merchant
