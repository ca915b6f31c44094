// The shared object: keys, the service client, the status hub and the forwarding outbox.
#include "gateway.hpp"

#include <chrono>
#include <cstdio>

#include "paywasm/error.hpp"
#include "paywasm/protocol.hpp"
#include "server/transport.hpp"
#include "server/util.hpp"

namespace merchant {

std::string money(const paywasm::Decimal& d) { return d.scale() <= 2 ? d.to_fixed(2) : d.to_string(); }

// ---- Gateway --------------------------------------------------------------------------------------------

Gateway::Gateway(Config config_, std::unique_ptr<Sql> sql)
    : config(std::move(config_)),
      merchant_key(paywasm::PublicKey::parse(config.merchant_public_pem)),
      webhook_key(paywasm::PublicKey::parse(config.webhook_public_pem)),
      merchant_fingerprint(merchant_key.fingerprint()),
      hub(),
      store(std::move(sql)),
      stream_reads(std::make_unique<boost::asio::thread_pool>(2)) {
    // Another instance changed a session (PostgreSQL NOTIFY): wake this instance's streams.
    store.sql().listen("paywasm_status", [this](const std::string& session_id) { hub.notify(session_id); });
}

Gateway::~Gateway() { stop(); }

paywasm::HttpResponse Gateway::call_service(const paywasm::HttpRequest& request) {
    TransportOptions options;
    options.timeout_seconds = config.service_timeout_s;
    return send(request, config.service_url, options);
}

HttpError Gateway::service_error(const paywasm::Error& e) {
    using paywasm::ErrorCode;
    if (e.code() == ErrorCode::timeout) return HttpError(504, "service_timeout", std::string("the payment service did not answer in time: ") + e.what());
    if (e.code() == ErrorCode::network) return HttpError(502, "service_unreachable", std::string("the payment service could not be reached: ") + e.what());
    std::string message = std::string("the payment service refused or garbled the request: ") + e.what();
    if (e.http_status()) message += " (HTTP " + std::to_string(e.http_status()) + ")";
    return HttpError(502, std::string(paywasm::to_string(e.code())), message, e.field());
}

std::string Gateway::status_json(const Session& s) const {
    const StatusView& v = s.status;
    paywasm::JsonWriter w;
    w.begin_object().str("sessionId", s.id).str("offerId", s.offer_id);
    w.key("status");
    v.status ? w.number(*v.status) : w.null();
    w.str("state", v.state).flag("final", v.final).flag("success", v.success);
    if (v.status) w.str("label", paywasm::describe_status(*v.status).label);
    w.key("transactionId");
    v.transaction_id ? w.string(*v.transaction_id) : w.null();
    w.key("receivedAmount");
    v.received_amount ? w.string(*v.received_amount) : w.null();
    w.str("amount", s.amount).str("currency", s.currency);
    w.num("version", v.version);
    w.key("updatedAt");
    v.updated_at ? w.string(iso8601(v.updated_at)) : w.null();
    w.end_object();
    return w.take();
}

}  // namespace merchant
