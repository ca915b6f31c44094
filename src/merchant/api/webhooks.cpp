// POST /v1/webhooks — the service's signed status changes. The answer is 2xx only once the change is
// durably stored (so the service retries anything not stored), 400 for a body whose signature or
// shape fails (nothing stored), 403 for a transaction signed for another merchant (or for none:
// the service signs every merchant's webhooks with one key, so a valid signature proves only who
// signed), 503 while the database is unreachable. Every refusal is logged, at most 20 lines a minute.
#include <atomic>
#include <cstdio>

#include "api/api.hpp"
#include "gateway/gateway.hpp"
#include "paywasm/checkout.hpp"
#include "paywasm/error.hpp"
#include "server/util.hpp"
#include "paywasm/text.hpp"

namespace merchant {

namespace {

// One line on stderr per refused webhook, at most 20 a minute (a flood of forged bodies must not
// fill the log); no body, no secret: the reason and the transaction id, escaped.
void log_refusal(const std::string& what, const std::string& transaction_id) {
    static std::atomic<std::int64_t> window{0};
    static std::atomic<int> count{0};
    const std::int64_t minute = now_ms() / 60000;
    if (window.exchange(minute) != minute) count = 0;
    const int n = ++count;
    if (n > 20) return;
    const std::string id = paywasm::escape_untrusted(transaction_id, {64, true});
    std::fprintf(stderr, "paywasm-merchant: webhook refused: %s%s%s%s\n", what.c_str(), id.empty() ? "" : " (transaction ",
                 id.c_str(), id.empty() ? "" : ")");
    if (n == 20) std::fprintf(stderr, "paywasm-merchant: more refused webhooks this minute are not logged\n");
}

}  // namespace

void register_webhooks(Router& server, Gateway& gw) {
    // The service checks the URL with a GET before using it.
    server.route("GET", "/v1/webhooks", gw.config.max_body, [](const Request&, Response& res, const std::string&) {
        send_json(res, 200, R"({"ok":true})");
    });

    server.route("POST", "/v1/webhooks", gw.config.max_body,
          [&gw](const Request&, Response& res, const std::string& body) {
              paywasm::VerifiedWebhook hook;
              try {
                  hook = paywasm::verify_webhook(body, gw.webhook_key);
              } catch (const paywasm::Error& e) {
                  // Not stored, not forwarded: only what the service's key signed is trusted.
                  const bool signature = e.code() == paywasm::ErrorCode::crypto;
                  log_refusal(signature ? "invalid signature" : "invalid body", "");
                  throw HttpError(400, signature ? "invalid_signature" : "invalid_webhook", e.what(), e.field());
              }
              // The database unreachable: StorageUnavailable, which the route's guard answers 503 (the
              // service retries) and logs.
              const SessionStore::Applied applied = gw.store.sessions.apply_webhook(
                  incoming_tx(hook.transaction), hook.signed_json, gw.config.merchant_id, !gw.config.app_callback.empty(),
                  now_ms());
              switch (applied.outcome) {
                  case Outcome::foreign_merchant:
                      log_refusal(applied.reason, hook.transaction.id);
                      throw HttpError(403, "foreign_merchant", applied.reason + "; this gateway serves merchant " +
                                                                   gw.config.merchant_id + " only", "merchantId");
                  case Outcome::unknown_offer:
                  case Outcome::unknown_transaction:
                  case Outcome::amount_mismatch:
                      log_refusal(std::string(to_string(applied.outcome)) + ": " + applied.reason + ", kept as " +
                                      applied.event_id,
                                  hook.transaction.id);
                      break;
                  case Outcome::applied:
                  case Outcome::duplicate:
                  case Outcome::stale:
                      break;
              }
              if (!applied.session_id.empty()) gw.hub.notify(applied.session_id, applied.pushed);
              if (applied.outcome != Outcome::duplicate) gw.wake_forwarder();
              JsonWriter w;
              w.begin_object().str("id", applied.event_id).str("outcome", to_string(applied.outcome)).end_object();
              send_json(res, 200, w.text());
          });
}

}  // namespace merchant
