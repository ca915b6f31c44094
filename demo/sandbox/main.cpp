// paywasm-sandbox — a local stand-in for the payment service (docs/sandbox.md).
//   paywasm-sandbox [--port N] [--host 127.0.0.1] [--data DIR] [--speed X] [--bank-day SECONDS]
//                   [--padding oaep-sha1|oaep-sha256|pkcs1v15|any] [--exchanges a,b,c]
//                   [--site DIR] [--dist DIR] [--max-body BYTES] [--quiet] [--strict]
//                   [--control-token TOKEN] [--allow-webhook-host HOST]... [--insecure-any-padding]
// The first line on stdout is "paywasm-sandbox: listening on http://HOST:PORT" once it accepts.
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "sandbox.hpp"
#include "options/options.hpp"
#include "paywasm/error.hpp"
#include "server/server.hpp"
#include "server/signals.hpp"
#include "http.hpp"
#include "paywasm/text.hpp"

namespace {

constexpr const char* kUsage =
    "usage: paywasm-sandbox [--port N] [--host ADDR] [--data DIR] [--speed X] [--bank-day SECONDS]\n"
    "                       [--padding oaep-sha1|oaep-sha256|pkcs1v15] [--exchanges a,b,c]\n"
    "                       [--site DIR] [--dist DIR] [--max-body BYTES] [--quiet] [--strict]\n"
    "                       [--control-token TOKEN] [--allow-webhook-host HOST]... [--insecure-any-padding]\n"
    "\n"
    "  --port N          port to listen on (default 8080; 0 picks a free one)\n"
    "  --host ADDR       address to bind (default 127.0.0.1; the control API answers only requests\n"
    "                    whose Host is localhost, 127.0.0.1 or [::1], and has no other\n"
    "                    authentication unless --control-token is given)\n"
    "  --data DIR        database, keys, ids and tokens; created on first start, reused after\n"
    "                    (default: a temporary directory removed at exit)\n"
    "  --speed X         divide every sandbox delay by X (default 1: crypto takes minutes)\n"
    "  --bank-day S      seconds in one bank working day (default 86400 / speed)\n"
    "  --padding P       RSA padding expected in data and merchantAuth (default: oaep-sha1, or the\n"
    "                    stored choice)\n"
    "  --exchanges LIST  accepted exchange names (default coinbase,okcoin,kraken,gemini,binanceus)\n"
    "  --site DIR        the demo page (default: demo/site of the source tree)\n"
    "  --dist DIR        the widget files served at /dist/ (default: dist/ of the source tree)\n"
    "  --connect-src O   an origin the pages may also connect to (their CSP; repeatable), e.g. the gateway\n"
    "  --max-body BYTES  largest accepted request body (default 262144)\n"
    "  --quiet           no access log on stderr\n"
    "  --strict          subscription debit and cancel also need the merchant access token\n"
    "                    (Authorization: Bearer), not only merchantId + merchantAuth\n"
    "  --control-token T the control API (/__sandbox/)\n"
    "                    needs Authorization: Bearer T (the demo page's control panel then stops working)\n"
    "  --allow-webhook-host HOST  a webhook URL may use HOST (repeatable; loopback is always allowed)\n"
    "  --insecure-any-padding     allow the padding setting `any` (tries OAEP-SHA-1, OAEP-SHA-256, then\n"
    "                    PKCS#1 v1.5): INSECURE, it keeps v1.5 decryption on for every client; the\n"
    "                    sandbox then answers every bad `data` alike (no padding oracle), and OAEP\n"
    "                    clients lose their detailed errors\n";

[[noreturn]] void usage_error(const std::string& message) {
    std::fprintf(stderr, "paywasm-sandbox: %s\n\n%s", message.c_str(), kUsage);
    std::exit(2);
}

const paywasm::options::Spec kOptions{{"port", "host", "data", "speed", "bank-day", "padding", "control-token",
                                        "allow-webhook-host", "site", "dist", "connect-src", "max-body", "exchanges"},
                                       {"quiet", "strict", "insecure-any-padding"}};

// Each option of the command line into `c`, in the order given.
void apply_option(sandbox::Config& c, const std::string& name, const std::string& value) {
    using paywasm::options::number;
    if (name == "help") {
        std::fputs(kUsage, stdout);
        std::exit(0);
    }
    if (name == "quiet") c.quiet = true;
    else if (name == "strict") c.strict = true;
    else if (name == "insecure-any-padding") c.insecure_any_padding = true;
    else if (name == "port") c.port = static_cast<int>(number(name, value, 0, 65535));
    else if (name == "host") c.host = value;
    else if (name == "data") c.data_dir = value;
    else if (name == "speed") c.speed = number(name, value, 0.001, 1e9);
    else if (name == "bank-day") c.bank_day_seconds = number(name, value, 0.001, 1e9);
    else if (name == "padding") c.padding = value;
    else if (name == "control-token") {
        if (value.size() < 16) usage_error("--control-token must have at least 16 characters");
        c.control_token = value;
    } else if (name == "allow-webhook-host") {
        if (value.empty() || value.find_first_of("/:@ ") != std::string::npos) {
            usage_error("--allow-webhook-host takes a host name or IPv4 address, without scheme, port or path");
        }
        c.webhook_hosts.push_back(value);
    } else if (name == "site") c.site_dir = value;
    else if (name == "dist") c.dist_dir = value;
    else if (name == "connect-src") {
        if (value.rfind("http://", 0) != 0 && value.rfind("https://", 0) != 0) usage_error("--connect-src takes an origin: http(s)://host[:port]");
        if (value.find_first_of(" ;'\"") != std::string::npos) usage_error("--connect-src: one origin, no spaces or quotes");
        c.connect_src.push_back(value);
    } else if (name == "max-body") c.max_body = static_cast<std::size_t>(number(name, value, 1024, 64.0 * 1024 * 1024));
    else if (name == "exchanges") {
        c.exchanges.clear();
        for (auto& e : paywasm::options::split_commas(value)) {
            if (!e.empty()) c.exchanges.push_back(std::move(e));
        }
        if (c.exchanges.empty()) usage_error("--exchanges needs at least one name");
    }
}

sandbox::Config parse_args(int argc, char** argv) {
    sandbox::Config c;
    c.site_dir = PAYWASM_SANDBOX_SITE_DIR;
    c.dist_dir = PAYWASM_SANDBOX_DIST_DIR;
    try {
        const paywasm::options::Args args(argc, argv, kOptions);
        for (const auto& [name, value] : args.given()) apply_option(c, name, value);
    } catch (const paywasm::Error& e) {
        usage_error(e.what());
    }
    if (c.padding == "any" && !c.insecure_any_padding) {
        usage_error("--padding any needs --insecure-any-padding (it keeps PKCS#1 v1.5 decryption on)");
    }
    return c;
}

// The sandbox's own files in the data directory 0600 (private keys, the database with tokens and
// payments with shipping addresses): new ones are created so by the umask, those of an older run
// are fixed here. Nothing else in the directory is touched, nor the directory itself unless the
// sandbox made it (`made`: then 0700): `--data .` or `--data ~` must not change a shop's files.
// Throws when a mode cannot be set, which stops the start.
void lock_down(const std::string& data_dir, bool made) {
    namespace fs = std::filesystem;
    auto set_mode = [](const fs::path& p, mode_t mode) {
        if (::chmod(p.c_str(), mode) != 0) {
            throw std::runtime_error("cannot set mode " + std::string(mode == 0700 ? "0700" : "0600") + " on " +
                                     p.string() + ": " + std::strerror(errno));
        }
    };
    if (made) set_mode(data_dir, 0700);
    for (const char* own : {"sandbox.db", "sandbox.db-wal", "sandbox.db-shm", "merchant-key.pem", "webhook-key.pem"}) {
        const fs::path p = fs::path(data_dir) / own;
        std::error_code ec;
        if (fs::is_regular_file(fs::symlink_status(p, ec))) set_mode(p, 0600);
    }
}

bool is_loopback(const std::string& host) {
    return host == "127.0.0.1" || host == "localhost" || host == "::1" || host.rfind("127.", 0) == 0;
}

}  // namespace

