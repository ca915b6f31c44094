// paywasm-merchant — the merchant's gateway (docs/merchant.md). Options below; the two secrets come
// from the environment only. The first line on stdout is
// "paywasm-merchant: listening on http://HOST:PORT" once it accepts connections.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <regex>
#include <thread>

#include "client/url.hpp"
#include "console.hpp"
#include "console_auth.hpp"
#include "console_http.hpp"
#include "gateway.hpp"
#include "health.hpp"
#include "hosted.hpp"
#include "options/options.hpp"
#include "paywasm/error.hpp"
#include "server/client_address.hpp"
#include "server/server.hpp"
#include "server/signals.hpp"
#include "paywasm/text.hpp"

namespace {

const char* kUsage =
    "usage: paywasm-merchant --service-url URL --merchant-id ID --merchant-public-key PEM\n"
    "                        --webhook-public-key PEM --shop-origin ORIGIN [options]\n"
    "  --listen HOST:PORT        where to listen (default 127.0.0.1:8090; port 0: any free port)\n"
    "  --service-url URL         the payment service's base URL (the sandbox: http://127.0.0.1:PORT/api)\n"
    "  --public-service-url URL  the base URL the shopper's browser uses (default: --service-url)\n"
    "  --merchant-id ID          the merchant id (clientId of every payload)\n"
    "  --merchant-public-key F   the merchant's RSA public key, PEM file (payloads are encrypted to it)\n"
    "  --webhook-public-key F    the service's webhook signing key, PEM file\n"
    "  --shop-origin ORIGIN      the shop page's origin (https://shop.example): the only one given CORS\n"
    "  --db URL                  sqlite:PATH (default sqlite:paywasm-merchant.db) or postgresql://...\n"
    "                            (default from PAYWASM_DB when set: keeps a password off the process list)\n"
    "  --session-rate N          sessions a minute the app API creates, bursts of N (default 600; 0: no limit)\n"
    "  --qr-rate-per-session N   QR creations a minute per session (default 5), and\n"
    "  --qr-rate-per-client N    per client address (default 30); over a limit: 429 with Retry-After; the\n"
    "                            limits are kept in the database, shared by every instance on it\n"
    "  --attempt-rate-per-session N  payment attempts registered and reported a minute per session (default 20)\n"
    "  --attempt-rate-per-client N   payment attempts registered a minute per client address (default 10)\n"
    "  --attention-exchange-minutes N  an exchange attempt with no verified outcome after N minutes is stuck:\n"
    "                            one checkout.attention_needed event (default 180; crypto completes within 2 h)\n"
    "  --attention-bank-minutes N  a bank attempt with no verified status after N minutes (default 60)\n"
    "  --attention-bank-pending-days N  a bank payment verified pending with no final status after N days\n"
    "                            (default 7)\n"
    "  --attention-qr-minutes N  a QR code's window: with no verified final status N minutes after it was\n"
    "                            made, it is stuck and no new code is made until it is settled (default 60)\n"
    "  --trusted-proxy LIST      your reverse proxies' addresses (comma-separated): from them, the client is\n"
    "                            the rightmost X-Forwarded-For address not in LIST (rate limits, stream caps);\n"
    "                            from any other peer the header is ignored (default: none)\n"
    "  --retain-days N           delete sessions done with (expired; final or without money in flight),\n"
    "                            their events and transactions, delivered outbox rows, debits and the\n"
    "                            console's audit log N days after their last change, in small batches,\n"
    "                            every minute (default 0: keep all)\n"
    "  --app-callback URL        where verified status changes are forwarded (signed); default: none\n"
    "  --methods LIST            methods a session offers by default (default exchange,qr)\n"
    "  --padding NAME            oaep-sha1 (default) | oaep-sha256 | pkcs1v15, for merchantAuth and the widget\n"
    "  --session-ttl SECONDS     how long a session accepts payments (default 3600)\n"
    "  --retry-base-ms N         forwarding back-off base: N * 2^(attempt-1) ms, at most 10 min (default 1000)\n"
    "  --max-streams N           concurrent status streams (default 10000; more get 503)\n"
    "  --max-streams-per-session N  streams of one session (default 8; more get 429)\n"
    "  --max-streams-per-client N   streams from one client address (default 1000; more get 429)\n"
    "  --max-connections-per-address N  connections one peer address holds at once (default 1100, 1 to\n"
    "                            1000000; more get 503; a --trusted-proxy's are not counted)\n"
    "  --stream-max-seconds S    a stream ends after S seconds; the widget reconnects (default 1800)\n"
    "  --service-timeout S       seconds per service call (default 30)\n"
    "hosted checkout and payment links (docs/merchant.md \"No front end?\"):\n"
    "  --widget-dir DIR          the widget's built files (make dist: build/native/widget-dist): turns on the\n"
    "                            hosted page GET /pay/{sessionId} and the links (/v1/links, GET /l/{id})\n"
    "  --public-url URL          the gateway's origin as shoppers reach it (links' URLs and QR codes;\n"
    "                            default: the listening address)\n"
    "  --return-origin LIST      origins a session's or link's successUrl/cancelUrl may point to\n"
    "                            (comma-separated; default: --shop-origin); any other is refused\n"
    "  --shopper-token-url URL   the shop's endpoint answering its signed-in shopper's bearer (text), called\n"
    "                            from the hosted page with the shop's cookies: exchange and bank need it;\n"
    "                            without it the hosted page offers QR only; a JSON answer may also\n"
    "                            carry the shopper's connected bank account: {token, stockId, bankAccount}\n"
    "  --bank-account-id ID      your receiving bank account at the service: with a stockId from the\n"
    "                            token URL, the hosted page offers the bank method too\n"
    "  --shop-name TEXT          the shop's name on the hosted pages (1 to 80 characters; default Checkout)\n"
    "  --shop-logo FILE          a PNG or SVG (at most 100 KB) shown beside the name\n"
    "  --shop-colour #RRGGBB     the pages' accent colour (default #1a56db)\n"
    "  --link-rate-per-client N  link openings a minute per client address (default 20; 0: no limit)\n"
    "  --link-rate-per-link N    openings a minute per link (default 600; 0: no limit)\n"
    "  --link-session-ttl S      how long a link's session waits for the shopper's fields (default 900)\n"
    "  --console-listen HOST:PORT  the merchant's console on its own listener (default: none); keep it on\n"
    "                            loopback or a private network, behind your proxy (docs/merchant.md)\n"
    "  --console-origin ORIGIN   the console's origin as browsers see it, behind your proxy (default: http://\n"
    "                            and the Host asked for); https://...: its cookies are Secure\n"
    "  --console-hosts LIST      the Host values the console answers, host[:port] comma-separated (default:\n"
    "                            --console-origin's, else localhost, 127.0.0.1, [::1] with its port); others: 421\n"
    "  --console-login-rate N    console login attempts a minute per client (default 10; 0: no limit);\n"
    "                            5 wrong passwords in 15 minutes lock a user, 20 refuse a client\n"
    "  --verbose                 access log (session ids cut short) and refused webhooks on stderr\n"
    "the console's users: paywasm-merchant console-user add|passwd|unlock|sessions|remove|list [NAME] [--db URL]\n"
    "environment:\n"
    "  PAYWASM_MERCHANT_TOKEN    the service's merchant access token (QR generate, subscriptions)\n"
    "  PAYWASM_APP_SECRET        the shop app's bearer for the app API (at least 16 characters)\n"
    "  PAYWASM_EVENT_SECRET      the key forwarded events are signed with (HMAC-SHA256; at least 16\n"
    "                            characters, not the app secret); required with --app-callback\n"
    "  PAYWASM_METRICS_TOKEN     /metrics' bearer (at least 16 characters, not the app secret); unset:\n"
    "                            /metrics answers 404 (the app secret never reads it)\n"
    "  PAYWASM_DB                the database URL when --db is not given\n"
    "  PGPASSWORD, PGPASSFILE    libpq's own: a PostgreSQL password kept out of the URL\n"
    "  PAYWASM_CLOCK_OFFSET_MS   tests and retention drills only: milliseconds added to the clock\n";

[[noreturn]] void usage_error(const std::string& message) {
    std::fprintf(stderr, "paywasm-merchant: %s\n\n%s", message.c_str(), kUsage);
    std::exit(2);
}

std::string read_file(const std::string& option, const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) usage_error("--" + option + ": cannot read " + path);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

std::vector<std::string> split_methods(const std::string& value) {
    std::vector<std::string> out = paywasm::options::split_commas(value);
    for (const auto& m : out) {
        if (m != "exchange" && m != "bank" && m != "qr") usage_error("--methods takes a list of exchange, bank, qr");
    }
    return out;
}

const paywasm::options::Spec kOptions{
    {"listen", "service-url", "public-service-url", "merchant-id", "merchant-public-key", "webhook-public-key",
     "shop-origin", "db", "app-callback", "methods", "padding", "session-ttl", "retry-base-ms", "max-streams",
     "max-streams-per-session", "max-streams-per-client", "stream-max-seconds", "session-rate", "qr-rate-per-session",
     "qr-rate-per-client", "trusted-proxy", "retain-days", "service-timeout", "attempt-rate-per-session", "attempt-rate-per-client",
     "attention-exchange-minutes", "attention-bank-minutes", "attention-bank-pending-days",
     "attention-qr-minutes", "max-connections-per-address", "widget-dir", "public-url", "return-origin", "shopper-token-url", "bank-account-id", "shop-name",
     "shop-logo", "shop-colour", "link-rate-per-client", "link-rate-per-link", "link-session-ttl", "console-listen",
     "console-origin", "console-login-rate", "console-hosts"},
    {"verbose"}};

// An origin: scheme://host[:port] of http or https, nothing after.
bool is_origin(const std::string& v) { return !v.empty() && merchant::origin_of(v) == v; }

// The hosted pages' options (hosted.hpp), each checked now: a bad one stops the start.
void apply_hosted_option(merchant::Config& c, const std::string& name, const std::string& value) {
    using paywasm::options::whole_number;
    if (name == "widget-dir") c.widget_dir = value;
    else if (name == "public-url") {
        if (!is_origin(value)) usage_error("--public-url is an origin: http(s)://host[:port], no path");
        c.public_url = value;
    } else if (name == "return-origin") {
        for (const auto& o : paywasm::options::split_commas(value)) {
            if (!is_origin(o)) usage_error("--return-origin takes origins, comma-separated (http(s)://host[:port], no path)");
            c.return_origins.push_back(o);
        }
    } else if (name == "shopper-token-url") {
        if (merchant::origin_of(value).empty()) usage_error("--shopper-token-url must be an absolute http(s) URL");
        c.shopper_token_url = value;
    } else if (name == "bank-account-id") {
        if (value.empty() || value.size() > 200) usage_error("--bank-account-id is 1 to 200 characters");
        c.bank_account_id = value;
    } else if (name == "shop-name") {
        if (value.empty() || value.size() > 80) usage_error("--shop-name is 1 to 80 characters");
        for (char ch : value) {
            if (static_cast<unsigned char>(ch) < 0x20 || ch == 0x7f) usage_error("--shop-name holds a control character");
        }
        c.shop_name = value;
    } else if (name == "shop-logo") {
        c.shop_logo = read_file(name, value);
        if (c.shop_logo.size() > 100 * 1024) usage_error("--shop-logo is at most 100 KB");
        if (c.shop_logo.rfind("\x89PNG\r\n\x1a\n", 0) == 0) c.shop_logo_type = "image/png";
        else if (c.shop_logo.find("<svg") != std::string::npos) c.shop_logo_type = "image/svg+xml";
        else usage_error("--shop-logo must be a PNG or an SVG file");
    } else if (name == "shop-colour") {
        static const std::regex kColour("^#[0-9a-fA-F]{6}$");
        if (!std::regex_match(value, kColour)) usage_error("--shop-colour is #rrggbb (six hex digits)");
        c.shop_colour = value;
    } else if (name == "link-rate-per-client") c.link_rate_per_client = static_cast<int>(whole_number(name, value, 0, 1000000));
    else if (name == "link-rate-per-link") c.link_rate_per_link = static_cast<int>(whole_number(name, value, 0, 1000000));
    else if (name == "link-session-ttl") c.link_open_ttl_ms = whole_number(name, value, 60, 24 * 3600) * 1000;
}

// HOST:PORT of --listen and --console-listen (an IPv6 host in brackets).
void split_listen(const std::string& name, const std::string& value, std::string& host, int& port) {
    auto colon = value.rfind(':');
    if (colon == std::string::npos || colon == 0) usage_error("--" + name + " takes HOST:PORT");
    host = value.substr(0, colon);
    if (host.size() > 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
    port = static_cast<int>(paywasm::options::whole_number(name, value.substr(colon + 1), 0, 65535));
}

// Each option of the command line into `c`, in the order given.
void apply_option(merchant::Config& c, bool& db_given, const std::string& name, const std::string& value) {
    using paywasm::options::whole_number;
    const auto small = [&](long long min, long long max) { return static_cast<int>(whole_number(name, value, min, max)); };
    if (name == "help") {
        std::fputs(kUsage, stdout);
        std::exit(0);
    }
    if (name == "verbose") c.verbose = true;
    else if (name == "listen") split_listen(name, value, c.host, c.port);
    else if (name == "console-listen") split_listen(name, value, c.console_host, c.console_port);
    else if (name == "console-login-rate") c.console_login_rate = small(0, 1000000);
    else if (name == "console-hosts") {
        for (const auto& h : paywasm::options::split_commas(value)) {
            if (h.empty() || h.find_first_of("/@ \t") != std::string::npos) usage_error("--console-hosts takes host[:port] names, comma-separated");
            c.console_hosts.push_back(h);
        }
    }
    else if (name == "console-origin") {
        if ((value.rfind("http://", 0) != 0 && value.rfind("https://", 0) != 0) || value.back() == '/') {
            usage_error("--console-origin is an origin: http(s)://host[:port], no path");
        }
        c.console_origin = value;
    } else if (name == "service-url") c.service_url = value;
    else if (name == "public-service-url") c.public_service_url = value;
    else if (name == "merchant-id") c.merchant_id = value;
    else if (name == "merchant-public-key") c.merchant_public_pem = read_file(name, value);
    else if (name == "webhook-public-key") c.webhook_public_pem = read_file(name, value);
    else if (name == "shop-origin") c.shop_origin = value;
    else if (name == "db") {
        c.db = value;
        db_given = true;
    } else if (name == "app-callback") c.app_callback = value;
    else if (name == "methods") c.methods = split_methods(value);
    else if (name == "padding") {
        try {
            c.padding = paywasm::parse_padding(value);
        } catch (const paywasm::Error& e) {
            usage_error(std::string("--padding: ") + e.what());
        }
    } else if (name == "session-ttl") c.session_ttl_ms = whole_number(name, value, 60, 30LL * 24 * 3600) * 1000;
    else if (name == "retry-base-ms") c.retry_base_ms = whole_number(name, value, 1, 600000);
    else if (name == "max-streams") c.max_streams = small(1, 100000);
    else if (name == "max-streams-per-session") c.max_streams_per_session = small(1, 100000);
    else if (name == "max-streams-per-client") c.max_streams_per_client = small(1, 100000);
    else if (name == "max-connections-per-address") c.max_connections_per_address = small(1, 1000000);
    else if (name == "stream-max-seconds") c.stream_max_seconds = small(1, 7 * 24 * 3600);
    else if (name == "session-rate") c.session_rate = small(0, 1000000);
    else if (name == "qr-rate-per-session") c.qr_rate_per_session = small(0, 1000000);
    else if (name == "qr-rate-per-client") c.qr_rate_per_client = small(0, 1000000);
    else if (name == "attempt-rate-per-session") c.attempt_rate_per_session = small(0, 1000000);
    else if (name == "attempt-rate-per-client") c.attempt_rate_per_client = small(0, 1000000);
    else if (name == "attention-exchange-minutes") c.attention.exchange_ms = whole_number(name, value, 1, 525600) * 60000;
    else if (name == "attention-bank-minutes") c.attention.bank_ms = whole_number(name, value, 1, 525600) * 60000;
    else if (name == "attention-qr-minutes") c.attention.qr_ms = whole_number(name, value, 1, 525600) * 60000;
    else if (name == "attention-bank-pending-days") c.attention.bank_pending_ms = whole_number(name, value, 1, 3650) * 86400000LL;
    else if (name == "trusted-proxy") {
        for (const auto& entry : paywasm::options::split_commas(value)) {
            const std::string address = paywasm::server::canonical_address(entry);
            if (address.empty()) usage_error("--trusted-proxy takes IP addresses, comma-separated (got '" + value + "')");
            c.trusted_proxies.push_back(address);
        }
    } else if (name == "retain-days") c.retain_ms = whole_number(name, value, 0, 36500) * 86400000LL;
    else if (name == "service-timeout") c.service_timeout_s = small(1, 600);
    else apply_hosted_option(c, name, value);
}

merchant::Config parse_args(int argc, char** argv) {
    merchant::Config c;
    bool db_given = false;
    try {
        const paywasm::options::Args args(argc, argv, kOptions);
        for (const auto& [name, value] : args.given()) apply_option(c, db_given, name, value);
    } catch (const paywasm::Error& e) {
        usage_error(e.what());
    }
    auto need = [](const std::string& v, const char* option) {
        if (v.empty()) usage_error(std::string("--") + option + " is required");
    };
    need(c.service_url, "service-url");
    need(c.merchant_id, "merchant-id");
    need(c.merchant_public_pem, "merchant-public-key");
    need(c.webhook_public_pem, "webhook-public-key");
    need(c.shop_origin, "shop-origin");
    if (c.shop_origin.find("://") == std::string::npos || c.shop_origin.back() == '/') {
        usage_error("--shop-origin is an origin: scheme://host[:port], no path (e.g. https://shop.example)");
    }
    // The service's base URLs by the transport's own rules (the first call would refuse them too).
    try {
        paywasm::client::split_base_url(c.service_url, "service-url");
        if (!c.public_service_url.empty()) paywasm::client::split_base_url(c.public_service_url, "public-service-url");
    } catch (const paywasm::Error& e) {
        usage_error(std::string("--") + e.what());
    }
    if (c.return_origins.empty()) c.return_origins.push_back(c.shop_origin);
    if (!c.app_callback.empty() && !paywasm::client::split_url(c.app_callback)) {
        usage_error("--app-callback must start with http:// or https://");
    }
    // The database URL from the environment when --db is not given: a PostgreSQL URL may carry a
    // password, which the process list would show (better still: no password in the URL, and
    // libpq's PGPASSWORD or ~/.pgpass).
    if (!db_given) {
        if (const char* db = std::getenv("PAYWASM_DB"); db && *db) c.db = db;
    }
    const char* token = std::getenv("PAYWASM_MERCHANT_TOKEN");
    const char* secret = std::getenv("PAYWASM_APP_SECRET");
    if (!token || !*token) usage_error("PAYWASM_MERCHANT_TOKEN is not set (the service's merchant access token)");
    if (!secret || std::string(secret).size() < 16) usage_error("PAYWASM_APP_SECRET must be set, at least 16 characters");
    c.merchant_token = token;
    c.app_secret = secret;
    // Events get their own key: whoever holds the app API's bearer (an HTTP client's log, a proxy)
    // must not be able to sign an event that ships an order.
    if (const char* events = std::getenv("PAYWASM_EVENT_SECRET"); events && *events) c.event_secret = events;
    // The scraper gets a token that reads figures only: the app secret creates sessions and reads
    // shoppers' addresses, and a monitoring system's configuration is not the place for it.
    if (const char* metrics = std::getenv("PAYWASM_METRICS_TOKEN"); metrics && *metrics) {
        c.metrics_token = metrics;
        if (c.metrics_token.size() < 16) usage_error("PAYWASM_METRICS_TOKEN must be at least 16 characters");
        if (c.metrics_token == c.app_secret || c.metrics_token == c.event_secret) {
            usage_error("PAYWASM_METRICS_TOKEN must differ from PAYWASM_APP_SECRET and PAYWASM_EVENT_SECRET");
        }
    }
    if (!c.app_callback.empty()) {
        if (c.event_secret.size() < 16) usage_error("PAYWASM_EVENT_SECRET must be set, at least 16 characters, with --app-callback");
        if (c.event_secret == c.app_secret) usage_error("PAYWASM_EVENT_SECRET must differ from PAYWASM_APP_SECRET");
    }
    return c;
}

}  // namespace

int main(int argc, char** argv) {
    // SIGINT/SIGTERM: taken by serve_until_signal (blocked in every thread from here on).
    paywasm::server::block_stop_signals();
    if (argc > 1 && std::string(argv[1]) == "console-user") return merchant::console_user_command(argc - 2, argv + 2);
    merchant::Config config = parse_args(argc, argv);
    paywasm::server::set_server_name("paywasm-merchant");

    int exit_code = 0;
    try {
        auto sql = paywasm::server::open_sql(config.db);
        merchant::Gateway gw(config, std::move(sql));

        paywasm::server::Router server;
        server.set_error_handler([](const paywasm::server::Request&, paywasm::server::Response& res) {
            paywasm::server::send_error(res, res.status, "http_error", "HTTP " + std::to_string(res.status));
        });
        merchant::register_app_api(server, gw);
        merchant::register_browser_api(server, gw);
        merchant::register_webhooks(server, gw);
        if (!gw.config.widget_dir.empty()) {  // hosted checkout and payment links (hosted.hpp)
            merchant::register_hosted(server, gw);
            merchant::register_links(server, gw);
        }
        std::atomic<const paywasm::server::Server*> running{nullptr};
        merchant::register_health(server, gw, running);

        paywasm::server::ServerOptions options;
        options.host = config.host;
        options.port = config.port;
        options.max_body = config.max_body;
        // Streams, slow clients and idle connections cost no thread: room for every stream beside
        // a busy shop's other connections.
        options.max_connections = static_cast<std::size_t>(config.max_streams) + 4096;
        options.access_log = config.verbose;
        options.trusted_proxies = config.trusted_proxies;
        options.max_connections_per_address = static_cast<std::size_t>(config.max_connections_per_address);
        paywasm::server::Server http(options, server);
        running = &http;
        if (gw.config.public_url.empty()) gw.config.public_url = paywasm::server::http_origin(config.host, http.port());
        // The console: its own router and listener, nothing of it on the shoppers' one.
        paywasm::server::Router console_router;
        std::unique_ptr<paywasm::server::Server> console;
        std::shared_ptr<void> console_pages;
        std::thread console_thread;
        if (config.console_port >= 0) {
            paywasm::server::ServerOptions co;
            co.host = config.console_host;
            co.port = config.console_port;
            co.max_body = 16 * 1024;
            co.max_connections = 256;
            // One address cannot hold the staff's listener: a few browsers' worth of connections, and
            // a form's body (16 KiB at most) within 5 s, its head within 5 s.
            co.max_connections_per_address = 16;
            co.body_timeout = std::chrono::milliseconds(5000);
            co.header_timeout = std::chrono::milliseconds(5000);
            co.workers = 4;
            co.access_log = config.verbose;
            co.trusted_proxies = config.trusted_proxies;
            console = std::make_unique<paywasm::server::Server>(co, console_router);
            console_pages = merchant::register_console(
                console_router, gw, config.console_origin,
                merchant::console_hosts(config.console_hosts, config.console_origin, config.console_host, console->port()));
            console_router.set_error_handler([](const paywasm::server::Request&, paywasm::server::Response& res) {
                paywasm::server::send_error(res, res.status, "http_error", "HTTP " + std::to_string(res.status));
            });
        }
        gw.start_forwarder();
        gw.start_pruner();
        std::printf("paywasm-merchant: listening on %s\n", paywasm::server::http_origin(config.host, http.port()).c_str());
        if (console) {
            std::printf("paywasm-merchant: console on %s\n",
                        paywasm::server::http_origin(config.console_host, console->port()).c_str());
            console_thread = std::thread([&] { console->run(); });
        }
        std::fflush(stdout);
        paywasm::server::serve_until_signal(http, [&] {
            gw.hub.shutdown();
            if (console) console->drain();
        });
        if (console_thread.joinable()) console_thread.join();
        gw.stop();
        std::fprintf(stderr, "paywasm-merchant: stopped\n");
    } catch (const std::exception& e) {
        std::fprintf(stderr, "paywasm-merchant: %s\n", paywasm::escape_untrusted(e.what(), 500).c_str());
        exit_code = 1;
    }
    return exit_code;
}
