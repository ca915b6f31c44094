// paywasm-merchant's settings: what main.cpp read from the command line and the environment
// (docs/merchant.md lists each option). Plain data; read by every part of the gateway.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "rules/attempts.hpp"
#include "paywasm/crypto.hpp"
#include "paywasm/order.hpp"

namespace merchant {

struct Config {
    std::string host = "127.0.0.1";
    int port = 8090;                    // 0: a free port (printed on the first stdout line)
    std::string service_url;            // the service's {base_url}, e.g. http://127.0.0.1:8080/api
    std::string public_service_url;     // what the shopper's browser calls; default: service_url
    std::string merchant_id;
    std::string merchant_public_pem;    // --merchant-public-key (file contents)
    std::string webhook_public_pem;     // --webhook-public-key (file contents)
    std::string shop_origin;            // the only origin that gets CORS headers
    std::vector<std::string> trusted_proxies;  // --trusted-proxy: peers whose X-Forwarded-For names the client
    std::string db = "sqlite:paywasm-merchant.db";
    std::string app_callback;           // where verified changes are forwarded; empty: not forwarded
    paywasm::PayMethods methods{paywasm::PayMethod::exchange, paywasm::PayMethod::qr};
    paywasm::Padding padding = paywasm::Padding::oaep_sha1;
    std::int64_t session_ttl_ms = 60LL * 60 * 1000;
    std::int64_t retry_base_ms = 1000;  // forwarding back-off: base * 2^(attempt-1), at most 10 min
    // Mail to the merchant (notify.hpp, mailer.cpp): the operator's relay; empty smtp_url: no mail.
    std::string smtp_url;               // --smtp-url smtp://host:587 (STARTTLS required) or smtps://host:465
    std::string smtp_user, smtp_password;  // --smtp-credentials-file: its first line, its second
    std::string smtp_ca_file;           // --smtp-ca-file: the CAs the relay's certificate is checked with
    std::string mail_from;              // --mail-from: the sender address
    int max_streams = 10000;            // concurrent SSE streams; more get 503
    int max_streams_per_session = 8;    // per session id; more get 429
    int max_streams_per_client = 1000;  // per client address; more get 429
    // Connections per peer address (ServerOptions::max_connections_per_address): room for a client's
    // whole stream allowance and its requests beside them.
    int max_connections_per_address = 1100;
    int stream_max_seconds = 1800;      // a stream ends after this (the client reconnects after `retry:`)
    int service_timeout_s = 30;
    std::size_t max_body = 64 * 1024;
    bool verbose = false;               // access log on stderr
    // From the environment, never from the command line (ps would show them).
    std::string merchant_token;         // PAYWASM_MERCHANT_TOKEN
    std::string app_secret;             // PAYWASM_APP_SECRET: the app API's bearer
    std::string event_secret;           // PAYWASM_EVENT_SECRET: signs forwarded events (not the bearer)
    std::string metrics_token;          // PAYWASM_METRICS_TOKEN: /metrics' bearer (empty: /metrics is off)
    std::int64_t retain_ms = 0;         // --retain-days: 0 keeps everything (Upkeep::prune)
    int session_rate = 600;             // --session-rate: sessions a minute per app secret (0: no limit)
    int qr_rate_per_session = 5;        // --qr-rate-per-session: QR creations a minute per session
    int qr_rate_per_client = 30;        // --qr-rate-per-client: QR creations a minute per client address
    std::int64_t prune_interval_ms = 60 * 1000;
    int attempt_rate_per_session = 20;  // --attempt-rate-per-session: registrations + reports a minute
    int attempt_rate_per_client = 10;   // --attempt-rate-per-client: registrations a minute per client (an IPv6 /64 is one)
    AttentionThresholds attention;      // --attention-*: when an attempt is stuck (attempts.hpp)
    // Hosted checkout and payment links (hosted.hpp; docs/merchant.md "No front end?").
    std::string widget_dir;             // --widget-dir: the widget's built files; empty: no hosted pages
    std::string public_url;             // --public-url: the gateway's origin as shoppers reach it (links, QR)
    std::vector<std::string> return_origins;  // --return-origin: where successUrl/cancelUrl may point
    std::string shopper_token_url;      // --shopper-token-url: the shop's endpoint answering the shopper's bearer
    std::string bank_account_id;        // --bank-account-id: the merchant's receiving account (the bank method)
    std::string shop_name = "Checkout"; // --shop-name
    std::string shop_logo;              // --shop-logo: the file's contents (PNG or SVG), read at start
    std::string shop_logo_type;         //   its Content-Type
    std::string shop_colour = "#1a56db";// --shop-colour: #rrggbb
    int link_rate_per_client = 60;      // --link-rate-per-client: link openings a minute per client address
    int link_rate_per_link = 600;       // --link-rate-per-link: openings a minute per link
    std::int64_t link_open_ttl_ms = 15LL * 60 * 1000;  // --link-session-ttl: a link session until the shopper's details
    std::string pos_currency = "USD";   // --pos-currency: the currency of the console's point of sale (sales.hpp)
    // --console-listen HOST:PORT: the merchant's console on its own listener (console.hpp); port
    // -1: no console. --console-origin: its origin as the browsers see it (https: Secure cookies);
    // empty: http:// and the Host a request names.
    std::string console_host;
    int console_port = -1;
    std::string console_origin;
    std::vector<std::string> console_hosts;  // --console-hosts: the Host values the console answers (console_http.hpp)
    int console_login_rate = 10;        // --console-login-rate: login attempts a minute per client address
};

}  // namespace merchant
