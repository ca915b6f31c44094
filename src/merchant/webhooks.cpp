// POST /v1/webhooks — the service's signed status changes. The answer is 2xx only once the change is
// durably stored (so the service retries anything not stored), 400 for a body whose signature or
// shape fails (nothing stored), 503 while the database is unreachable.
#include <cstdio>

#include "gateway.hpp"
#include "paywasm/error.hpp"
#include "server/util.hpp"

namespace merchant {

void register_webhooks(Router& server, Gateway& gw) {
    // The service checks the URL with a GET before using it.
    route(server, "GET", "/v1/webhooks", gw.config.max_body, [](const Request&, Response& res, const std::string&) {
        send_json(res, 200, R"({"ok":true})");
    });

    route(server, "POST", "/v1/webhooks", gw.config.max_body,
          [&gw](const Request&, Response& res, const std::string& body) {
              paywasm::VerifiedWebhook hook;
              try {
                  hook = paywasm::verify_webhook(body, gw.webhook_key);
              } catch (const paywasm::Error& e) {
                  // Not stored, not forwarded: only what the service's key signed is trusted.
                  const bool signature = e.code() == paywasm::ErrorCode::crypto;
                  if (gw.config.verbose) std::fprintf(stderr, "paywasm-merchant: webhook refused: %s\n", e.what());
                  throw HttpError(400, signature ? "invalid_signature" : "invalid_webhook", e.what(), e.field());
              }
              // The database unreachable: StorageUnavailable, which the route's guard answers 503 (the
              // service retries) and logs.
              const Store::Applied applied = gw.store.apply_webhook(hook, !gw.config.app_callback.empty(), now_ms());
              if (applied.outcome == "unknown_offer") {
                  std::fprintf(stderr, "paywasm-merchant: webhook for an unknown offerId (transaction %s), kept as %s\n",
                               hook.transaction.id.c_str(), applied.event_id.c_str());
              }
              if (!applied.session_id.empty()) gw.hub.notify(applied.session_id);
              if (applied.outcome != "duplicate") gw.wake_forwarder();
              JsonWriter w;
              w.begin_object().str("id", applied.event_id).str("outcome", applied.outcome).end_object();
              send_json(res, 200, w.text());
          });
}

}  // namespace merchant
