// paywasm-merchant's settings (settings.hpp): the command line, the environment and the
// configuration file, each option applied by the one function apply_option().
#include "program/settings.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <regex>
#include <sstream>

#include "client/url.hpp"
#include "hosted/hosted.hpp"
#include "paywasm/error.hpp"
#include "server/client_address.hpp"

namespace merchant {

const char* const kUsage =
    "usage: paywasm-merchant [--config FILE] --service-url URL --merchant-id ID --merchant-public-key PEM\n"
    "                        --webhook-public-key PEM [--shop-origin ORIGIN] [options]\n"
    "       paywasm-merchant init [options]        set up a gateway: secrets, configuration, database, console user\n"
    "       paywasm-merchant config check [--config FILE] [options]  the effective configuration, secrets masked\n"
    "       paywasm-merchant console-user add|passwd|unlock|sessions|remove|list [NAME] [--config FILE] [--db URL]\n"
    "  --config FILE             the configuration file: `name = value` lines, names the long options below;\n"
    "                            the command line wins over the environment, which wins over the file. The\n"
    "                            gateway reads one only when given (the unit passes /etc/paywasm/merchant.conf);\n"
    "                            init, config check and console-user default to /etc/paywasm/merchant.conf\n"
    "  --merchant-token-file F   a file (mode 0600) holding the service's merchant access token\n"
    "  --app-secret-file F       a file (mode 0600) holding the app API's bearer (at least 16 characters)\n"
    "  --event-secret-file F     a file (mode 0600) holding the key events are signed with\n"
    "  --metrics-token-file F    a file (mode 0600) holding /metrics' bearer\n"
    "  --listen HOST:PORT        where to listen (default 127.0.0.1:8090; port 0: any free port)\n"
    "  --service-url URL         the payment service's base URL (the sandbox: http://127.0.0.1:PORT/api)\n"
    "  --public-service-url URL  the base URL the shopper's browser uses (default: --service-url)\n"
    "  --merchant-id ID          the merchant id (clientId of every payload)\n"
    "  --merchant-public-key F   the merchant's RSA public key, PEM file (payloads are encrypted to it)\n"
    "  --webhook-public-key F    the service's webhook signing key, PEM file\n"
    "  --shop-origin ORIGIN      the shop page's origin (https://shop.example): the only one given CORS;\n"
    "                            none (a shop without a web site): no CORS, hosted pages and links only\n"
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
    "  --link-rate-per-client N  link openings a minute per client address (default 60; 0: no limit)\n"
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
    "  --smtp-url URL            mail to the console users who asked for it (console-user notify) through\n"
    "                            this relay: smtp://host:587 (STARTTLS required) or smtps://host:465; default: none\n"
    "  --smtp-credentials-file F the relay's user (first line) and password (second); mode 0600\n"
    "  --smtp-ca-file FILE       CA certificates the relay's certificate is checked with (default: the system's)\n"
    "  --mail-from ADDRESS       the mail's sender (required with --smtp-url)\n"
    "  --verbose                 access log (session ids cut short) and refused webhooks on stderr\n"
    "environment (over the file's merchant-token-file, app-secret-file, event-secret-file, metrics-token-file, db):\n"
    "  PAYWASM_MERCHANT_TOKEN    the service's merchant access token (QR generate, subscriptions)\n"
    "  PAYWASM_APP_SECRET        the shop app's bearer for the app API (at least 16 characters)\n"
    "  PAYWASM_EVENT_SECRET      the key forwarded events are signed with (HMAC-SHA256; at least 16\n"
    "                            characters, not the app secret); required with --app-callback\n"
    "  PAYWASM_METRICS_TOKEN     /metrics' bearer (at least 16 characters, not the app secret); unset:\n"
    "                            /metrics answers 404 (the app secret never reads it)\n"
    "  PAYWASM_DB                the database URL when --db is not given\n"
    "  PGPASSWORD, PGPASSFILE    libpq's own: a PostgreSQL password kept out of the URL\n"
    "  PAYWASM_CLOCK_OFFSET_MS   tests and retention drills only: milliseconds added to the clock\n";


namespace {

[[noreturn]] void bad(const std::string& message) { throw paywasm::Error(paywasm::ErrorCode::usage, message); }

// A secret's file: one line (its trailing newline dropped), readable by its owner only (0600 or
// 0400): a file others can read is refused, the secret would already be out.
std::string read_private(const std::string& option, const std::string& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) bad("--" + option + ": cannot read " + path + ": " + std::strerror(errno));
    if ((st.st_mode & 077) != 0) {
        char mode[8];
        std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
        bad("--" + option + ": " + path + " can be read by others (mode " + mode + "): chmod 600 " + path);
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) bad("--" + option + ": cannot read " + path);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

std::string read_secret(const std::string& option, const std::string& path) {
    std::string secret = read_private(option, path);
    if (!secret.empty() && secret.back() == '\n') secret.pop_back();
    if (!secret.empty() && secret.back() == '\r') secret.pop_back();
    if (secret.empty() || secret.find('\n') != std::string::npos) bad("--" + option + ": " + path + " must hold the secret on one line");
    return secret;
}

// The SMTP relay's credentials file: the user on its first line, the password on its second (a
// private file, as a secret's).
void read_smtp_credentials(Config& c, const std::string& path) {
    std::istringstream in(read_private("smtp-credentials-file", path));
    std::getline(in, c.smtp_user);
    std::getline(in, c.smtp_password);
    for (std::string* v : {&c.smtp_user, &c.smtp_password}) {
        if (!v->empty() && v->back() == '\r') v->pop_back();
    }
    if (c.smtp_user.empty() || c.smtp_password.empty()) {
        bad("--smtp-credentials-file: " + path + " must hold the relay's user on its first line and the password on its second");
    }
}

std::string read_file(const std::string& option, const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) bad("--" + option + ": cannot read " + path);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

paywasm::PayMethods read_methods(const std::string& value) {
    const auto methods = paywasm::parse_pay_methods(value);
    if (!methods) bad("--methods takes a list of exchange, bank, qr: " + paywasm::method_list_error(value));
    return *methods;
}

const paywasm::options::Spec kOptions{
    {"config", "merchant-token-file", "app-secret-file", "event-secret-file", "metrics-token-file", "listen", "service-url", "public-service-url", "merchant-id", "merchant-public-key", "webhook-public-key",
     "shop-origin", "db", "app-callback", "methods", "padding", "session-ttl", "retry-base-ms", "max-streams",
     "max-streams-per-session", "max-streams-per-client", "stream-max-seconds", "session-rate", "qr-rate-per-session",
     "qr-rate-per-client", "trusted-proxy", "retain-days", "service-timeout", "attempt-rate-per-session", "attempt-rate-per-client",
     "attention-exchange-minutes", "attention-bank-minutes", "attention-bank-pending-days", "attention-qr-minutes",
     "max-connections-per-address", "widget-dir", "public-url", "return-origin", "shopper-token-url", "bank-account-id", "shop-name",
     "shop-logo", "shop-colour", "link-rate-per-client", "link-rate-per-link", "link-session-ttl", "pos-currency", "console-listen",
     "console-origin", "console-login-rate", "console-hosts", "smtp-url", "smtp-credentials-file", "smtp-ca-file", "mail-from"},
    {"verbose"}};

// An origin: scheme://host[:port] of http or https, nothing after.
bool is_origin(const std::string& v) { return !v.empty() && paywasm::client::http_origin(v) == v; }

// The hosted pages' options (hosted.hpp), each checked now: a bad one stops the start.
void apply_hosted_option(Config& c, const std::string& name, const std::string& value) {
    using paywasm::options::whole_number;
    if (name == "widget-dir") c.widget_dir = value;
    else if (name == "public-url") {
        if (!is_origin(value)) bad("--public-url is an origin: http(s)://host[:port], no path");
        c.public_url = value;
    } else if (name == "return-origin") {
        for (const auto& o : paywasm::options::split_commas(value)) {
            if (!is_origin(o)) bad("--return-origin takes origins, comma-separated (http(s)://host[:port], no path)");
            c.return_origins.push_back(o);
        }
    } else if (name == "shopper-token-url") {
        if (paywasm::client::http_origin(value).empty()) bad("--shopper-token-url must be an absolute http(s) URL");
        c.shopper_token_url = value;
    } else if (name == "bank-account-id") {
        if (value.empty() || value.size() > 200) bad("--bank-account-id is 1 to 200 characters");
        c.bank_account_id = value;
    } else if (name == "shop-name") {
        if (value.empty() || value.size() > 80) bad("--shop-name is 1 to 80 characters");
        for (char ch : value) {
            if (static_cast<unsigned char>(ch) < 0x20 || ch == 0x7f) bad("--shop-name holds a control character");
        }
        c.shop_name = value;
    } else if (name == "shop-logo") {
        c.shop_logo = read_file(name, value);
        if (c.shop_logo.size() > 100 * 1024) bad("--shop-logo is at most 100 KB");
        if (c.shop_logo.rfind("\x89PNG\r\n\x1a\n", 0) == 0) c.shop_logo_type = "image/png";
        else if (c.shop_logo.find("<svg") != std::string::npos) c.shop_logo_type = "image/svg+xml";
        else bad("--shop-logo must be a PNG or an SVG file");
    } else if (name == "shop-colour") {
        static const std::regex kColour("^#[0-9a-fA-F]{6}$");
        if (!std::regex_match(value, kColour)) bad("--shop-colour is #rrggbb (six hex digits)");
        c.shop_colour = value;
    } else if (name == "link-rate-per-client") c.link_rate_per_client = static_cast<int>(whole_number(name, value, 0, 1000000));
    else if (name == "link-rate-per-link") c.link_rate_per_link = static_cast<int>(whole_number(name, value, 0, 1000000));
    else if (name == "link-session-ttl") c.link_open_ttl_ms = whole_number(name, value, 60, 24 * 3600) * 1000;
    else if (name == "pos-currency") {
        static const std::regex kCurrency("^[A-Z]{3}$");
        if (!std::regex_match(value, kCurrency)) bad("--pos-currency is a three-letter currency code (USD, EUR, ...)");
        c.pos_currency = value;
    }
}

// HOST:PORT of --listen and --console-listen (an IPv6 host in brackets).
void split_listen(const std::string& name, const std::string& value, std::string& host, int& port) {
    auto colon = value.rfind(':');
    if (colon == std::string::npos || colon == 0) bad("--" + name + " takes HOST:PORT");
    host = value.substr(0, colon);
    if (host.size() > 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
    port = static_cast<int>(paywasm::options::whole_number(name, value.substr(colon + 1), 0, 65535));
}

// Each option of the command line into `c`, in the order given.
void apply_option(Config& c, const std::string& name, const std::string& value) {
    using paywasm::options::whole_number;
    const auto small = [&](long long min, long long max) { return static_cast<int>(whole_number(name, value, min, max)); };
    if (name == "verbose") c.verbose = true;
    else if (name == "listen") split_listen(name, value, c.host, c.port);
    else if (name == "console-listen") split_listen(name, value, c.console_host, c.console_port);
    else if (name == "console-login-rate") c.console_login_rate = small(0, 1000000);
    else if (name == "console-hosts") {
        for (const auto& h : paywasm::options::split_commas(value)) {
            if (h.empty() || h.find_first_of("/@ \t") != std::string::npos) bad("--console-hosts takes host[:port] names, comma-separated");
            c.console_hosts.push_back(h);
        }
    }
    else if (name == "console-origin") {
        if ((value.rfind("http://", 0) != 0 && value.rfind("https://", 0) != 0) || value.back() == '/') {
            bad("--console-origin is an origin: http(s)://host[:port], no path");
        }
        c.console_origin = value;
    } else if (name == "service-url") c.service_url = value;
    else if (name == "public-service-url") c.public_service_url = value;
    else if (name == "merchant-id") c.merchant_id = value;
    else if (name == "merchant-public-key") c.merchant_public_pem = read_file(name, value);
    else if (name == "webhook-public-key") c.webhook_public_pem = read_file(name, value);
    else if (name == "shop-origin") {
        if (value.find("://") == std::string::npos || value.back() == '/') bad("--shop-origin is an origin: scheme://host[:port], no path (e.g. https://shop.example)");
        c.shop_origin = value;
    }
    else if (name == "db") c.db = value;
    else if (name == "merchant-token-file") c.merchant_token = read_secret(name, value);
    else if (name == "app-secret-file") c.app_secret = read_secret(name, value);
    else if (name == "event-secret-file") c.event_secret = read_secret(name, value);
    else if (name == "metrics-token-file") c.metrics_token = read_secret(name, value);
    else if (name == "app-callback") c.app_callback = value;
    else if (name == "smtp-url") {
        if (value.rfind("smtp://", 0) != 0 && value.rfind("smtps://", 0) != 0) bad("--smtp-url is smtp://host:port (STARTTLS) or smtps://host:port");
        c.smtp_url = value;
    }
    else if (name == "smtp-credentials-file") read_smtp_credentials(c, value);
    else if (name == "smtp-ca-file") c.smtp_ca_file = value;
    else if (name == "mail-from") {
        if (value.find('@') == std::string::npos || value.find_first_of("<>\r\n ,") != std::string::npos) bad("--mail-from is one address: paywasm@shop.example");
        c.mail_from = value;
    }
    else if (name == "methods") c.methods = read_methods(value);
    else if (name == "padding") {
        try {
            c.padding = paywasm::parse_padding(value);
        } catch (const paywasm::Error& e) {
            bad(std::string("--padding: ") + e.what());
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
            if (address.empty()) bad("--trusted-proxy takes IP addresses, comma-separated (got '" + value + "')");
            c.trusted_proxies.push_back(address);
        }
    } else if (name == "retain-days") c.retain_ms = whole_number(name, value, 0, 36500) * 86400000LL;
    else if (name == "service-timeout") c.service_timeout_s = small(1, 600);
    else apply_hosted_option(c, name, value);
}


// The environment's settings: each wins over the file's option beside it, loses to the command
// line's. A secret's variable holds the secret itself; PAYWASM_DB the URL.
struct EnvSetting {
    const char* option;
    const char* variable;
    std::string Config::*field;
};
const EnvSetting kEnvironment[] = {
    {"db", "PAYWASM_DB", &Config::db},
    {"merchant-token-file", "PAYWASM_MERCHANT_TOKEN", &Config::merchant_token},
    {"app-secret-file", "PAYWASM_APP_SECRET", &Config::app_secret},
    {"event-secret-file", "PAYWASM_EVENT_SECRET", &Config::event_secret},
    {"metrics-token-file", "PAYWASM_METRICS_TOKEN", &Config::metrics_token},
};

// The keys a configuration file may not hold: a secret's value (its file's name goes there), and
// the file naming itself.
const std::vector<std::pair<std::string, std::string>> kRefusedInFile = {
    {"merchant-token", "a secret is never written in the configuration file: put it in a file only the gateway's user reads (chmod 600) and name that file with merchant-token-file"},
    {"app-secret", "a secret is never written in the configuration file: put it in a file only the gateway's user reads (chmod 600) and name that file with app-secret-file"},
    {"event-secret", "a secret is never written in the configuration file: put it in a file only the gateway's user reads (chmod 600) and name that file with event-secret-file"},
    {"metrics-token", "a secret is never written in the configuration file: put it in a file only the gateway's user reads (chmod 600) and name that file with metrics-token-file"},
    {"config", "the configuration file cannot name another one"},
};

const char* env_value(const char* variable) {
    const char* v = std::getenv(variable);
    return v && *v ? v : nullptr;
}

// Where a cross-check's complaint points: the setting's origin, when one set it.
std::string at(const Settings& s, const std::string& option) {
    for (const auto& g : s.given) {
        if (g.name == option) return g.origin + ": ";
    }
    return "";
}

void check_together(Settings& s) {
    Config& c = s.config;
    auto need = [](const std::string& v, const char* option) {
        if (v.empty()) bad(std::string("--") + option + " is required");
    };
    need(c.service_url, "service-url");
    need(c.merchant_id, "merchant-id");
    need(c.merchant_public_pem, "merchant-public-key");
    need(c.webhook_public_pem, "webhook-public-key");
    // The service's base URLs by the transport's own rules (the first call would refuse them too).
    try {
        paywasm::client::split_base_url(c.service_url, "service-url");
    } catch (const paywasm::Error& e) {
        bad(at(s, "service-url") + "--" + e.what());
    }
    try {
        if (!c.public_service_url.empty()) paywasm::client::split_base_url(c.public_service_url, "public-service-url");
    } catch (const paywasm::Error& e) {
        bad(at(s, "public-service-url") + "--" + e.what());
    }
    // No shop origin (a shop without a web site): no CORS, and successUrl/cancelUrl only where
    // --return-origin allows.
    if (c.return_origins.empty() && !c.shop_origin.empty()) c.return_origins.push_back(c.shop_origin);
    if (!c.smtp_url.empty() && c.mail_from.empty()) bad(at(s, "mail-from") + "--smtp-url needs --mail-from (the sender address)");
    if (c.smtp_url.empty() && (!c.mail_from.empty() || !c.smtp_user.empty())) bad(at(s, "smtp-url") + "--mail-from and --smtp-credentials-file need --smtp-url");
    if (!c.app_callback.empty() && !paywasm::client::split_url(c.app_callback)) {
        bad(at(s, "app-callback") + "--app-callback must start with http:// or https://");
    }
    if (c.merchant_token.empty()) {
        bad("the service's merchant access token is not set: merchant-token-file (a file, mode 0600) or PAYWASM_MERCHANT_TOKEN");
    }
    if (c.app_secret.size() < 16) {
        bad(at(s, "app-secret-file") + "the app secret must be set (app-secret-file or PAYWASM_APP_SECRET), at least 16 characters");
    }
    // Events get their own key: whoever holds the app API's bearer (an HTTP client's log, a proxy)
    // must not be able to sign an event that ships an order.
    // The scraper gets a token that reads figures only: the app secret creates sessions and reads
    // shoppers' addresses, and a monitoring system's configuration is not the place for it.
    if (!c.metrics_token.empty()) {
        if (c.metrics_token.size() < 16) bad(at(s, "metrics-token-file") + "the metrics token (PAYWASM_METRICS_TOKEN) must be at least 16 characters");
        if (c.metrics_token == c.app_secret || c.metrics_token == c.event_secret) {
            bad(at(s, "metrics-token-file") + "the metrics token (PAYWASM_METRICS_TOKEN) must differ from the app secret and the event secret");
        }
    }
    if (!c.app_callback.empty()) {
        if (c.event_secret.size() < 16) {
            bad(at(s, "event-secret-file") + "the event secret (PAYWASM_EVENT_SECRET, event-secret-file) must be set, at least 16 characters, with --app-callback");
        }
        if (c.event_secret == c.app_secret) bad(at(s, "event-secret-file") + "the event secret (PAYWASM_EVENT_SECRET) must differ from the app secret");
    }
}

}  // namespace

const paywasm::options::Spec& gateway_options() { return kOptions; }
const char* gateway_usage() { return kUsage; }

std::vector<paywasm::options::Setting> read_config_file(const std::string& path) {
    return paywasm::options::read_config(path, kOptions, kRefusedInFile);
}

Settings read_settings(const std::vector<std::string>& argv, const std::string& default_config) {
    Settings s;
    const paywasm::options::Args args(argv, kOptions);
    if (args.has("help")) {
        s.help = true;
        return s;
    }
    s.config_path = args.get("config", default_config);
    std::vector<paywasm::options::Setting> file;
    if (!s.config_path.empty()) file = read_config_file(s.config_path);
    const auto from_environment = [](const std::string& option) {
        for (const auto& e : kEnvironment) {
            if (option == e.option && env_value(e.variable)) return true;
        }
        return false;
    };
    // Precedence: the command line over the environment over the file; each source's options in
    // their order, each checked as it is applied (a file's error names its line).
    for (const auto& f : file) {
        if (!args.has(f.name) && !from_environment(f.name)) s.given.push_back(f);
    }
    for (const auto& e : kEnvironment) {
        if (!args.has(e.option) && env_value(e.variable)) s.environment.push_back({e.option, e.variable, e.field});
    }
    for (const auto& [name, value] : args.given()) {
        if (name != "config") s.given.push_back(paywasm::options::Setting{name, value, "command line"});
    }
    auto apply = [&](const paywasm::options::Setting& g) {
        try {
            apply_option(s.config, g.name, g.value);
        } catch (const paywasm::Error& e) {
            if (g.origin == "command line") throw;
            bad(g.origin + ": " + e.what());
        }
    };
    for (const auto& g : s.given) {
        if (g.origin != "command line") apply(g);
    }
    for (const auto& e : s.environment) s.config.*(e.field) = env_value(e.variable);
    for (const auto& g : s.given) {
        if (g.origin == "command line") apply(g);
    }
    check_together(s);
    return s;
}

void print_settings(const Settings& s, std::FILE* out) {
    std::fprintf(out, "# the effective configuration of paywasm-merchant%s%s\n",
                 s.config_path.empty() ? "" : " with ", s.config_path.c_str());
    std::fprintf(out, "# each option with where it was set; an option not listed has its default (paywasm-merchant --help)\n");
    const auto is_secret_file = [](const std::string& name) { return name.size() > 5 && name.compare(name.size() - 5, 5, "-file") == 0; };
    for (const auto& g : s.given) {
        std::string value = g.name == "db" ? paywasm::client::redact_url(g.value) : g.value;
        if (is_secret_file(g.name)) value += "  (its secret: ********)";
        std::fprintf(out, "%s = %s    # %s\n", g.name.c_str(), value.c_str(), g.origin.c_str());
    }
    for (const auto& e : s.environment) {
        const std::string option = e.option;
        const bool db = option == "db";
        const std::string name = db ? option : option.substr(0, option.size() - 5);  // app-secret-file: app-secret
        std::fprintf(out, "%s = %s    # environment %s\n", name.c_str(),
                     db ? paywasm::client::redact_url(s.config.db).c_str() : "********", e.variable);
    }
    const bool db_set = std::any_of(s.given.begin(), s.given.end(), [](const auto& g) { return g.name == "db"; }) ||
                        std::any_of(s.environment.begin(), s.environment.end(), [](const auto& e) { return e.option == std::string("db"); });
    if (!db_set) std::fprintf(out, "db = %s    # default\n", s.config.db.c_str());
    std::fprintf(out, "# listening on %s:%d; console %s; hosted pages %s; shop origin %s\n", s.config.host.c_str(), s.config.port,
                 s.config.console_port < 0 ? "off" : (s.config.console_host + ":" + std::to_string(s.config.console_port)).c_str(),
                 s.config.widget_dir.empty() ? "off" : ("on (" + s.config.widget_dir + ")").c_str(),
                 s.config.shop_origin.empty() ? "none (no CORS)" : s.config.shop_origin.c_str());
}

}  // namespace merchant
