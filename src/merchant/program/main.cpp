// paywasm-merchant — the merchant's gateway (docs/merchant.md). Its settings: settings.hpp (options,
// environment, configuration file); its subcommands init, config check, console-user
// (commands.hpp). The first line on stdout is
// "paywasm-merchant: listening on http://HOST:PORT" once it accepts connections.
#include <malloc.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <regex>
#include <thread>

#include "client/url.hpp"
#include "console/console.hpp"
#include "gateway/console_auth.hpp"
#include "console/console_http.hpp"
#include "gateway/gateway.hpp"
#include "api/api.hpp"
#include "api/health.hpp"
#include "hosted/hosted.hpp"
#include "program/commands.hpp"
#include "options/options.hpp"
#include "program/settings.hpp"
#include "paywasm/error.hpp"
#include "server/client_address.hpp"
#include "server/server.hpp"
#include "server/signals.hpp"
#include "paywasm/text.hpp"

namespace {

[[noreturn]] void usage_error(const std::string& message) {
    std::fprintf(stderr, "paywasm-merchant: %s\n\n%s", message.c_str(), merchant::gateway_usage());
    std::exit(2);
}

// The settings (settings.hpp), or the usage text and exit 2 for a bad one; --help: the text, exit 0.
merchant::Settings settings_or_exit(const std::vector<std::string>& args, const std::string& default_config) {
    try {
        merchant::Settings s = merchant::read_settings(args, default_config);
        if (s.help) {
            std::fputs(merchant::gateway_usage(), stdout);
            std::exit(0);
        }
        return s;
    } catch (const paywasm::Error& e) {
        usage_error(e.what());
    }
}

}  // namespace

int main(int argc, char** argv) {
    // glibc gives each thread that allocates an arena of its own, up to 8 per core: the 16 workers
    // and the stream threads held ~450 KB each (7 MB of 26 MB at start, measured with
    // /proc/PID/smaps, issue 42). Two arenas: the event loop and the workers take turns in them.
    mallopt(M_ARENA_MAX, 2);
    // And it keeps up to 8 MB free at the top of a heap instead of giving it back (brk, madvise) and
    // faulting it in again: 0.8 brk and 0.5 madvise calls per webhook before (strace, 300/s).
    mallopt(M_TRIM_THRESHOLD, 8 << 20);
    // SIGINT/SIGTERM: taken by serve_until_signal (blocked in every thread from here on).
    paywasm::server::block_stop_signals(/*hangup=*/true);
    const std::vector<std::string> args(argv + 1, argv + argc);
    if (!args.empty() && args[0] == "console-user") return merchant::console_user_command(argc - 2, argv + 2);
    if (!args.empty() && args[0] == "init") return merchant::init_command({args.begin() + 1, args.end()});
    if (!args.empty() && args[0] == "config") {
        if (args.size() < 2 || args[1] != "check") usage_error("config takes one command: check");
        merchant::print_settings(settings_or_exit({args.begin() + 2, args.end()}, merchant::kDefaultConfigPath), stdout);
        return 0;
    }
    merchant::Config config = settings_or_exit(args, "").config;
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
        } else {
            // Off: their URLs say so and how to turn them on, instead of a bare 404.
            const auto off = [](const paywasm::server::Request&, paywasm::server::Response& res, const std::string&) {
                paywasm::server::send_error(res, 404, "hosted_pages_off",
                    "the hosted checkout and payment links are off: start paywasm-merchant with --widget-dir DIR "
                    "(the widget's built files; /usr/share/paywasm/widget from the package)");
            };
            for (const char* method : {"GET", "HEAD", "POST", "PATCH"}) {
                for (const char* pattern : {"/v1/links", R"(/v1/links/.*)", R"(/l/.*)", R"(/pay/.*)"}) {
                    server.route(method, pattern, config.max_body, off);
                }
            }
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
        gw.start_mailer();
        gw.start_pruner();
        std::printf("paywasm-merchant: listening on %s\n", paywasm::server::http_origin(config.host, http.port()).c_str());
        if (console) {
            std::printf("paywasm-merchant: console on %s\n",
                        paywasm::server::http_origin(config.console_host, console->port()).c_str());
            console_thread = std::thread([&] { console->run(); });
        }
        std::fflush(stdout);
        paywasm::server::serve_until_signal(
            http,
            [&] {
                gw.hub.shutdown();
                if (console) console->drain();
            },
            [] {
                // Nothing is reloaded (docs/merchant.md "Configuration"): every part reads the
                // settings without a lock, and what a merchant changes (keys, secrets, URLs,
                // origins, listeners, database) must never be half applied. A restart drains and
                // loses nothing; SIGHUP no longer ends the gateway by surprise.
                std::fprintf(stderr, "paywasm-merchant: SIGHUP: the configuration is read at start only; restart to apply a change\n");
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