int main(int argc, char** argv) {
    sandbox::Config config = parse_args(argc, argv);

    // SIGINT/SIGTERM: taken by serve_until_signal (blocked in every thread from here on).
    paywasm::server::block_stop_signals();
    paywasm::server::set_server_name("paywasm-sandbox");

    // Files the sandbox creates (database, WAL, keys) are private to its user from the start.
    ::umask(0077);

    bool temporary = config.data_dir.empty();
    bool made_dir = false;
    std::string data_dir = config.data_dir;
    try {
        if (temporary) {
            std::string tmpl = (std::filesystem::temp_directory_path() / "paywasm-sandbox-XXXXXX").string();
            if (!mkdtemp(tmpl.data())) throw std::runtime_error("cannot create a temporary directory");
            data_dir = tmpl;
        } else {
            made_dir = std::filesystem::create_directories(data_dir);
        }
        lock_down(data_dir, made_dir || temporary);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "paywasm-sandbox: data directory %s: %s\n", paywasm::escape_untrusted(data_dir, 300).c_str(), paywasm::escape_untrusted(e.what(), 500).c_str());
        return 1;
    }

    int exit_code = 0;
    try {
        sandbox::Sandbox sb(config, data_dir);
        lock_down(data_dir, false);  // the database and keys it just made or opened
        paywasm::server::Router server;
        server.set_pre_routing_handler([&config](const sandbox::Request& req, sandbox::Response& res) {
            // The control API answers loopback Host names only: a
            // page on another site that rebinds its DNS name to 127.0.0.1 sends its own Host.
            if (req.path.rfind("/__sandbox/", 0) == 0 || req.path == "/__sandbox") {
                if (!sandbox::is_loopback_host_header(req.get_header_value("Host"))) {
                    sandbox::send_error(res, 403, "forbidden_host",
                                        "the control API answers only Host localhost, 127.0.0.1 or [::1] (any port)");
                    return true;
                }
                if (!config.control_token.empty() &&
                    !paywasm::constant_time_equal(sandbox::bearer_token(req), config.control_token)) {
                    res.set_header("WWW-Authenticate", "Bearer realm=\"paywasm-sandbox control\"");
                    sandbox::send_error(res, 401, "unauthorized",
                                        "the control API needs Authorization: Bearer <--control-token>");
                    return true;
                }
            }
            return false;
        });
        // The API is public (bearer tokens, no cookies): any origin may call it. The control API
        // stays same-origin.
        server.set_post_routing_handler([](const sandbox::Request& req, sandbox::Response& res) {
            if (req.path.rfind("/api/", 0) == 0) {
                res.set_header("Access-Control-Allow-Origin", "*");
                res.set_header("Access-Control-Expose-Headers", "Idempotent-Replayed");
                if (res.status == 401 && req.path.rfind("/api/subscription/", 0) != 0) {
                    res.set_header("WWW-Authenticate", "Bearer realm=\"paywasm-sandbox\"");
                }
            }
        });
        server.set_error_handler([](const sandbox::Request&, sandbox::Response& res) {
            sandbox::send_error(res, res.status, "http_error", "HTTP " + std::to_string(res.status));
        });

        sandbox::register_api(server, sb);
        sandbox::register_control(server, sb);
        sandbox::register_site(server, sb);

        paywasm::server::ServerOptions options;
        options.host = config.host;
        options.port = config.port;
        options.max_body = config.max_body;
        // An idle kept-alive connection is closed after 1 s (as the faults suite expects: a payment
        // after 1.5 s idle goes out on a fresh connection).
        options.idle_timeout = std::chrono::seconds(1);
        options.header_timeout = std::chrono::seconds(10);
        options.body_timeout = std::chrono::seconds(10);
        options.write_timeout = std::chrono::seconds(10);
        options.max_connections = 4096;
        options.access_log = !config.quiet;
        paywasm::server::Server http(options, server);
        const int port = http.port();
        sb.port = port;
        if (!is_loopback(config.host)) {
            std::fprintf(stderr, "paywasm-sandbox: WARNING: listening on %s; the control API %s\n", config.host.c_str(),
                         config.control_token.empty() ? "has no authentication (set --control-token)"
                                                      : "needs the --control-token");
        }

        // The status clock and the webhook outbox run beside the server.
        std::mutex clock_mutex;
        std::condition_variable clock_cv;
        bool stopping = false;
        std::thread clock([&] {
            std::unique_lock<std::mutex> lk(clock_mutex);
            while (!stopping) {
                lk.unlock();
                try {
                    sb.ledger.tick();
                } catch (const std::exception& e) {
                    std::fprintf(stderr, "paywasm-sandbox: status clock: %s\n", paywasm::escape_untrusted(e.what(), 500).c_str());
                }
                lk.lock();
                clock_cv.wait_for(lk, std::chrono::milliseconds(100), [&] { return stopping; });
            }
        });
        sb.webhooks.start();

        std::printf("paywasm-sandbox: listening on %s (data: %s%s)\n", paywasm::server::http_origin(config.host, port).c_str(),
                    data_dir.c_str(), temporary ? ", temporary" : "");
        std::fflush(stdout);
        paywasm::server::serve_until_signal(http);

        // Stopped (by a signal): let the background threads finish their step.
        {
            std::lock_guard<std::mutex> lk(clock_mutex);
            stopping = true;
        }
        clock_cv.notify_all();
        clock.join();
        sb.webhooks.stop();
        std::fprintf(stderr, "paywasm-sandbox: stopped\n");
    } catch (const std::exception& e) {
        std::fprintf(stderr, "paywasm-sandbox: %s\n", paywasm::escape_untrusted(e.what(), 500).c_str());
        exit_code = 1;
    }
    if (temporary) {
        std::error_code ec;
        std::filesystem::remove_all(data_dir, ec);
    }
    return exit_code;
}
